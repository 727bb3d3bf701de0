"""Evaluation of page metadata (:mod:`fce.metadata`): pure scoring functions, and a runner over a dataset whose
``<id>.json`` files carry ``expected_metadata`` (``/work/shared/data/readability``: Readability.js's expected
``title``, ``byline``, ``excerpt``, ``siteName``, ``publishedTime``, ``lang``).

    python -m fce.evaluation.metadata /work/shared/data/readability --peer trafilatura

**Scoring** (one function per field; a field is scored only on pages whose expected value is a non-empty string,
so ``n`` differs per field):

* ``title`` — equal after whitespace normalisation (:func:`title_matches`);
* ``authors`` — the same set of names, compared case-insensitively after whitespace normalisation
  (:func:`authors_match`). The expected byline is one string ("By Jane Doe and John Roe"); it is read as names
  by :func:`byline_names` — a leading "By" dropped, split on commas, semicolons, "&", "|" and " and " — a rule
  deliberately simpler than fce's own :func:`fce.metadata.split_authors`, so that fce is not scored against
  its own cleaning;
* ``published`` — the same calendar day as written, i.e. the ``YYYY-MM-DD`` in front of both values, without
  converting either to UTC (:func:`same_day`);
* ``site_name`` — equal after whitespace normalisation, ignoring case (:func:`site_name_matches`);
* ``description`` — equal to Readability's ``excerpt`` after whitespace normalisation
  (:func:`description_matches`). Where a page declares no description, Readability's excerpt is the first
  paragraph of the article it extracted; fce's first-paragraph fallback finds the same one on some of those
  pages, trafilatura's metadata never;
* ``language`` — the same BCP 47 tag ignoring case (``en-us`` = ``en-US``; :func:`language_matches`).

The expected values are Readability.js's output, not human annotation: a regression oracle with its quirks (a
byline such as "by Lucas Nolan22 Dec 2016651" scraped from the page, a title that keeps the site's name when
``og:title`` does). Every extractor is scored against the same oracle.

**Runner** (:func:`evaluate`, :func:`summarise`, :func:`format_table`, the CLI): every page of the given
directories is decoded once (:func:`fce.parse.decode_html`) and handed as text to fce and to each peer
(``trafilatura``: ``trafilatura.extract_metadata``, its public metadata API, given the page URL). A page an
extractor raises on is counted in the ``errors`` line, not scored. Pages without ``expected_metadata`` are run
too: the ``found`` columns (share of pages where the field has a value) and the error count are then the result,
a check that nothing crashes on other datasets.
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from os import PathLike
from typing import Any

from fce.evaluation.packages import Document, iter_documents
from fce.metadata import Metadata, extract_metadata, normalize_language
from fce.parse import decode_html

__all__ = [
    "EXPECTED_KEYS",
    "FIELDS",
    "PEERS",
    "FieldSummary",
    "MetadataExtractor",
    "PageResult",
    "authors_match",
    "byline_names",
    "description_matches",
    "evaluate",
    "evaluate_documents",
    "expects_metadata",
    "format_table",
    "language_matches",
    "main",
    "metadata_peers",
    "same_day",
    "score_metadata",
    "site_name_matches",
    "summarise",
    "title_matches",
]

#: The scored fields of :class:`fce.metadata.Metadata`, and the key of ``expected_metadata`` each is scored on.
EXPECTED_KEYS: dict[str, str] = {
    "title": "title",
    "authors": "byline",
    "published": "publishedTime",
    "site_name": "siteName",
    "description": "excerpt",
    "language": "lang",
}
FIELDS: tuple[str, ...] = tuple(EXPECTED_KEYS)

_BYLINE_PREFIX = re.compile(r"^\s*by\s+", re.IGNORECASE)
_BYLINE_SPLIT = re.compile(r"\s*(?:[,;&|]|\band\b)\s*", re.IGNORECASE)
_DAY = re.compile(r"\s*(\d{4})-(\d{1,2})-(\d{1,2})")


# --- scoring (pure) ----------------------------------------------------------------------------------------------


def _normal(text: str | None) -> str:
    return " ".join(text.split()) if text else ""


def title_matches(predicted: str | None, expected: str) -> bool:
    """The same title after whitespace normalisation."""
    return bool(predicted) and _normal(predicted) == _normal(expected)


def byline_names(byline: str) -> frozenset[str]:
    """The names an expected byline string holds, casefolded: "By Jane Doe and John Roe" → {jane doe, john roe}."""
    text = _BYLINE_PREFIX.sub("", _normal(byline))
    return frozenset(name.casefold() for name in (_normal(part) for part in _BYLINE_SPLIT.split(text)) if name)


def authors_match(predicted: Sequence[str], expected_byline: str) -> bool:
    """The predicted author names are the expected byline's names, as a set, ignoring case and spacing."""
    names = frozenset(_normal(name).casefold() for name in predicted if _normal(name))
    return bool(names) and names == byline_names(expected_byline)


def same_day(predicted: str | None, expected: str) -> bool:
    """Both dates fall on the same calendar day as written (the ``YYYY-MM-DD`` each starts with)."""
    day = _day(expected)
    return day is not None and _day(predicted) == day


