"""The layout docs/design.md and `indexer/__init__.py` describe: stages import only earlier ones,
nothing in `indexer/` imports the server, and every stage says what it holds and has tests beside it.
(Modules are split by idea, not by length: no line count is checked.)"""

from __future__ import annotations

import ast
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SHARED = {"models", "errors", "tokens", "languages"}
FACADE = {"library"}
# What each stage may import besides the shared modules.
ALLOWED = {
    "parse": set(),
    "titles": {"parse"},
    "structure": {"parse", "titles"},
    "store": {"parse", "titles", "structure"},
    "ingest": {"parse", "titles", "structure", "store"},
    "search": {"parse", "titles", "structure", "store"},
    "answers": {"parse", "titles", "structure", "store", "search"},
    "service": {"parse", "titles", "structure", "store", "ingest", "search", "answers"},
}


def _imports(path: Path) -> set[str]:
    """Every `indexer.X` or `server` module a file imports, at the top or inside a function."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return {name for name in found if name.split(".")[0] in ("indexer", "server")}


def _part(module: str) -> str | None:
    """The stage, shared module or facade an `indexer.…` name belongs to."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[0] == "indexer" else None


def test_stages_import_only_earlier_stages():
    wrong = []
    for path in sorted((REPO / "indexer").rglob("*.py")):
        rel = path.relative_to(REPO / "indexer").parts
        own = rel[0].removesuffix(".py")
        for name in _imports(path):
            if name.split(".")[0] == "server":
                wrong.append(f"{path.relative_to(REPO)} imports {name} (the indexer knows nothing of the server)")
                continue
            target = _part(name)
            if target is None or target == own or target in SHARED or own in FACADE:
                continue
            if own in SHARED and target not in SHARED:
                wrong.append(f"{path.relative_to(REPO)} (shared) imports {name}")
            elif own in ALLOWED and target not in ALLOWED[own]:
                wrong.append(f"{path.relative_to(REPO)} ({own}) imports {name}")
    assert not wrong, "\n".join(wrong)


def test_every_stage_is_a_package_with_tests_beside_it():
    for stage in ALLOWED:
        init = REPO / "indexer" / stage / "__init__.py"
        assert ast.get_docstring(ast.parse(init.read_text())), f"{init} says what the stage holds"
        assert list((REPO / "tests" / "indexer" / stage).glob("test_*.py")), f"tests/indexer/{stage}/ has tests"
    top = {p.stem for p in (REPO / "indexer").glob("*.py")} - {"__init__"}
    assert top <= SHARED | FACADE, f"only shared modules and the facade sit at the top of indexer/: {sorted(top)}"


def test_a_test_file_is_named_after_each_module_of_the_service_and_of_the_top_level() -> None:
    """From a module's name a reader finds its tests: `indexer/service/follow.py` →
    `tests/indexer/service/test_follow.py`, `indexer/tokens.py` → `tests/indexer/test_tokens.py`."""
    missing = [
        f"tests/indexer/{folder}test_{path.stem}.py"
        for folder, place in (("", REPO / "indexer"), ("service/", REPO / "indexer" / "service"))
        for path in sorted(place.glob("*.py"))
        if path.stem != "__init__" and not (REPO / "tests" / "indexer" / f"{folder}test_{path.stem}.py").exists()
    ]
    assert not missing, "no tests named after their module: " + ", ".join(missing)
