"""Old code against new code in one process, page by page: the speed-up of a change, robust to a loaded machine.

    python -m bench.ab BASELINE_DIR [--pages 90] [--reps 5]

``BASELINE_DIR`` is another checkout of fce (``git archive <commit> | tar -x -C DIR``). Both versions are imported
into this process (the baseline under its own copy of the ``fce`` modules); for each of the speed section's
held-out msv-big9 pages (:func:`bench.common.split_learn_detect`) and each component, the two versions run
alternately ``--reps`` times and the minimum of each is kept (thread CPU time, ``time.thread_time_ns``). Reported:
median ms per page of each, the median of the per-page ratios to the lxml floor, and the median of the per-page
ratios new ÷ old. (A function of the old code that imports an fce module lazily when called would get the new
one; the modules on these paths import what they call at module level.)
Components: ``segment`` (pages parsed beforehand), ``parse_page`` (without ``blocks=``: the walk in the default
path style, the lxml tree not built), ``detect guided`` (parse +
template, the default mode), ``mainblock`` and ``plain`` (parse + method), each page parsed as that version's
``fce detect`` parses it (the block tree made while parsing where that is all that is read: ``parse_page(blocks=…)``,
where the version has it). Templates are learned by the baseline.
Then the new code against a peer (``--peer``, default Resiliparse, the reference of "× Resiliparse" figures),
alternating with it on every page the same way: ``parse_page``, detection with the template alone and with the
default fallback, and ``mainblock``.

``--learn`` times learning instead: per site, ``LayoutLearner.fit`` (what ``fce learn`` runs) of each version on
the speed section's 30 learning pages, parsed beforehand by that version (afresh for every run: a page keeps its
block tree), alternating ``--reps`` times, the minimum of each kept.
"""

from __future__ import annotations

import argparse
import gc
import importlib
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from statistics import median
from typing import Any

from bench import common

MODULES = ("fce.parse", "fce.blocks", "fce.detect", "fce.learn", "fce.methods", "fce.pipeline", "fce.template")


def _import(root: str | None) -> dict[str, Any]:
    """Import fce's modules from ``root`` (``None``: the normal path, the modules already imported kept) and
    detach them from ``sys.modules``. The normal path goes first: a compiled module (Cython) runs its body once per
    process, so one imported already (by ``bench.common``) and imported again would register nothing anew."""
    if root is not None:
        for name in [m for m in sys.modules if m == "fce" or m.startswith("fce.")]:
            del sys.modules[name]
        sys.path.insert(0, root)
    try:
        mods: dict[str, Any] = {name: importlib.import_module(name) for name in MODULES}
        mods["fce.methods"]._load()  # the registry imports its modules lazily: do it while this path is first
        if hasattr(mods["fce.detect"], "_mainblock_selection"):  # guided detection's lazy import, bound now
            mods["fce.detect"]._mainblock_selection()
        mods["__file__"] = sys.modules["fce"].__file__
        mods["__modules__"] = {m: sys.modules[m] for m in sys.modules if m == "fce" or m.startswith("fce.")}
    finally:
        if root is not None:
            sys.path.remove(root)
    return mods


@contextmanager
def _active(mods: dict[str, Any]) -> Iterator[None]:
    """``sys.modules`` holding this version's fce modules for the duration (for the lazy imports of its code)."""
    saved = {m: sys.modules[m] for m in sys.modules if m == "fce" or m.startswith("fce.")}
    sys.modules.update(mods["__modules__"])
    try:
        yield
    finally:
        for m in mods["__modules__"]:
            sys.modules.pop(m, None)
        sys.modules.update(saved)


def _as(mods: dict[str, Any], function: Callable[[Any], Any]) -> Callable[[Any], Any]:
    """``function`` run with ``sys.modules`` holding this version's fce modules: a lazy import in its code (fce
    imports some modules inside functions) gets that version's. Both sides pay the same few dictionary stores."""
    modules = mods["__modules__"]

    def run(item: Any) -> Any:
        sys.modules.update(modules)
        return function(item)

    return run


