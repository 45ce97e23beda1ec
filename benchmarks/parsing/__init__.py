"""Parsing real documents. `python -m benchmarks.parsing` (`__main__`): speed, failures and gold pages
cited, per set. Beside it, each run as `python -m benchmarks.parsing.<name>`: `loaded` (clock against
CPU time of a parse on a busy machine), `remote` (parsing through a MinerU server), `heavy_page` (what
one heavy page costs a parse), `hygiene` (mojibake, private-use glyphs, escapes and sheet tokens in
what is stored) and `junk` (the junk test on real paragraphs and on generated junk).
"""
