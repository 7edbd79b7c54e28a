"""One module per LLM task: its prompt builder and its pydantic output model."""
