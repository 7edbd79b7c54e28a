"""The one way an LLM step runs (ask, validate, accept, fall back, count), checked with the
in-process scripted model."""

from __future__ import annotations

import pytest
from pydantic import BaseModel

from graphmem.providers.llm import LLMError
from graphmem.providers.llm_step import LLMStep, keep
from graphmem.testing import ScriptedLLM


class Pick(BaseModel):
    choice: int


STEP = LLMStep("pick", Pick)


def ask() -> list[dict[str, str]]:
    return [{"role": "user", "content": "pick one"}]


def test_an_accepted_reply_is_used_and_nothing_falls_back() -> None:
    llm = ScriptedLLM({"pick": [{"choice": 2}]})
    notes: list[str] = []
    assert STEP.run(llm, ask, accept=lambda r: r.choice * 10, fallback=lambda: -1,
                    notes=notes) == 20
    assert notes == [] and llm.usage()["pick"].calls == 1
    assert llm.usage()["pick"].fallbacks == 0
    sent = llm.calls_for("pick")[0].messages
    assert sent[0]["content"] == "pick one" and '"choice": <integer>' in sent[-1]["content"]


@pytest.mark.parametrize("reply", ["not JSON", {"choice": "many"}, LLMError("pick", "timeout")])
def test_an_unusable_reply_falls_back_and_is_counted(reply: object) -> None:
    llm = ScriptedLLM({"pick": [reply]})
    notes: list[str] = []
    assert STEP.run(llm, ask, accept=keep, fallback=lambda: "rules", notes=notes,
                    where="item 7") == "rules"
    usage = llm.usage()["pick"]
    assert (usage.calls, usage.failures, usage.fallbacks) == (1, 1, 1)
    assert len(notes) == 1 and notes[0].startswith("item 7: LLM task 'pick' failed")


def test_a_reply_the_caller_rejects_falls_back_too() -> None:
    llm = ScriptedLLM({"pick": [{"choice": 99}]})

    def accept(reply: Pick) -> int:
        if reply.choice > 3:
            raise ValueError("there are only three")
        return reply.choice

    notes: list[str] = []
    assert STEP.run(llm, ask, accept=accept, fallback=lambda: 0, notes=notes) == 0
    assert notes == ["there are only three"] and llm.usage()["pick"].fallbacks == 1
    assert llm.usage()["pick"].failures == 0  # the model answered; the answer was not usable


def test_without_a_model_the_rules_run_and_nothing_is_asked() -> None:
    asked: list[bool] = []

    def messages() -> list[dict[str, str]]:
        asked.append(True)
        return ask()

    assert STEP.run(None, messages, accept=keep, fallback=lambda: "rules") == "rules"
    assert asked == []


def test_a_batch_returns_none_for_the_items_that_fell_back() -> None:
    llm = ScriptedLLM({"pick": [{"choice": 1}, "garbage", {"choice": 3}]})
    notes: list[str] = []
    out = STEP.run_batch(llm, [ask(), ask(), ask()], accept=lambda r: r.choice, notes=notes,
                         where=lambda i: f"cut {i}")
    assert out == [1, None, 3] and len(notes) == 1 and notes[0].startswith("cut 1:")
    assert llm.usage()["pick"].fallbacks == 1


def test_the_scripted_model_answers_per_task_and_runs_dry() -> None:
    llm = ScriptedLLM({"a": [{"choice": 1}]})
    llm.script("b", lambda messages: {"choice": len(messages)})
    assert llm.structured("b", ask(), Pick).choice == 2  # the request plus the reply shape
    assert llm.structured("a", ask(), Pick).choice == 1
    with pytest.raises(LLMError, match="no scripted reply"):
        llm.structured("a", ask(), Pick)
    assert [c.task for c in llm.calls] == ["b", "a", "a"]
