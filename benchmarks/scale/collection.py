"""The synthetic large collection of the scale benchmark: real paragraphs of the Markdown
trees sampled and embedded once (`Material`), synthetic documents built from runs of
them with noisy copies of their vectors, and committed in batches with
`Indexer.add_structures` into a Library over an empty root.

Kept apart from the timing and the report: this only builds the index that
`measure` queries.
"""

from __future__ import annotations

import argparse
import random
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from benchmarks import common
from indexer.ingest.reconcile import BATCH_PASSAGES
from indexer.library import Library, LibraryConfig
from indexer.models import Block, DocumentStructure, ParsedDocument
from indexer.parse.formats import parse_text_file
from indexer.structure.passages import embedded_text
from indexer.structure.sections import MAX_TEXT_TOKENS, build

TREES = ("rust-book", "fastapi-docs")
SUFFIX_TOKENS = 3  # " [12]" counts as three tokens


@dataclass
class Source:
    """A real paragraph: its text, kind, section title and what the model saw."""

    text: str
    kind: str
    section: str
    embedded: str


@dataclass
class Material:
    sources: list[Source]
    vectors: np.ndarray  # unit vectors, one per source
    headings: list[str]  # distinct real section titles: the queries


def _open(work: Path, name: str) -> Library:
    """A Library over an empty root: reconcile is never called, so nothing is scanned or removed."""
    config = LibraryConfig(roots=[work / "empty"], data_dir=work / name, models_dir=work / "models")
    return Library(config)


# --- material ------------------------------------------------------------------------


def _material(library: Library, bench: Path, n: int) -> Material:
    """Real paragraphs (a sample, in reading order) with their real vectors, and real headings."""
    sources, headings = _read_trees(bench, library.config.heading_context)
    rng = random.Random(0)
    sample = sorted(rng.sample(range(len(sources)), min(n, len(sources))))
    chosen = [sources[i] for i in sample]
    vectors = common.open_index(library).embedder.embed([s.embedded for s in chosen])
    rng.shuffle(headings)
    return Material(chosen, vectors, headings)


def _read_trees(bench: Path, heading_context: bool) -> tuple[list[Source], list[str]]:
    """Every distinct paragraph and section title, parsed by the project's own Markdown path."""
    sources: dict[str, Source] = {}
    headings: dict[str, None] = {}
    for tree in TREES:
        for path in sorted((bench / "markdown" / tree).rglob("*.md")):
            structure = build(parse_text_file(path, 50_000_000), fallback_title=path.stem)
            paths = structure.section_paths()
            headings.update(dict.fromkeys(s.title for s in structure.sections[1:]))
            for p in structure.paragraphs:
                # With its suffix a text must stay under the split threshold: one block, one paragraph.
                if p.kind == "text" and p.n_tokens + SUFFIX_TOKENS > MAX_TEXT_TOKENS:
                    continue
                embedded = embedded_text(paths[p.sec_id], p.text, heading_context)
                sources.setdefault(p.text, Source(p.text, p.kind, paths[p.sec_id][-1], embedded))
    return list(sources.values()), list(headings)


# --- the synthetic collection ----------------------------------------------------------


def _grow(library: Library, material: Material, size: int, args: argparse.Namespace) -> tuple[float, int]:
    """Add documents until the library holds `size` paragraphs; (seconds, paragraphs added)."""
    start = time.perf_counter()
    have = len(common.open_index(library).store.documents())
    want = size // args.doc_paragraphs
    batch: list[int] = []
    for k in range(have, want):
        batch.append(k)
        if len(batch) * args.doc_paragraphs >= BATCH_PASSAGES or k == want - 1:
            _commit(library, material, batch, args)
            batch = []
    return time.perf_counter() - start, (want - have) * args.doc_paragraphs


def _commit(library: Library, material: Material, ks: list[int], args: argparse.Namespace) -> None:
    """A batch of synthetic documents, committed as parsed files are, with their vectors given."""
    built = [_document(k, material, args) for k in ks]
    documents = [
        (f"synthetic/f{k // args.folder_docs:03d}/doc-{k:05d}.md", structure)
        for k, (structure, _) in zip(ks, built, strict=True)
    ]
    common.reconciler(library).add_structures(library.config.roots[0], documents, np.concatenate([v for _, v in built]))


def _document(k: int, material: Material, args: argparse.Namespace) -> tuple[DocumentStructure, np.ndarray]:
    """Synthetic document `k`: a run of real paragraphs under real headings, and noisy real vectors."""
    n = len(material.sources)
    start = random.Random(k).randrange(n)
    picks = [(start + i) % n for i in range(args.doc_paragraphs)]
    per_section = args.doc_paragraphs // args.sections
    title = f"{material.sources[picks[0]].section} ({k})"
    blocks = [Block("heading", title, level=1)]
    for i, pick in enumerate(picks):
        source = material.sources[pick]
        if i % per_section == 0 and i // per_section < args.sections:
            blocks.append(Block("heading", source.section, level=2))
        blocks.append(Block(source.kind, f"{source.text} [{k}]"))
    structure = build(ParsedDocument(blocks, title=title), fallback_title=title)
    assert len(structure.paragraphs) == len(picks)
    vectors = material.vectors[picks]
    noisy = vectors + np.random.default_rng(k).normal(0, args.noise, vectors.shape)
    return structure, (noisy / np.linalg.norm(noisy, axis=1, keepdims=True)).astype(np.float32)
