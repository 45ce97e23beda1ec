"""Domain errors carry what the caller needs: what is valid, what failed and whether it may pass."""

from __future__ import annotations

from indexer.errors import CannotWrite, DeepreadError, IndexDamaged, NotFound, ParseError


def test_errors_for_the_caller_are_deepread_errors() -> None:
    for error in (NotFound("there is no document 9; valid doc_ids are 2, 3"), ParseError("file is empty")):
        assert isinstance(error, DeepreadError) and str(error)


def test_a_parse_error_is_permanent_unless_said_otherwise() -> None:
    assert not ParseError("not a readable .docx file").transient
    assert ParseError("file disappeared while being read", transient=True).transient


def test_damage_and_a_full_disk_say_what_and_where() -> None:
    damaged = IndexDamaged("index.sqlite3 is damaged", "index.sqlite3", "database disk image is malformed")
    assert (damaged.name, damaged.reason) == ("index.sqlite3", "database disk image is malformed")
    full = CannotWrite("the disk holding /data is full (0 bytes free)", "free some space", "/data", 0, "full")
    assert str(full) == (
        "the disk holding /data is full (0 bytes free); free some space and run the command again (what is indexed is kept)"
    )
    assert (full.remedy, full.kind) == ("free some space", "full")
