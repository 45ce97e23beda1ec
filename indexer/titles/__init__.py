"""Stage 2, titles: what to call a document, decided in one place, and what tells it from its
neighbours in a folder.

`decide` (the order: what the document states of itself, what its opening names, its file's name),
`filings` (a filing's cover: issuer, form, period; a document's stated date or version),
`stated` (a report's citation, a metadata title the cover agrees with), `first_page` (the title
set on page 1: the largest type near the top), `lines` (what a line of a first page is when it is
not the title: a banner, a byline, a person, an institution), `words` (a title's words mended as
the text prints them), `shown` (titles as the map shows them, told apart where they read alike),
`card` (a document's kind, issuer, date and one line of what it is about), `dated` (the days a
card's date covers, for the `dated_after`/`dated_before` filters).
Imports: the shared modules and `parse`; `structure` asks it to name each document it builds.
"""
