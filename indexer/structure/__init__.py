"""Stage 3, structure: blocks → sections and paragraphs with coordinates, and passages.

`sections` builds the tree (`sec_id`, `para_idx`, sane levels, a root); `tables` keeps a table
whole or in blocks of rows; `passages` packs paragraphs into the embedding model's window and
names each vector by its text. Imports: the shared modules, `indexer.parse` and `indexer.titles`
(which names each document built).
"""
