"""The map (`get_toc`) on real PDFs, each run as `python -m benchmarks.toc.<name>`: `map` (tokens and
sections in one default answer per PDF, and the first call over a folder), `structure_check` (the
printed Items and statements of the filings found as sections) and `outline` (the map against each
PDF's own bookmarks).
"""
