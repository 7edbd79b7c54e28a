"""graphmem's errors cross a process boundary unchanged (a search process raises them, the REST
server answers with them): every class, with its message, attributes and notes."""

from __future__ import annotations

import pickle

from graphmem import errors


def test_every_error_survives_pickling() -> None:
    made: list[errors.GraphmemError] = [
        errors.InputError("the question is empty", field="question", record="r7"),
        errors.MissingLayerError("strategy emem needs the edus layer", layer="edus"),
        errors.MixedModelsError("alice", "hash", "all-MiniLM-L6-v2"),
        errors.BusyError("the space stayed busy"),
        errors.UnknownStrategyError("unknown strategy 'x'"),
        errors.DatabaseUnavailable("Neo4j is not answering")]
    for error in made:
        error.add_note("while searching space alice")
        back = pickle.loads(pickle.dumps(error))
        assert type(back) is type(error)
        assert str(back) == str(error) and back.args == error.args
        assert vars(back) == vars(error)  # field, layer, held, configured, the notes
    assert pickle.loads(pickle.dumps(made[0])).field == "question"
    assert pickle.loads(pickle.dumps(made[1])).layer == "edus"
