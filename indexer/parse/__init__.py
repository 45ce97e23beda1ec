"""Stage 1, parse: a file → a `ParsedDocument`, a flat list of blocks in reading order.

`formats` says which files are documents and dispatches them; Markdown and plain text are
read in process, PDF, office and web formats by MinerU in a child process (`mineru`,
`mineru_worker`, `remote` for a MinerU server, `ocr` for scans), whose content list the layout
repair (`layout`, `headings`, `cells`, `outline`, `running`, `items`) turns into blocks. The
judgements about a line that structure makes too (`blocks`, `numbering`, `junk`) live here,
written once. Imports: the shared modules only (`indexer.models`, `errors`, `tokens`).
"""
