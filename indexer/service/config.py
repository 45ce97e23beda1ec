"""What a library is opened with: its folders, its data directory and how it parses, embeds and
searches. Only the server reads the environment (`server.settings`); this is what it hands over."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from indexer.ingest.lanes import LANES
from indexer.parse.mineru import DEFAULT_MEMORY_MB, DEFAULT_TIMEOUT_S, MineruOptions
from indexer.search.hybrid import SearchMode
from indexer.store.embedder import DEFAULT_MODEL


@dataclass
class LibraryConfig:
    roots: list[Path]
    data_dir: Path
    models_dir: Path
    embedding_model: str = DEFAULT_MODEL
    chroma_url: str | None = None
    token_budget: int = 8000
    max_file_bytes: int = 100_000_000
    heading_context: bool = True
    search_mode: SearchMode = "hybrid"
    embed_threads: int | None = None
    mineru_home: Path | None = None  # MinerU's models and config (default: in the data dir)
    parse_timeout_s: float = DEFAULT_TIMEOUT_S
    parse_memory_mb: int = DEFAULT_MEMORY_MB
    parse_cache_dir: Path | None = None  # MinerU results by content hash (default: in the data dir); shareable
    reranker: str | None = None  # fastembed cross-encoder name; None = no reranking
    reranker_path: Path | None = None  # its ONNX folder, when it cannot be downloaded
    mineru_url: str | None = None  # parse on this MinerU server (mineru-api or mineru-router) instead of here
    mineru_api_key: str | None = None  # its --api-key, when it has one
    parse_jobs: int = LANES  # files parsed at once (more make sense with a MinerU server)
    exclude: tuple[str, ...] = ()  # gitignore patterns kept out of the index, as a root's .deepreadignore
    include: tuple[str, ...] = ()  # gitignore patterns: when given, only the files they match are indexed

    def parse_options(self) -> MineruOptions:
        """How this library's files are parsed: MinerU's cache, home and scratch folder, its limits."""
        return MineruOptions(
            cache_dir=self.parse_cache_dir or self.data_dir / "parse-cache",
            home=self.mineru_home or self.data_dir / "mineru",
            work_dir=self.data_dir / "tmp",
            timeout_s=self.parse_timeout_s,
            memory_mb=self.parse_memory_mb,
            url=self.mineru_url,
            api_key=self.mineru_api_key,
        )
