"""How well content fingerprints (:mod:`fce.fingerprint`) tell copies of a page from other pages of its site.

    python -m bench.fingerprint_bench                       # the four per-site sets of /work/shared/data (~1 min)
    python -m bench.fingerprint_bench --datasets daniel-small --no-peers

Every pair of pages of one site with gold text is a pair to judge. The gold says what the pair is: a **copy** when
at least :data:`COPY_SHARE` of the word 5-grams of the shorter gold are in the other (one article captured twice, a
print variant), **different** when less than :data:`DIFFERENT_SHARE` are (pairs in between — a digest quoting an
article — are not counted). A fingerprint calls a pair near-duplicates at most
:data:`fce.fingerprint.NEAR_DUPLICATE_BITS` bits apart. Judged, per source of text and fingerprint:

* ``fce``: :func:`fce.fingerprint.fingerprint` of fce's extraction without a template (the default fallback);
* ``whole page``: the same fingerprint of the page's whole text (every block: menus, footers, teasers);
* ``trafilatura``: trafilatura's own ``content_fingerprint`` of its extraction (``--no-peers``: left out).

Reported: the copies found, the different pairs taken for copies (and how many of those have the same extracted
text: the extraction's error, not the fingerprint's), and the nearest different pair whose texts differ. The data is
read in place (``--data`` or ``FCE_BENCH_DATA``); without it the script says so and exits 0.
"""

from __future__ import annotations

import argparse
import itertools
import re
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from bench.common import data_root
from fce.blocks import blocks_of
from fce.evaluation.packages import group_by_site, iter_documents
from fce.fingerprint import NEAR_DUPLICATE_BITS, distance, fingerprint
from fce.parse import parse_page
from fce.pipeline import extract, parse_blocks

#: The sets with several pages per site.
DATASETS = ("msv-big9", "cleanportaleval", "daniel-small", "dragnet-small")
#: A pair is a copy when this share of the shorter gold's word 5-grams is in the other gold…
COPY_SHARE = 0.9
#: …and different when less than this share is (:mod:`fce.duplicates` measured its threshold on the same pairs).
DIFFERENT_SHARE = 0.5
_WORD = re.compile(r"\w+")


@dataclass
class Tally:
    """One source's judgements: distances of the copies, of the different pairs, and those with the same text."""

    copies: list[int] = field(default_factory=list)
    different: list[int] = field(default_factory=list)
    same_text: int = 0  # different pairs within the threshold whose extracted texts are the same
    nearest: int | None = None  # the smallest distance of a different pair whose texts differ


def _grams(text: str) -> set[tuple[str, ...]]:
    words = _WORD.findall(text.lower())
    return {tuple(words[k:k + 5]) for k in range(len(words) - 4)}


def _trafilatura() -> Callable[[bytes], tuple[str, str | None]] | None:
    try:
        import trafilatura
        from trafilatura.deduplication import content_fingerprint
    except ImportError:
        return None

    def run(html: bytes) -> tuple[str, str | None]:
        text = trafilatura.extract(html.decode("utf-8", "replace")) or ""
        return text, (content_fingerprint(text) if text else None)

    return run


def measure(root: Path, datasets: Sequence[str], peers: bool) -> dict[str, Tally]:
    """Per source, the distances of every judged pair of pages of one site (:data:`COPY_SHARE`,
    :data:`DIFFERENT_SHARE`)."""
    peer = _trafilatura() if peers else None
    tallies = {name: Tally() for name in ("fce", "whole page", *(["trafilatura"] if peer else []))}
    for documents in group_by_site(iter_documents([root / d for d in datasets if (root / d).is_dir()])).values():
        golds: list[set[tuple[str, ...]]] = []
        texts: dict[str, list[tuple[str, str | None]]] = {name: [] for name in tallies}
        for doc in documents:
            gold = doc.read_gold()
            if not gold:
                continue
            html = doc.read_html()
            page = parse_page(html, url=doc.url, blocks=parse_blocks())
            text = extract(page, None).text
            tree = blocks_of(page)
            whole = tree.render(0) if len(tree) else ""
            golds.append(_grams(gold))
            texts["fce"].append((text, fingerprint(text)))
            texts["whole page"].append((whole, fingerprint(whole)))
            if peer is not None:
                texts["trafilatura"].append(peer(html))
        for a, b in itertools.combinations(range(len(golds)), 2):
            if not golds[a] or not golds[b]:
                continue
            share = len(golds[a] & golds[b]) / min(len(golds[a]), len(golds[b]))
            if DIFFERENT_SHARE <= share < COPY_SHARE:
                continue
            for name, tally in tallies.items():
                (text_a, print_a), (text_b, print_b) = texts[name][a], texts[name][b]
                if print_a is None or print_b is None:
                    continue
                bits = distance(print_a, print_b)
                if share >= COPY_SHARE:
                    tally.copies.append(bits)
                else:
                    tally.different.append(bits)
                    if text_a == text_b:
                        tally.same_text += bits <= NEAR_DUPLICATE_BITS
                    elif tally.nearest is None or bits < tally.nearest:
                        tally.nearest = bits
    return tallies


def report(tallies: dict[str, Tally]) -> str:
    rows = [f"| text and fingerprint | copies found (≤ {NEAR_DUPLICATE_BITS} bits) | different pairs taken for "
            "copies (same extracted text) | nearest different pair, texts differing |", "|---|---|---|---|"]
    for name, tally in tallies.items():
        found = sum(bits <= NEAR_DUPLICATE_BITS for bits in tally.copies)
        taken = sum(bits <= NEAR_DUPLICATE_BITS for bits in tally.different)
        nearest = "–" if tally.nearest is None else f"{tally.nearest} bits"
        rows.append(f"| {name} | {found} of {len(tally.copies)} | {taken} of {len(tally.different)} "
                    f"({tally.same_text}) | {nearest} |")
    return "\n".join(rows)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.fingerprint_bench", description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=data_root(), help="the data root (<dataset>/<site>/<id>.html)")
    parser.add_argument("--datasets", nargs="*", default=list(DATASETS), help="per-site datasets to read")
    parser.add_argument("--no-peers", action="store_true", help="leave trafilatura out")
    args = parser.parse_args(argv)
    if not args.data.is_dir():
        print(f"no data at {args.data}: nothing to measure")
        return 0
    tallies = measure(args.data, args.datasets, not args.no_peers)
    print(report(tallies))
    return 0


if __name__ == "__main__":
    sys.exit(main())
