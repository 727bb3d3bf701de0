"""Evaluation results: per-page rows, their files (TSV, JSON lines), summaries and a console table.

**Per-page rows** (:class:`EvalRow`) follow Gottron's output format (§4.3): one line per document, tab
separated, with the processing time and, per measure, precision, recall and F1. TSV columns, in this order:

* ``dataset``, ``site``, ``doc_id``, ``method`` — which page, which extractor;
* ``fold`` — the cross-validation fold in which the page was a test page (empty when not cross-validated);
* ``status`` — ``ok``, ``missing_gold``, ``empty_gold`` (:class:`fce.evaluation.packages.GoldStatus`) or
  ``error`` / ``timeout`` set by the harness;
* ``ms`` — extraction time of the page in milliseconds; ``kb`` — size of the page's HTML in kB (1 kB = 1000
  bytes, :func:`kilobytes`);
* then for each measure ``m`` present in any row: ``m_p``, ``m_r``, ``m_f1`` (empty cells when a row lacks
  it). Measures appear in the order of :data:`fce.evaluation.measures.TEXT_MEASURES`, then ``block``, then the
  rest alphabetically.

Floats are written with ``repr`` so a file reads back to equal rows. Gottron appends the standard deviation of
F1 to the same file; we keep the per-page file rectangular and put spread and means in the summaries instead.

**Summaries** (:class:`Summary`, :func:`summarise`) per ``(dataset, site, method)`` or per
``(dataset, method)``: page count, mean precision / recall / F1 over pages, site-macro F1 (every site weighs
the same), sample standard deviation of page F1, mean milliseconds per page and seconds per kB (total time /
total size).
"""

from __future__ import annotations

import csv
import json
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from os import PathLike
from pathlib import Path
from typing import Any

from fce.evaluation.measures import BLOCK, PRF, TEXT_MEASURES, WORD, mean, site_macro_mean, std

__all__ = [
    "BYTES_PER_KB",
    "FIXED_COLUMNS",
    "TEMPLATE_LOSS_MARGIN",
    "EvalRow",
    "Summary",
    "TemplateComparison",
    "compare_template",
    "render_by_type",
    "kilobytes",
    "read_jsonl",
    "read_rows",
    "read_tsv",
    "render_comparison",
    "render_table",
    "summarise",
    "write_jsonl",
    "write_rows",
    "write_summary_tsv",
    "write_tsv",
]

#: Gottron normalises time "to seconds per kB" (§3); we count kB as 1000 bytes.
BYTES_PER_KB = 1000

#: The TSV columns before the per-measure columns.
FIXED_COLUMNS: tuple[str, ...] = ("dataset", "site", "doc_id", "method", "fold", "status", "ms", "kb")

_SUFFIXES = {"p": "precision", "r": "recall", "f1": "f1"}


def kilobytes(n_bytes: int) -> float:
    """Size in kB (1000 bytes) for :attr:`EvalRow.kb`."""
    return n_bytes / BYTES_PER_KB


@dataclass(frozen=True, slots=True)
class EvalRow:
    """The evaluation of one method on one page.

    ``measures`` maps a measure name (``word``, ``char`` … ``block``) to its scores; it is empty for a page
    that was not scored (no gold, or the method failed — see ``status``).
    """

    dataset: str
    site: str
    doc_id: str
    method: str
    fold: int | None
    measures: dict[str, PRF] = field(hash=False)
    ms: float
    kb: float
    status: str


# ------------------------------------------------------------------------------------------------------------
# Per-page files
# ------------------------------------------------------------------------------------------------------------


def _measure_order(rows: Iterable[EvalRow]) -> list[str]:
    present = {name for row in rows for name in row.measures}
    known = [m for m in (*TEXT_MEASURES, BLOCK) if m in present]
    return known + sorted(present - set(known))


def _float(text: str) -> float:
    return float(text) if text else math.nan


