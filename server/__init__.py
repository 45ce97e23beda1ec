"""deepread-mcp: the MCP server, its CLI and transports over the `indexer` library."""

__version__ = "0.1.0"
