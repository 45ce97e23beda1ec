"""The garden folder most facade, search and answer tests read: three small documents."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from indexer.library import Library
from indexer.service.follow import Follower
from tests.conftest import write

GUIDE = """# Gardening Guide

A short guide to a small vegetable garden.

## Soil

Good soil is loose, dark and full of organic matter.

Test the pH every spring; most vegetables like 6.0 to 7.0.

Add compost in autumn so worms can work it in over winter.

## Watering

Water deeply twice a week rather than a little every day.

Morning watering reduces fungal disease on leaves.

## Pests

### Slugs

Slugs eat seedlings at night; beer traps and copper tape keep them away.

### Aphids

Aphids cluster under leaves. Ladybirds eat them; a soap spray also works.
"""


INVOICE = """# Invoice policy

Invoices use the code INV-2024-0042 format.

| item | price |
|------|-------|
| seeds | 4.50 |
| spade | 21.00 |
"""


@pytest.fixture
def library(folder: Path, open_library: Callable[..., Library]) -> Library:
    write(folder, "guide.md", GUIDE)
    write(folder, "billing/invoice.md", INVOICE)
    write(folder, "notes.txt", "SHOPPING\n\nBuy more compost and a watering can.\n")
    lib = open_library(folder)
    report = lib.reconcile()
    assert sorted(report.indexed) == ["billing/invoice.md", "guide.md", "notes.txt"]
    return lib


def doc_id(lib: Library, path: str) -> int:
    return next(d.doc_id for d in lib.toc().documents if d.path == path)


def following(library: Library, poll: bool) -> Iterator[Follower]:
    """A library's follower, started and idle over the folder as it stands (polling quickly when
    `poll`); stopped when the test is done. For fixtures parametrized over "native" and "poll"."""
    background = library.follower(poll=poll, debounce=0.3)
    if background.watcher is not None:
        background.watcher._poll_interval = 0.5  # keep the polling variant quick
    background.start()
    assert background.wait_idle(60)
    yield background
    background.stop()
