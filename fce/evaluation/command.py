"""``fce eval``: the evaluation command, a thin layer over :func:`fce.evaluation.harness.evaluate`.

Registered by :mod:`fce.cli` as ``app.command("eval")(eval_command)``. User errors are raised as
:mod:`fce.errors` exceptions (the app maps them to exit codes) or as Typer usage errors (exit 2); the command
never exits by itself.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path
from typing import Annotated

import typer

from fce.content_extractor import COMPARISONS, PAIRWISE
from fce.detect import DEFAULT_MODE, DETECTION_MODES
from fce.errors import SourceError
from fce.evaluation.harness import (
    DEFAULT_FOLDS,
    MAX_LEARN_PAGES,
    MIN_LEARN_PAGES,
    TEMPLATE_METHOD,
    EvalResult,
    ce_vs_fastce,
    evaluate,
    render_table2,
    render_timing,
)
from fce.evaluation.measures import BLOCK, TEXT_MEASURES, WORD
from fce.evaluation.metadata import evaluate_documents as evaluate_metadata
from fce.evaluation.metadata import expects_metadata, format_table, metadata_peers, summarise
from fce.evaluation.packages import iter_documents
from fce.evaluation.peers import peer_names
from fce.evaluation.report import (
    compare_template,
    render_by_type,
    render_comparison,
    render_table,
    write_rows,
    write_summary_tsv,
)
from fce.extras import install_hint, require
from fce.learn import MIN_PAGES
from fce.pipeline import DEFAULT_FALLBACK

__all__ = ["eval_command"]

_MEASURES = (*TEXT_MEASURES, BLOCK)


def eval_command(
    packages: Annotated[
        list[Path],
        typer.Argument(
            help="Test packages: directories of <id>.html + <id>.txt gold (+ <id>.json meta), searched "
            "recursively (a dataset, a site, or the data root), or single .html files.",
            show_default=False,
            metavar="PACKAGE",
        ),
    ],
    method: Annotated[
        list[str] | None,
        typer.Option(
            "--method",
            "-m",
            metavar="NAME",
            help=f"A single-page method to evaluate (repeatable; see `fce methods`). Default: {DEFAULT_FALLBACK}.",
            show_default=False,
        ),
    ] = None,
    template: Annotated[
        bool,
        typer.Option(
            "--template",
            help="Also evaluate FastCE's templates per site, k-fold by page: learn on pages never scored in "
            f"the same fold ({MIN_LEARN_PAGES}–{MAX_LEARN_PAGES} pages), detect the rest with the fallback.",
        ),
    ] = False,
    peer: Annotated[
        list[str] | None,
        typer.Option(
            "--peer",
            metavar="NAME",
            help=f"Another extractor to compare (repeatable): {', '.join(peer_names())}. "
            f"Needs: {install_hint('peers')}.",
            show_default=False,
        ),
    ] = None,
    out: Annotated[
        Path | None,
        typer.Option(
            "--out", metavar="FILE", help="Write per-page rows: .tsv (Gottron's format) or .jsonl.", show_default=False
        ),
    ] = None,
    summary: Annotated[
        Path | None,
        typer.Option(
            "--summary",
            metavar="FILE",
            help="Write the summaries (per dataset and per site, every measure) as TSV.",
            show_default=False,
        ),
    ] = None,
    plots: Annotated[
        Path | None,
        typer.Option(
            "--plots",
            metavar="DIR",
            help="Write PNG charts to this directory (F1 per site, precision/recall, time); needs matplotlib.",
            show_default=False,
        ),
    ] = None,
    by_site: Annotated[bool, typer.Option("--by-site", help="Also print the table per site.")] = False,
    measure: Annotated[
        str,
        typer.Option("--measure", metavar="MEASURE", help=f"The measure of the console table: {', '.join(_MEASURES)}."),
    ] = WORD,
    workers: Annotated[int, typer.Option("--workers", min=1, metavar="N", help="Worker processes.")] = 1,
    folds: Annotated[
        int, typer.Option("--folds", min=2, metavar="K", help="Folds of the template mode.")
    ] = DEFAULT_FOLDS,
    min_learn: Annotated[
        int,
        typer.Option(
            "--min-learn",
            metavar="N",
            min=MIN_PAGES,
            help="Pages a template learns from, at least; smaller sites are skipped by --template.",
        ),
    ] = MIN_LEARN_PAGES,
    fallback: Annotated[
        str,
        typer.Option(
            "--fallback", metavar="NAME", help="The method --template falls back to when a template does not fit."
        ),
    ] = DEFAULT_FALLBACK,
    mode: Annotated[
        str,
        typer.Option("--mode", metavar="guided|rules", help="How --template applies templates (fce detect --mode)."),
    ] = DEFAULT_MODE,
    one_layout: Annotated[
        bool,
        typer.Option("--one-layout", help="--template learns one template per site from all its pages (the paper), "
                     "instead of one per layout (what fce learn stores)."),
    ] = False,
    table2: Annotated[
        bool,
        typer.Option(
            "--table2",
            help="Also print the FastCE paper's Table II: ContentExtractor against FastCE (NumBlockTemp, "
            "NumBlock, PerTime) per site.",
        ),
    ] = False,
    table2_ce: Annotated[
        str,
        typer.Option(
            "--table2-ce",
            help="How ContentExtractor compares blocks in --table2: pairwise (every block with every block of "
            "every page, the paper's CE) or merged (identical blocks merged first, as learning runs it). Same "
            "labels, different cost.",
        ),
    ] = PAIRWISE,
    progress: Annotated[bool, typer.Option("--progress/--no-progress", help="A progress bar on stderr.")] = True,
) -> None:
    """Evaluate extraction methods on test packages: precision, recall and F1 per page against gold text.

    Prints a table per dataset and method (pages scored, mean P / R / F1, site-macro F1, F1 standard
    deviation, ms per page, s per kB) and the time table. Gold-less pages are counted but not scored. Where
    pages carry expected metadata (the readability set), also the accuracy of fce's metadata per field, and
    trafilatura's with --peer trafilatura.
    """
    started = time.perf_counter()
    if mode not in DETECTION_MODES:
        raise typer.BadParameter(f"must be one of {', '.join(DETECTION_MODES)}", param_hint="--mode")
    if table2_ce not in COMPARISONS:
        raise typer.BadParameter(f"must be one of {', '.join(COMPARISONS)}", param_hint="--table2-ce")
    if measure not in _MEASURES:
        raise typer.BadParameter(f"unknown measure {measure!r}; one of {', '.join(_MEASURES)}", param_hint="--measure")
    if plots is not None:
        require("matplotlib", "plots", "fce eval --plots")  # before any page is read
    for path in (out, summary):
        if path is not None and path.is_dir():
            raise typer.BadParameter(f"{path} is a directory; give a file name")
    methods = list(method or (DEFAULT_FALLBACK,))
    if template and fallback not in methods:
        methods.append(fallback)  # fce without a template, beside the template mode on the same pages
    result = evaluate(
        packages,
        methods=methods,
        template=template,
        folds=folds,
        peers=peer or (),
        progress=progress,
        workers=workers,
        min_learn=min_learn,
        max_learn=max(MAX_LEARN_PAGES, min_learn),
        fallback=fallback,
        mode=mode,
        layouts=not one_layout,
    )
    if not result.rows:
        raise SourceError(f"no pages (.html files) found in {', '.join(map(str, packages))}")
    typer.echo(_report(result, measure=measure, by_site=by_site, min_learn=min_learn, fallback=fallback,
                       peers=peer or ()))
    expecting = [doc for doc in iter_documents(packages) if expects_metadata(doc)]
    if expecting:  # (the readability set: Readability.js's expected title, byline, date, …)
        scored = evaluate_metadata(expecting, peers=metadata_peers(peer or ()))
        typer.echo(f"metadata of the {len(expecting)} pages with expected_metadata (acc: right where a value is "
                   "expected; found: pages with a value)")
        typer.echo(format_table(summarise(scored), scored))
    if out is not None:
        out.parent.mkdir(parents=True, exist_ok=True)
        write_rows(result.rows, out)
        typer.echo(f"per-page rows: {out}")
    if summary is not None:
        summary.parent.mkdir(parents=True, exist_ok=True)
        present = [m for m in _MEASURES if any(m in row.measures for row in result.rows)]
        write_summary_tsv([s for m in present for by in (False, True) for s in result.summary(m, by_site=by)], summary)
        typer.echo(f"summaries: {summary}")
    if plots is not None:
        from fce.evaluation.plots import plot_all

        written = plot_all(result.rows, plots, measures=(measure,))
        typer.echo(f"charts: {len(written)} PNG in {plots}")
    if table2:
        lines, skipped = ce_vs_fastce(
            packages, min_learn=min_learn, max_learn=max(MAX_LEARN_PAGES, min_learn), folds=folds,
            progress=progress, comparison=table2_ce,
        )  # fmt: skip
        typer.echo(f"\nContentExtractor ({table2_ce} comparison) against FastCE (FastCE §IV Table II; NBT / NB / "
                   "PerTime in ms per page)")
        typer.echo(render_table2(lines) if lines else "no site has enough pages")
        if skipped:
            typer.echo(f"{len(skipped)} site(s) skipped (fewer than {min_learn + 1} pages, or nothing to learn)")
    typer.echo(f"wall time: {time.perf_counter() - started:.1f} s (evaluation {result.wall_seconds:.1f} s)")


def _report(result: EvalResult, *, measure: str, by_site: bool, min_learn: int, fallback: str,
            peers: Sequence[str]) -> str:
    """The console report: the summary table(s), BF for the template mode, the time table, notes."""

    def table(by: bool) -> str:
        # Leave out the template mode where it scored nothing (every site too small: noted below).
        return render_table([s for s in result.summary(measure, by_site=by) if s.n or s.method != TEMPLATE_METHOD])

    parts = [f"{measure} F1 per dataset and method", table(False)]
    if by_site:
        parts += [f"{measure} F1 per site and method", table(True)]
    by_type = render_by_type(result.rows, measure)
    if by_type:  # packages whose pages say their type (wcxb-dev)
        parts += [f"{measure} F1 per page type (page mean)", by_type]
    if TEMPLATE_METHOD in result.methods and measure != BLOCK:
        others = [m for m in result.methods if m != TEMPLATE_METHOD]
        lines = compare_template(result.rows, others, baseline=fallback, measure=measure)
        if not by_site:
            lines = [x for x in lines if x.site is None]
        parts += [f"the template mode beside fce without a template ({fallback}) and the other extractors, on the "
                  f"pages it scored ({measure} F1; site-macro per dataset)", render_comparison(lines, peers)]
    if measure != BLOCK and any(BLOCK in row.measures for row in result.rows):
        blocks = [s for s in result.summary(BLOCK) if s.n]
        parts += ["block F1 (BF) of the template mode", render_table(blocks)]
    parts += ["time per page (fce methods: parse + extract; template: parse + match or fallback)"]
    parts += [render_timing(result.timing)]
    notes = []
    if result.folds:
        sites = {(f.dataset, f.site) for f in result.folds}
        learned = sum(len(f.learned) for f in result.folds) / len(result.folds)
        learn_s = sum(f.learn_seconds for f in result.folds) / len(result.folds)
        used = ", ".join(f"{name} {n}" for name, n in sorted(result.extractors().items()))
        notes.append(
            f"template: {len(sites)} site(s) in {len(result.folds)} folds, {learned:.0f} pages learned per "
            f"fold ({learn_s:.2f} s each); pages extracted by: {used or 'none'}"
        )
    if result.skipped and TEMPLATE_METHOD in result.methods:
        pages = sum(s.n_pages for s in result.skipped)
        notes.append(
            f"template: {len(result.skipped)} site(s) skipped ({pages} pages, status 'skipped'): "
            f"fewer than {min_learn + 1} pages"
        )
    errors: dict[str, int] = {}
    for row in result.rows:
        if row.status == "error":
            errors[row.method] = errors.get(row.method, 0) + 1
    if errors:
        listed = ", ".join(f"{m} {n}" for m, n in errors.items())
        notes.append(f"pages an extractor failed on (status 'error', not scored): {listed}")
    unscored = sum(1 for row in result.rows if not row.measures and row.status != "error" and row.status != "skipped")
    if unscored:
        notes.append(f"rows without gold (missing or empty; extracted and timed, not scored): {unscored}")
    return "\n".join([*parts, *notes])
