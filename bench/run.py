"""The benchmark of fce: speed, memory, scaling and quality against the parse floor and the peers, in one run.

    python -m bench.run [--quick] [--datasets NAME ...] [--sections speed scaling quality template] [--out DIR]

Sections (README.md says what each measures and how):

* ``speed`` — ms/page (median, p95), MB/s and peak RSS of every component on the same pages: the held-out pages
  of msv-big9 (per site, 30 pages learned, the other 10 timed); plus ``fce learn`` and ContentExtractor on the
  30 learning pages. One fresh process per component, run one after the other.
* ``scaling`` — learn time for 10 → 30 → 100 pages of a generated site; detect time as one page grows from 10 KB
  to 10 MB.
* ``quality`` — word-level F1 of every single-page method and peer on the five datasets.
* ``template`` — template word F1 per site on msv-big9 and cleanportaleval, k-fold by page, with the
  density fallback and trafilatura on the same pages.

Tables go to stdout and ``DIR/results.md``; the figures to ``DIR/results.json`` and per-page rows to
``DIR/pages.jsonl``. Without the data directory the data sections are skipped with a message (exit 0).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import shlex
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

from bench import common
from bench.common import PageSpec, median, percentile

SECTIONS = ("speed", "scaling", "quality", "template")

#: The speed section's floor and reference: every ratio is to these, measured in the same run.
FLOOR = "lxml"
REFERENCE = "resiliparse"

#: Page sizes of the detect scaling (10 KB → 10 MB).
SCALING_SIZES = (10_000, 100_000, 1_000_000, 10_000_000)
QUICK_SCALING_SIZES = (10_000, 100_000, 1_000_000)
#: The components timed on growing pages; ``detect`` stands for the template alone in every detection mode,
#: ``fallback`` for fce's default fallback method.
SCALING_COMPONENTS = ("lxml", "fce-parse", "detect", "fallback", "resiliparse")
#: Learning-set sizes of the learn scaling (10 → 30 → 100).
LEARN_SIZES = (10, 30, 100)

#: Quick mode: how much of each dataset (the full run takes everything).
QUICK_PAGES = 30  # per dataset, single-page quality
QUICK_SITES = 2  # per dataset: speed (msv-big9) and template quality
QUICK_FOLDS = 4
QUICK_LEARN_SIZES = (10, 30)

#: ``--rounds``: the components whose figures the targets read (guided detection, the default fallback, the
#: reference), each run in that many fresh processes (their baseline too, alternating with them); the round with
#: the median "× floor" is reported, and every round's in a note. One process's ratio moved by up to 0.15× from
#: another's run minutes apart on this machine (in one run, guided detection 1.61× and detection with the fallback,
#: the same work on nearly every page, 1.44×), while a process's pages agree with each other.
ROUNDED_COMPONENTS = ("fce-detect", "fce:mainblock", REFERENCE)
#: ``--baseline``: the fce components also timed on the baseline code, and the prefix of their result keys.
BASELINE_COMPONENTS = ("fce-parse", "fce-detect", "fce-detect:rules", "fce-detect+fallback", "fce:mainblock",
                       "fce:plain")
BEFORE = "before:"

LABELS = {
    "lxml": "lxml parse (floor)",
    "fce-parse": "fce parse_page",
    "fce-detect+fallback": "fce detect + fallback",
    "learn": "fce learn (30 pages)",
    "ce": "ContentExtractor, identical blocks merged (30 pages)",
    "ce-pairwise": "ContentExtractor, all pairs as in the paper (30 pages)",
}


def label(name: str) -> str:
    if name.startswith(BEFORE):
        return label(name[len(BEFORE):]) + " — before"
    if name in LABELS:
        return LABELS[name]
    if name.startswith("fce-detect"):
        modes = common.detection_modes()
        mode = name.split(":", 1)[1] if ":" in name else (modes[0] if modes else "")
        return f"fce detect (template{', ' + mode if mode else ''})"
    return f"fce {name[4:]}" if name.startswith("fce:") else name


# -----------------------------------------------------------------------------------------------------------------
# Output
# -----------------------------------------------------------------------------------------------------------------


class Report:
    """Markdown to stdout and to results.md, figures to results.json."""

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.data: dict[str, Any] = {}

    def write(self, text: str = "") -> None:
        print(text, flush=True)
        self.parts.append(text)

    def table(self, headers: Sequence[str], rows: Iterable[Sequence[Any]], align: str | None = None) -> None:
        align = align or "l" + "r" * (len(headers) - 1)
        marks = {"l": ":--", "r": "--:", "c": ":-:"}
        lines = ["| " + " | ".join(headers) + " |", "|" + "|".join(marks[a] for a in align) + "|"]
        lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
        self.write("\n".join(lines))
        self.write()

    def save(self, out: Path) -> None:
        out.mkdir(parents=True, exist_ok=True)
        (out / "results.md").write_text("\n".join(self.parts) + "\n", encoding="utf-8")
        (out / "results.json").write_text(json.dumps(self.data, indent=1, sort_keys=True) + "\n", encoding="utf-8")


def ms(ns: float) -> str:
    if ns != ns:  # nan
        return "—"
    value = ns / 1e6
    return f"{value:.2f}" if value < 10 else f"{value:.1f}" if value < 1000 else f"{value:,.0f}"


def f3(x: float) -> str:
    return "—" if x != x else f"{x:.3f}"


def ratio(x: float) -> str:
    return "—" if x != x else f"{x:.2f}×"


def mean(values: Iterable[float]) -> float:
    vals = list(values)
    return math.fsum(vals) / len(vals) if vals else math.nan


def site_macro(rows: Sequence[dict[str, Any]], key: str = "f") -> float:
    sites: dict[str, list[float]] = {}
    for r in rows:
        sites.setdefault(r["site"], []).append(r[key])
    return mean(mean(v) for v in sites.values())


def machine() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{os.cpu_count()} cores ({cpu}), Python {platform.python_version()}, {platform.system()}"


def load() -> str:
    try:
        one, five, _ = os.getloadavg()
    except OSError:
        return "unknown"
    return f"{one:.1f} (1 min), {five:.1f} (5 min)"


def revision() -> str:
    """The commit of the working tree, and how many files under fce/ differ from it (figures are of the tree)."""
    import subprocess

    if os.environ.get(SNAPSHOT_ENV):
        return os.environ[SNAPSHOT_ENV]
    root = Path(__file__).resolve().parent.parent
    try:
        head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=root, capture_output=True, text=True,
                              check=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--", "fce", "templates_store"], cwd=root,
                               capture_output=True, text=True, check=True).stdout.splitlines()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return head + (f" + {len(dirty)} changed/new files under fce/ and templates_store/" if dirty else "")


#: Set in the re-executed run of ``--snapshot``: the revision of the tree that was copied.
SNAPSHOT_ENV = "FCE_BENCH_SNAPSHOT_OF"
COMMAND_ENV = "FCE_BENCH_COMMAND"
#: What ``--snapshot`` copies: the code a run imports.
SNAPSHOT_DIRS = ("fce", "templates_store", "bench", "tests")  # (tests: the site generator)


def run_snapshot(argv: Sequence[str], args: argparse.Namespace) -> int:
    """Copy the code to a temporary directory and run the benchmark there, so that edits made to the working tree
    while a long run goes on do not mix into it (worker processes import fce afresh)."""
    import shutil
    import subprocess
    import tempfile

    root = Path(__file__).resolve().parent.parent
    snapshot = Path(tempfile.mkdtemp(prefix="fce-bench-snapshot-"))
    for name in SNAPSHOT_DIRS:
        shutil.copytree(root / name, snapshot / name,
                        ignore=shutil.ignore_patterns("__pycache__", "out", "*.pyc"))
    rest = [a for a in argv if a != "--snapshot"]
    rest += ["--out", str(args.out.resolve()), "--data", str(args.data.resolve())]
    if args.baseline:
        rest += ["--baseline", str(args.baseline)]  # resolved by parse_args: the run's cwd is the copy
    env = {**os.environ, SNAPSHOT_ENV: f"{revision()} (run on a copy of the tree)",
           COMMAND_ENV: "python -m bench.run " + " ".join(shlex.quote(a) for a in argv),
           "PYTHONPATH": os.pathsep.join(filter(None, [str(snapshot), os.environ.get("PYTHONPATH")]))}
    progress(f"running on a copy of the code in {snapshot}")
    try:
        # cwd: `python -m` puts the working directory first on sys.path, so the copy is what gets imported
        return subprocess.run([sys.executable, "-m", "bench.run", *rest], cwd=snapshot, env=env).returncode
    finally:
        shutil.rmtree(snapshot, ignore_errors=True)


def versions() -> str:
    from importlib.metadata import PackageNotFoundError, version

    out = []
    for dist in ("fce", "lxml", "trafilatura", "readability-lxml", "resiliparse", "justext", "boilerpy3"):
        try:
            out.append(f"{dist} {version(dist)}")
        except PackageNotFoundError:
            pass
    from fce import blocks

    out.append("segmentation " + ("compiled (fce._segment)" if blocks.ACCELERATED else "pure Python"))
    from fce import parse

    out.append("byte scans of the parse " + ("compiled (fce._scan)" if parse.SCANS_COMPILED else "in Python"))
    from fce import features

    if hasattr(features, "FEATURES_COMPILED"):  # (nor has one older than the compiled features)
        out.append("block vectors and similar blocks " + ("compiled (fce._features)" if features.FEATURES_COMPILED
                                                          else "in Python"))
    from fce.methods import mainblock

    if hasattr(mainblock, "COMPILED"):  # (a baseline older than the compiled mainblock has no such flag)
        out.append("mainblock " + ("compiled" if mainblock.COMPILED else "in Python"))
    return ", ".join(out)


# -----------------------------------------------------------------------------------------------------------------
# Sections
# -----------------------------------------------------------------------------------------------------------------


def _own_x_floor(res: dict[str, Any]) -> float:
    """A speed worker's "× floor": the median over pages of its time over the floor timed beside it."""
    pairs = [t / f for t, f in zip(res["times_ns"], res.get("floor_ns") or [], strict=False) if f > 0]
    return median(pairs) if pairs else math.nan


