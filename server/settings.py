"""Settings: the only place that reads the environment.

Every field has an environment variable (`DEEPREAD_…`); the ones a person sets
per run also have a CLI flag, which wins over the variable. The README's
configuration table mirrors this class. Messages from the indexer name a limit
(`indexer.errors.FILE_SIZE_LIMIT`, …); `explain` adds the variable that sets it.
"""

from __future__ import annotations

import difflib
import hashlib
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Literal

from platformdirs import user_data_dir
from pydantic import Field, SecretStr, field_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

from indexer.errors import (
    EMBEDDING_MODEL_CHOICE,
    EXCLUDE_PATTERNS,
    FILE_SIZE_LIMIT,
    INCLUDE_PATTERNS,
    PARSE_MEMORY_LIMIT,
    PARSE_TIME_LIMIT,
    RERANKER_FOLDER,
)
from indexer.library import LibraryConfig
from indexer.store.embedder import DEFAULT_MODEL

_DEFAULTS = LibraryConfig(roots=[], data_dir=Path("."), models_dir=Path("."))
ENV_PREFIX = "DEEPREAD_"


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix=ENV_PREFIX, extra="ignore")

    folders: Annotated[list[str], NoDecode] = Field(
        default_factory=list, description=f"Folders to serve (in the environment: separated by {os.pathsep!r})."
    )
    data_dir: Path | None = Field(
        None, description="Where the index lives (default: per folder set, in the user data dir)."
    )
    embedding_model: str = Field(DEFAULT_MODEL, description="fastembed model name; the default is bundled and offline.")
    chroma_url: str | None = Field(
        None, description="Use a Chroma server (http://host:port) instead of the embedded store."
    )
    # Defaults come from LibraryConfig: one place for each.
    token_budget: int = Field(
        _DEFAULTS.token_budget, ge=500, le=200_000, description="Most tokens one tool answer may hold."
    )
    max_file_mb: float = Field(
        _DEFAULTS.max_file_bytes / 1_000_000, gt=0, description="Larger files are marked failed instead of indexed."
    )
    parse_timeout: float = Field(
        _DEFAULTS.parse_timeout_s,
        gt=0,
        description=(
            "Most seconds the parser may spend on one file "
            "(a file gets 120 s + 120 s per MB or 3 s per page, up to this)."
        ),
    )
    parse_memory_mb: int = Field(_DEFAULTS.parse_memory_mb, ge=256, description="Memory ceiling of the parser process.")
    mineru_home: Path | None = Field(None, description="MinerU's models and config (default: in the user data dir).")
    mineru_url: str | None = Field(
        None, description="Parse on a MinerU server (mineru-api or mineru-router, http://host:port) instead of here."
    )
    mineru_api_key: SecretStr | None = Field(None, description="The MinerU server's --api-key, when it has one.")
    parse_jobs: int = Field(
        _DEFAULTS.parse_jobs,
        ge=1,
        le=64,
        description="Files parsed at once (raise it for a MinerU server with many workers).",
    )
    heading_context: bool = Field(True, description="Embed each paragraph with its heading path.")
    embed_threads: int | None = Field(
        None, ge=1, description="ONNX Runtime threads for embedding (default: all cores)."
    )
    reranker: str | None = Field(
        None,
        description="Cross-encoder to rerank the top 30 hits, e.g. Xenova/ms-marco-MiniLM-L-6-v2 (off by default: "
        "its weights are downloaded once, or read from reranker_path).",
    )
    reranker_path: Path | None = Field(None, description="Local folder with the reranker's ONNX and tokenizer files.")
    exclude: Annotated[list[str], NoDecode] = Field(
        default_factory=list,
        description="Gitignore patterns kept out of the index, as a folder's .deepreadignore would (in the "
        "environment: one a line, or comma-separated).",
    )
    include: Annotated[list[str], NoDecode] = Field(
        default_factory=list,
        description="Gitignore patterns: when given, only the files they match are indexed (in the environment: "
        "one a line, or comma-separated).",
    )
    watch: bool = Field(True, description="Follow changes to the folders while serving.")
    poll: bool = Field(False, description="Poll for changes (network drives, containers) instead of native events.")
    transport: Literal["stdio", "http"] = "stdio"
    host: str = "127.0.0.1"
    port: int = Field(8765, ge=1, le=65535)
    token: SecretStr | None = Field(
        None,
        description="Bearer token HTTP clients must send. Required off loopback: when unset there, one is generated "
        "and kept in the index dir's `http-token`. On loopback it is checked only when set.",
    )
    allowed_hosts: Annotated[list[str], NoDecode] = Field(
        default_factory=list,
        description="Host names (optionally host:port) HTTP requests may address, comma-separated; '*' accepts any. "
        "Default: loopback names, the bind host unless a wildcard, and this machine's hostname and FQDN.",
    )
    insecure_no_token: bool = Field(False, description="Serve HTTP off loopback without a token (not recommended).")
    log_level: Literal["DEBUG", "INFO", "WARNING", "ERROR"] = "INFO"

    @field_validator("log_level", mode="before")
    @classmethod
    def _upper(cls, value: object) -> object:
        return value.upper() if isinstance(value, str) else value

    @field_validator("token", mode="before")
    @classmethod
    def _blank_token_is_none(cls, value: object) -> object:
        return (value.strip() or None) if isinstance(value, str) else value

    @field_validator("folders", mode="before")
    @classmethod
    def _split_folders(cls, value: object) -> object:
        """`a:b` from the environment; a list (the CLI's arguments) is taken as is, so a folder
        name may hold the separator."""
        return value.split(os.pathsep) if isinstance(value, str) else value

    @field_validator("allowed_hosts", mode="before")
    @classmethod
    def _split_hosts(cls, value: object) -> object:
        """`a,b` from the environment, or repeated flags that may each hold `a,b`."""
        items = [value] if isinstance(value, str) else value
        if not isinstance(items, list | tuple):
            return value
        return [h.strip() for item in items for h in str(item).split(",") if h.strip()]

    @field_validator("exclude", "include", mode="before")
    @classmethod
    def _split_patterns(cls, value: object) -> object:
        """`*.log,build/` or one pattern a line from the environment; a list (repeated flags, each
        one pattern) is taken as is, so a pattern may hold a comma."""
        items = [p for line in value.splitlines() for p in line.split(",")] if isinstance(value, str) else value
        if not isinstance(items, list | tuple):
            return value
        return [p.strip() for p in items if str(p).strip()]

    def folder_paths(self) -> list[Path]:
        """Each folder once, resolved (a folder named twice, or by two paths, is one root)."""
        return list(dict.fromkeys(Path(f).expanduser().resolve() for f in self.folders if f.strip()))

    def base_dir(self) -> Path:
        return Path(user_data_dir("deepread-mcp", appauthor=False))

    def index_dir(self) -> Path:
        """`--data-dir`, else one index per set of folders under the user data dir."""
        if self.data_dir is not None:
            return self.data_dir.expanduser().resolve()
        folders = sorted(str(p) for p in self.folder_paths())
        digest = hashlib.sha1("\n".join(folders).encode()).hexdigest()[:10]
        name = "-".join(Path(f).name for f in folders)[:40] or "index"
        return self.base_dir() / "indexes" / f"{name}-{digest}"

    def models_dir(self) -> Path:
        base = self.data_dir.expanduser().resolve() if self.data_dir is not None else self.base_dir()
        return base / "models"

    def mineru_dir(self) -> Path:
        if self.mineru_home is not None:
            return self.mineru_home.expanduser().resolve()
        base = self.data_dir.expanduser().resolve() if self.data_dir is not None else self.base_dir()
        return base / "mineru"

    def library_config(self) -> LibraryConfig:
        return LibraryConfig(
            roots=self.folder_paths(),
            data_dir=self.index_dir(),
            models_dir=self.models_dir(),
            embedding_model=self.embedding_model,
            chroma_url=self.chroma_url,
            token_budget=self.token_budget,
            max_file_bytes=int(self.max_file_mb * 1_000_000),
            heading_context=self.heading_context,
            embed_threads=self.embed_threads,
            mineru_home=self.mineru_dir(),
            parse_timeout_s=self.parse_timeout,
            parse_memory_mb=self.parse_memory_mb,
            reranker=self.reranker,
            reranker_path=self.reranker_path.expanduser().resolve() if self.reranker_path else None,
            mineru_url=self.mineru_url.rstrip("/") if self.mineru_url else None,
            mineru_api_key=self.mineru_api_key.get_secret_value() if self.mineru_api_key else None,
            parse_jobs=self.parse_jobs,
            exclude=tuple(self.exclude),
            include=tuple(self.include),
        )


