"""Stage 3, store: what a reader sees, kept on disk.

`database` (SQLite: documents, sections, paragraphs, BM25 over FTS5; `migrations` its schema
as named steps, `lexical` BM25 as FTS5 computes it), `vectors` (Chroma and an exact SQLite
copy for scoped queries) and `embedder` (the offline model that makes them).
Imports: the shared modules, `indexer.parse` and `indexer.structure`.
"""
