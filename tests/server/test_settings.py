"""Settings from flags, the environment and defaults; the index dir per folder set; errors explained.

Every test runs with no `DEEPREAD_*` variable from the outer shell, with HOME and the
platform's user data dir pointed into tmp_path (the user's real home is never touched),
and from tmp_path as the current folder.
"""

from __future__ import annotations

import dataclasses
import logging
import os
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from pydantic import ValidationError

from indexer.library import LibraryConfig
from server import cli
from server.settings import Settings

SEP = os.pathsep


@pytest.fixture(autouse=True)
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A private HOME and user data dir; no DEEPREAD_ variable leaks in from outside."""
    for name in list(os.environ):
        if name.upper().startswith("DEEPREAD_"):
            monkeypatch.delenv(name)
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_DATA_HOME", str(home / "share"))
    monkeypatch.chdir(tmp_path)
    assert Settings().base_dir().is_relative_to(home), "settings must not reach the real home"
    return home


@pytest.fixture
def restore_logging() -> Iterator[Callable[[], None]]:
    """`main()` installs its own root handlers (stderr, the index dir's log file): close them and
    put pytest's back, after each call (a later `main()` would drop them unclosed) and at the end."""
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level

    def restore() -> None:
        for handler in list(root.handlers):
            if handler not in handlers:
                root.removeHandler(handler)
                handler.close()
        for handler in handlers:
            if handler not in root.handlers:
                root.addHandler(handler)
        root.setLevel(level)

    yield restore
    restore()


@pytest.fixture
def built(monkeypatch: pytest.MonkeyPatch, restore_logging: Callable[[], None]) -> Callable[..., Settings]:
    """Run the real `main(argv)` (argument parsing, merging, folder checks) and return the
    Settings it hands to the command, instead of starting a server or opening an index."""
    seen: list[Settings] = []

    def record(args: object, settings: Settings) -> int:
        seen.append(settings)
        return 0

    for name in list(cli.COMMAND_HANDLERS):
        monkeypatch.setitem(cli.COMMAND_HANDLERS, name, record)

    def _built(*argv: str | Path) -> Settings:
        try:
            assert cli.main([str(a) for a in argv]) == 0
        finally:
            restore_logging()
        assert len(seen) == 1
        return seen.pop()

    return _built


@pytest.fixture
def docs(tmp_path: Path) -> tuple[Path, Path, Path]:
    folders = tuple(tmp_path / name for name in ("alpha", "beta", "gamma"))
    for f in folders:
        f.mkdir()
    return folders  # type: ignore[return-value]


# --- where things live ----------------------------------------------------------------


def test_without_data_dir_everything_lives_in_the_user_data_dir(home: Path, docs: tuple[Path, Path, Path]) -> None:
    alpha = docs[0]
    settings = Settings(folders=str(alpha))
    base = home / "share" / "deepread-mcp"
    assert settings.base_dir() == base
    assert settings.index_dir().parent == base / "indexes"
    assert settings.index_dir().name.startswith("alpha-")
    assert settings.models_dir() == base / "models", "the model is shared by every index"
    assert settings.mineru_dir() == base / "mineru"


def test_data_dir_holds_the_index_models_and_mineru(tmp_path: Path, docs: tuple[Path, Path, Path]) -> None:
    alpha, beta, _ = docs
    one = Settings(folders=str(alpha), data_dir=Path("idx"))  # relative: against the current folder
    other = Settings(folders=f"{alpha}{SEP}{beta}", data_dir=tmp_path / "idx")
    assert one.index_dir() == other.index_dir() == tmp_path / "idx", "--data-dir is the index dir, whatever the folders"
    assert one.models_dir() == tmp_path / "idx" / "models"
    assert one.mineru_dir() == tmp_path / "idx" / "mineru"
    own = Settings(folders=str(alpha), data_dir=tmp_path / "idx", mineru_home=Path("~/mineru"))
    assert own.mineru_dir() == tmp_path / "home" / "mineru", "mineru_home wins, with ~ expanded"


# --- one index per folder set ------------------------------------------------------------


def test_each_folder_set_gets_its_own_index_dir(docs: tuple[Path, Path, Path]) -> None:
    alpha, beta, gamma = docs
    dirs = {
        Settings(folders=folders).index_dir()
        for folders in (
            str(alpha),
            str(beta),
            f"{alpha}{SEP}{beta}",
            f"{alpha}{SEP}{gamma}",
            f"{alpha}{SEP}{beta}{SEP}{gamma}",
        )
    }
    assert len(dirs) == 5
    assert Settings(folders=f"{beta}{SEP}{alpha}").index_dir().name.startswith("alpha-beta-"), "named after its folders"


def test_the_same_folder_set_spelled_differently_shares_one_index_dir(
    tmp_path: Path, home: Path, docs: tuple[Path, Path, Path]
) -> None:
    alpha, beta, _ = docs
    (tmp_path / "link-to-beta").symlink_to(beta)
    (home / "alpha").symlink_to(alpha)
    expected = Settings(folders=f"{alpha}{SEP}{beta}").index_dir()
    for spelling in (
        f"{beta}{SEP}{alpha}",  # another order
        f"{alpha}/{SEP}{beta}/",  # trailing slashes
        f"alpha{SEP}beta",  # relative to the current folder
        f"./alpha/../alpha{SEP}{tmp_path}/gamma/../beta",  # dot segments
        f"~/alpha{SEP}{beta}",  # home-relative, through a link
        f"{alpha}{SEP}link-to-beta",  # a link to the folder
        f"{SEP}{alpha}{SEP}{SEP} {SEP}{beta}{SEP}",  # empty entries
    ):
        settings = Settings(folders=spelling)
        assert sorted(settings.folder_paths()) == [alpha, beta], spelling
        assert settings.index_dir() == expected, spelling


def test_folders_with_the_same_name_in_different_places_get_different_index_dirs(tmp_path: Path) -> None:
    first, second = tmp_path / "one" / "docs", tmp_path / "two" / "docs"
    first.mkdir(parents=True)
    second.mkdir(parents=True)
    a, b = Settings(folders=str(first)).index_dir(), Settings(folders=str(second)).index_dir()
    assert a != b
    assert a.name.startswith("docs-") and b.name.startswith("docs-")


def test_index_dir_name_stays_short_with_long_folder_names(tmp_path: Path) -> None:
    folders = [tmp_path / (c * 60) for c in "xyz"]
    for f in folders:
        f.mkdir()
    name = Settings(folders=SEP.join(map(str, folders))).index_dir().name
    assert len(name) == 40 + 1 + 10  # folder names cut to 40 characters, "-", 10 hex digits of the hash
    assert name.startswith("x" * 40)


def test_a_folder_given_twice_is_the_same_folder_set(docs: tuple[Path, Path, Path]) -> None:
    alpha = docs[0]
    twice = Settings(folders=f"{alpha}{SEP}{alpha}/")
    assert twice.index_dir() == Settings(folders=str(alpha)).index_dir()
    assert twice.folder_paths() == [alpha]


# --- flags beat the environment, which beats the defaults ----------------------------------


@pytest.mark.parametrize(
    ("variable", "value", "flag", "field", "from_env", "from_flag"),
    [
        ("DEEPREAD_TOKEN_BUDGET", "3000", ["--token-budget", "4000"], "token_budget", 3000, 4000),
        ("DEEPREAD_EMBEDDING_MODEL", "env/m", ["--model", "flag/m"], "embedding_model", "env/m", "flag/m"),
        (
            "DEEPREAD_CHROMA_URL",
            "http://env:1",
            ["--chroma-url", "http://flag:2"],
            "chroma_url",
            "http://env:1",
            "http://flag:2",
        ),
        ("DEEPREAD_LOG_LEVEL", "warning", ["--log-level", "debug"], "log_level", "WARNING", "DEBUG"),
        # A flag that names the default still beats the environment.
        ("DEEPREAD_TRANSPORT", "http", ["--transport", "stdio"], "transport", "http", "stdio"),
        ("DEEPREAD_HOST", "0.0.0.0", ["--host", "127.0.0.2"], "host", "0.0.0.0", "127.0.0.2"),
        ("DEEPREAD_PORT", "9000", ["--port", "9001"], "port", 9000, 9001),
        (
            "DEEPREAD_ALLOWED_HOSTS",
            "env.example, other.example:8765",
            ["--allowed-host", "a.example", "--allowed-host", "b.example,c.example"],
            "allowed_hosts",
            ["env.example", "other.example:8765"],
            ["a.example", "b.example", "c.example"],
        ),
        (  # one pattern a line or comma-separated in the variable; each flag one pattern, commas and all
            "DEEPREAD_EXCLUDE",
            "*.log, build/\nprivate/**",
            ["--exclude", "drafts/", "--exclude", "a,b.md"],
            "exclude",
            ["*.log", "build/", "private/**"],
            ["drafts/", "a,b.md"],
        ),
        ("DEEPREAD_INCLUDE", "*.pdf,*.eml", ["--include", "reports/**"], "include", ["*.pdf", "*.eml"], ["reports/**"]),
    ],
)
def test_a_flag_beats_the_environment_which_applies_without_it(
    built: Callable[..., Settings],
    monkeypatch: pytest.MonkeyPatch,
    docs: tuple[Path, Path, Path],
    variable: str,
    value: str,
    flag: list[str],
    field: str,
    from_env: object,
    from_flag: object,
) -> None:
    alpha = docs[0]
    default = getattr(Settings(), field)
    assert from_env not in (default, from_flag), "the test must tell the three sources apart"
    monkeypatch.setenv(variable, value)
    assert getattr(built("serve", alpha), field) == from_env
    assert getattr(built("serve", alpha, *flag), field) == from_flag
    monkeypatch.delenv(variable)
    assert getattr(built("serve", alpha), field) == default


@pytest.mark.parametrize(
    ("variable", "flag", "field", "flag_value"),
    [
        ("DEEPREAD_WATCH", "--no-watch", "watch", False),
        ("DEEPREAD_POLL", "--poll", "poll", True),
        ("DEEPREAD_INSECURE_NO_TOKEN", "--insecure-no-token", "insecure_no_token", True),
    ],
)
def test_switch_flags_beat_the_environment(
    built: Callable[..., Settings],
    monkeypatch: pytest.MonkeyPatch,
    docs: tuple[Path, Path, Path],
    variable: str,
    flag: str,
    field: str,
    flag_value: bool,
) -> None:
    """A switch only sets one value; without it the variable decides, in either direction."""
    alpha = docs[0]
    assert getattr(built("serve", alpha), field) is not flag_value, "the default is the other value"
    monkeypatch.setenv(variable, "true" if flag_value else "false")
    assert getattr(built("serve", alpha), field) is flag_value, "the variable applies without the flag"
    monkeypatch.setenv(variable, "false" if flag_value else "true")
    assert getattr(built("serve", alpha), field) is not flag_value
    assert getattr(built("serve", alpha, flag), field) is flag_value, "the flag beats the variable"


def test_data_dir_flag_beats_the_environment(
    built: Callable[..., Settings], monkeypatch: pytest.MonkeyPatch, tmp_path: Path, docs: tuple[Path, Path, Path]
) -> None:
    alpha = docs[0]
    monkeypatch.setenv("DEEPREAD_DATA_DIR", str(tmp_path / "from-env"))
    assert built("index", alpha).index_dir() == tmp_path / "from-env"
    settings = built("index", alpha, "--data-dir", tmp_path / "from-flag")
    assert settings.index_dir() == tmp_path / "from-flag"
    assert settings.library_config().data_dir == tmp_path / "from-flag"
    assert (tmp_path / "from-flag" / "deepread.log").exists(), "the log goes to the index dir the flag named"
    assert not (tmp_path / "home" / "share").exists(), "nothing is written to the default data dir"


def test_folder_arguments_beat_deepread_folders(
    built: Callable[..., Settings], monkeypatch: pytest.MonkeyPatch, docs: tuple[Path, Path, Path]
) -> None:
    alpha, beta, gamma = docs
    monkeypatch.setenv("DEEPREAD_FOLDERS", f"{alpha}{SEP}{beta}")
    for command in ("serve", "index"):
        assert built(command).folder_paths() == [alpha, beta], f"{command}: the variable applies without arguments"
        assert built(command, gamma).folder_paths() == [gamma], f"{command}: arguments replace the variable"
    assert built(gamma).folder_paths() == [gamma], "`deepread-mcp FOLDER` serves FOLDER"
    assert built("serve", gamma, alpha).folder_paths() == [gamma, alpha]
    assert built("serve").index_dir() == built("serve", beta, alpha).index_dir(), "the same set from either source"


@pytest.mark.parametrize("command", ["serve", "index"])
def test_every_command_takes_folders_named_or_with_f(
    built: Callable[..., Settings], command: str, docs: tuple[Path, Path, Path]
) -> None:
    alpha, beta, gamma = docs
    assert built(command, "-f", gamma, "-f", beta).folder_paths() == [gamma, beta]
    assert built(command, alpha, "--folder", gamma).folder_paths() == [alpha, gamma], "named first, then -f"


def test_a_folder_whose_name_holds_the_path_separator_can_be_served(
    built: Callable[..., Settings], tmp_path: Path
) -> None:
    odd = tmp_path / f"notes{SEP}2024"
    odd.mkdir()
    assert built("serve", odd).folder_paths() == [odd]


# --- bad values are refused with the field named -------------------------------------------


@pytest.mark.parametrize(
    ("variable", "value"),
    [
        ("DEEPREAD_TOKEN_BUDGET", "-5"),
        ("DEEPREAD_TOKEN_BUDGET", "499"),
        ("DEEPREAD_TOKEN_BUDGET", "200001"),
        ("DEEPREAD_TOKEN_BUDGET", "lots"),
        ("DEEPREAD_TOKEN_BUDGET", "8000.5"),
        ("DEEPREAD_PORT", "0"),
        ("DEEPREAD_PORT", "65536"),
        ("DEEPREAD_TRANSPORT", "ftp"),
        ("DEEPREAD_LOG_LEVEL", "loud"),
        ("DEEPREAD_MAX_FILE_MB", "0"),
        ("DEEPREAD_MAX_FILE_MB", "-1"),
        ("DEEPREAD_PARSE_TIMEOUT", "0"),
        ("DEEPREAD_PARSE_MEMORY_MB", "100"),
        ("DEEPREAD_EMBED_THREADS", "0"),
        ("DEEPREAD_WATCH", "maybe"),
    ],
)
def test_bad_environment_values_are_refused_naming_the_field(
    monkeypatch: pytest.MonkeyPatch, variable: str, value: str
) -> None:
    monkeypatch.setenv(variable, value)
    with pytest.raises(ValidationError) as exc:
        Settings()
    field = variable.removeprefix("DEEPREAD_").lower()
    assert [e["loc"] for e in exc.value.errors()] == [(field,)]
    assert value.lower() in str(exc.value).lower(), "the message shows the value given"


@pytest.mark.parametrize(("value", "expected"), [("500", 500), ("200000", 200_000), (" 1234 ", 1234)])
def test_token_budget_bounds_are_inclusive(monkeypatch: pytest.MonkeyPatch, value: str, expected: int) -> None:
    monkeypatch.setenv("DEEPREAD_TOKEN_BUDGET", value)
    assert Settings().token_budget == expected
    assert Settings().library_config().token_budget == expected


def test_loose_spellings_are_normalised(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DEEPREAD_LOG_LEVEL", "warning")
    monkeypatch.setenv("DEEPREAD_TOKEN", "   ")
    monkeypatch.setenv("DEEPREAD_WATCH", "0")
    monkeypatch.setenv("DEEPREAD_POLL", "yes")
    settings = Settings()
    assert settings.log_level == "WARNING"
    assert settings.token is None, "a blank token is no token"
    assert settings.watch is False and settings.poll is True


def assert_refused(capsys: pytest.CaptureFixture[str], rc: int, *phrases: str) -> str:
    out, err = capsys.readouterr()
    assert rc == 2
    assert out == "", "stdout belongs to the MCP protocol"
    for phrase in phrases:
        assert phrase in err
    return err


@pytest.mark.parametrize(
    ("argv", "env", "phrases"),
    [
        (
            ["--token-budget", "-5"],
            {},
            ["deepread-mcp: invalid settings", "token_budget", "greater than or equal to 500"],
        ),
        (["--token-budget", "999999"], {}, ["invalid settings", "token_budget", "less than or equal to 200000"]),
        ([], {"DEEPREAD_TOKEN_BUDGET": "lots"}, ["invalid settings", "token_budget", "lots"]),
        ([], {"DEEPREAD_TRANSPORT": "ftp"}, ["invalid settings", "transport", "'stdio' or 'http'"]),
        (["--log-level", "loud"], {}, ["invalid settings", "log_level", "LOUD"]),
        (["--port", "0"], {}, ["invalid settings", "port"]),
        ([], {"DEEPREAD_MAX_FILE_MB": "0"}, ["invalid settings", "max_file_mb"]),
    ],
)
def test_serve_refuses_bad_settings_with_a_message_and_exit_code_2(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    home: Path,
    docs: tuple[Path, Path, Path],
    argv: list[str],
    env: dict[str, str],
    phrases: list[str],
) -> None:
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    rc = cli.main(["serve", str(docs[0]), *argv])
    err = assert_refused(capsys, rc, *phrases)
    assert "Traceback" not in err
    assert not (home / "share").exists(), "a refused start creates no index dir"


@pytest.mark.parametrize(
    ("argv", "phrase"),
    [
        (["--token-budget", "lots"], "argument --token-budget: invalid int value: 'lots'"),
        (["--port", "http"], "argument --port: invalid int value: 'http'"),
        (["--transport", "ftp"], "argument --transport: invalid choice: 'ftp'"),
    ],
)
def test_malformed_flags_are_refused_by_the_parser(
    capsys: pytest.CaptureFixture[str], docs: tuple[Path, Path, Path], argv: list[str], phrase: str
) -> None:
    with pytest.raises(SystemExit) as exc:
        cli.main(["serve", str(docs[0]), *argv])
    assert_refused(capsys, exc.value.code, phrase)  # type: ignore[arg-type]


def test_serve_refuses_folders_that_are_not_folders(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    home: Path,
    docs: tuple[Path, Path, Path],
) -> None:
    alpha = docs[0]
    missing = tmp_path / "missing"
    assert_refused(capsys, cli.main(["serve", str(alpha), str(missing)]), f"deepread-mcp: {missing} does not exist")
    a_file = tmp_path / "notes.md"
    a_file.write_text("# Notes\n")
    assert_refused(capsys, cli.main(["serve", str(a_file)]), f"{a_file} is not a folder")
    monkeypatch.setenv("DEEPREAD_FOLDERS", f"{alpha}{SEP}{missing}")
    assert_refused(capsys, cli.main(["serve"]), f"{missing} does not exist")
    monkeypatch.setenv("DEEPREAD_FOLDERS", f" {SEP} ")
    assert_refused(capsys, cli.main(["serve"]), "give a folder to serve (or set DEEPREAD_FOLDERS)")
    assert not (home / "share").exists()


# --- Settings → LibraryConfig ----------------------------------------------------------------

# Paths Settings computes itself rather than taking LibraryConfig's default.
COMPUTED = {"roots", "data_dir", "models_dir", "mineru_home"}


def test_unset_settings_give_library_configs_defaults(home: Path) -> None:
    config = Settings().library_config()
    defaults = LibraryConfig(roots=[], data_dir=Path("."), models_dir=Path("."))
    compared = [f.name for f in dataclasses.fields(LibraryConfig) if f.name not in COMPUTED]
    assert {"token_budget", "max_file_bytes", "parse_timeout_s", "parse_memory_mb", "search_mode"} <= set(compared)
    for name in compared:  # a field added to LibraryConfig is compared too
        assert getattr(config, name) == getattr(defaults, name), name
    base = home / "share" / "deepread-mcp"
    assert config.roots == []
    assert config.data_dir == base / "indexes" / config.data_dir.name
    assert config.models_dir == base / "models"
    assert config.mineru_home == base / "mineru"


def test_library_config_carries_every_setting(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, docs: tuple[Path, Path, Path]
) -> None:
    alpha, beta, _ = docs
    for name, value in {
        "FOLDERS": f"{beta}{SEP}alpha",
        "DATA_DIR": "index",
        "EMBEDDING_MODEL": "some/model",
        "CHROMA_URL": "http://localhost:8000",
        "TOKEN_BUDGET": "1234",
        "MAX_FILE_MB": "2.5",
        "PARSE_TIMEOUT": "30.5",
        "PARSE_MEMORY_MB": "512",
        "MINERU_HOME": "mineru-models",
        "HEADING_CONTEXT": "false",
        "EMBED_THREADS": "3",
        "RERANKER": "Xenova/ms-marco-MiniLM-L-6-v2",
        "RERANKER_PATH": "~/reranker",
        "EXCLUDE": "*.log,build/",
        "INCLUDE": "*.pdf",
    }.items():
        monkeypatch.setenv(f"DEEPREAD_{name}", value)
    config = Settings().library_config()
    assert config.roots == [beta, alpha], "in the order given, resolved"
    assert config.data_dir == tmp_path / "index"
    assert config.models_dir == tmp_path / "index" / "models"
    assert config.embedding_model == "some/model"
    assert config.chroma_url == "http://localhost:8000"
    assert config.token_budget == 1234
    assert config.max_file_bytes == 2_500_000
    assert config.parse_timeout_s == 30.5
    assert config.parse_memory_mb == 512
    assert config.mineru_home == tmp_path / "mineru-models"
    assert config.heading_context is False
    assert config.embed_threads == 3
    assert config.reranker == "Xenova/ms-marco-MiniLM-L-6-v2"
    assert config.reranker_path == tmp_path / "home" / "reranker"
    assert config.exclude == ("*.log", "build/") and config.include == ("*.pdf",)