# Each limit or choice the indexer's messages name, and the setting that changes it.
_SETTING_FOR = {
    FILE_SIZE_LIMIT: "max_file_mb",
    PARSE_TIME_LIMIT: "parse_timeout",
    PARSE_MEMORY_LIMIT: "parse_memory_mb",
    EMBEDDING_MODEL_CHOICE: "embedding_model",
    RERANKER_FOLDER: "reranker_path",
    EXCLUDE_PATTERNS: "exclude",
    INCLUDE_PATTERNS: "include",
}


def explain(message: str) -> str:
    """The message with the environment variable named after each limit it mentions."""
    for phrase, field in _SETTING_FOR.items():
        message = message.replace(phrase, f"{phrase} ({ENV_PREFIX}{field.upper()})")
    return message


def unknown_variables(environ: Mapping[str, str]) -> list[str]:
    """`DEEPREAD_…` variables that set nothing (a typo), each with the setting it may mean."""
    known = [f"{ENV_PREFIX}{name.upper()}" for name in Settings.model_fields]
    out = []
    for name in sorted(environ):
        if name.startswith(ENV_PREFIX) and name not in known:
            close = difflib.get_close_matches(name, known, n=1)
            out.append(f"{name} is not a setting" + (f" (did you mean {close[0]}?)" if close else ""))
    return out


def folder_problem(folders: list[Path]) -> str | None:
    """Why the first of these folders cannot be served (missing, or not a folder); None when all can."""
    for folder in folders:
        if not folder.is_dir():
            return f"{folder} {'is not a folder' if folder.exists() else 'does not exist'}"
    return None