def write_tsv(rows: Iterable[EvalRow], path: str | PathLike[str]) -> Path:
    """Write rows as tab-separated values with a header line (module docstring); returns the path."""
    rows = list(rows)
    measures = _measure_order(rows)
    out = Path(path)
    with out.open("w", encoding="utf-8", newline="") as fh:
        writer = csv.writer(fh, delimiter="\t", lineterminator="\n")
        writer.writerow([*FIXED_COLUMNS, *(f"{m}_{s}" for m in measures for s in _SUFFIXES)])
        for row in rows:
            cells = [row.dataset, row.site, row.doc_id, row.method, "" if row.fold is None else str(row.fold)]
            cells += [row.status, repr(float(row.ms)), repr(float(row.kb))]
            for m in measures:
                prf = row.measures.get(m)
                cells += (
                    ["", "", ""] if prf is None else [repr(prf.precision), repr(prf.recall), repr(prf.f1)]
                )
            writer.writerow(cells)
    return out


def read_tsv(path: str | PathLike[str]) -> list[EvalRow]:
    """Read a file written by :func:`write_tsv`."""
    with Path(path).open(encoding="utf-8", newline="") as fh:
        reader = csv.reader(fh, delimiter="\t")
        header = next(reader, None)
        if header is None:
            return []
        if tuple(header[: len(FIXED_COLUMNS)]) != FIXED_COLUMNS:
            raise ValueError(f"{path}: not an evaluation TSV (header starts {header[: len(FIXED_COLUMNS)]})")
        measure_columns = header[len(FIXED_COLUMNS) :]
        names = [c.rsplit("_", 1)[0] for c in measure_columns[::3]]
        rows = []
        for cells in reader:
            dataset, site, doc_id, method, fold, status, ms, kb = cells[: len(FIXED_COLUMNS)]
            values = cells[len(FIXED_COLUMNS) :]
            measures = {
                name: PRF(float(values[3 * i]), float(values[3 * i + 1]), float(values[3 * i + 2]))
                for i, name in enumerate(names)
                if values[3 * i] != ""
            }
            rows.append(
                EvalRow(
                    dataset=dataset,
                    site=site,
                    doc_id=doc_id,
                    method=method,
                    fold=int(fold) if fold else None,
                    measures=measures,
                    ms=_float(ms),
                    kb=_float(kb),
                    status=status,
                )
            )
        return rows


def _row_to_json(row: EvalRow) -> dict[str, Any]:
    return {
        "dataset": row.dataset,
        "site": row.site,
        "doc_id": row.doc_id,
        "method": row.method,
        "fold": row.fold,
        "status": row.status,
        "ms": row.ms,
        "kb": row.kb,
        "measures": {
            name: {"precision": prf.precision, "recall": prf.recall, "f1": prf.f1}
            for name, prf in row.measures.items()
        },
    }


def write_jsonl(rows: Iterable[EvalRow], path: str | PathLike[str]) -> Path:
    """Write rows as JSON lines, one object per page; ``measures`` as ``{name: {precision, recall, f1}}``."""
    out = Path(path)
    with out.open("w", encoding="utf-8") as fh:
        for row in rows:
            fh.write(json.dumps(_row_to_json(row), ensure_ascii=False) + "\n")
    return out


def read_jsonl(path: str | PathLike[str]) -> list[EvalRow]:
    """Read a file written by :func:`write_jsonl`."""
    rows = []
    with Path(path).open(encoding="utf-8") as fh:
        for line in fh:
            if not line.strip():
                continue
            obj = json.loads(line)
            rows.append(
                EvalRow(
                    dataset=obj["dataset"],
                    site=obj["site"],
                    doc_id=obj["doc_id"],
                    method=obj["method"],
                    fold=obj["fold"],
                    measures={name: PRF(**prf) for name, prf in obj["measures"].items()},
                    ms=float(obj["ms"]),
                    kb=float(obj["kb"]),
                    status=obj["status"],
                )
            )
    return rows


