"""The one list of what graphmem can do, and where each operation is offered.

Every operation is a method of :class:`~graphmem.client.Memory` and, awaited, of
:class:`~graphmem.async_client.AsyncMemory`; each other surface (the CLI, the REST server, the
MCP server, the agent framework adapters of ``graphmem.integrations``, the TypeScript client of
``clients/typescript``) either offers it under
the name given here or says why it does not. ``tests/integration/test_operations.py`` holds
every surface to this list, so an operation added to ``Memory`` and forgotten elsewhere fails
the suite until it is offered there or its absence is explained.
"""

from __future__ import annotations

from dataclasses import dataclass, field

SURFACES = ("cli", "rest", "mcp", "agents", "typescript")
# why a file path, or a whole-space rebuild, is not offered to a remote caller
_SERVER_FILES = ("it reads or writes a file on the server's own disk; a remote caller sends "
                 "live messages (add_messages) instead, and operators run the CLI there")
# the agent framework adapters (graphmem.integrations) all reach graphmem through AgentMemory,
# bound to one space and conversation; each adapter's OFFERS says which of these its
# framework's interface carries
_BOUND = ("an agent's memory is bound to one space (its tenant); the application lists and "
          "picks spaces with Memory")
# the TypeScript client is a client of the REST server
_NO_REST = "the TypeScript client speaks to the REST server, which does not offer it"
_OPERATOR = ("it recomputes whole spaces for minutes: an operator's command, not a request; "
             "live messages are derived in the background")
# parameters that are the same thing said another way on a surface
_JSON = {"as_json": "prints JSON instead of text"}
_YES = {"yes": "skips the question before an irreversible change"}
_ONE_SPACE = ("an MCP server may serve one space, which is then the default (the other "
              "surfaces name it always)")
_IN_PATH = {"conversation": "the body route's conversation (a key may hold '/', which no path "
                            "segment carries); the path route takes it in the path"}
_SERVER_LAYERS = ("a remote caller's messages get the server's layers "
                  "(GRAPHMEM_INGEST_LAYERS): who calls does not choose what is derived")
_BUDGET = "the CLI's --budget is the same number; max_tokens is its other name in the APIs"
_TODAY = ("replays an evaluation question's own date; a live caller's today is the day it asks")


@dataclass(frozen=True)
class Operation:
    """One operation: the ``Memory`` method, and its name on each surface (a CLI command
    path, a REST ``METHOD /path`` as the OpenAPI schema names it, an MCP tool, a member of
    :class:`~graphmem.integrations.core.AgentMemory` for the framework adapters), or in
    ``absent`` the reason it is not there."""

    name: str
    about: str
    cli: str | None = None
    rest: str | None = None
    mcp: str | None = None
    agents: str | None = None
    typescript: str | None = None  # a method of the TypeScript client (clients/typescript)
    # the same operation on another REST route (a conversation key in the query, where a
    # path segment cannot carry every key); a client may call either
    rest_also: str | None = None
    absent: dict[str, str] = field(default_factory=dict)
    # The method's parameters on the CLI, REST and MCP (``tests/integration/test_operations``
    # reads each surface's own schema): each under its Python name and with its Python
    # default, except as said here. ``named``: the name every other surface uses;
    # ``named_on``: a surface's own name; ``unoffered``: why a parameter is on no other
    # surface; ``unoffered_on``: why not on one; ``only_on``: what a surface's own
    # parameter is for; ``defaults_on``: why a surface's default differs.
    named: dict[str, str] = field(default_factory=dict)
    named_on: dict[str, dict[str, str]] = field(default_factory=dict)
    unoffered: dict[str, str] = field(default_factory=dict)
    unoffered_on: dict[str, dict[str, str]] = field(default_factory=dict)
    only_on: dict[str, dict[str, str]] = field(default_factory=dict)
    defaults_on: dict[str, dict[str, str]] = field(default_factory=dict)

    def on(self, surface: str) -> str | None:
        return getattr(self, surface)  # type: ignore[no-any-return]

    def name_on(self, surface: str, parameter: str) -> str:
        """What ``surface`` calls the method's ``parameter``."""
        return self.named_on.get(surface, {}).get(parameter, self.named.get(parameter,
                                                                             parameter))

    def why_not_on(self, surface: str, parameter: str) -> str | None:
        return self.unoffered_on.get(surface, {}).get(parameter,
                                                      self.unoffered.get(parameter))


