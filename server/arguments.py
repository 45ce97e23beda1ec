"""The tools' arguments: each declared once, with its bounds and what it is for (the schema a host
sees), and a call whose arguments do not fit answered with what is wrong and what the tool takes."""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from typing import Annotated

from pydantic import Field, ValidationError

from indexer.library import MAX_ID
from indexer.search.retrieve import MAX_QUERY_CHARS, MAX_TOP_K, MAX_WINDOW

DocId = Annotated[int, Field(ge=0, le=MAX_ID, description="Document id (from get_toc or a retrieve hit).")]
OneDocument = Annotated[
    int | None, Field(ge=0, le=MAX_ID, description="One document's table of contents; omit for all.")
]
Subtree = Annotated[int | None, Field(ge=0, le=MAX_ID, description="With doc_id: just this section's subtree.")]
MaxDepth = Annotated[
    int | None,
    Field(
        ge=0,
        le=20,
        description="Deepest level to list (with sec_id: levels below it); 0 = document lines "
        "only, each with a +N mark for what it holds. Without doc_id, every document's sections to that "
        "depth, in up to the whole token budget (without max_depth the map keeps to a small share).",
    ),
]
After = Annotated[
    int | None,
    Field(ge=0, le=MAX_ID, description="Paging: list sec_id's sub-sections after this one (the note says when)."),
]
MapFolder = Annotated[
    str | None,
    Field(
        max_length=1000,
        description="Only the documents under this folder, as the map writes paths "
        '(e.g. "reports/2023/"); omit for all.',
    ),
]
MapPage = Annotated[
    int, Field(ge=1, le=MAX_ID, description="Page of a folder listed one line per document (the note says how many).")
]
Skipped = Annotated[
    bool,
    Field(
        description="List the folder's files that are not indexed (unsupported type, unreadable, "
        "links out of the folder) with why, instead of the map; the map's note says how many."
    ),
]
Query = Annotated[
    str,
    Field(
        max_length=MAX_QUERY_CHARS,
        description="What to look for: keywords or a short question, e.g. 'cash from operations 2015'.",
    ),
]
TopK = Annotated[int, Field(ge=1, le=MAX_TOP_K, description="How many paragraphs to rank.")]
DocIds = Annotated[
    list[Annotated[int, Field(ge=0, le=MAX_ID)]] | None,
    Field(
        min_length=1,
        description="Search only these documents (ids from get_toc); omit for all. Ids that cannot be "
        "searched (unknown, failed) are named in the answer and the rest are searched.",
    ),
]
Before = Annotated[int, Field(ge=0, le=MAX_WINDOW, description="Paragraphs to add before each hit.")]
AfterHit = Annotated[int, Field(ge=0, le=MAX_WINDOW, description="Paragraphs to add after each hit.")]
SearchFolder = Annotated[
    str | None,
    Field(
        max_length=1000,
        description='Search only the documents under this folder, as get_toc writes paths (e.g. "reports/2023/"); '
        "omit for all.",
    ),
]
FileTypes = Annotated[
    list[Annotated[str, Field(max_length=20)]] | None,
    Field(
        min_length=1,
        max_length=20,
        description='Only documents of these file types: extensions such as ["pdf", "eml"] (with or without the '
        "dot, any case).",
    ),
]
ModifiedAfter = Annotated[
    str | None,
    Field(
        max_length=40,
        description='Only documents whose file was modified on or after this ISO date or date-time ("2023-01-31", '
        '"2023-01-31T09:30"; local time unless it names a zone).',
    ),
]
ModifiedBefore = Annotated[
    str | None,
    Field(
        max_length=40,
        description="Only documents whose file was modified on or before this ISO date (through its end) or date-time.",
    ),
]
DatedAfter = Annotated[
    str | None,
    Field(
        max_length=40,
        description="Only documents whose own date (the one they state: a filing's period, a letter's date) lies "
        'wholly on or after this ISO date: one dated "2021" is after 2020-12-31 and 2021-01-01, not after '
        "2021-06-01. Documents that state no date are left out.",
    ),
]
DatedBefore = Annotated[
    str | None,
    Field(
        max_length=40,
        description='Only documents whose own date lies wholly on or before this ISO date: one dated "2021" is '
        "before 2021-12-31 and 2022-01-01, not before 2021-06-01.",
    ),
]
SecId = Annotated[int, Field(ge=0, le=MAX_ID, description="Section id within the document (0 = the root).")]
StartPara = Annotated[int, Field(ge=0, le=MAX_ID, description="First paragraph to read.")]
EndPara = Annotated[
    int | None, Field(ge=0, le=MAX_ID, description="Last paragraph to read (inclusive); omit for the section's end.")
]
Version = Annotated[
    int | None,
    Field(
        ge=0,
        le=MAX_ID,
        description="Document version your coordinates came from (v in retrieve/get_toc); "
        "if the document changed since, the answer says so.",
    ),
]
Images = Annotated[
    bool,
    Field(
        description="Also show each figure, chart and table of a PDF as an image of its region "
        "(counted in the token budget); for questions about what a chart or page looks like."
    ),
]
Part = Annotated[
    int | None,
    Field(
        ge=1,
        le=MAX_ID,
        description="Part N of paragraph start_para, when that one paragraph is longer "
        "than the token budget (the answer names the call for the next part).",
    ),
]
Page = Annotated[int, Field(ge=1, le=MAX_ID, description="Page number, 1-based.")]


