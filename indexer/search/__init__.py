"""Stage 6, search: ranking paragraphs over the store, and `retrieve`'s answer.

`hybrid` (dense + BM25 fused by rank), `named` (the section a query names), `rerank` (an
optional cross-encoder), `retrieve` (hits with neighbours, packed into the token budget).
Imports: the shared modules, `parse`, `titles`, `structure` and `store`.
"""
