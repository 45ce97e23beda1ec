"""Stage 1, parse: a file → a `ParsedDocument`, a flat list of blocks in reading order.

`formats` says which files are documents and dispatches them; Markdown and plain text are
read in process, PDF, office and web formats by MinerU in a child process (`mineru`,
`mineru_worker`, `remote` for a MinerU server, `ocr` for scans), whose content list (`Item`s,
`indexer.models`) the layout repair (`layout`, `headings`, `cells`, `outline`, `running`,
`items`) turns into blocks; pages flash misreads are read again from the text layer first, in
the child (`page_text`: margin line numbers `margins`, an item across columns `columns`). The
judgements about a line that titles and structure make too
(`blocks`, `numbering`, `junk`, `dates`) live here, written once. What to call the document is
not decided here: the parse hands its evidence on (`ParsedDocument.items`, `declared`).
Imports: the shared modules only (`indexer.models`, `errors`, `tokens`).
"""
