"""The learning sample: up to ``k`` pages per domain, the same whatever order or grouping the inputs come in.

A domain's sample is its ``k`` pages with the smallest URL hashes (a bottom-k sketch). Taking the ``k`` smallest
of a union is the same as taking the ``k`` smallest of the per-part ``k`` smallest, so each input file's task
keeps only its own bottom-k per domain (:class:`Sampler`, map side) and the driver merges those
(:func:`merge_samples`): the memory of a task is bounded by ``k`` entries per domain of its file, and the result
depends on neither the number of files nor the order in which tasks finish.

A URL crawled twice counts once (the copy with the smaller ``(input, position)`` is kept). Ties of the 64-bit
hash between different URLs are broken by the URL itself.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import NamedTuple

__all__ = ["Sample", "SampleEntry", "Sampler", "merge_samples", "url_hash"]

#: Bytes of BLAKE2b digest per URL: 64 bits make a collision between two URLs of a domain negligible, and a
#: collision would only change which page is sampled, never correctness.
HASH_BYTES = 8


def url_hash(url: str) -> int:
    """A stable 64-bit hash of ``url`` (BLAKE2b, not Python's salted ``hash``): the same on every machine."""
    return int.from_bytes(
        hashlib.blake2b(url.encode("utf-8", "surrogatepass"), digest_size=HASH_BYTES).digest(), "big"
    )


class SampleEntry(NamedTuple):
    """One sampled page: ordered by hash, then URL, then where it is (input index, position in the input)."""

    hash: int
    url: str
    input: int  # index of the input in the run's list of inputs
    ref: int | str  # where the record is in that input (see fce.ingest.readers.InputReader.read_refs)


def _bottom_k(entries: Iterable[SampleEntry], k: int) -> list[SampleEntry]:
    """The ``k`` smallest entries with distinct URLs, sorted."""
    kept: list[SampleEntry] = []
    seen: set[str] = set()
    for entry in sorted(entries):
        if entry.url not in seen:
            seen.add(entry.url)
            kept.append(entry)
            if len(kept) == k:
                break
    return kept


@dataclass(frozen=True)
class Sample:
    """Per domain: its sampled pages (at most ``k``, sorted) and how many eligible pages were seen."""

    k: int
    entries: dict[str, tuple[SampleEntry, ...]] = field(default_factory=dict)
    pages: dict[str, int] = field(default_factory=dict)  # eligible pages seen per domain, duplicates included

    def domains_with(self, min_pages: int) -> list[str]:
        """Domains with at least ``min_pages`` sampled pages, sorted."""
        return sorted(d for d, entries in self.entries.items() if len(entries) >= min_pages)


class Sampler:
    """Map side: feed ``add(domain, url, input, ref)`` for every eligible page of one input; ``result()``.

    Holds at most ``2k`` entries per domain (compacted to ``k`` when full), so a task's memory does not grow with
    the number of pages of a domain.
    """

    def __init__(self, k: int) -> None:
        if k < 1:
            raise ValueError(f"k must be >= 1, not {k}")
        self.k = k
        self._entries: dict[str, list[SampleEntry]] = {}
        self._pages: dict[str, int] = {}

    def add(self, domain: str, url: str, input: int, ref: int | str) -> None:
        entries = self._entries.setdefault(domain, [])
        entries.append(SampleEntry(url_hash(url), url, input, ref))
        self._pages[domain] = self._pages.get(domain, 0) + 1
        if len(entries) >= 2 * self.k:
            entries[:] = _bottom_k(entries, self.k)

    def result(self) -> Sample:
        return Sample(
            k=self.k,
            entries={d: tuple(_bottom_k(e, self.k)) for d, e in sorted(self._entries.items())},
            pages=dict(sorted(self._pages.items())),
        )


def merge_samples(samples: Iterable[Sample], k: int) -> Sample:
    """Reduce side: the bottom-``k`` per domain of the union of ``samples`` (in any order, with the same result)."""
    entries: dict[str, list[SampleEntry]] = {}
    pages: dict[str, int] = {}
    for sample in samples:
        for domain, found in sample.entries.items():
            merged = entries.setdefault(domain, [])
            merged.extend(found)
            if len(merged) >= 2 * k:
                merged[:] = _bottom_k(merged, k)
        for domain, n in sample.pages.items():
            pages[domain] = pages.get(domain, 0) + n
    return Sample(
        k=k,
        entries={d: tuple(_bottom_k(e, k)) for d, e in sorted(entries.items())},
        pages=dict(sorted(pages.items())),
    )
