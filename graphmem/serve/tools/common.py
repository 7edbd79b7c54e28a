"""What the MCP tool groups share."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.server.mcpserver.exceptions import ToolError

from graphmem.errors import GraphmemError
from graphmem.serve.access import Spaces, caller_id
from graphmem.telemetry import acting

Allowed = Callable[[], Spaces]  # the spaces the calling request may use


def guard(call: Callable[[], Any]) -> Any:
    """graphmem's own errors become tool errors the model can read; others propagate. What
    the call changes is recorded as the MCP surface's, by the request's token if any."""
    token = get_access_token()
    try:
        with acting("mcp", caller_id(token.token) if token is not None else None):
            return call()
    except GraphmemError as exc:
        raise ToolError(str(exc)) from exc
