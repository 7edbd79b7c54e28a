"""graphmem for agents over the network: an MCP server (``graphmem mcp``), scoped to the
memory spaces it is started for."""
