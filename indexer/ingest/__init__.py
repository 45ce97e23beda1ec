"""Stage 4, ingest: the watched folder kept in line with the index.

`files` (which files are documents, their names), `watch` (watchdog events), `lanes` (parses
in parallel, none holding the queue), `pipeline` (a file through parse → structure → store,
atomically), `catchup` (vectors embedded after a document is readable), `covered` (the folders an index
covers, and how many of their files changed since).
Imports: the shared modules, `parse`, `structure` and `store`; nothing later imports it but the facade.
"""