def write_rows(rows: Iterable[EvalRow], path: str | PathLike[str]) -> Path:
    """:func:`write_jsonl` for a ``.jsonl`` / ``.json`` path, else :func:`write_tsv`."""
    if Path(path).suffix.casefold() in (".jsonl", ".json"):
        return write_jsonl(rows, path)
    return write_tsv(rows, path)


def read_rows(path: str | PathLike[str]) -> list[EvalRow]:
    """:func:`read_jsonl` for a ``.jsonl`` / ``.json`` path, else :func:`read_tsv`."""
    if Path(path).suffix.casefold() in (".jsonl", ".json"):
        return read_jsonl(path)
    return read_tsv(path)


# ------------------------------------------------------------------------------------------------------------
# Summaries
# ------------------------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Summary:
    """One method on one site (``site`` set) or on a whole dataset (``site is None``), under one measure.

    * ``n`` — pages scored under ``measure``; ``n_pages`` — all pages, scored or not (they count for time);
    * ``precision``, ``recall``, ``f1`` — means over the scored pages (``f1`` is the mean page F1);
    * ``f1_site_macro`` — mean over sites of the per-site mean F1 (equals ``f1`` for one site);
    * ``f1_std`` — sample standard deviation of page F1 (Gottron's "estimated standard deviation"; ``nan``
      below two pages);
    * ``ms_per_page`` — mean extraction time; ``s_per_kb`` — total seconds over total kB of HTML.
    """

    dataset: str
    site: str | None
    method: str
    measure: str
    n: int
    n_pages: int
    n_sites: int
    precision: float
    recall: float
    f1: float
    f1_site_macro: float
    f1_std: float
    ms_per_page: float
    s_per_kb: float


def _summary(dataset: str, site: str | None, method: str, measure: str, rows: Sequence[EvalRow]) -> Summary:
    scored = [(row.site, row.measures[measure]) for row in rows if measure in row.measures]
    timed = [row for row in rows if math.isfinite(row.ms)]
    sized = [row for row in timed if math.isfinite(row.kb) and row.kb > 0]
    total_kb = math.fsum(row.kb for row in sized)
    return Summary(
        dataset=dataset,
        site=site,
        method=method,
        measure=measure,
        n=len(scored),
        n_pages=len(rows),
        n_sites=len({s for s, _ in scored}),
        precision=mean(prf.precision for _, prf in scored),
        recall=mean(prf.recall for _, prf in scored),
        f1=mean(prf.f1 for _, prf in scored),
        f1_site_macro=site_macro_mean((s, prf.f1) for s, prf in scored),
        f1_std=std(prf.f1 for _, prf in scored),
        ms_per_page=mean(row.ms for row in timed),
        s_per_kb=math.fsum(row.ms for row in sized) / 1000 / total_kb if total_kb > 0 else math.nan,
    )


def summarise(rows: Iterable[EvalRow], *, measure: str = WORD, by_site: bool = False) -> list[Summary]:
    """Summaries per ``(dataset, site, method)`` if ``by_site``, else per ``(dataset, method)``; sorted."""
    groups: dict[tuple[str, str | None, str], list[EvalRow]] = {}
    for row in rows:
        key = (row.dataset, row.site if by_site else None, row.method)
        groups.setdefault(key, []).append(row)
    return [
        _summary(dataset, site, method, measure, groups[(dataset, site, method)])
        for dataset, site, method in sorted(groups, key=lambda k: (k[0], k[1] or "", k[2]))
    ]


_SUMMARY_COLUMNS: tuple[tuple[str, str, str], ...] = (
    # (attribute, header, format)
    ("dataset", "dataset", "s"),
    ("site", "site", "s"),
    ("method", "method", "s"),
    ("measure", "measure", "s"),
    ("n", "n", "d"),
    ("n_sites", "sites", "d"),
    ("precision", "P", ".3f"),
    ("recall", "R", ".3f"),
    ("f1", "F1", ".3f"),
    ("f1_site_macro", "F1 site", ".3f"),
    ("f1_std", "F1 std", ".3f"),
    ("ms_per_page", "ms/page", ".1f"),
    ("s_per_kb", "s/kB", ".2e"),
)