def _median_round(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """Of several rounds of one component, the one whose "× floor" is the median (the lower middle one of an even
    number of rounds)."""
    ranked = sorted(runs, key=_own_x_floor)
    return ranked[(len(ranked) - 1) // 2]


def speed_section(rep: Report, args: argparse.Namespace) -> None:
    rep.write("## Speed and memory")
    rep.write()
    specs = common.load_specs("msv-big9", args.data)
    if not specs:
        rep.write(f"*Skipped: msv-big9 not found under {args.data}.*\n")
        return
    groups = common.by_site(specs)
    if args.quick:
        groups = {s: groups[s] for s in sorted(groups)[:QUICK_SITES]}
    learn_sets: dict[str, list[PageSpec]] = {}
    timed_pages: list[PageSpec] = []
    for site, pages in groups.items():
        if len(pages) <= common.LEARN_PAGES:
            continue
        learn, rest = common.split_learn_detect(pages, args.seed)
        learn_sets[site] = learn
        timed_pages += rest
    n_bytes = sum(len(s.read()) for s in timed_pages)
    rep.write(f"Pages: {len(timed_pages)} held-out pages of msv-big9 ({len(learn_sets)} sites; per site "
              f"{common.LEARN_PAGES} pages learned, the others timed), {n_bytes / 1e6:.1f} MB, median "
              f"{median([len(s.read()) for s in timed_pages]) / 1e3:.0f} KB. Each component runs in a fresh "
              f"process" + (f" ({args.rounds} processes in turn for those the targets read: see \"Rounds\" below the "
                            f"table)" if args.rounds > 1 else "") +
              f": warm-up on {args.warmup} pages, then {args.repeats} passes; a page's time is the median "
              f"of its passes. Times are from the page's bytes to its text (decoding and parsing included). "
              f"\"× floor\" and \"× Resiliparse\" are medians of per-page ratios, each taken within one process: "
              f"every process times lxml's parse (the floor) right before the component on every page, and "
              f"\"× Resiliparse\" is (component ÷ its floor) ÷ (Resiliparse ÷ its floor), so that the load of the "
              f"moment a process ran at cancels out. Peak RSS is the process's "
              f"maximum, imports included (\"Δ\": its growth over the RSS after imports, reading the pages and "
              f"the warm-up, i.e. the memory the timed work itself needed).")
    rep.write()

    progress("speed: fce learn")
    learn_repeats = max(args.repeats, common.LEARN_REPEATS)
    learned = common.isolated(common.learn_worker, "learn", learn_sets, learn_repeats)
    progress("speed: ContentExtractor")
    ce = common.isolated(common.learn_worker, "ce", learn_sets, learn_repeats)
    progress("speed: ContentExtractor, all pairs")
    ce_pairwise = common.isolated(common.learn_worker, "ce-pairwise", learn_sets, learn_repeats)
    templates = learned["templates"]

    components = ["lxml", "fce-parse", *common.detect_components()]
    components += [f"fce:{m}" for m in common.fce_methods()]
    components += [p for p in common.PEERS if common.peer_available(p)]
    runs: dict[str, list[dict[str, Any]]] = {}  # every round of every component (and of its baseline)
    for comp in components:
        n_rounds = args.rounds if comp in ROUNDED_COMPONENTS else 1
        for k in range(n_rounds):
            progress(f"speed: {label(comp)}" + (f" (round {k + 1} of {n_rounds})" if n_rounds > 1 else ""))
            try:
                res = common.isolated(common.speed_worker, comp, timed_pages, templates, args.repeats, args.warmup)
            except Exception as exc:  # noqa: BLE001 - one broken component must not sink the run; reported
                rep.write(f"*{label(comp)}: failed to run ({type(exc).__name__}: {exc}).*")
                break
            runs.setdefault(comp, []).append(res)
            if args.baseline and comp in BASELINE_COMPONENTS:
                # right after the same component on this code, so that both see the same load on the machine
                progress(f"speed: {label(comp)} (before: {args.baseline})")
                try:
                    res = common.isolated(common.speed_worker_at, str(args.baseline), comp, timed_pages, templates,
                                          args.repeats, args.warmup)
                except Exception as exc:  # noqa: BLE001 - reported, as above
                    rep.write(f"*{label(comp)} (before): failed to run ({type(exc).__name__}: {exc}).*")
                    continue
                if not res.pop("fce_file").startswith(str(args.baseline.resolve())):
                    rep.write(f"*{label(comp)} (before): fce was not imported from {args.baseline}; skipped.*")
                    continue
                runs.setdefault(BEFORE + comp, []).append(res)
    results: dict[str, dict[str, Any]] = {key: _median_round(rs) for key, rs in runs.items()}
    rounds = {key: sorted(map(_own_x_floor, rs)) for key, rs in runs.items() if len(rs) > 1}
    floor = results.get(FLOOR, {}).get("times_ns")
    ref = results.get(REFERENCE, {}).get("times_ns")

    def per_page_ratio(times: list[int], base: list[int] | None) -> float:
        if not base:
            return math.nan
        return median([t / b for t, b in zip(times, base, strict=True) if b > 0])

    def paired_ratios(res: dict[str, Any]) -> list[float] | None:
        """Per page: the component's time over the lxml floor timed right before it in the same process."""
        own = res.get("floor_ns")
        if not own:
            return None
        return [t / f if f > 0 else math.nan for t, f in zip(res["times_ns"], own, strict=True)]

    ref_paired = paired_ratios(results[REFERENCE]) if REFERENCE in results else None

    def x_floor(res: dict[str, Any]) -> float:
        mine = paired_ratios(res)
        if mine is None:
            return per_page_ratio(res["times_ns"], floor)
        return median([r for r in mine if not math.isnan(r)])

    def x_reference(res: dict[str, Any]) -> float:
        # (component ÷ its floor) ÷ (Resiliparse ÷ its floor), per page: each ratio measured within one process, so
        # that the load of the moment each process ran at cancels out
        mine = paired_ratios(res)
        if mine is None or ref_paired is None:
            return per_page_ratio(res["times_ns"], ref)
        return median([m / r for m, r in zip(mine, ref_paired, strict=True) if r > 0 and not math.isnan(m)])

    rows, summary = [], {}
    for comp, res in results.items():
        times = res["times_ns"]
        total_s = sum(times) / 1e9
        entry = {
            "median_ns": median(times), "p95_ns": percentile(times, 95),
            "mb_per_s": sum(res["bytes"]) / 1e6 / total_s if total_s else math.nan,
            "x_floor": x_floor(res), "x_resiliparse": x_reference(res),
            "rss_peak_mb": res["rss_peak_mb"], "rss_delta_mb": res["rss_peak_mb"] - res["rss_base_mb"],
            "failed": res["failed"], "pages": len(times),
        }
        summary[comp] = entry
        rows.append([label(comp), ms(entry["median_ns"]), ms(entry["p95_ns"]), f"{entry['mb_per_s']:.1f}",
                     ratio(entry["x_floor"]), ratio(entry["x_resiliparse"]), f"{entry['rss_peak_mb']:.0f}",
                     f"{entry['rss_delta_mb']:.0f}", entry["failed"] or ""])
    rep.table(["component", "ms/page median", "p95", "MB/s", "× floor", "× Resiliparse", "peak RSS MB", "Δ MB",
               "failed"], rows)
    if rounds:
        rep.write(f"Rounds: each of these ran in {args.rounds} fresh processes (a baseline's alternating with its "
                  "component's); the table shows the round with the median × floor. Every round's × floor: "
                  + "; ".join(f"{label(k.removeprefix(BEFORE))}{' (before)' if k.startswith(BEFORE) else ''} "
                              + ", ".join(ratio(x) for x in xs) for k, xs in rounds.items()) + ".")
        rep.write()
        for key, xs in rounds.items():
            summary[key]["x_floor_rounds"] = xs
    for comp, res in results.items():
        if res.get("first_error"):
            rep.write(f"*{label(comp)} raised on {res['failed']} page(s), e.g. `{res['first_error']}`.*")
            rep.write()

    learn_rows = []
    for kind, res in (("learn", learned), ("ce", ce), ("ce-pairwise", ce_pairwise)):
        sites = res["sites"].values()
        totals = [s["total_ns"] for s in sites]
        fits = [s["fit_ns"] for s in sites]
        summary[kind] = {"total_median_ns": median(totals), "total_max_ns": max(totals),
                         "fit_median_ns": median(fits), "fit_max_ns": max(fits),
                         "rss_peak_mb": res["rss_peak_mb"], "rss_delta_mb": res["rss_peak_mb"] - res["rss_base_mb"],
                         "sites": res["sites"]}
        learn_rows.append([label(kind), len(totals), ms(median(totals)), ms(max(totals)), ms(median(fits)),
                           ms(max(fits)), f"{res['rss_peak_mb']:.0f}"])
    if args.baseline:
        before_after(rep, args, summary, results)
    rep.write("Learning, per site on its 30 learning pages (ms per site; \"from bytes\" includes parsing the 30 "
              "pages, \"fit\" starts from parsed pages and includes segmentation):")
    rep.write()
    rep.table(["component", "sites", "from bytes median", "max", "fit median", "max", "peak RSS MB"], learn_rows)
    ct = summary["ce"]["total_median_ns"]
    detect_30 = 30 * summary.get("fce-detect", {}).get("median_ns", math.nan)
    for kind in ("ce", "ce-pairwise"):
        summary[kind]["x_learn"] = learn_ratios(summary["learn"]["sites"], summary[kind]["sites"])
    pw, mg = summary["ce-pairwise"]["x_learn"], summary["ce"]["x_learn"]
    rows = []
    for site, lrn in summary["learn"]["sites"].items():
        pair, merged = summary["ce-pairwise"]["sites"].get(site), summary["ce"]["sites"].get(site)
        if pair is None or merged is None:
            continue
        rows.append([site, ms(lrn["total_ns"]), ms(lrn["fit_ns"]), ms(pair["total_ns"]), ms(pair["fit_ns"]),
                     ratio(pair["total_ns"] / lrn["total_ns"]), ratio(pair["fit_ns"] / lrn["fit_ns"]),
                     f"{pair['comparisons'] / 1e6:.1f} M", f"{merged['comparisons'] / 1e6:.1f} M"])
    rep.write("Per site (ms; pairs: the all-pairs comparison compares every text-bearing block with every one; "
              "learning's first stage merges identical blocks, and of the pairs of distinct blocks its search "
              "verifies only those that share a rare term):")
    rep.write()
    rep.table(["site", "learn from bytes", "learn fit", "all pairs from bytes", "all pairs fit", "÷ from bytes",
               "÷ fit", "pairs, all", "pairs, distinct"], rows)
    rep.write(f"ContentExtractor ÷ fce learn, per site on the same 30 pages (median over sites, lowest in "
              f"brackets). All pairs, one block at a time as the paper states it: {ratio(pw['total'])} from bytes "
              f"({ratio(pw['total_min'])}), {ratio(pw['fit'])} fit only ({ratio(pw['fit_min'])}). Identical blocks "
              f"merged (learning's own first stage, so below 1×): {ratio(mg['total'])} from "
              f"bytes, {ratio(mg['fit'])} fit only. ContentExtractor on 30 pages ÷ `fce detect` of 30 pages with "
              f"a template (the paper's Table II comparison): {ct / detect_30:.1f}×.")
    rep.write()
    rep.data["speed"] = summary


def learn_ratios(learn: dict[str, Any], other: dict[str, Any]) -> dict[str, float]:
    """Per site, ``other``'s time ÷ learning's, from bytes and fit only: the median and the lowest over sites."""
    out: dict[str, float] = {}
    for key, field in (("total", "total_ns"), ("fit", "fit_ns")):
        ratios = [other[site][field] / learn[site][field] for site in learn if site in other]
        out[key] = median(ratios) if ratios else math.nan
        out[f"{key}_min"] = min(ratios) if ratios else math.nan
    return out


def before_after(rep: Report, args: argparse.Namespace, summary: dict[str, Any],
                 results: dict[str, dict[str, Any]]) -> None:
    """The fce components timed on the baseline code and on this code, side by side (same run, same pages)."""
    rows = []
    for comp in BASELINE_COMPONENTS:
        old, new = summary.get(BEFORE + comp), summary.get(comp)
        if old is None or new is None:
            continue
        before, after = results[BEFORE + comp], results[comp]
        if before.get("floor_ns") and after.get("floor_ns"):
            # each time over the floor timed beside it in its own process: the two processes' loads cancel out
            speedup = median([(o / fo) / (n / fn) for o, fo, n, fn in zip(
                before["times_ns"], before["floor_ns"], after["times_ns"], after["floor_ns"], strict=True)
                if n > 0 and fo > 0 and fn > 0])
        else:
            speedup = median([o / n for o, n in zip(before["times_ns"], after["times_ns"], strict=True) if n > 0])
        rows.append([label(comp), ms(old["median_ns"]), ms(new["median_ns"]), ratio(old["x_floor"]),
                     ratio(new["x_floor"]), ratio(old["x_resiliparse"]), ratio(new["x_resiliparse"]),
                     f"{speedup:.2f}×"])
        summary[comp]["speedup_over_baseline"] = speedup
    if not rows:
        return
    rep.write(f"Before → after (before: the code in `{args.baseline}`, timed in this run on the same pages; "
              f"\"speed-up\" is the median over pages of before ÷ after, each time taken over the lxml floor timed "
              f"beside it in its own process):")
    rep.write()
    rep.table(["component", "before ms", "after ms", "before × floor", "after × floor", "before × Resiliparse",
               "after × Resiliparse", "speed-up"], rows)


def scaling_section(rep: Report, args: argparse.Namespace) -> None:
    rep.write("## Scaling")
    rep.write()
    rep.write("Learn on n pages of a generated site (`tests.sitegen.generate_site`, fit only: pages parsed "
              f"beforehand; median of {1 if args.quick else 3} runs after a warm-up; one process per cell):")
    rep.write()
    learn_out: dict[str, Any] = {}
    rows: list[list[Any]] = []
    base: dict[str, float] = {}
    for n in QUICK_LEARN_SIZES if args.quick else LEARN_SIZES:
        cells = {}
        for kind in ("learn", "ce"):
            progress(f"scaling: {kind} on {n} pages")
            res = common.isolated(common.learn_scaling_worker, kind, n, args.seed, 1 if args.quick else 3)
            cells[kind] = res
            base.setdefault(kind, res["fit_ns"] / n)
        learn_out[str(n)] = cells
        rows.append([str(n)] + [x for kind in ("learn", "ce") for x in (
            ms(cells[kind]["fit_ns"]), ms(cells[kind]["fit_ns"] / n),
            ratio(cells[kind]["fit_ns"] / n / base[kind]), f"{cells[kind]['rss_peak_mb']:.0f}")])
    rep.table(["pages", "learn ms", "ms/page", "per-page vs n=10", "RSS MB", "CE ms", "ms/page",
               "per-page vs n=10", "RSS MB"], rows)

    progress("scaling: template for the big pages")
    import shutil
    import tempfile

    directory = Path(tempfile.mkdtemp(prefix="fce-bench-"))
    try:
        learned = common.isolated(common.learn_worker, "learn",
                                  {"bench.example": _generated_specs(args.seed, directory)}, 1)
    finally:
        shutil.rmtree(directory, ignore_errors=True)
    template = learned["templates"]["bench.example"]
    sizes = QUICK_SCALING_SIZES if args.quick else SCALING_SIZES
    from fce.pipeline import DEFAULT_FALLBACK

    components: list[str] = []
    for c in SCALING_COMPONENTS:
        if c == "detect":
            components += [d for d in common.detect_components() if d != "fce-detect+fallback"]
        elif c == "fallback":
            components.append(f"fce:{DEFAULT_FALLBACK}")
        elif c != "resiliparse" or common.peer_available("resiliparse"):
            components.append(c)
    detect_out: dict[str, dict[str, Any]] = {}
    for comp in components:
        detect_out[comp] = {}
        for size in sizes:
            progress(f"scaling: {label(comp)} at {size // 1000} KB")
            detect_out[comp][str(size)] = common.isolated(common.detect_scaling_worker, comp, size, args.seed,
                                                          template, args.min_seconds)
    actual = {size: detect_out[components[0]][str(size)]["bytes"] for size in sizes}
    rep.write("Detect as one page grows (a generated article page whose paragraphs are repeated; the template is "
              "learned on 30 other pages of the same site). Cells: ms per page, then ms per MB; the last columns "
              "divide ms/MB at the largest size by ms/MB at 100 KB (1.0 = linear) and give the peak RSS there:")
    rep.write()
    headers = ["component"] + [f"{actual[s] / 1e3:,.0f} KB" for s in sizes] + ["growth", "peak RSS MB"]
    rows = []
    for comp in components:
        cells = detect_out[comp]
        per_mb = {s: cells[str(s)]["ns"] / (cells[str(s)]["bytes"] / 1e6) for s in sizes}
        growth = per_mb[sizes[-1]] / per_mb[100_000]
        cells["growth"] = growth  # type: ignore[assignment]
        rows.append([label(comp)] + [f"{ms(cells[str(s)]['ns'])} ({ms(per_mb[s])})" for s in sizes]
                    + [ratio(growth), f"{cells[str(sizes[-1])]['rss_peak_mb']:.0f}"])
    rep.table(headers, rows)
    rep.data["scaling"] = {"learn": learn_out, "detect": detect_out}


def _generated_specs(seed: int, directory: Path) -> list[PageSpec]:
    """The 30 generated learning pages for the big-page template, written to ``directory``."""
    from tests.sitegen import write_site

    paths = write_site(common.generated_site(common.LEARN_PAGES, seed), directory)
    return [PageSpec("generated", "bench.example", p.stem, str(p), None, None) for p in paths]


def quality_tasks(args: argparse.Namespace) -> tuple[list[tuple[Any, ...]], dict[str, list[PageSpec]]]:
    """(extractor, specs) for every single-page extractor × dataset with gold."""
    chosen: dict[str, list[PageSpec]] = {}
    for name in args.datasets:
        specs = [s for s in common.load_specs(name, args.data) if s.gold_path]
        if args.quick:
            specs = common.select_quick(specs, n_pages=QUICK_PAGES, seed=args.seed)
        if specs:
            chosen[name] = specs
    tasks = [(ex, name) for ex in common.available_extractors() for name in chosen]
    return tasks, chosen


def template_tasks(args: argparse.Namespace) -> list[list[PageSpec]]:
    out = []
    for name in args.datasets:
        if name not in common.TEMPLATE_DATASETS:
            continue
        specs = common.load_specs(name, args.data)
        if args.quick:
            specs = common.largest_sites(specs, QUICK_SITES)
        for pages in common.by_site(specs).values():
            if len(pages) > 3:  # fce learns from 3 pages at least (fce.learn.MIN_PAGES)
                out.append(pages)
    return out


def run_quality(rep: Report, args: argparse.Namespace, sections: set[str]) -> None:
    """The quality and template sections, their tasks spread over ``--jobs`` worker processes."""
    q_tasks, chosen = quality_tasks(args) if "quality" in sections else ([], {})
    t_tasks = template_tasks(args) if "template" in sections else []
    peers = ["trafilatura"] if common.peer_available("trafilatura") else []
    q_rows: list[dict[str, Any]] = []
    t_rows: list[dict[str, Any]] = []
    start = time.perf_counter()
    with common.pool(args.jobs) as ex:
        # the template tasks are the longest: submitted first so that they do not trail at the end
        max_folds = QUICK_FOLDS if args.quick else common.MAX_FOLDS
        futures = [("t", pages[0].site, ex.submit(common.template_worker, pages, args.seed, peers, max_folds))
                   for pages in t_tasks]
        futures += [("q", f"{e} on {d}", ex.submit(common.quality_worker, e, chosen[d])) for e, d in q_tasks]
        for i, (kind, what, fut) in enumerate(futures, 1):
            try:
                rows = fut.result()
            except Exception as exc:  # noqa: BLE001 - reported, the run goes on
                rep.write(f"*{what}: failed ({type(exc).__name__}: {exc}).*")
                continue
            (t_rows if kind == "t" else q_rows).extend(rows)
            progress(f"quality: {i}/{len(futures)} ({what}), {time.perf_counter() - start:.0f} s")
    if "template" in sections:
        template_report(rep, args, t_rows)
    if "quality" in sections:
        quality_report(rep, args, q_rows, chosen)
    with (args.out / "pages.jsonl").open("w", encoding="utf-8") as fh:
        for row in q_rows + t_rows:
            fh.write(json.dumps(row, sort_keys=True) + "\n")


def template_report(rep: Report, args: argparse.Namespace, rows: list[dict[str, Any]]) -> None:
    from fce.pipeline import DEFAULT_FALLBACK

    rep.write("## Template quality")
    rep.write()
    if not rows:
        rep.write(f"*Skipped: none of {', '.join(common.TEMPLATE_DATASETS)} found under {args.data}.*\n")
        return
    fb = f"fce:{DEFAULT_FALLBACK}"
    present = list(dict.fromkeys(r["variant"] for r in rows))
    variants = ([v for v in present if v.startswith("template")] + ["fce-detect", fb]
                + [v for v in present if v == "trafilatura"])
    modes = common.detection_modes()
    default_mode = f" ({modes[0]})" if modes else ""
    names = {"template": f"template{default_mode}", "fce-detect": "template+fallback",
             fb: f"{DEFAULT_FALLBACK} alone", "trafilatura": "trafilatura"}
    names.update({v: f"template ({v.split(':', 1)[1]})" for v in variants if v.startswith("template:")})
    rep.write(f"Word-level F1 (word-sequence LCS against the gold). Per site, k-fold by page: each fold learns on "
              f"up to {common.LEARN_PAGES} pages (≥ {common.MIN_LEARN_PAGES} where the site has more than that) "
              f"and judges the held-out pages; every page is judged once and never by a template learned on it. "
              f"\"template (mode)\" is the template alone in that detection mode (empty output scores 0), "
              f"\"template+fallback\" is what `fce detect` does: the default mode{default_mode}, and the "
              f"{DEFAULT_FALLBACK} method where the fit is below MIN_FIT or nothing is extracted (\"fb\": the "
              f"share of pages that fell back). Pages with empty gold are not judged.")
    rep.write()
    headers = ["dataset", "site", "pages judged", "folds", "learned/fold"] + [names[v] for v in variants] + [
        "fb", f"template{default_mode} ms/page", "learn ms"]
    table: list[list[Any]] = []
    summary: dict[str, Any] = {}
    datasets = sorted({r["dataset"] for r in rows}, key=lambda d: common.TEMPLATE_DATASETS.index(d))
    for dataset in datasets:
        drows = [r for r in rows if r["dataset"] == dataset]
        sites = sorted({r["site"] for r in drows})
        summary[dataset] = {"sites": {}}
        for site in sites:
            srows = [r for r in drows if r["site"] == site]
            by_v = {v: [r for r in srows if r["variant"] == v] for v in variants}
            det = by_v["fce-detect"]
            folds = {r["fold"]: (r["n_learn"], r["learn_ns"]) for r in det}
            fb_share = mean(r["method"] != "template" for r in det)
            entry = {v: mean(r["f"] for r in by_v[v]) for v in variants}
            entry.update(pages=len(det), folds=len(folds), fallback_share=fb_share,
                         template_ms=median([r["ns"] for r in by_v["template"]]) / 1e6)
            summary[dataset]["sites"][site] = entry
            learned = sorted({n for n, _ in folds.values()})
            table.append([dataset, site, len(det), len(folds),
                          f"{learned[0]}–{learned[-1]}" if learned[0] != learned[-1] else learned[0]]
                         + [f3(entry[v]) for v in variants]
                         + [f"{fb_share:.0%}", ms(median([r["ns"] for r in by_v["template"]])),
                            ms(median([ns for _, ns in folds.values()]))])
        macro = {v: site_macro([r for r in drows if r["variant"] == v]) for v in variants}
        page_mean = {v: mean(r["f"] for r in drows if r["variant"] == v) for v in variants}
        summary[dataset].update(site_macro=macro, page_mean=page_mean)
        table.append([f"**{dataset}**", "**site-macro**", "", "", ""] + [f"**{f3(macro[v])}**" for v in variants]
                     + ["", "", ""])
        table.append([f"**{dataset}**", "page mean", len([r for r in drows if r["variant"] == "template"]), "", ""]
                     + [f3(page_mean[v]) for v in variants] + ["", "", ""])
    rep.table(headers, table, "ll" + "r" * (len(headers) - 2))
    rep.data["template"] = summary


def quality_report(rep: Report, args: argparse.Namespace, rows: list[dict[str, Any]],
                   chosen: dict[str, list[PageSpec]]) -> None:
    rep.write("## Single-page quality")
    rep.write()
    if not rows:
        rep.write(f"*Skipped: none of {', '.join(args.datasets)} found under {args.data}.*\n")
        return
    datasets = [d for d in args.datasets if d in chosen]
    extractors = list(dict.fromkeys(r["extractor"] for r in rows))
    rep.write("Word-level F1 (word-sequence LCS against the gold), page mean (site-macro mean in brackets: every "
              "site weighs the same), on " + ", ".join(f"{d} ({len(chosen[d])} pages)" for d in datasets)
              + ". Pages with empty or missing gold are left out. ms/page: median over all pages of the "
              f"datasets, from bytes, measured while {args.jobs} worker processes ran side by side (the speed "
              "section has the clean timings). \"failed\": pages on which the extractor raised (scored as "
              "empty output).")
    rep.write()
    summary: dict[str, Any] = {}
    table: list[list[Any]] = []
    for ex in extractors:
        erows = [r for r in rows if r["extractor"] == ex]
        summary[ex] = {}
        cells: list[str] = []
        for d in datasets:
            drows = [r for r in erows if r["dataset"] == d]
            s = {"n": len(drows), "f": mean(r["f"] for r in drows), "p": mean(r["p"] for r in drows),
                 "r": mean(r["r"] for r in drows), "site_macro_f": site_macro(drows),
                 "ms_median": median([r["ns"] for r in drows]) / 1e6,
                 "ms_p95": percentile([r["ns"] for r in drows], 95) / 1e6,
                 "failed": sum(1 for r in drows if r["error"])}
            summary[ex][d] = s
            cells.append(f"{f3(s['f'])} ({f3(s['site_macro_f'])})")
        all_f = mean(summary[ex][d]["f"] for d in datasets)
        summary[ex]["mean_over_datasets"] = all_f
        failed = sum(1 for r in erows if r["error"])
        table.append([label(ex)] + cells + [f3(all_f), ms(median([r["ns"] for r in erows])), failed or ""])
    rep.table(["extractor"] + datasets + ["mean of datasets", "ms/page", "failed"], table)
    rep.write("Precision / recall (page means) per dataset:")
    rep.write()
    rep.table(["extractor"] + datasets,
              [[label(ex)] + [f"{f3(summary[ex][d]['p'])} / {f3(summary[ex][d]['r'])}" for d in datasets]
               for ex in extractors])
    rep.data["quality"] = summary


def targets(rep: Report) -> None:
    """The project's quality and speed targets against this run's figures."""
    from fce.pipeline import DEFAULT_FALLBACK

    d = rep.data
    checks: list[tuple[str, str, bool | None]] = []

    def add(name: str, value: float, ok: Callable[[float], bool], fmt: Callable[[float], str]) -> None:
        checks.append((name, fmt(value), None if value != value else ok(value)))

    sp = d.get("speed", {})
    if sp:
        det = sp.get("fce-detect", {})
        name = label("fce-detect")
        add(f"{name} ≤ 1.5× parse floor (per page)", det.get("x_floor", math.nan), lambda v: v <= 1.5, ratio)
        add(f"{name} ≤ 1.0× Resiliparse (per page)", det.get("x_resiliparse", math.nan), lambda v: v <= 1.0,
            ratio)
        fb = sp.get(f"fce:{DEFAULT_FALLBACK}", {})
        add(f"default fallback ({DEFAULT_FALLBACK}) ≤ 2× Resiliparse", fb.get("x_resiliparse", math.nan),
            lambda v: v <= 2.0, ratio)
        add("learn on 30 pages ≤ 1 s (from bytes, slowest site)", sp["learn"]["total_max_ns"] / 1e9,
            lambda v: v <= 1.0, lambda v: f"{v:.2f} s")
        # the comparison is what ContentExtractor does once the pages are parsed: fit against fit (segmentation
        # included on both sides); the ratio from bytes, where the same parse is added to both, is shown beside it
        pairwise = sp.get("ce-pairwise", {}).get("x_learn", {})
        from_bytes = pairwise.get("total", math.nan)
        add("learn ≥ 10× faster than ContentExtractor's all-pairs comparison (same 30 pages, from parsed pages, "
            "median over sites)", pairwise.get("fit", math.nan), lambda v: v >= 10,
            lambda v: f"{ratio(v)} (from bytes {ratio(from_bytes)})")
        add(f"peak RSS of {name} ≤ 150 MB (process peak over all pages)", det.get("rss_peak_mb", math.nan),
            lambda v: v <= 150, lambda v: f"{v:.0f} MB")
    sc = d.get("scaling", {}).get("detect", {})
    if sc:
        add("detect: no super-linear growth to the largest page (ms/MB ratio ≤ 1.5)",
            sc.get("fce-detect", {}).get("growth", math.nan), lambda v: v <= 1.5, ratio)
    tm = d.get("template", {})
    for dataset, s in tm.items():
        if "trafilatura" in s["site_macro"]:
            worse = [site for site, e in s["sites"].items() if e["fce-detect"] < e["trafilatura"]]
            checks.append((f"{dataset}: template+fallback WF ≥ trafilatura on every site",
                           "all sites" if not worse else "below on " + ", ".join(worse), not worse))
    if "msv-big9" in tm:
        add("msv-big9: template+fallback WF site-macro ≥ 0.97", tm["msv-big9"]["site_macro"]["fce-detect"],
            lambda v: v >= 0.97, f3)
    q = d.get("quality", {})
    fb_q, rd = q.get(f"fce:{DEFAULT_FALLBACK}", {}), q.get("readability", {})
    for dataset in ("scrapinghub", "cleaneval"):
        if dataset in fb_q and dataset in rd:
            checks.append((f"{dataset}: default fallback F1 ≥ readability",
                           f"{f3(fb_q[dataset]['f'])} vs {f3(rd[dataset]['f'])}",
                           fb_q[dataset]["f"] >= rd[dataset]["f"]))
    if not checks:
        return
    rep.write("## Targets")
    rep.write()
    rep.table(["target", "measured", "met"],
              [[n, v, "—" if ok is None else ("yes" if ok else "**no**")] for n, v, ok in checks], "lrc")
    rep.data["targets"] = [{"target": n, "measured": v, "met": ok} for n, v, ok in checks]


# -----------------------------------------------------------------------------------------------------------------
# Entry point
# -----------------------------------------------------------------------------------------------------------------


def progress(text: str) -> None:
    print(f"[bench] {text}", file=sys.stderr, flush=True)


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench.run", description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true",
                        help=f"a small subset ({QUICK_SITES} sites / {QUICK_PAGES} pages per dataset, at most "
                             f"{QUICK_FOLDS} folds, one timed pass, pages up to 1 MB): a few minutes")
    parser.add_argument("--datasets", nargs="+", default=list(common.QUALITY_DATASETS),
                        help="datasets of the quality and template sections (default: all five)")
    parser.add_argument("--sections", nargs="+", choices=SECTIONS, default=list(SECTIONS))
    parser.add_argument("--out", type=Path, default=Path("bench/out"), help="where results.md/.json go")
    parser.add_argument("--data", type=Path, default=common.data_root(),
                        help="data root (default: $FCE_BENCH_DATA or /work/shared/data)")
    parser.add_argument("--jobs", type=int, default=min(2, os.cpu_count() or 1),
                        help="worker processes for the quality sections (timed sections always run alone)")
    parser.add_argument("--repeats", type=int, default=None, help="timed passes per speed component")
    parser.add_argument("--rounds", type=int, default=None,
                        help="fresh processes for each component the speed targets read (default 3, --quick 1); "
                             "the round with the median × floor is reported")
    parser.add_argument("--seed", type=int, default=0, help="seed of the splits, folds and generated pages")
    parser.add_argument("--clock", choices=common.CLOCKS, default=os.environ.get(common.CLOCK_ENV, "wall"),
                        help="what the timings measure: wall time (default) or the thread's CPU time (on a "
                             "loaded machine, wall time of a 2 ms page is mostly waiting for a core)")
    parser.add_argument("--baseline", type=Path, default=None,
                        help="another checkout of fce (e.g. `git archive` of the commit before a change): its "
                             "parse, detect and fallback are timed too, and a before → after table printed")
    parser.add_argument("--snapshot", action="store_true",
                        help="benchmark a copy of the code taken at the start (others may edit fce/ meanwhile)")
    args = parser.parse_args(argv)
    unknown = [d for d in args.datasets if d not in common.QUALITY_DATASETS]
    if unknown:
        parser.error(f"unknown dataset(s) {', '.join(unknown)}; known: {', '.join(common.QUALITY_DATASETS)}")
    os.environ[common.CLOCK_ENV] = args.clock  # the spawned workers read it
    if args.baseline is not None:
        args.baseline = args.baseline.resolve()
        if not (args.baseline / "fce" / "__init__.py").is_file():
            parser.error(f"--baseline {args.baseline}: no fce package there")
    if args.repeats is None:
        args.repeats = 1 if args.quick else 3
    if args.rounds is None:
        args.rounds = 1 if args.quick else 3
    if args.rounds < 1:
        parser.error("--rounds must be at least 1")
    args.warmup = 2 if args.quick else 5
    args.min_seconds = 0.1 if args.quick else 1.0
    return args


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    args = parse_args(argv)
    if args.snapshot:
        return run_snapshot(argv, args)
    sections = set(args.sections)
    rep = Report()
    started = datetime.now()
    command = os.environ.get(COMMAND_ENV) or "python -m bench.run " + " ".join(shlex.quote(a) for a in argv)
    rep.write(f"# fce benchmark — {started:%Y-%m-%d %H:%M}")
    rep.write()
    rep.write(f"- command: `{command.strip()}`")
    rep.write(f"- machine: {machine()}")
    rep.write(f"- code: {revision()}")
    rep.write(f"- versions: {versions()}")
    clock = "the thread CPU time of each timed call" if args.clock == "cpu" else "wall time"
    rep.write(f"- clock: {args.clock} ({clock})")
    rep.write(f"- load average at start: {load()} — other processes on the machine slow every figure alike; the "
              f"ratios (× floor, × Resiliparse) hold better than absolute times")
    rep.write()
    rep.data["meta"] = {"date": started.isoformat(timespec="seconds"), "command": command.strip(),
                        "machine": machine(), "versions": versions(), "revision": revision(),
                        "quick": args.quick, "seed": args.seed, "load_start": load(),
                        "clock": args.clock}
    if not args.data.is_dir():
        rep.write(f"*The data directory {args.data} is absent: the speed, quality and template sections are "
                  f"skipped (set FCE_BENCH_DATA or --data to run them).*")
        rep.write()
        sections &= {"scaling"}
    timings = {}
    for name, run in (("speed", speed_section), ("scaling", scaling_section)):
        if name in sections:
            t0 = time.perf_counter()
            run(rep, args)
            timings[name] = time.perf_counter() - t0
    if sections & {"quality", "template"}:
        t0 = time.perf_counter()
        args.out.mkdir(parents=True, exist_ok=True)
        run_quality(rep, args, sections)
        timings["quality+template"] = time.perf_counter() - t0
    targets(rep)
    elapsed = (datetime.now() - started).total_seconds()
    rep.write(f"*Run took {elapsed / 60:.1f} min (" + ", ".join(f"{k} {v:.0f} s" for k, v in timings.items())
              + f"); load average at the end: {load()}.*")
    rep.data["meta"].update(seconds=elapsed, section_seconds=timings, load_end=load())
    rep.save(args.out)
    progress(f"wrote {args.out / 'results.md'} and {args.out / 'results.json'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
