"""Optional cross-encoder reranking of the fused candidates (fastembed `TextCrossEncoder`).

A cross-encoder reads the query and a paragraph together, so it judges relevance
better than comparing two separately made vectors, but it costs one model pass
per candidate: it only reorders the top `depth` candidates of the hybrid ranking.
Off by default because no weights ship with deepread: the user names a model
(fastembed downloads it once into the models dir) or points at a local ONNX folder.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from indexer.errors import RERANKER_FOLDER, ModelUnavailable
from indexer.store.embedder import load_fastembed

DEFAULT_DEPTH = 30  # candidates reranked: enough to lift a hit from below the top 10


class Reranker:
    def __init__(self, model_name: str, models_dir: Path, model_path: Path | None = None, threads: int | None = None):
        from fastembed.rerank.cross_encoder import TextCrossEncoder  # heavy import, only when enabled

        self.name = model_name
        if model_path is not None and not (model_path / "model.onnx").is_file():
            raise ModelUnavailable(
                f"reranker folder {model_path} has no model.onnx: it needs the model's ONNX file and its "
                "tokenizer.json, config.json, special_tokens_map.json and tokenizer_config.json"
            )
        try:
            self._model = load_fastembed(TextCrossEncoder, model_name, models_dir, threads, model_path)
        except Exception as exc:  # fastembed raises bare ValueError/OSError for unknown or unreachable models
            names = ", ".join(m["model"] for m in TextCrossEncoder.list_supported_models())
            raise ModelUnavailable(
                f"cannot load reranker {model_name!r}: {exc}. Supported names: {names}; without internet, "
                f"give {RERANKER_FOLDER} holding the model's ONNX and tokenizer files"
            ) from exc

    def scores(self, query: str, texts: Sequence[str]) -> list[float]:
        """Relevance of each text to the query (higher is better; not calibrated across queries)."""
        return [float(s) for s in self._model.rerank(query, list(texts), batch_size=8)]