def format_cell(value: Any, fmt: str) -> str:
    """``value`` in ``fmt``; ``-`` for a missing or ``nan`` value."""
    if value is None:
        return "-"
    if isinstance(value, float) and math.isnan(value):
        return "-"
    return format(value, fmt)


def render_table(summaries: Sequence[Summary]) -> str:
    """A fixed-width plain-text table, one line per summary; the ``site`` column is left out of dataset
    summaries.

    Text columns are left-aligned, numbers right-aligned; ``nan`` and missing values print as ``-``.
    """
    columns = [c for c in _SUMMARY_COLUMNS if c[0] != "site" or any(s.site is not None for s in summaries)]
    body = [[format_cell(getattr(s, attr), fmt) for attr, _, fmt in columns] for s in summaries]
    return render_rows([title for _, title, _ in columns], body, text_columns=sum(fmt == "s" for *_, fmt in columns))


def render_rows(header: Sequence[str], body: Sequence[Sequence[str]], *, text_columns: int = 2) -> str:
    """``header``, a rule and the ``body`` rows as a fixed-width table: the first ``text_columns`` columns
    left-aligned, the others right-aligned."""
    widths = [max(len(r[i]) for r in (header, *body)) for i in range(len(header))]

    def line(cells: Sequence[str]) -> str:
        return "  ".join(
            c.ljust(w) if i < text_columns else c.rjust(w) for i, (c, w) in enumerate(zip(cells, widths, strict=True))
        ).rstrip()

    return "\n".join([line(header), "  ".join("-" * w for w in widths), *(line(r) for r in body)]) + "\n"


def write_summary_tsv(summaries: Iterable[Summary], path: str | PathLike[str]) -> Path:
    """Write summaries as TSV, a column per :class:`Summary` field (empty ``site`` for dataset summaries)."""
    names = list(Summary.__dataclass_fields__)
    out = Path(path)
    with out.open("w", encoding="utf-8", newline="") as fh:
        writer = csv.writer(fh, delimiter="\t", lineterminator="\n")
        writer.writerow(names)
        for s in summaries:
            values = [getattr(s, name) for name in names]
            writer.writerow(
                ["" if v is None else repr(v) if isinstance(v, float) else str(v) for v in values]
            )
    return out


# ------------------------------------------------------------------------------------------------------------
# The template mode against the single-page extractors, on the same pages
# ------------------------------------------------------------------------------------------------------------

#: A page counts as one where the template lost when its F1 is more than this below the no-template result.
TEMPLATE_LOSS_MARGIN = 0.3


@dataclass(frozen=True, slots=True)
class TemplateComparison:
    """The template mode beside the other extractors on exactly the pages it scored, for one site (``site`` set)
    or one dataset (``site is None``: means over sites, site-macro), under one measure.

    ``f1`` maps each extractor (``template``, then the others in the order asked) to its mean F1 on those pages;
    ``losses`` counts the pages where the template's F1 is more than :data:`TEMPLATE_LOSS_MARGIN` below
    ``baseline``'s (fce without a template); ``n`` is the pages compared, ``n_sites`` the sites."""

    dataset: str
    site: str | None
    measure: str
    baseline: str
    n: int
    n_sites: int
    f1: dict[str, float]
    losses: int


