"""Stage 4, store: what a reader sees, kept on disk.

`database` (SQLite: documents, sections, paragraphs, BM25 over FTS5; `migrations` its schema
as named steps, `lexical` BM25 as FTS5 computes it), `vectors` (Chroma, with `vector_copy`, an
exact SQLite copy for scoped queries) and `embedder` (the offline model that makes them).
`upgrades`: what a writer makes again at open when the model, the packing or the structure
changed. The index is a cache of the folder, so damage never stops it: `connection` says every
SQLite error in the index's terms, `health` tells a damaged file, `repair` sets it aside and
makes it again, `space` tells a failure to write (a full disk) in one line.
Imports: the shared modules, `indexer.parse`, `indexer.titles` and `indexer.structure`.
"""
