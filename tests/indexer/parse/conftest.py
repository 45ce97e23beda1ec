"""A real MinerU parser for the parse tests, and a file parsed and structured as the index does."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from indexer.models import DocumentStructure
from indexer.parse.formats import DocumentParser
from indexer.parse.mineru import MineruOptions
from indexer.structure.sections import build
from tests.conftest import CORPORA

FEDERAL_REGISTER = CORPORA / "pdfplumber" / "federal-register-2020-17221.pdf"


@pytest.fixture(scope="module")
def parser(tmp_path_factory: pytest.TempPathFactory) -> DocumentParser:
    base = tmp_path_factory.mktemp("mineru")
    return DocumentParser(MineruOptions(cache_dir=base / "cache", home=base / "home", timeout_s=300, memory_mb=4096))


def parse(parser: DocumentParser, path: Path) -> DocumentStructure:
    data = path.read_bytes()
    return build(parser.parse(path, data, hashlib.sha256(data).hexdigest()), fallback_title=path.stem)


@pytest.fixture(scope="session")
def federal_register(tmp_path_factory: pytest.TempPathFactory) -> DocumentStructure:
    """pdfplumber's federal-register-2020-17221.pdf (two notices on pages set in three columns), parsed
    once for the tests that read it; skipped where ../shared/corpora is not."""
    if not FEDERAL_REGISTER.exists():
        pytest.skip("needs ../shared/corpora")
    base = tmp_path_factory.mktemp("federal-register")
    options = MineruOptions(cache_dir=base / "cache", home=base / "home", timeout_s=600, memory_mb=4096)
    return parse(DocumentParser(options), FEDERAL_REGISTER)
