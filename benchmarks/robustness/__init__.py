"""The index under strain, each run as `python -m benchmarks.robustness.<name>`: `hostile` (time and
peak memory on hostile input), `recovery` (a damaged index until every document is found again) and
`shared_index` (one index, two processes, and the takeover after a SIGKILL).
"""