def _paired(old: Callable[[Any], Any], new: Callable[[Any], Any], items: Sequence[Any],
            reps: int) -> tuple[list[float], list[float]]:
    clock = time.thread_time_ns
    t_old, t_new = [], []
    for item in items:
        best_old = best_new = float("inf")
        for _ in range(reps):
            start = clock()
            old(item)
            best_old = min(best_old, clock() - start)
            start = clock()
            new(item)
            best_new = min(best_new, clock() - start)
        t_old.append(best_old / 1e6)
        t_new.append(best_new / 1e6)
    return t_old, t_new


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.ab", description=__doc__.split("\n\n")[0])
    parser.add_argument("baseline", type=Path, help="another checkout of fce (the old code)")
    parser.add_argument("--pages", type=int, default=90, help="at most this many held-out pages")
    parser.add_argument("--reps", type=int, default=5, help="alternating runs per page and version")
    parser.add_argument("--data", type=Path, default=common.data_root())
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--peer", default="resiliparse",
                        help="also time the new code against this peer, alternating per page ('' to skip)")
    parser.add_argument("--learn", action="store_true", help="time learning per site instead of detection")
    args = parser.parse_args(argv)
    if not (args.baseline / "fce" / "__init__.py").is_file():
        parser.error(f"{args.baseline}: no fce package there")
    specs = common.load_specs("msv-big9", args.data)
    if not specs:
        print(f"msv-big9 not found under {args.data}: nothing measured.")
        return 0
    new = _import(None)
    old = _import(str(args.baseline.resolve()))
    for name in [m for m in sys.modules if m == "fce" or m.startswith("fce.")]:
        del sys.modules[name]
    sys.modules.update(new["__modules__"])
    print(f"old: {old['__file__']}\nnew: {new['__file__']}")
    if args.learn:
        return _learn(args, specs, old, new)

    import lxml.html

    work = []  # (bytes, old detector, new detector)
    for site, pages in common.by_site(specs).items():
        if len(pages) <= common.LEARN_PAGES:
            continue
        learn, held_out = common.split_learn_detect(pages, args.seed)
        with _active(old):
            template = old["fce.learn"].TemplateLearner(site).fit(
                [old["fce.parse"].parse_page(s.read(), url=s.url) for s in learn]).template_
        payload = template.to_json()
        d_old = old["fce.detect"].Detector(old["fce.template"].Template.from_json(payload))
        d_new = new["fce.detect"].Detector(new["fce.template"].Template.from_json(payload))
        with _active(old):  # the layout-choice wrapper of each version, built by its own code (kept on it)
            old["fce.pipeline"].compile_site(d_old)
        new["fce.pipeline"].compile_site(d_new)
        work += [(s.read(), d_old, d_new) for s in held_out]
    work = work[: args.pages]
    p_old, p_new = old["fce.parse"].parse_page, new["fce.parse"].parse_page
    c_old, c_new = _parse_as_commands(old), _parse_as_commands(new)
    x_old, x_new = old["fce.pipeline"].extract, new["fce.pipeline"].extract
    mb_old, mb_new = old["fce.methods"].get_method("mainblock"), new["fce.methods"].get_method("mainblock")
    pl_old, pl_new = old["fce.methods"].get_method("plain"), new["fce.methods"].get_method("plain")
    seg_old, seg_new = old["fce.blocks"].segment, new["fce.blocks"].segment
    parsed = [(_as(old, p_old)(h), _as(new, p_new)(h)) for h, _, _ in work]
    components: dict[str, tuple[Callable[[Any], Any], Callable[[Any], Any], Sequence[Any]]] = {
        "segment": (lambda p: seg_old(p[0], "qualified"), lambda p: seg_new(p[1], "qualified"), parsed),
        "parse_page": (lambda w: p_old(w[0]), lambda w: p_new(w[0]), work),
        "detect guided": (lambda w: x_old(c_old(w[0], w[1], None), w[1], fallback=None),
                          lambda w: x_new(c_new(w[0], w[2], None), w[2], fallback=None), work),
        "mainblock": (lambda w: mb_old(c_old(w[0], None, "mainblock")),
                      lambda w: mb_new(c_new(w[0], None, "mainblock")), work),
        "plain": (lambda w: pl_old(c_old(w[0], None, "plain")), lambda w: pl_new(c_new(w[0], None, "plain")), work),
    }
    floor, _ = _paired(lambda w: lxml.html.document_fromstring(w[0]), lambda w: None, work, args.reps)
    print(f"{len(work)} held-out msv-big9 pages; lxml floor {median(floor):.3f} ms/page (median); thread CPU time, "
          f"min of {args.reps} alternating runs per page\n")
    print("| component | old ms | new ms | old × floor | new × floor | new ÷ old |")
    print("|:--|--:|--:|--:|--:|--:|")
    for name, (f_old, f_new, items) in components.items():
        t_old, t_new = _paired(_as(old, f_old), _as(new, f_new), items, args.reps)

        def ratio(times: list[float], base: list[float]) -> float:
            return median([t / b for t, b in zip(times, base, strict=True) if b > 0])

        print(f"| {name} | {median(t_old):.3f} | {median(t_new):.3f} | {ratio(t_old, floor):.2f}× | "
              f"{ratio(t_new, floor):.2f}× | {ratio(t_new, t_old):.2f} |")
    if args.peer and common.peer_available(args.peer):
        _against_peer(args, work, new, floor)
    return 0


