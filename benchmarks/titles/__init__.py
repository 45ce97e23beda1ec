"""Document titles as the map shows them, scored on every document of the evaluation sets.

`python -m benchmarks.titles` (`__main__`) parses each file and scores its title; `flags` holds the
checks of what a reader would not accept in a title, written apart from the server's code.
"""
