"""msv-big9 with several layouts per site, drift detection and relearning.

    python -m bench.layouts_bench [--data DIR] [--workers 2] [--out FILE.json]

msv-big9 holds 9 news sites captured in 2005, 2009, 2013 and 2017 (10 pages each; the year starts the page id).
Three parts, each site-macro word F1 (``fce.evaluation.measures.word_f``, ``site_macro_mean``):

* ``distances`` — per site, the Jaccard distance of the pages' text-path sets (:func:`fce.layouts.page_paths`)
  between pages of the same capture year and of different years: where :data:`fce.layouts.LAYOUT_DISTANCE` comes
  from.
* ``kfold`` — learn on pages of all four years, k-fold by page with the folds of ``fce eval --template``
  (:func:`fce.evaluation.harness.fold_plan`: 5 folds, ≤ 30 learning pages), and detect the held-out pages with
  the default fallback: one template per site (:class:`fce.learn.TemplateLearner`) against layouts per site
  (:class:`fce.learn.LayoutLearner`), for several :data:`fce.layouts.MIN_LAYOUT_PAGES`.
* ``drift`` — learn the layouts on the 30 pages of 2005–2013, then detect the 10 pages of 2017 through an
  :class:`fce.pipeline.Extractor` over a store: the counters flag each redesigned site stale
  (:func:`fce.layouts.is_stale`). Word F1 on 2017 of: the old templates forced on every page (no fit test, no
  fallback: what a silently degraded template gives; guided and the paper's rules mode), the fallback method alone,
  the old layouts with the fit test and fallback ("drift handling"), and after :func:`fce.service.relearn_stale`
  from the run's other 2017 pages (5 folds of 2 pages: each page is judged by layouts learned from the 8 others,
  never from itself).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections import defaultdict
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

DEFAULT_DATA = Path(os.environ.get("FCE_BENCH_DATA", "/work/shared/data")) / "msv-big9"
MIN_LAYOUT_CHOICES = (3, 4, 5, 6)
DRIFT_FOLDS = 5
OLD_YEARS = ("2005", "2009", "2013")
NEW_YEAR = "2017"


def _load(site_dir: Path) -> list[tuple[str, Any, str]]:
    """``(doc_id, page, gold)`` of one site, sorted by id, read as the evaluation harness reads them."""
    from fce.blocks import DEFAULT_PATH_STYLE
    from fce.evaluation.harness import _parse, _read
    from fce.evaluation.packages import iter_documents

    rows = []
    for doc in sorted(iter_documents(site_dir), key=lambda d: d.doc_id):
        inp = _read(doc)
        if inp.gold is None:
            continue
        rows.append((doc.doc_id, _parse(doc, inp, DEFAULT_PATH_STYLE), inp.gold))  # (as its learning pages)
    return rows


def _distances(rows: Sequence[tuple[str, Any, str]]) -> dict[str, Any]:
    import numpy as np

    from fce.blocks import blocks_of
    from fce.layouts import page_paths

    sets = [page_paths(blocks_of(page)) for _, page, _ in rows]
    years = [doc_id[:4] for doc_id, _, _ in rows]
    same: list[float] = []
    cross: list[float] = []
    for i in range(len(rows)):
        for j in range(i + 1, len(rows)):
            union = len(sets[i] | sets[j])
            d = 1.0 - len(sets[i] & sets[j]) / union if union else 0.0
            (same if years[i] == years[j] else cross).append(d)
    return {"same_median": float(np.median(same)), "same_p90": float(np.percentile(same, 90)),
            "cross_min": float(min(cross)), "cross_p10": float(np.percentile(cross, 10))}


def _score(extraction: Any, gold: str) -> float:
    from fce.evaluation.measures import word_f

    return word_f(extraction.text if extraction is not None else "", gold).f1


def _kfold(site: str, rows: Sequence[tuple[str, Any, str]]) -> dict[str, Any]:
    from fce.evaluation.harness import fold_plan
    from fce.layouts import MIN_LAYOUT_PAGES
    from fce.learn import LayoutLearner
    from fce.pipeline import extract, learn_site

    by_id = {doc_id: (page, gold) for doc_id, page, gold in rows}
    plan = fold_plan(sorted(by_id), key=f"msv-big9/{site}")
    learners: dict[str, int | None] = {"one-template": None}
    learners.update({f"layouts-min{m}": m for m in MIN_LAYOUT_CHOICES})
    default = f"layouts-min{MIN_LAYOUT_PAGES}"
    # (learner, detection mode, fallback): every learner as `fce detect` runs it; the default learners also in
    # the paper's rules mode, and without the fit test and fallback (the template forced on every page)
    variants = {name: (name, "guided", True) for name in learners}
    for name in ("one-template", default):
        variants[f"{name} rules"] = (name, "rules", True)
        variants[f"{name} forced"] = (name, "guided", False)
    scores: dict[str, list[float]] = defaultdict(list)
    fits: dict[str, list[bool]] = defaultdict(list)
    n_layouts: dict[str, list[int]] = defaultdict(list)
    seconds: dict[str, float] = defaultdict(float)
    for fold in plan:
        learn = [by_id[i][0] for i in fold.learn]
        records = {}
        for name, minimum in learners.items():
            start = time.perf_counter()
            records[name] = (learn_site(learn, site, layouts=False) if minimum is None
                             else LayoutLearner(site, min_layout_pages=minimum).fit(learn).model_)
            seconds[name] += time.perf_counter() - start
        for variant, (name, mode, fallback) in variants.items():
            n_layouts[variant].append(len(records[name].layouts))
            for doc_id in fold.test:
                page, gold = by_id[doc_id]
                ex = (extract(page, records[name], site=site, mode=mode) if fallback
                      else extract(page, records[name], site=site, mode=mode, fallback=None))
                scores[variant].append(_score(ex, gold))
                fits[variant].append(ex.method == "template")
    return {name: {"wf": sum(v) / len(v), "fit_rate": sum(fits[name]) / len(fits[name]),
                   "layouts": sum(n_layouts[name]) / len(n_layouts[name]),
                   "learn_s": seconds[name.split(" ")[0]]}
            for name, v in scores.items()}


def _drift(site: str, rows: Sequence[tuple[str, Any, str]]) -> dict[str, Any]:
    from fce.layouts import is_stale
    from fce.methods import get_method
    from fce.pipeline import DEFAULT_FALLBACK, Extractor, extract, learn_site
    from fce.service import relearn_stale, save_template
    from templates_store import MemoryStore

    old = [page for doc_id, page, _ in rows if doc_id[:4] in OLD_YEARS]
    new = [(doc_id, page, gold) for doc_id, page, gold in rows if doc_id[:4] == NEW_YEAR]
    record = learn_site(old, site)
    store = MemoryStore()
    save_template(store, record)
    extractor = Extractor(store)
    handled = [extractor.extract(page, site=site) for _, page, _ in new]
    extractor.flush()
    counters = store.counters([site])[site]
    fallback = get_method(DEFAULT_FALLBACK)
    result: dict[str, Any] = {
        "layouts_old": len(record.layouts),
        "recent_fit_rate": counters.recent_fit_rate,
        "stale": is_stale(counters),
        "forced_old": sum(_score(extract(p, record, site=site, fallback=None), g) for _, p, g in new) / len(new),
        "forced_old_rules": sum(_score(extract(p, record, site=site, fallback=None, mode="rules"), g)
                                for _, p, g in new) / len(new),
        "fallback_alone": sum(_score(fallback(p), g) for _, p, g in new) / len(new),
        "drift_handled": sum(_score(ex, g) for ex, (_, _, g) in zip(handled, new, strict=True)) / len(new),
    }
    # relearning from the run's 2017 pages: each fold's pages judged by layouts learned from the other 2017 pages
    relearned: list[float] = []
    statuses = []
    for k in range(DRIFT_FOLDS):
        test = new[k::DRIFT_FOLDS]
        train = [p for i, (_, p, _) in enumerate(new) if i % DRIFT_FOLDS != k]
        fold_store = MemoryStore()
        save_template(fold_store, record)
        fold_store.record(site, counters.recent, version=1)  # what the run's detections counted
        outcome = relearn_stale(fold_store, {site: train})[0]
        statuses.append(outcome.status)
        after = Extractor(fold_store, record=False)
        relearned += [_score(after.extract(p, site=site), g) for _, p, g in test]
    result["relearn_status"] = sorted(set(statuses))
    result["relearned"] = sum(relearned) / len(relearned)
    return result


def _site(site_dir: str) -> dict[str, Any]:
    path = Path(site_dir)
    rows = _load(path)
    return {"site": path.name, "distances": _distances(rows), "kfold": _kfold(path.name, rows),
            "drift": _drift(path.name, rows)}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="the msv-big9 directory")
    parser.add_argument("--workers", type=int, default=2, help="worker processes (one site each)")
    parser.add_argument("--out", type=Path, default=None, help="write every figure as JSON here")
    args = parser.parse_args(argv)
    if not args.data.is_dir():
        print(f"layouts_bench: no data at {args.data}; skipped", file=sys.stderr)
        return 0
    sites = sorted(str(p) for p in args.data.iterdir() if p.is_dir() and p.name != "mixed")
    started = time.perf_counter()
    with ProcessPoolExecutor(max_workers=args.workers) as pool:
        results = list(pool.map(_site, sites))
    elapsed = time.perf_counter() - started
    print(f"msv-big9, {len(results)} sites, {elapsed:.0f} s with {args.workers} workers\n")
    print("## Layout distances (Jaccard of text-path sets)\n")
    print("| site | same year, median | same year, p90 | other years, min | other years, p10 |\n|---|---|---|---|---|")
    for r in results:
        d = r["distances"]
        print(f"| {r['site']} | {d['same_median']:.2f} | {d['same_p90']:.2f} | {d['cross_min']:.2f} "
              f"| {d['cross_p10']:.2f} |")
    variants = list(results[0]["kfold"])
    print("\n## k-fold, all four years (word F1; L = layouts learned per fold; fit = share of pages a template "
          "was used for)\n")
    print("| variant | " + " | ".join(r["site"] for r in results) + " | **site-macro** | fit rate, min–max |\n|---|"
          + "---|" * (len(results) + 2))
    for v in variants:
        cells = [f"{r['kfold'][v]['wf']:.3f} ({r['kfold'][v]['layouts']:.1f} L)" for r in results]
        rates = [r["kfold"][v]["fit_rate"] for r in results]
        macro = sum(r["kfold"][v]["wf"] for r in results) / len(results)
        print(f"| {v} | " + " | ".join(cells) + f" | **{macro:.3f}** | {min(rates):.2f}–{max(rates):.2f} |")
    print("\n## Drift: learn 2005–2013, detect 2017 (word F1 on the 2017 pages)\n")
    cols = ["forced_old", "forced_old_rules", "fallback_alone", "drift_handled", "relearned"]
    print("| site | layouts | recent fit rate | stale | old layouts forced (guided) | old layouts forced (rules) | "
          "fallback alone | old layouts + fit test + fallback | relearned from the run |\n|---|---|---|---|---|---|"
          "---|---|---|")
    for r in results:
        d = r["drift"]
        print(f"| {r['site']} | {d['layouts_old']} | {d['recent_fit_rate']:.2f} | {d['stale']} | "
              + " | ".join(f"{d[c]:.3f}" for c in cols) + " |")
    print("| **site-macro** | | | " + str(sum(r["drift"]["stale"] for r in results)) + " stale | " + " | ".join(
        f"**{sum(r['drift'][c] for r in results) / len(results):.3f}**" for c in cols) + " |")
    if args.out is not None:
        args.out.write_text(json.dumps(results, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