def compare_template(rows: Iterable[EvalRow], methods: Sequence[str], *, baseline: str, measure: str = WORD,
                     template: str = "template") -> list[TemplateComparison]:
    """Per site and per dataset (:class:`TemplateComparison`), the pages scored by ``template`` and by every
    extractor of ``methods``: their mean F1 on those pages, and the template's losses against ``baseline``."""
    scores: dict[tuple[str, str, str], dict[str, float]] = {}
    for row in rows:
        if measure in row.measures:
            scores.setdefault((row.dataset, row.site, row.doc_id), {})[row.method] = row.measures[measure].f1
    wanted = [template, *(m for m in methods if m != template)]
    by_site: dict[tuple[str, str], list[dict[str, float]]] = {}
    for (dataset, site, _), page in sorted(scores.items()):
        if all(m in page for m in wanted):
            by_site.setdefault((dataset, site), []).append(page)
    out = []
    datasets: dict[str, list[TemplateComparison]] = {}
    for (dataset, site), pages in by_site.items():
        losses = sum(p[template] < p[baseline] - TEMPLATE_LOSS_MARGIN for p in pages) if baseline in wanted else 0
        line = TemplateComparison(dataset, site, measure, baseline, len(pages), 1,
                                  {m: mean(p[m] for p in pages) for m in wanted}, losses)
        out.append(line)
        datasets.setdefault(dataset, []).append(line)
    for dataset, lines in sorted(datasets.items()):
        out.append(TemplateComparison(dataset, None, measure, baseline, sum(x.n for x in lines), len(lines),
                                      {m: mean(x.f1[m] for x in lines) for m in wanted}, sum(x.losses for x in lines)))
    return sorted(out, key=lambda x: (x.dataset, x.site is None, x.site or ""))


def render_comparison(lines: Sequence[TemplateComparison], peers: Sequence[str] = ()) -> str:
    """A fixed-width table of :func:`compare_template`: per dataset (and site), the pages, each extractor's F1,
    the template's lead over the baseline and over the best of ``peers`` (the other extractors when none is
    named), and the template's losses."""
    if not lines:
        return "no page was scored by the template mode and every extractor\n"
    methods = list(lines[0].f1)
    baseline = lines[0].baseline
    others = [m for m in methods[1:] if m in peers] or methods[1:]
    best_of = "best peer" if any(m in peers for m in methods) else "best other"
    header = ["dataset", "site", "pages", *methods, f"vs {baseline}", f"vs {best_of}",
              f"losses>{TEMPLATE_LOSS_MARGIN}"]
    body = []
    for x in lines:
        template = x.f1[methods[0]]
        best = max((x.f1[m] for m in others), default=math.nan)
        body.append([x.dataset, x.site or "(site-macro)", str(x.n), *(format_cell(x.f1[m], ".3f") for m in methods),
                     format_cell(template - x.f1[baseline], "+.3f") if baseline in x.f1 else "-",
                     format_cell(template - best, "+.3f"), f"{x.losses} ({x.losses / x.n:.1%})" if x.n else "0"])
    return render_rows(header, body)


def render_by_type(rows: Iterable[EvalRow], measure: str = WORD) -> str:
    """Page-mean F1 of ``measure`` per dataset, page type (a row's ``page_type``: the package's meta) and method,
    one line per type with the methods as columns, the dataset's pages of every type first; empty where no row
    has a page type."""
    groups: dict[tuple[str, str], dict[str, list[float]]] = {}
    methods: list[str] = []
    for row in rows:
        page_type = getattr(row, "page_type", None)
        prf = row.measures.get(measure)
        if page_type is None or prf is None:
            continue
        if row.method not in methods:
            methods.append(row.method)
        for key in ((row.dataset, "(all)"), (row.dataset, page_type)):
            groups.setdefault(key, {}).setdefault(row.method, []).append(prf.f1)
    if not groups:
        return ""
    header = ["dataset", "page type", "pages", *methods]
    body = []
    for dataset, page_type in sorted(groups, key=lambda k: (k[0], k[1] != "(all)", k[1])):
        scores = groups[(dataset, page_type)]
        pages = max(len(v) for v in scores.values())
        body.append([dataset, page_type, str(pages),
                     *(format_cell(sum(scores[m]) / len(scores[m]), ".3f") if scores.get(m) else "-" for m in methods)])
    return render_rows(header, body)
