"""The benchmark suite: packages by subject (`retrieval`, `scale`, `titles`, `toc`, `parsing`, `speed`,
`vectors`, `robustness`), each benchmark run as `python -m benchmarks.<name>` and writing its results
to a file of `benchmarks/results/` named by what it measures; `common` holds what they share (paths,
the commit stamp, peak memory, results files and the common options). README.md lists them.
"""
