"""Retrieval quality on the sets with questions, and the benchmarks that reuse their questions, scoring or
kept indexes.

`python -m benchmarks.retrieval` (`__main__`) runs the retrieval benchmark out of its parts: `sets`
(the questions and their golds), `rankers` (deepread's retrieve read as an agent reads it, and the
flat-chunk baseline), `metrics` (the scoring), `runs` (the configurations and their runs), `report`
(`retrieval.md`, `.json`, `.png`) and `shared` (their constants and the token-bag matcher).
Beside it, each run as `python -m benchmarks.retrieval.<name>`: `fusion` (fusion weights on kept
indexes), `function_words` (keyword search with and without a query's function words), `pointing`
(which documents whole-folder questions point to), `statements` (a direct query for a filing's
statements) and `images` (whether an image of a gold page comes back).
"""
