"""reStructuredText read as a reader sees it rendered (`indexer.parse.rst`): its explicit markup gone."""

from __future__ import annotations

from indexer.parse.rst import parse_rst
from indexer.structure.sections import build

SOURCE = """.. include:: shared/links.rst
.. _install:

============
Installation
============

.. toctree::
   :maxdepth: 2

Install the package with pip before you run the examples.

.. note::

   The service needs Python 3.11 or later.

Usage
-----

Run the command with the folder to index.
"""


def test_directives_comments_and_targets_are_markup_a_reader_never_sees() -> None:
    structure = build(parse_rst(SOURCE), fallback_title="index")
    assert structure.title == "Installation"  # the markup above it was the document's first paragraph
    assert [s.title for s in structure.sections[1:]] == ["Usage"]
    texts = [p.text for p in structure.paragraphs]
    assert "Install the package with pip before you run the examples." in texts
    assert "The service needs Python 3.11 or later." in texts  # a note's body is text
    assert not [t for t in texts if ".." in t or ":maxdepth:" in t or "=====" in t]
