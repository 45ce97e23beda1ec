"""`deepread-mcp doctor`: what will parse what here, offline, and how to do better."""

from __future__ import annotations

import argparse
import shlex
from dataclasses import replace
from pathlib import Path

from server.cli_text import Scope
from server.hostconfig import installed
from server.settings import Settings, explain


def doctor(args: argparse.Namespace, settings: Settings) -> int:
    """What will parse what, offline, and how to do better."""
    from importlib.metadata import version

    from indexer.errors import ModelUnavailable
    from indexer.parse.formats import TEXT_PARSERS
    from indexer.parse.mineru import MINERU_FORMATS, tier_status
    from indexer.parse.mineru_worker import best_tier
    from indexer.store.embedder import Embedder

    ok = True
    try:
        embedder = Embedder(settings.models_dir(), settings.embedding_model)
        print(f"embedding model: {embedder.name} ({embedder.dim} dimensions) loads offline: ok")
        runs_on = ", ".join(p.removesuffix("ExecutionProvider") for p in embedder.providers) or "unknown"
        print(f"  runs on: {runs_on} (CUDA when onnxruntime-gpu is installed and a GPU is visible; see the README)")
        print(f"  reads: {reads(embedder.languages)}")
    except ModelUnavailable as exc:
        ok = False
        print(f"embedding model: {exc}")
    if settings.mineru_url:
        ok = check_mineru_server(settings) and ok
    home = settings.mineru_dir()
    tiers = tier_status(home)
    print(f"MinerU {version('mineru')}; its models and config live in {home}")
    for tier, state in tiers.items():
        found = "installed" if state["ready"] else f"not installed ({state['missing']} files missing)"
        print(f"  {tier} tier models: {found}")
    best = best_tier(tiers)
    print("formats:")
    print(f"  {' '.join(sorted(TEXT_PARSERS))}: built-in parser")
    if best == "flash":
        from indexer.parse import ocr

        problem = ocr.unavailable()
        scans = f"scanned PDFs are marked failed: {problem}" if problem else "scanned PDFs: RapidOCR, offline"
        print(
            "  .pdf: MinerU flash tier (text layer only; heading depth from the PDF outline, numbering and"
            f" type size; {scans})"
        )
    else:
        print(f"  .pdf: MinerU {best} tier (layout models, OCR for scans)")
    others = " ".join(sorted(s for s in MINERU_FORMATS if s != ".pdf"))
    print(f"  {others}: MinerU, read natively (no models needed)")
    from indexer.parse import ocr
    from indexer.parse.images import IMAGE_FORMATS

    problem = ocr.unavailable()
    pictures = f"marked failed: {problem}" if problem else "RapidOCR, offline, a page per image"
    print(f"  {' '.join(sorted(IMAGE_FORMATS))}: pictures of documents, {pictures}")
    print("  .eml .msg: built-in (each attachment by its own format's parser)")
    if best == "flash":
        kit = installed("mineru-kit") or "mineru-kit"
        print("for better PDF layout, tables and OCR (needs internet once, about 0.8 GB):")
        download = f"{shlex.quote(str(kit))} models download --tier basic --source huggingface"
        print(f"  MINERU_HOME={shlex.quote(str(home))} {download}")
        print("  (or --tier standard for the vision-language model, about 2 GB more); then restart the server.")
    if folders := [f for f in settings.folder_paths() if f.is_dir()]:
        report_skipped(folders, settings, args)
    return 0 if ok else 1


MULTILINGUAL_EXAMPLE = "sentence-transformers/paraphrase-multilingual-MiniLM-L12-v2"


def reads(languages: frozenset[str] | None) -> str:
    """The languages the embedding model reads, and how to read others."""
    from indexer.languages import name

    if languages is None:
        return "many languages (a multilingual model, or one fastembed does not describe)"
    named = ", ".join(sorted(name(code) for code in languages))
    return (
        f"{named} only; for documents or questions in other languages set DEEPREAD_EMBEDDING_MODEL to a "
        f"multilingual fastembed model, e.g. {MULTILINGUAL_EXAMPLE} (downloaded once)"
    )


SKIPPED_SHOWN = 20


def report_skipped(folders: list[Path], settings: Settings, args: argparse.Namespace) -> None:
    """What the folder walk will pass over, and why: the same list `toc --skipped` gives."""
    from indexer.answers.paths import ShownPaths
    from indexer.ingest.files import Folders

    walk = Folders(folders, [settings.index_dir()], settings.exclude, settings.include)
    documents = walk.scan()
    paths = ShownPaths(folders)  # as the map shows paths under several folders
    skipped = sorted(walk.skipped.items())
    print(f"folders: {len(documents):,} document(s) to index, {len(skipped):,} file(s) not indexed")
    for (root, relpath), why in skipped[:SKIPPED_SHOWN]:
        shown = paths.shown(root, relpath)
        print(f"  {shown} — {explain(why)}")
    if len(skipped) > SKIPPED_SHOWN:
        scope = getattr(args, "scope", None) or Scope()
        program = installed("deepread-mcp")
        toc = replace(scope, program=str(program) if program else scope.program).command("toc", "--skipped")
        print(f"  … and {len(skipped) - SKIPPED_SHOWN:,} more ({toc} lists them all, once indexed)")


def check_mineru_server(settings: Settings) -> bool:
    """The MinerU server PDFs and office files are sent to: does it answer, and with which tiers."""
    from indexer.parse.remote import MineruClient, RemoteRejected, RemoteUnavailable

    key = settings.mineru_api_key.get_secret_value() if settings.mineru_api_key else None
    try:
        tier = MineruClient(settings.mineru_url or "", key, timeout_s=30).best_tier()
    except (RemoteUnavailable, RemoteRejected) as exc:
        print(f"MinerU server: {exc}; files it would parse are marked failed (retried when it is back)")
        return False
    print(f"MinerU server: {settings.mineru_url} answers; PDFs and office files are parsed there, {tier} tier")
    return True
