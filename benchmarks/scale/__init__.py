"""Retrieve and get_toc latency at up to 1,000,000 paragraphs, and start-up over 10,000 files.

`python -m benchmarks.scale` (`__main__`: options, main) builds the synthetic collection
(`collection`), times it (`measure`) and writes the report (`report`).
"""
