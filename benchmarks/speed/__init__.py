"""How soon and how fast the index answers. `python -m benchmarks.speed` (`__main__`): cold index,
restart and `retrieve` latency on one Markdown tree. Beside it, each run as
`python -m benchmarks.speed.<name>`: `live` (save → searchable, a restart over 1,000 unchanged
files), `throughput` (time until the first document is readable, all are, all are embedded) and
`cli` (the query commands' wall and CPU time on an indexed folder).
"""
