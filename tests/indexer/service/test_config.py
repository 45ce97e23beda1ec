"""What a library is opened with: MinerU's cache, home and scratch folder in the data directory
unless the configuration puts them elsewhere."""

from __future__ import annotations

from pathlib import Path

from indexer.service.config import LibraryConfig


def test_parsing_keeps_its_files_in_the_data_dir_unless_told_otherwise(tmp_path: Path) -> None:
    config = LibraryConfig(roots=[tmp_path / "docs"], data_dir=tmp_path / "data", models_dir=tmp_path / "models")
    options = config.parse_options()
    assert (options.cache_dir, options.home, options.work_dir) == (
        tmp_path / "data" / "parse-cache",
        tmp_path / "data" / "mineru",
        tmp_path / "data" / "tmp",
    )
    config.parse_cache_dir, config.mineru_home = tmp_path / "shared-cache", tmp_path / "models" / "mineru"
    config.parse_timeout_s, config.mineru_url = 42.0, "http://127.0.0.1:9/"
    options = config.parse_options()
    assert (options.cache_dir, options.home) == (tmp_path / "shared-cache", tmp_path / "models" / "mineru")
    assert (options.timeout_s, options.url) == (42.0, "http://127.0.0.1:9/")