def _parse_as_commands(mods: dict[str, Any]) -> Callable[[bytes, Any, str | None], Any]:
    """``parse(html, template, fallback)`` of one version, as its ``fce detect`` parses a page for a template and
    a fallback (without a template: ``fallback`` is the method run alone): with the block tree made while
    parsing where that is all they read (``parse_page(blocks=…)``), into the lxml tree in a version without it."""
    parse = common.parser_with_blocks(mods["fce.parse"].parse_page)
    blocks_for = getattr(mods["fce.pipeline"], "blocks_for", None)

    def run(html: bytes, template: Any, fallback: str | None) -> Any:
        return parse(html, None, None if blocks_for is None else blocks_for(template, fallback))

    return run


def _learn(args: argparse.Namespace, specs: Sequence[common.PageSpec], old: dict[str, Any],
           new: dict[str, Any]) -> int:
    """Old and new ``LayoutLearner.fit`` per site, alternating (module docstring)."""
    clock = time.thread_time_ns
    print("\n| site | old ms | new ms | new ÷ old |\n|:--|--:|--:|--:|")
    ratios = []
    for site, pages in sorted(common.by_site(specs).items()):
        if len(pages) <= common.LEARN_PAGES:
            continue
        learn, _ = common.split_learn_detect(pages, args.seed)
        raw = [(s.read(), s.url) for s in learn]
        best = {"old": float("inf"), "new": float("inf")}
        for _ in range(args.reps):
            for label, mods in (("old", old), ("new", new)):
                with _active(mods):
                    parsed = [mods["fce.parse"].parse_page(h, url=u) for h, u in raw]
                    learner = mods["fce.learn"].LayoutLearner(site)
                    gc.collect()
                    start = clock()
                    learner.fit(parsed)
                    best[label] = min(best[label], (clock() - start) / 1e6)
        ratios.append(best["new"] / best["old"])
        print(f"| {site} | {best['old']:.1f} | {best['new']:.1f} | {ratios[-1]:.2f} |")
    if ratios:
        print(f"\nnew ÷ old, median over sites: {median(ratios):.2f} (min {min(ratios):.2f}, max {max(ratios):.2f})")
    return 0


def _against_peer(args: argparse.Namespace, work: list[Any], new: dict[str, Any], floor: list[float]) -> None:
    """The new code against a peer extractor (default Resiliparse), alternating on every page in this process: the
    "× Resiliparse" figure without the drift of separate processes run minutes apart."""
    peer = common.make_extractor(args.peer)
    parse, extract = new["fce.parse"].parse_page, new["fce.pipeline"].extract
    as_commands = _parse_as_commands(new)
    mainblock = new["fce.methods"].get_method("mainblock")
    fallback = new["fce.pipeline"].DEFAULT_FALLBACK
    rows: dict[str, Callable[[Any], Any]] = {
        "parse_page": lambda w: parse(w[0]),
        "detect guided (template alone)": lambda w: extract(as_commands(w[0], w[2], None), w[2], fallback=None),
        f"detect + fallback ({fallback})": lambda w: extract(as_commands(w[0], w[2], fallback), w[2],
                                                             fallback=fallback),
        "mainblock (no template)": lambda w: mainblock(as_commands(w[0], None, "mainblock")),
    }
    t_floor_peer, _ = _paired(lambda w: peer(w[0], None), lambda w: None, work, args.reps)
    peer_x_floor = median([p / f for p, f in zip(t_floor_peer, floor, strict=True)])
    print(f"\nnew code against {args.peer}, alternating on every page (same pages, same process; "
          f"{args.peer} {median(t_floor_peer):.3f} ms/page median, {peer_x_floor:.2f}× the floor)\n")
    print(f"| component | {args.peer} ms | fce ms | fce × floor | fce × {args.peer} |")
    print("|:--|--:|--:|--:|--:|")
    for name, fn in rows.items():
        t_peer, t_fce = _paired(lambda w: peer(w[0], None), fn, work, args.reps)
        print(f"| {name} | {median(t_peer):.3f} | {median(t_fce):.3f} | "
              f"{median([t / f for t, f in zip(t_fce, floor, strict=True)]):.2f}× | "
              f"{median([t / p for t, p in zip(t_fce, t_peer, strict=True) if p > 0]):.2f}× |")


if __name__ == "__main__":
    sys.exit(main())
