"""Stage 7, answers: the map and the reading the tools give.

`toc` (the map, folded per branch to fit its budget: `folding`, `folders`), `read` (a section's
paragraphs to the budget), `pages` (page and picture images for hosts that see).
`paths` (how a path is shown, and the documents under a folder a host names).
Imports: the shared modules, `parse`, `titles`, `structure`, `store` and `search`.
"""
