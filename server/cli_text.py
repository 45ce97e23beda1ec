"""The library's texts as a person at the command line reads them.

Answers and errors name the next step as a tool call (`get_toc(doc_id=3, sec_id=7)`,
`read_section(doc_id=1, sec_id=0)`): that is what a model can do. The CLI prints the same
texts (a person sees what the agent sees) but a person types commands, so each call is
rewritten here as the command that gives the same answer, scoped the way the person named the
index (`deepread-mcp toc notes --doc 3 --sec 7`). One set of texts serves both audiences; a
call or argument with no command (`view_page`, `images=true`) is left as it is.

Only our own words are rewritten: an answer's notes (`told`) and what the map says after a
document's or section's title (`told_map`). The documents' text, titles and paths are shown as
they are, even when they quote a tool call (a folder holding this project's README does).
"""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass, field
from typing import TypeVar

from indexer.models import RetrieveResult, SectionText, Toc

Answer = TypeVar("Answer", Toc, RetrieveResult, SectionText)

# A call as the texts write it: a tool's name and its arguments (a quoted path may hold parentheses).
_CALL = re.compile(
    r'\b(?P<call>call )?(?P<tool>get_toc|read_section|retrieve)\((?P<args>(?:"(?:[^"\\]|\\.)*"|[^()"])*)\)'
)
_ARG = re.compile(r'\s*(?P<name>\w+)\s*(?:=\s*(?P<value>"(?:[^"\\]|\\.)*"|\[[^\]]*\]|[^,]*))?\s*(?:,|$)')
_CUT = re.compile(r" \[…cut: [^\[\]]*\]$")  # the note that ends a paragraph clipped to the budget
_BARE = re.compile(r"\b(?P<call>call )?(?P<tool>get_toc|read_section)\b(?!\()")

_COMMANDS = {"get_toc": "toc", "read_section": "read", "retrieve": "search"}
_FLAGS = {
    "get_toc": {
        "doc_id": "--doc",
        "sec_id": "--sec",
        "after": "--after",
        "max_depth": "--depth",
        "path": "--path",
        "page": "--page",
        "skipped": "--skipped",
    },
    "read_section": {"start_para": "--start", "end_para": "--end", "part": "--part"},
    "retrieve": {"top_k": "-k", "doc_ids": "--doc", "path": "--path", "before": "--before", "after": "--after"},
}
_FILTER_FLAGS = {
    "file_types": "--type",
    "modified_after": "--modified-after",
    "modified_before": "--modified-before",
    "dated_after": "--dated-after",
    "dated_before": "--dated-before",
}
_FLAGS["get_toc"].update(_FILTER_FLAGS)
_FLAGS["retrieve"].update(_FILTER_FLAGS)
_POSITIONAL = {"read_section": ("doc_id", "sec_id"), "retrieve": ("query",)}
# What a bare name stands for (`get_toc(doc_id, sec_id)`): the value a person puts there.
_PLACEHOLDERS = {"doc_id": "D", "sec_id": "S", "doc_ids": "D", "path": "FOLDER/", "query": "QUERY"}


@dataclass
class Scope:
    """How the person named the index: the folders as typed (none: found as before, from
    DEEPREAD_FOLDERS or the one folder indexed) and the options that pick or shape the index."""

    program: str = "deepread-mcp"  # as the person ran it, quoted for their shell (`server.cli.invoked_as`)
    folders: list[str] = field(default_factory=list)
    options: list[str] = field(default_factory=list)

    def command(self, name: str, *args: str) -> str:
        """`deepread-mcp NAME FOLDER… ARGS… OPTIONS…`, quoted for the person's shell."""
        return f"{self.program} {shell_line([name, *self.folders, *args, *self.options])}"


def shell_line(argv: list[str], platform: str = sys.platform) -> str:
    """A command line as a person pastes it into their shell: quoted for Windows' command lines
    (cmd and PowerShell read double quotes), for a POSIX shell elsewhere (macOS, Linux)."""
    return subprocess.list2cmdline(argv) if platform == "win32" else shlex.join(argv)


def told(answer: Answer, scope: Scope) -> Answer:
    """A copy of a tool's answer whose notes name commands: its hint and caution, a failure's
    reason and retry, a document's warnings, a clipped paragraph's cut note."""

    def say(text: str | None) -> str | None:
        return as_commands(text, scope) if text else text

    if isinstance(answer, Toc):
        failed = [f.model_copy(update={"reason": say(f.reason), "retry": say(f.retry)}) for f in answer.failed]
        documents = [
            d.model_copy(update={"warnings": [as_commands(w, scope) for w in d.warnings]}) for d in answer.documents
        ]
        return answer.model_copy(update={"hint": say(answer.hint), "failed": failed, "documents": documents})
    if isinstance(answer, RetrieveResult):
        results = [
            r.model_copy(update={"text": _CUT.sub(lambda m: as_commands(m[0], scope), r.text)}) for r in answer.results
        ]
        return answer.model_copy(update={"hint": say(answer.hint), "caution": say(answer.caution), "results": results})
    return answer.model_copy(update={"hint": say(answer.hint)})


def told_map(text: str, scope: Scope) -> str:
    """The rendered map with the calls it writes after a title (`| get_toc(doc_id=2) opens it`,
    `| +12 sections: get_toc(doc_id=2, sec_id=30)`) as commands; each line's first part, the
    document's path and title or the section's title, is left as it is."""
    lines = []
    for line in text.split("\n"):
        head, bar, rest = line.partition(" | ")
        lines.append(head + bar + as_commands(rest, scope))
    return "\n".join(lines)


def as_commands(text: str, scope: Scope) -> str:
    """`text` (our own words) with every tool call it names written as the command a person types."""
    text = _CALL.sub(lambda m: ("run " if m["call"] else "") + _command(m["tool"], m["args"], scope), text)
    return _BARE.sub(lambda m: ("run " if m["call"] else "") + _bare(m["tool"], scope), text)


def _command(tool: str, arguments: str, scope: Scope) -> str:
    given: dict[str, str | None] = {}
    for arg in _ARG.finditer(arguments):
        if arg["name"]:
            given[arg["name"]] = _value(arg["value"])
    positional = [given.pop(name, None) or _PLACEHOLDERS.get(name, name.upper()) for name in _POSITIONAL.get(tool, ())]
    flags: list[str] = []
    for name, value in given.items():
        flag = _FLAGS[tool].get(name)
        if flag is None or value in ("false", "False"):  # no flag for it (version, images): the text without it
            continue
        if value in ("true", "True"):
            flags.append(flag)
            continue
        values = value[1:-1].split(",") if value and value.startswith("[") else [value]
        for one in values:
            flags += [flag, (one or "").strip().strip('"') or _PLACEHOLDERS.get(name, "N")]
    return scope.command(_COMMANDS[tool], *positional, *flags)


def _bare(tool: str, scope: Scope) -> str:
    """A tool named without a call ("browse get_toc", "read a section with read_section")."""
    return scope.command(_COMMANDS[tool], *(("D", "S") if tool == "read_section" else ()))


def _value(raw: str | None) -> str | None:
    if raw is None:
        return None
    raw = raw.strip()
    if raw.startswith('"'):
        try:
            return str(json.loads(raw))
        except ValueError:
            return raw.strip('"')
    return raw
