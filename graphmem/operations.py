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
    absent: dict[str, str] = field(default_factory=dict)

    def on(self, surface: str) -> str | None:
        return getattr(self, surface)  # type: ignore[no-any-return]


OPERATIONS: tuple[Operation, ...] = (
    Operation("ingest", "store conversations from a file or records, deriving every layer",
              cli="ingest", absent={"rest": _SERVER_FILES, "mcp": _SERVER_FILES,
                                    "agents": _SERVER_FILES, "typescript": _NO_REST}),
    Operation("add_messages", "store messages as they happen (idempotent by message id)",
              rest="POST /v1/spaces/{space}/messages", mcp="add_messages", agents="add",
              typescript="addMessages",
              absent={"cli": "a shell stores conversations with `graphmem ingest` (JSON lines "
                      "included); live messages come from running agents"}),
    Operation("refresh", "finish the derivations live messages left pending",
              cli="refresh", rest="POST /v1/spaces/{space}/refresh", typescript="refresh",
              absent={s: "derivations finish in the background; an agent need not wait"
                      for s in ("mcp", "agents")}),
    Operation("add_layers", "derive a layer for the conversations a space already holds",
              cli="layers add", absent={"rest": _OPERATOR, "mcp": _OPERATOR,
                                        "agents": _OPERATOR, "typescript": _NO_REST}),
    Operation("search", "the evidence that answers a question, packed within a token budget",
              cli="search", rest="POST /v1/spaces/{space}/search", mcp="search_memory",
              agents="search", typescript="search"),
    Operation("answer", "an answer from the retrieved context (an LLM, else the context)",
              cli="answer", rest="POST /v1/spaces/{space}/answer", mcp="answer_question",
              typescript="answer",
              absent={"agents": "the agent's own model answers from the context it recalls"}),
    Operation("spaces", "the spaces and what they hold", cli="spaces", rest="GET /v1/spaces",
              mcp="list_spaces", typescript="spaces", absent={"agents": _BOUND}),
    Operation("has_space", "whether a space holds anything",
              absent={s: "`spaces` answers it" for s in SURFACES}),
    Operation("conversations", "a space's conversations", cli="show",
              rest="GET /v1/spaces/{space}/conversations", mcp="list_conversations",
              typescript="conversations", absent={"agents": _BOUND}),
    Operation("messages", "a conversation's stored messages, a page at a time", cli="show",
              rest="GET /v1/spaces/{space}/conversations/{conversation}/messages",
              mcp="list_messages", agents="messages", typescript="messages"),
    Operation("unit", "one stored unit (a turn, EDU, event, ...) with its source turns",
              rest="GET /v1/spaces/{space}/units/{unit_id}", typescript="unit", mcp="get_unit",
              absent={"cli": "a unit's id comes from a search hit, and `graphmem search "
                      "--json` prints the hit's text and source turns",
                      "agents": "a search hit carries its text and source turns already"}),
    Operation("history", "what changed in a space, newest first", cli="history",
              rest="GET /v1/spaces/{space}/history", typescript="history",
              absent={s: "an operator's audit trail, not an agent's tool"
                      for s in ("mcp", "agents")}),
    Operation("forget", "forget messages, sessions or a conversation, everywhere",
              cli="forget", rest="POST /v1/spaces/{space}/forget", mcp="forget_memory",
              agents="forget", typescript="forget"),
    Operation("correct", "replace what a stored message says and derive it again",
              cli="correct", rest="POST /v1/spaces/{space}/corrections", mcp="correct_message",
              typescript="correct",
              absent={"agents": "a framework's memory interface has no edit; LangGraph's "
                      "store corrects through put, and Memory.correct does it directly"}),
    Operation("delete_space", "remove a space and everything in it", cli="delete",
              rest="DELETE /v1/spaces/{space}", typescript="deleteSpace", mcp="delete_space",
              absent={"agents": "an agent clears its own conversation (AgentMemory.clear); "
                      "removing a whole tenant is the application's call"}),
    Operation("reembed", "compute every stored vector again with the configured embedder, "
              "deriving nothing again", cli="reembed",
              absent={"typescript": _NO_REST,
                      "rest": _OPERATOR, "mcp": _OPERATOR, "agents": _OPERATOR}),
    Operation("export_space", "back a space up to a file", cli="export",
              absent={"typescript": _NO_REST,
                      "rest": _SERVER_FILES, "mcp": _SERVER_FILES, "agents": _SERVER_FILES}),
    Operation("import_space", "restore a space from a backup file", cli="import",
              absent={"typescript": _NO_REST,
                      "rest": _SERVER_FILES, "mcp": _SERVER_FILES, "agents": _SERVER_FILES}),
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
