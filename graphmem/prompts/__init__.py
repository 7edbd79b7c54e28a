"""One module per LLM task: its prompt builder and its pydantic output model."""

from __future__ import annotations

from collections.abc import Sequence


def numbered(system: str, question: str, heading: str,
             items: Sequence[str]) -> list[dict[str, str]]:
    """A task that reads numbered items for a question: the system text, then the question
    and ``[i] item`` lines under ``heading`` (the numbers the reply names)."""
    listed = "\n".join(f"[{i}] {text}" for i, text in enumerate(items))
    user = f"Question: {question}\n\n{heading}:\n{listed}"
    return [{"role": "system", "content": system}, {"role": "user", "content": user}]
