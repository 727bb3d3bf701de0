"""PNG charts of an evaluation, after Gottron's Figures 1–3.

* :func:`plot_f1_by_site` — mean F1 per site, one bar per method (Figure 1: "average F1 performance per
  package");
* :func:`plot_precision_recall` — mean precision against mean recall, one point per method (Figure 2);
* :func:`plot_time` — milliseconds per page, one box per method (Figure 3's processing time);
* :func:`plot_all` — the three from per-page rows.

One PNG per dataset (and measure). matplotlib is an optional extra (``pip install
'fastcontentextractor[plots]'``), imported inside the functions; figures are drawn with the object-oriented API
on an Agg canvas, so no global pyplot state or backend switch is touched. Every function returns the paths it
wrote.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from os import PathLike
from pathlib import Path
from typing import TYPE_CHECKING

from fce.evaluation.measures import WORD
from fce.evaluation.report import EvalRow, Summary, summarise
from fce.extras import require

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = [
    "MAX_SITES_PER_PLOT",
    "plot_all",
    "plot_f1_by_site",
    "plot_precision_recall",
    "plot_time",
]

#: Sites shown in one F1-by-site chart, the ones with most scored pages first (CleanEval has 680 one-page
#: sites; a bar chart of all of them is unreadable). A readability limit, not a tuned value.
MAX_SITES_PER_PLOT = 30


def _figure(width: float, height: float) -> Figure:
    require("matplotlib", "plots", "fce eval --plots")
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, height), layout="constrained")
    FigureCanvasAgg(fig)
    return fig


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", text).strip("_") or "all"


def _save(fig: Figure, out_dir: Path, name: str) -> Path:
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / name
    fig.savefig(path, format="png", dpi=100)
    return path


def _by_dataset(summaries: Iterable[Summary]) -> dict[tuple[str, str], list[Summary]]:
    groups: dict[tuple[str, str], list[Summary]] = {}
    for s in summaries:
        groups.setdefault((s.dataset, s.measure), []).append(s)
    return dict(sorted(groups.items()))


def plot_f1_by_site(
    site_summaries: Iterable[Summary], out_dir: str | PathLike[str], *, max_sites: int = MAX_SITES_PER_PLOT
) -> list[Path]:
    """Grouped bars of mean F1: sites on the x axis, one bar per method; from ``summarise(.., by_site=True)``.

    One file ``f1_by_site_<dataset>_<measure>.png`` per dataset and measure; at most ``max_sites`` sites each.
    """
    paths = []
    scored = (s for s in site_summaries if s.site is not None and s.n > 0)
    for (dataset, measure), group in _by_dataset(scored).items():
        pages: dict[str, int] = {}
        for s in group:
            pages[s.site or ""] = max(pages.get(s.site or "", 0), s.n)
        sites = sorted(pages, key=lambda site: (-pages[site], site))[:max_sites]
        sites.sort()
        methods = sorted({s.method for s in group})
        f1 = {(s.site, s.method): s.f1 for s in group}
        width = 0.8 / len(methods)
        fig = _figure(max(6.0, 0.35 * len(sites) * len(methods) + 2), 4.5)
        ax = fig.subplots()
        for k, method in enumerate(methods):
            xs = [i + (k - (len(methods) - 1) / 2) * width for i in range(len(sites))]
            ax.bar(xs, [f1.get((site, method), float("nan")) for site in sites], width, label=method)
        ax.set_xticks(range(len(sites)), sites, rotation=45, ha="right", fontsize=8)
        ax.set_ylim(0, 1)
        ax.set_ylabel(f"mean F1 ({measure})")
        ax.set_title(f"{dataset}: F1 per site")
        ax.legend(fontsize=8)
        paths.append(_save(fig, Path(out_dir), f"f1_by_site_{_slug(dataset)}_{_slug(measure)}.png"))
    return paths


def plot_precision_recall(dataset_summaries: Iterable[Summary], out_dir: str | PathLike[str]) -> list[Path]:
    """Mean precision (x) against mean recall (y), one labelled point per method. Takes ``summarise(rows)``.

    One file ``precision_recall_<dataset>_<measure>.png`` per dataset and measure.
    """
    paths = []
    scored = (s for s in dataset_summaries if s.site is None and s.n > 0)
    for (dataset, measure), group in _by_dataset(scored).items():
        fig = _figure(5.5, 5.0)
        ax = fig.subplots()
        for s in sorted(group, key=lambda s: s.method):
            ax.scatter([s.precision], [s.recall], label=s.method)
            ax.annotate(
                s.method, (s.precision, s.recall), textcoords="offset points", xytext=(4, 4), fontsize=8
            )
        ax.set_xlim(0, 1.02)
        ax.set_ylim(0, 1.02)
        ax.set_xlabel(f"mean precision ({measure})")
        ax.set_ylabel(f"mean recall ({measure})")
        ax.set_title(f"{dataset}: precision and recall")
        ax.grid(True, alpha=0.3)
        paths.append(_save(fig, Path(out_dir), f"precision_recall_{_slug(dataset)}_{_slug(measure)}.png"))
    return paths


def plot_time(rows: Iterable[EvalRow], out_dir: str | PathLike[str]) -> list[Path]:
    """Box plot of milliseconds per page, one box per method (log scale); one ``time_<dataset>.png`` each."""
    times: dict[str, dict[str, list[float]]] = {}
    for row in rows:
        if row.ms == row.ms and row.ms >= 0:  # skip nan
            times.setdefault(row.dataset, {}).setdefault(row.method, []).append(row.ms)
    paths = []
    for dataset in sorted(times):
        methods = sorted(times[dataset])
        fig = _figure(max(5.0, 1.0 * len(methods) + 2), 4.5)
        ax = fig.subplots()
        ax.boxplot([times[dataset][m] for m in methods])
        ax.set_xticks(range(1, len(methods) + 1), methods)
        if all(t > 0 for m in methods for t in times[dataset][m]):
            from matplotlib.ticker import FuncFormatter

            ax.set_yscale("log")
            plain = FuncFormatter(lambda value, _: f"{value:g}")  # 3 rather than 3×10⁰
            ax.yaxis.set_major_formatter(plain)
            ax.yaxis.set_minor_formatter(plain)
        ax.set_ylabel("ms per page")
        ax.set_title(f"{dataset}: extraction time")
        ax.tick_params(axis="x", labelrotation=30)
        paths.append(_save(fig, Path(out_dir), f"time_{_slug(dataset)}.png"))
    return paths


def plot_all(
    rows: Sequence[EvalRow], out_dir: str | PathLike[str], *, measures: Sequence[str] = (WORD,)
) -> list[Path]:
    """All three charts for ``rows``: F1 by site and precision/recall for each of ``measures``, and time."""
    paths: list[Path] = []
    for measure in measures:
        paths += plot_f1_by_site(summarise(rows, measure=measure, by_site=True), out_dir)
        paths += plot_precision_recall(summarise(rows, measure=measure), out_dir)
    paths += plot_time(rows, out_dir)
    return paths
