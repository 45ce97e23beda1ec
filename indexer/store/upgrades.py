"""What the writer checks at open, so that nothing stored outlives the way it was made.

The index keeps the signature of its vectors (model, heading context, passage packing), the
version of the structure and token counts, and the MinerU models installed; when one changed
since the index was written, what depends on it is made again, and only that: vectors of another
model are dropped, passages packed anew keep the vectors whose text is unchanged, and files are
structured or parsed again from the cache. The same checks run after a damaged index file was
made anew (`indexer.store.repair`), whose meta they read.
"""

from __future__ import annotations

import logging

from indexer.models import section_paths
from indexer.parse.formats import DocumentParser
from indexer.parse.mineru import MINERU_FORMATS
from indexer.store.database import Store
from indexer.store.embedder import Embedder
from indexer.store.vectors import VectorIndex
from indexer.structure.passages import PASSAGE_VERSION, vector_ids
from indexer.structure.sections import STRUCTURE_VERSION
from indexer.tokens import TOKEN_COUNT_VERSION

log = logging.getLogger(__name__)


def check_signature(store: Store, vectors: VectorIndex, embedder: Embedder, heading_context: bool) -> None:
    """Vectors of another model must never be mixed in: they are dropped. When the passages or
    the text embedded change, every document's paragraphs are packed into passages again and
    the vector lane embeds in the background those whose text is new; reading and keyword
    search work throughout."""
    model = f"model={embedder.name}{embedder.revision};dim={embedder.dim};"
    signature = f"{model}context={heading_context};passages={PASSAGE_VERSION}"
    previous = store.get_meta("index_signature")
    if previous != signature:
        if previous is None or not previous.startswith(model):  # another model: no vector of it may stay
            vectors.reset()
        if previous is not None:
            # Vector ids name the text embedded, so a passage packed as before keeps its vector;
            # the vector lane embeds the others and drops those no passage has any more.
            log.warning("index was built with %s; embedding again for %s in the background", previous, signature)
            _repack(store, heading_context)
        store.set_meta("index_signature", signature)


def _repack(store: Store, heading_context: bool) -> None:
    for doc in store.documents():
        if doc.readable:
            rows = store.document_paragraphs(doc.doc_id)
            paths = section_paths(store.sections(doc.doc_id))
            ids, _ = vector_ids(doc.doc_id, rows, paths, heading_context)
            store.assign_vectors(doc.doc_id, {row.id: vid for row, vid in zip(rows, ids, strict=True)})


def check_structure(store: Store) -> None:
    """Sections, paragraphs and their token counts are stored: when the way they are made or
    counted changes, every file is structured again (parses come from the cache, vectors are kept)."""
    version = f"structure {STRUCTURE_VERSION}, tokens {TOKEN_COUNT_VERSION}"
    previous = store.get_meta("structure")
    if previous != version:
        if previous is not None or store.documents():
            log.info("documents were structured by an earlier version: structuring them again")
            store.forget_file_facts()
        store.set_meta("structure", version)


def check_parser_models(store: Store, parser: DocumentParser) -> None:
    """After MinerU models are installed (or removed), PDFs and office files are parsed again."""
    fingerprint = parser.mineru.models_fingerprint()
    previous = store.get_meta("mineru_models")
    if previous != fingerprint:
        if previous is not None:
            log.info("MinerU models changed: documents it parses will be parsed again")
            store.forget_file_facts(frozenset(MINERU_FORMATS))
        store.set_meta("mineru_models", fingerprint)
