from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from graphmem import cypher
from graphmem.ingest.layer import Job, Layer, LayerOptions, LayerResult
from graphmem.ingest.layers import register
from graphmem.models import Hit
from graphmem.retrieve.base import RetrievalContext, SpaceState, Strategy
from graphmem.retrieve.fused import Source, register_source
from graphmem.retrieve.registry import Recipe
from graphmem.retrieve.registry import register as register_recipe
from graphmem.text import native_datetime, render_turn

cypher.add_folder(Path(__file__).parent / "cypher")


class QuestionOptions(LayerOptions):
    mark: str = "?"  # GRAPHMEM_QUESTIONS_MARK: what a turn that asks something holds


class QuestionLayer(Layer[list[dict[str, Any]]]):
    name = "questions"
    needs = ("turns",)
    writes = ("questions/merge_questions",)
    prunes = ("questions/prune_questions",)
    # its part of the graph, declared as graphmem's own layers declare theirs: the label with
    # what its nodes always hold (each links to its turns by FROM_TURN unless listed in
    # `unsourced`), and the relationships; a backup of a space restores what is declared
    owns: ClassVar = {"Question": ("text", "session_id")}
    joins: ClassVar = {"ANSWERED_BY": (("Question", "Turn"),)}
    options_model = QuestionOptions

    def prepare(self, job: Job) -> list[dict[str, Any]]:
        mark = self.read_options(self.context.settings).mark
        turn_ids = job.handoff("turns").by_source
        rows = []
        for session, session_id in zip(job.conversation.sessions, job.session_ids, strict=True):
            turns = list(session.turns)
            for turn, reply in zip(turns, [*turns[1:], None], strict=True):
                if mark not in turn.text:
                    continue
                answer = reply if reply and reply.speaker != turn.speaker else None
                rows.append({"id": f"{turn_ids[turn.source_id]}/question", "text": turn.text,
                             "session_id": session_id, "turn_id": turn_ids[turn.source_id],
                             "answer_id": turn_ids[answer.source_id] if answer else None})
        return rows

    def write(self, tx: Any, job: Job, payload: list[dict[str, Any]]) -> None:
        tx.run("questions/prune_questions", space=job.space, session_ids=job.session_ids,
               keep=[row["id"] for row in payload])
        self.write_rows(tx, "questions/merge_questions", "rows", payload, space=job.space)

    def result(self, payload: list[dict[str, Any]]) -> LayerResult:
        return LayerResult({"questions": len(payload)})


@dataclass(frozen=True)
class AskedConfig:
    k: int = 5


class AskedSearch(Strategy[AskedConfig]):
    needs = ("turns", "questions")
    config_type = AskedConfig

    def retrieve(self, ctx: RetrievalContext, state: SpaceState, budget: int) -> list[Hit]:
        rows = ctx.store.read("questions/asked", space=state.space,
                              embedding=ctx.query.embedding, k=self.config.k)
        hits = []
        for row in rows:
            day = native_datetime(row["started_at"])
            lines = [render_turn(row["asker"], row["question"], day)]
            if row["answer"] is not None:
                lines.append(render_turn(row["answerer"], row["answer"], None))
            hits.append(Hit(id=row["id"], kind="chunk", score=row["score"],
                            text="\n".join(lines), source_turn_ids=row["turn_ids"],
                            session_id=row["session_id"], started_at=day))
        return hits


register(QuestionLayer)
register_recipe("asked", Recipe(AskedSearch, {}, "questions asked before, with their answers"))
# graphmem's own strategy may read the questions too, as one more candidate source: the same
# statement, its rows' turn_ids (the question and its answer) ranked by score; dense, so the
# client scores a small space's questions from vectors it holds (read by questions/vectors)
register_source(Source("questions", layer="questions", depth=10, statement="questions/asked",
                       dense=True, vectors="questions/vectors"))
