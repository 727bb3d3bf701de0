"""Check that a change to parsing, segmentation or detection left fce's output identical (speed work must
keep output identical).

    python -m bench.identity record FILE [--sample N] [--seed S]   # digests of the current code → FILE
    python -m bench.identity compare FILE [--sample N] [--seed S]  # recompute, report every page that differs

Run ``record`` on a snapshot of the code before the change (``git archive HEAD | tar -x -C /tmp/fce_base`` and
``PYTHONPATH=/tmp/fce_base``), ``compare`` on the changed code. For every page of the sample it records digests of:
the parse (serialised tree and the chosen encoding), ``blocks_of(page, style)`` for both path styles (every field of
every block), every registered single-page method's output; per site of msv-big9 and cleanportaleval, the learned
template (its JSON) and ``Detector.match`` in every detection mode on every page of the site. The sample: all of
msv-big9 and cleanportaleval, and a seeded sample of ``--sample`` pages of each other dataset.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bench import common

#: Datasets whose sites have enough pages to learn templates on (every page is checked).
TEMPLATE_DATASETS = ("msv-big9", "cleanportaleval")
#: Datasets of single pages (a seeded sample is checked).
PAGE_DATASETS = ("cleaneval", "l3s-gn1", "scrapinghub")


def _digest(value: Any) -> str:
    return hashlib.sha1(repr(value).encode("utf-8", "surrogatepass")).hexdigest()[:16]


def _safe(fn: Any) -> Any:
    try:
        return fn()
    except Exception as exc:  # noqa: BLE001 -- the checker records errors as outcomes to compare
        return f"error {type(exc).__name__}: {exc}"


def digests(sample: int, seed: int, data: Path) -> dict[str, Any]:
    from lxml import etree

    from fce.blocks import PATH_STYLES, blocks_of
    from fce.detect import DETECTION_MODES, Detector
    from fce.learn import TemplateLearner
    from fce.methods import available_methods
    from fce.parse import parse_page

    out: dict[str, Any] = {}

    def page_digests(spec: common.PageSpec, html: bytes) -> Any:
        page = _safe(lambda: parse_page(html, url=spec.url))
        if isinstance(page, str):
            return {"parse": page}, None
        rec = {"parse": _digest((page.encoding, etree.tostring(page.root, encoding="unicode")))}
        # the block trees and methods on pages parsed as the commands parse them (the block tree made while
        # parsing where that is all that is read: parse_page(blocks=…)); the same digests as from the lxml tree
        for style in PATH_STYLES:
            rec[f"blocks:{style}"] = _digest(tuple(blocks_of(parse(html, spec.url, style), style).blocks))
        for method in available_methods():
            rec[f"method:{method.name}"] = _digest(_safe(
                lambda m=method: m(parse(html, spec.url, getattr(m, "blocks", None)))))
        return rec, page

    parse = common.parser_with_blocks(parse_page)

    for dataset in TEMPLATE_DATASETS + PAGE_DATASETS:
        specs = common.load_specs(dataset, data)
        if dataset in PAGE_DATASETS:
            rng = random.Random(f"identity|{dataset}|{seed}")
            specs = sorted(rng.sample(specs, min(sample, len(specs))), key=lambda s: s.key)
        for site, pages in common.by_site(specs).items():
            parsed = []
            for spec in pages:
                html = spec.read()
                rec, page = page_digests(spec, html)
                out[spec.key] = rec
                if page is not None:
                    parsed.append((spec, html))
            if dataset not in TEMPLATE_DATASETS or len(parsed) < 2:
                continue
            learner = TemplateLearner(site)
            learn = [parse(h, s.url, learner.path_style) for s, h in parsed[:30]]
            template = learner.fit(learn).template_
            learned = template.to_dict()
            learned.pop("learned_at", None)  # a timestamp
            out[f"{dataset}/{site}/template"] = _digest(json.dumps(learned, sort_keys=True))
            for mode in DETECTION_MODES:
                detector = Detector(template, mode=mode)
                for spec, html in parsed:
                    m = detector.match(parse(html, spec.url, template.params.path_style))
                    out[spec.key][f"detect:{mode}"] = _digest(
                        (m.blocks, round(m.fit, 12), sorted(m.covered), m.n_candidates, m.n_dropped_noise))
        print(f"{dataset}: done ({len(out)} records)", file=sys.stderr)
    return out


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.identity", description=__doc__.split("\n\n")[0])
    parser.add_argument("action", choices=("record", "compare"))
    parser.add_argument("file", type=Path)
    parser.add_argument("--sample", type=int, default=150, help="pages per single-page dataset")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--data", type=Path, default=common.data_root())
    args = parser.parse_args(argv)
    now = digests(args.sample, args.seed, args.data)
    if args.action == "record":
        args.file.write_text(json.dumps(now, indent=0, sort_keys=True), encoding="utf-8")
        print(f"{len(now)} records written to {args.file}")
        return 0
    before = json.loads(args.file.read_text(encoding="utf-8"))
    differ = 0
    for key in sorted(set(before) | set(now)):
        a, b = before.get(key), now.get(key)
        if a == b:
            continue
        differ += 1
        if isinstance(a, dict) and isinstance(b, dict):
            fields = sorted(f for f in set(a) | set(b) if a.get(f) != b.get(f))
            print(f"DIFFERS {key}: {', '.join(fields)}")
        else:
            print(f"DIFFERS {key}")
    print(f"{len(now)} records compared, {differ} differ")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