def _day(value: str | None) -> tuple[int, int, int] | None:
    match = _DAY.match(value) if value else None
    return (int(match.group(1)), int(match.group(2)), int(match.group(3))) if match else None


def site_name_matches(predicted: str | None, expected: str) -> bool:
    """The same site name after whitespace normalisation, ignoring case."""
    return bool(predicted) and _normal(predicted).casefold() == _normal(expected).casefold()


def description_matches(predicted: str | None, expected: str) -> bool:
    """The description equals the expected excerpt after whitespace normalisation."""
    return bool(predicted) and _normal(predicted) == _normal(expected)


def language_matches(predicted: str | None, expected: str) -> bool:
    """The same BCP 47 tag, ignoring case."""
    expected_tag = normalize_language(expected)
    return bool(predicted) and expected_tag is not None and _normal(predicted).casefold() == expected_tag.casefold()


_MATCHERS: dict[str, Callable[[Any, str], bool]] = {
    "title": title_matches,
    "authors": authors_match,
    "published": same_day,
    "site_name": site_name_matches,
    "description": description_matches,
    "language": language_matches,
}


def score_metadata(predicted: Metadata, expected: Mapping[str, Any]) -> dict[str, bool]:
    """Per field, whether ``predicted`` matches ``expected`` (Readability's ``expected_metadata`` keys); fields
    whose expected value is missing or empty are left out."""
    scores: dict[str, bool] = {}
    for name, key in EXPECTED_KEYS.items():
        gold = expected.get(key)
        if isinstance(gold, str) and gold.strip():
            scores[name] = _MATCHERS[name](getattr(predicted, name), gold)
    return scores


# --- peers -------------------------------------------------------------------------------------------------------


def _fce(text: str, url: str | None) -> Metadata:
    return extract_metadata(text, url=url)


def _trafilatura(text: str, url: str | None) -> Metadata:
    import trafilatura

    doc = trafilatura.extract_metadata(text, default_url=url)
    authors = tuple(name.strip() for name in (doc.author or "").split(";") if name.strip())
    return Metadata(title=doc.title, authors=authors, published=doc.date, site_name=doc.sitename,
                    description=doc.description, canonical_url=doc.url, categories=tuple(doc.categories or ()),
                    tags=tuple(doc.tags or ()), image=doc.image, page_type=doc.pagetype)


#: An extractor: a function from (decoded page text, page URL) to :class:`Metadata`.
MetadataExtractor = Callable[[str, str | None], Metadata]
#: The extractors the CLI knows, by name.
PEERS: dict[str, MetadataExtractor] = {"fce": _fce, "trafilatura": _trafilatura}
#: The metadata extractor of each peer of ``fce eval`` that has one (:mod:`fce.evaluation.peers`; trafilatura's
#: metadata is the same with ``favor_precision``).
_PEER_METADATA = {"trafilatura": "trafilatura", "trafilatura-precision": "trafilatura"}


def metadata_peers(peers: Iterable[str]) -> list[str]:
    """The metadata extractors (names in :data:`PEERS`) of ``fce eval``'s ``peers``, each once, in order."""
    return list(dict.fromkeys(_PEER_METADATA[p] for p in peers if p in _PEER_METADATA))


# --- the runner --------------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class PageResult:
    """One extractor on one page: its metadata (None after an error), the per-field scores, the time taken."""

    dataset: str
    site: str
    doc_id: str
    extractor: str
    metadata: Metadata | None
    scores: dict[str, bool] = field(default_factory=dict, hash=False)
    expected: dict[str, Any] = field(default_factory=dict, hash=False)
    error: str | None = None
    ms: float = 0.0


@dataclass(frozen=True, slots=True)
class FieldSummary:
    """One field for one extractor: ``correct`` of ``n`` scored pages; ``found`` of ``pages`` have a value."""

    field: str
    extractor: str
    correct: int
    n: int
    found: int
    pages: int

    @property
    def accuracy(self) -> float | None:
        return self.correct / self.n if self.n else None


def evaluate(paths: Iterable[str | PathLike[str]] | str | PathLike[str], *, peers: Sequence[str] = (),
             sample: int | None = None, extractors: Mapping[str, MetadataExtractor] | None = None,
             ) -> list[PageResult]:
    """fce and each of ``peers`` (names in :data:`PEERS`) on every page under ``paths`` (every ``sample``-th page
    when given), scored where the page's json has ``expected_metadata``. ``extractors`` replaces :data:`PEERS`
    (another metadata extractor to compare, by name); fce is always run first unless it is replaced."""
    documents = list(iter_documents(paths))
    if sample and sample > 1:
        documents = documents[::sample]
    return evaluate_documents(documents, peers=peers, extractors=extractors)