OPERATIONS: tuple[Operation, ...] = (
    Operation("ingest", "store conversations from a file or records, deriving every layer",
              cli="ingest", absent={"rest": _SERVER_FILES, "mcp": _SERVER_FILES,
                                    "agents": _SERVER_FILES, "typescript": _NO_REST},
              named_on={"cli": {"source": "file", "format": "fmt",
                                "bad_turns": "skip_empty_turns"}},
              defaults_on={"cli": {"skip_empty_turns": "a flag: given, bad_turns is 'skip'; "
                                   "left out, 'error'"}}),
    Operation("add_messages", "store messages as they happen (idempotent by message id)",
              rest="POST /v1/spaces/{space}/messages", mcp="add_messages", agents="add",
              typescript="addMessages",
              absent={"cli": "a shell stores conversations with `graphmem ingest` (JSON lines "
                      "included); live messages come from running agents"},
              unoffered_on={"rest": {"layers": _SERVER_LAYERS},
                            "mcp": {"layers": _SERVER_LAYERS}},
              defaults_on={"rest": _IN_PATH, "mcp": {"conversation": (
                  "an agent's messages go to the conversation 'default' unless it names one")}}),
    Operation("refresh", "finish the derivations live messages left pending",
              cli="refresh", rest="POST /v1/spaces/{space}/refresh", typescript="refresh",
              absent={s: "derivations finish in the background; an agent need not wait"
                      for s in ("mcp", "agents")},
              unoffered_on={"rest": {"conversation": "a remote caller finishes every conversation "
                                             "of its space that waits"}}),
    Operation("add_layers", "derive a layer for the conversations a space already holds",
              cli="layers add", absent={"rest": _OPERATOR, "mcp": _OPERATOR,
                                        "agents": _OPERATOR, "typescript": _NO_REST},
              named_on={"cli": {"layers": "names"}}),
    Operation("search", "the evidence that answers a question, packed within a token budget",
              cli="search", rest="POST /v1/spaces/{space}/search", mcp="search_memory",
              agents="search", typescript="search",
              unoffered_on={"cli": {"max_tokens": _BUDGET, "marked": (
                  "the CLI prints the context for a person, not wrapped for a prompt")}},
              only_on={"cli": {**_JSON, "sources": "prints the source turns of each hit"}}),
    Operation("answer", "an answer from the retrieved context (an LLM, else the context)",
              cli="answer", rest="POST /v1/spaces/{space}/answer", mcp="answer_question",
              typescript="answer",
              absent={"agents": "the agent's own model answers from the context it recalls"},
              unoffered={"today": _TODAY}, unoffered_on={"cli": {"max_tokens": _BUDGET}}),
    Operation("spaces", "the spaces and what they hold", cli="spaces", rest="GET /v1/spaces",
              mcp="list_spaces", typescript="spaces", absent={"agents": _BOUND},
              only_on={"cli": _JSON}),
    Operation("has_space", "whether a space holds anything",
              absent={s: "`spaces` answers it" for s in SURFACES}),
    Operation("conversations", "a space's conversations", cli="show",
              rest="GET /v1/spaces/{space}/conversations", mcp="list_conversations",
              typescript="conversations", absent={"agents": _BOUND},
              only_on={"cli": {**_JSON, **{p: "`show --conversation` lists that conversation's "
                                      "messages (the messages operation)"
                                   for p in ("conversation", "since", "limit", "newest_first",
                                             "cursor")}}}),
    Operation("messages", "a conversation's stored messages, a page at a time", cli="show",
              rest="GET /v1/spaces/{space}/conversations/{conversation}/messages",
              rest_also="GET /v1/spaces/{space}/messages", mcp="list_messages",
              agents="messages", typescript="messages",
              only_on={"cli": _JSON},
              defaults_on={"cli": {"conversation": "`show` without one lists the conversations "
                                   "(the conversations operation)"}}),
    Operation("unit", "one stored unit (a turn, EDU, event, ...) with its source turns",
              rest="GET /v1/spaces/{space}/units/{unit_id}", typescript="unit", mcp="get_unit",
              absent={"cli": "a unit's id comes from a search hit, and `graphmem search "
                      "--json` prints the hit's text and source turns",
                      "agents": "a search hit carries its text and source turns already"},
              named_on={"rest": {"id": "unit_id"}}),
    Operation("history", "what changed in a space, newest first", cli="history",
              rest="GET /v1/spaces/{space}/history", typescript="history",
              absent={s: "an operator's audit trail, not an agent's tool"
                      for s in ("mcp", "agents")},
              only_on={"cli": _JSON}),
    Operation("forget", "forget messages, sessions or a conversation, everywhere",
              cli="forget", rest="POST /v1/spaces/{space}/forget", mcp="forget_memory",
              agents="forget", typescript="forget",
              named={"turns": "messages"},
              unoffered={"reuse_ids": "a remote caller's forget sticks (its ids stay refused); "
                         "an application that reuses its keys calls Memory.forget"},
              only_on={"mcp": {"memory_ids": "forgets the messages search hits name, in any "
                               "conversation (the agent's view of its memory)"}, "cli": _YES},
              defaults_on={"rest": _IN_PATH, "mcp": {"conversation": (
                  "not needed when memory_ids name the messages")}}),
    Operation("correct", "replace what a stored message says and derive it again",
              cli="correct", rest="POST /v1/spaces/{space}/corrections", mcp="correct_message",
              typescript="correct",
              absent={"agents": "a framework's memory interface has no edit; LangGraph's "
                      "store corrects through put, and Memory.correct does it directly"},
              named_on={"cli": {"keep_old": "drop_old"}},
              defaults_on={"cli": {"drop_old": "the flag says the opposite: given, the old text "
                                   "is not kept"}}),
    Operation("delete_space", "remove a space and everything in it", cli="delete",
              rest="DELETE /v1/spaces/{space}", typescript="deleteSpace", mcp="delete_space",
              absent={"agents": "an agent clears its own conversation (AgentMemory.clear); "
                      "removing a whole tenant is the application's call"},
              only_on={"cli": _YES}),
    Operation("reembed", "compute every stored vector again with the configured embedder, "
              "deriving nothing again", cli="reembed",
              absent={"typescript": _NO_REST,
                      "rest": _OPERATOR, "mcp": _OPERATOR, "agents": _OPERATOR},
              named_on={"cli": {"spaces": "chosen"}},
              unoffered={"after_batch": "a Python callback, called after each batch"},
              only_on={"cli": {"every": "every space, instead of naming them"}}),
    Operation("export_space", "back a space up to a file", cli="export",
              absent={"typescript": _NO_REST,
                      "rest": _SERVER_FILES, "mcp": _SERVER_FILES, "agents": _SERVER_FILES},
              named_on={"cli": {"path": "out"}}),
    Operation("import_space", "restore a space from a backup file", cli="import",
              absent={"typescript": _NO_REST,
                      "rest": _SERVER_FILES, "mcp": _SERVER_FILES, "agents": _SERVER_FILES},
              named_on={"cli": {"path": "file"}}),
)

# public members of Memory that are not operations on stored memory: the client's own life
# cycle and bookkeeping (AsyncMemory has each of them too, awaited where they do work)
CLIENT_MEMBERS: dict[str, str] = {
    "close": "releases the driver and worker threads",
    "warm_up": "loads the models before the first request",
    "ensure_schema": "creates constraints and indexes (`graphmem schema apply`)",
    "flush": "waits for background derivations (tests and scripts)",
    "ingest_spaces": "ingest into many spaces at once, in worker processes (evaluation)",
    "llm": "the configured LLM client, or None",
    "llm_usage": "tokens the LLM used, by step",
}


def operation(name: str) -> Operation:
    for op in OPERATIONS:
        if op.name == name:
            return op
    raise KeyError(name)
