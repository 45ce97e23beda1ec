"""Stage 6, answers: the map and the reading the tools give.

`toc` (the map, folded per branch to fit its budget: `folding`, `folders`), `read` (a section's
paragraphs to the budget), `pages` (page and picture images for hosts that see).
Imports: the shared modules, `parse`, `structure`, `store` and `search`.
"""