def evaluate_documents(documents: Iterable[Document], *, peers: Sequence[str] = (),
                       extractors: Mapping[str, MetadataExtractor] | None = None) -> list[PageResult]:
    """:func:`evaluate` on ``documents`` (:func:`fce.evaluation.packages.iter_documents`'s)."""
    known = dict(PEERS if extractors is None else extractors)
    names = list(dict.fromkeys(["fce", *peers] if "fce" in known else peers or known))
    unknown = [name for name in names if name not in known]
    if unknown:
        raise ValueError(f"unknown extractor {unknown[0]!r} (known: {', '.join(known)})")
    results: list[PageResult] = []
    for doc in documents:
        text, _ = decode_html(doc.read_html())
        expected = doc.meta.get("expected_metadata")
        expected = expected if isinstance(expected, dict) else {}
        for name in names:
            results.append(_run(known[name], name, doc, text, expected))
    return results


def expects_metadata(document: Document) -> bool:
    """Whether ``document``'s meta holds an ``expected_metadata`` object (what :func:`score_metadata` reads)."""
    return isinstance(document.meta.get("expected_metadata"), dict)


def _run(function: MetadataExtractor, name: str, doc: Document, text: str, expected: dict[str, Any]) -> PageResult:
    start = time.perf_counter()
    try:
        metadata = function(text, doc.url)
    except Exception as exc:  # a peer's crash on one page is a result to report, not a reason to stop the run
        return PageResult(doc.dataset, doc.site, doc.doc_id, name, None, expected=expected,
                          error=f"{type(exc).__name__}: {exc}")
    ms = (time.perf_counter() - start) * 1000
    return PageResult(doc.dataset, doc.site, doc.doc_id, name, metadata, score_metadata(metadata, expected),
                      expected, ms=ms)


def summarise(results: Iterable[PageResult]) -> list[FieldSummary]:
    """Per extractor (in order of appearance) and field: correct, scored, found and page counts."""
    counts: dict[tuple[str, str], list[int]] = {}
    for result in results:
        for name in FIELDS:
            row = counts.setdefault((result.extractor, name), [0, 0, 0, 0])
            if result.error is not None:
                continue
            row[3] += 1
            if name in result.scores:
                row[1] += 1
                row[0] += result.scores[name]
            if getattr(result.metadata, name, None):
                row[2] += 1
    return [FieldSummary(name, extractor, *row) for (extractor, name), row in counts.items()]


def format_table(summaries: Sequence[FieldSummary], results: Sequence[PageResult] = ()) -> str:
    """The console table: one line per field with each extractor's accuracy (and the share of pages where it
    found a value), then n; an errors line and the mean time per page when ``results`` are given."""
    extractors = list(dict.fromkeys(s.extractor for s in summaries))
    by_key = {(s.extractor, s.field): s for s in summaries}
    header = ["field", *(f"{name} acc" for name in extractors), *(f"{name} found" for name in extractors), "n"]
    lines = [header]
    for name in FIELDS:
        cells = [name]
        cells += [_percent(by_key[(e, name)].accuracy) if (e, name) in by_key else "-" for e in extractors]
        cells += [_percent(by_key[(e, name)].found / by_key[(e, name)].pages if by_key[(e, name)].pages else None)
                  if (e, name) in by_key else "-" for e in extractors]
        first = by_key.get((extractors[0], name)) if extractors else None
        cells.append(str(first.n if first else 0))
        lines.append(cells)
    if results:
        lines.append(["errors", *(str(sum(r.error is not None for r in results if r.extractor == e))
                                  for e in extractors), *([""] * len(extractors)), ""])
        lines.append(["ms/page", *(f"{_mean([r.ms for r in results if r.extractor == e and r.error is None]):.2f}"
                                   for e in extractors), *([""] * len(extractors)), ""])
    widths = [max(len(row[i]) for row in lines) for i in range(len(header))]
    return "\n".join("  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip()
                     for row in lines)


def _percent(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.1f}%"


def _mean(values: Sequence[float]) -> float:
    return sum(values) / len(values) if values else 0.0


def _misses(results: Sequence[PageResult], extractor: str) -> str:
    lines = []
    for result in results:
        if result.extractor != extractor or result.metadata is None:
            continue
        for name, correct in result.scores.items():
            if not correct:
                gold = result.expected.get(EXPECTED_KEYS[name])
                lines.append(f"{result.site}/{result.doc_id} {name}: got {getattr(result.metadata, name)!r}, "
                             f"expected {gold!r}")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    """Command line: ``python -m fce.evaluation.metadata DIR... [--peer trafilatura] [--sample K] [--misses]``."""
    parser = argparse.ArgumentParser(prog="python -m fce.evaluation.metadata",
                                     description="Score fce's page metadata (and peers') against expected_metadata.")
    parser.add_argument("paths", nargs="+", metavar="DIR", help="dataset, site directory or page files")
    parser.add_argument("--peer", action="append", default=[], choices=sorted(set(PEERS) - {"fce"}),
                        help="also run this extractor (repeatable)")
    parser.add_argument("--sample", type=int, default=None, metavar="K", help="every K-th page only")
    parser.add_argument("--misses", action="store_true", help="list fce's wrong fields after the table")
    args = parser.parse_args(argv)
    results = evaluate(args.paths, peers=args.peer, sample=args.sample)
    print(format_table(summarise(results), results))
    if args.misses:
        print()
        print(_misses(results, "fce"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