def bad_arguments(name: str, schema: dict, error: ValidationError) -> str:
    """`retrieve: top_k: input should be less than or equal to 50 (got 500). It takes query (text),
    top_k (integer 1–50, optional), …`: the problems, then the whole signature to retry with."""
    problems = []
    for e in error.errors(include_url=False)[:5]:
        field = ".".join(str(part) for part in e["loc"]) or "the arguments"
        if e["type"] == "missing":
            problems.append(f"{field} is required")
        else:
            got = repr(e.get("input"))
            problems.append(
                f"{field}: {e['msg'][:1].lower()}{e['msg'][1:]} (got {got[:60]}{'…' if len(got) > 60 else ''})"
            )
    return f"{name}: {'; '.join(problems)}. {takes(schema)}"


def unknown_arguments(name: str, schema: dict, given: Iterable[str]) -> str | None:
    """`get_toc: there is no argument 'doc' (did you mean doc_id?). It takes …`: the names a tool
    does not take (a host's typo would otherwise be dropped without a word); None when all fit."""
    valid = list(schema.get("properties", {}))
    unknown = [arg for arg in given if arg not in valid]
    if not unknown:
        return None
    problems = []
    for arg in unknown[:5]:
        close = difflib.get_close_matches(arg, valid, n=1)
        problems.append(f"there is no argument {arg[:60]!r}" + (f" (did you mean {close[0]}?)" if close else ""))
    more = f" (and {len(unknown) - 5} more)" if len(unknown) > 5 else ""
    return f"{name}: {'; '.join(problems)}{more}. {takes(schema)}"


def takes(schema: dict) -> str:
    """`It takes query (text), top_k (integer 1–50, optional), …`: a tool's whole signature."""
    required = set(schema.get("required", []))
    params = ", ".join(
        f"{param} ({_kind(spec)}{'' if param in required else ', optional'})"
        for param, spec in schema.get("properties", {}).items()
    )
    return f"It takes {params}."


def _kind(spec: dict) -> str:
    """A parameter's JSON-schema type in a few words: `integer 1–50`, `text`, `list of integers`."""
    spec = next((s for s in spec.get("anyOf", []) if s.get("type") != "null"), spec)
    names = {"string": "text", "integer": "integer", "boolean": "true/false", "number": "number"}
    if spec.get("type") == "array":
        return f"list of {names.get(spec.get('items', {}).get('type', ''), 'value')}s"
    kind = names.get(spec.get("type", ""), "")
    if "minimum" in spec and "maximum" in spec and spec["maximum"] < 10**6:
        kind += f" {spec['minimum']}–{spec['maximum']}"
    elif "minimum" in spec:
        kind += f" ≥ {spec['minimum']}"
    return kind or "value"
