"""``fce ingest``: the Typer command over :func:`fce.ingest.ingest` (registered by :mod:`fce.cli`).

Errors are raised as :mod:`fce.errors` exceptions; the app maps them to messages and exit codes.
"""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from fce.cliutil import parse_size as _size
from fce.ingest.pipeline import (
    DEFAULT_K,
    DEFAULT_MIN_PAGES,
    DEFAULT_RECORD_TIMEOUT,
    DEFAULT_RETRIES,
    ingest,
)
from fce.parse import MAX_PAGE_BYTES

if TYPE_CHECKING:
    from templates_store import TemplateStore

__all__ = ["EngineName", "ingest_command"]


class EngineName(StrEnum):
    local = "local"
    dask = "dask"


def ingest_command(
    ctx: typer.Context,
    inputs: Annotated[list[str], typer.Argument(
        metavar="INPUT", show_default=False,
        help="WARC or WARC.gz files, JSON lines files ({\"url\", \"html\"} per line), or directories (their WARC "
             "and JSON lines files, and their HTML files as one input).")],
    out: Annotated[Path, typer.Option(
        "--out", metavar="DIR", show_default=False,
        help="Output directory: one <input>.<hash>.jsonl (a row per record) and one manifest per input.")],
    engine: Annotated[EngineName, typer.Option(
        metavar="local|dask", help="local: worker processes on this machine; dask: Dask distributed.")]
    = EngineName.local,
    scheduler: Annotated[str | None, typer.Option(
        metavar="URL", show_default=False,
        help="Dask scheduler (tcp://HOST:8786); without it --engine dask starts a LocalCluster.")] = None,
    store: Annotated[str | None, typer.Option(
        "--store", metavar="URL", show_default=False,
        help="Template store shared by the workers: redis://[:password@]host:port/db, redis+cluster://host:port, "
             "sqlite:///path.db (overrides the global --store and $FCE_STORE).")] = None,
    learn_only: Annotated[bool, typer.Option(
        "--learn-only", help="Sample and learn templates; write no rows.")] = False,
    detect_only: Annotated[bool, typer.Option(
        "--detect-only", help="Extract with the templates already stored; learn nothing.")] = False,
    k: Annotated[int, typer.Option("--k", min=1, metavar="N", help="Pages sampled per domain for learning.")]
    = DEFAULT_K,
    min_pages: Annotated[int, typer.Option(
        min=1, metavar="N", help="Sampled pages a domain needs to be learned.")] = DEFAULT_MIN_PAGES,
    max_bytes: Annotated[int, typer.Option(
        "--max-bytes", metavar="SIZE", parser=_size,
        help="Records larger than this are not parsed (status too_large); bytes, or with K/M/G.")]
    = MAX_PAGE_BYTES,
    timeout: Annotated[float, typer.Option(
        min=0.0, metavar="SECONDS",
        help="Seconds a record may take to parse, and again to extract (status timeout); 0: no limit.")]
    = DEFAULT_RECORD_TIMEOUT,
    workers: Annotated[int | None, typer.Option(
        min=0, metavar="N", show_default=False,
        help="Worker processes (default: one per CPU; 0: in this process, local engine only).")] = None,
    retries: Annotated[int, typer.Option(
        min=0, metavar="N", help="Further attempts of a task that failed because the store was unreachable.")]
    = DEFAULT_RETRIES,
    refresh_after: Annotated[float | None, typer.Option(
        min=0.001, metavar="SECONDS", show_default=False,
        help="Learn again the domains whose stored template is older than this.")] = None,
    relearn_stale: Annotated[bool, typer.Option(
        "--relearn-stale/--keep-stale",
        help="Learn again, from this run's pages, the domains whose stored template is stale (its recent "
             "detections mostly fell back: fce sites).")] = True,
    comments: Annotated[bool, typer.Option(
        "--comments", help="Also give each page's reader comments, which the text leaves out, as the field "
                           "comments of its row.")] = False,
    progress: Annotated[bool, typer.Option(
        "--progress/--no-progress", help="Progress bars on stderr (shown only on a terminal).")] = True,
) -> None:
    """Learn templates per registered domain from crawl files and extract every record into JSON lines.

    Two phases: sample up to --k pages per domain (the smallest URL hashes) and learn a template for each domain
    with at least --min-pages of them and no fresh template in the store (none, too old, or stale); then
    extract every record with its domain's template, or the fallback method. Every record gets one row (status
    ok, fallback, skipped_non_html, too_large, timeout, decode_error, not_html, empty, store_error or error).
    Inputs whose manifest says they are complete are skipped, so rerunning a failed job completes it.
    """
    if learn_only and detect_only:
        raise typer.BadParameter("give --learn-only or --detect-only, not both", param_hint="--detect-only")
    if engine is EngineName.local and scheduler:
        raise typer.BadParameter("--scheduler needs --engine dask", param_hint="--scheduler")
    if engine is EngineName.dask and workers == 0:
        raise typer.BadParameter("--workers 0 (in this process) is for --engine local", param_hint="--workers")
    if min_pages > k:
        raise typer.BadParameter(f"cannot exceed --k ({k})", param_hint="--min-pages")
    target = _store(ctx, store)
    if engine is EngineName.dask and target.url.startswith("memory:"):
        raise typer.BadParameter("a memory:// store lives in one process: give Dask workers a redis:// or "
                                 "sqlite:// store", param_hint="--store")
    summary = ingest(
        inputs,
        out_dir=out,
        store=target,
        engine=engine.value,
        scheduler=scheduler,
        k=k,
        min_pages=min_pages,
        learn_only=learn_only,
        detect_only=detect_only,
        max_bytes=max_bytes,
        timeout=timeout or None,
        workers=workers,
        progress=progress,
        retries=retries,
        comments=comments,
        refresh_after=refresh_after,
        relearn_stale=relearn_stale,
        raise_on_failure=False,
    )
    typer.echo(summary.to_text())
    if summary.outcomes_lost:
        typer.echo(f"fce: warning: {summary.outcomes_lost} fit/fallback counts were not stored: "
                   f"{' '.join(str(summary.outcomes_error).split())}", err=True)
    summary.raise_for_failures()


def _store(ctx: typer.Context, override: str | None) -> TemplateStore:
    """The app's shared store (built from the global ``--store`` / ``$FCE_STORE``), or ``override``'s."""
    state = ctx.find_root().obj
    if state is not None and hasattr(state, "store"):
        return state.store(override)  # type: ignore[no-any-return]
    from templates_store import open_store

    return open_store(override)
