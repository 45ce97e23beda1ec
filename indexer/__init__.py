"""deepread's indexing library: parse, structure, store, search. Knows nothing of MCP.

Entry point: `indexer.library.Library` with `toc()`, `retrieve()`, `read_section()`.
"""
