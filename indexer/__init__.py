"""deepread's indexing library: a folder of documents made readable by coordinates. Knows nothing of MCP.

Entry point: `indexer.library.Library` with `toc()`, `retrieve()`, `read_section()`, `view_page()`,
`status()`, and the indexing it is asked for (`reconcile()`, `follower()`).

The sub-packages are the stages a document passes through, and imports run one way
(checked by `tests/test_layout.py`):

    parse      a file → blocks (text, tables, pictures, headings guessed and repaired)
    titles     what to call a document, and what tells it from its neighbours
    structure  blocks → sections, paragraphs with coordinates, passages to embed
    store      SQLite (structure, BM25), vectors in Chroma with their SQLite copy, the embedder
    ingest     the folder: which files, what changed, parse lanes, a file's new version carried
               through parse → structure → store, and the vectors' catch-up
    search     hybrid ranking over the store, and `retrieve`'s answer
    answers    the map (`get_toc`) and reading (`read_section`, page images)
    service    an index opened by one process: writer or reader, taking over, following the
               folders in the background, repairs, a pause on a full disk, its status

A stage imports only the shared modules here (`models`, `errors`, `tokens`, `languages`) and the stages
listed above it, except that `search` and `answers` never need `ingest`. Only the facade
(`library`) imports the service.
"""
