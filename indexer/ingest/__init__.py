"""Stage 5, ingest: the watched folder kept in line with the index.

`files` (which files are documents, their names), `watch` (watchdog events), `reconcile` (the
folders against the index: which files to parse, keep, move or remove), `lanes` (parses in
parallel, none holding the queue), `versions` (a file through parse → structure → store, swapped
in atomically), `copies` (identical files are one document), `catchup` (vectors embedded after a
document is readable), `covered` (the folders an index covers, and how many of their files
changed since).
Imports: the shared modules, `parse`, `titles`, `structure` and `store`; nothing later imports it but the service.
"""
