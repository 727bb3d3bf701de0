"""Sample hygiene: the pages of a learning sample that are copies of another page of it.

A crawl's sample of a site holds the same article more than once: one URL captured on several dates, print, AMP
and mobile variants, syndicated copies. ContentExtractor (:mod:`fce.content_extractor`) then finds the article's
paragraphs "on many pages" and calls them noise, and every later page of the site loses text on their paths. So
the learners count each article once: :func:`distinct_pages` keeps the first page of every group of copies, in the
order given, and says why each other page was dropped.

Two pages are copies when

* their URLs are the same after :func:`normalize_url` (scheme, ``www.``, fragment, trailing slash, tracking
  parameters removed) — ``same-url``;
* their text is the same, block for block — ``same-content``;
* they have the same ``<title>`` (or neither has one) and at least :data:`NEAR_DUPLICATE_SHARE` of the prose of
  the shorter is found, paragraph for paragraph, in the other — ``near-duplicate`` (only where the titles are
  known: pages given as bare block trees are compared by URL and content alone).

The title condition is what keeps pages apart that share prose that is not theirs: two articles captured on one
day share the teasers of the day's top stories, and the pages of a paywalled section share its subscription form
(measured on every pair of pages of msv-big9, cleanportaleval, daniel-small and dragnet-small: with the title
condition, no pair of different articles is taken for copies; without it, 9 of 21 pairs taken were different
articles).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import compress
from urllib.parse import parse_qsl, urlencode, urlsplit

from fce.blocks import BlockTree

__all__ = ["NEAR_DUPLICATE_SHARE", "PROSE_MIN_CHARS", "Duplicate", "distinct_pages", "normalize_url"]

#: Share of the shorter page's prose (by characters) that must be found in the other page for the two to be copies.
#: Measured on all pairs of pages of the four per-site sets, against their gold texts (pairs whose golds share
#: half of their word 5-grams are copies): 0.5 finds 12 of the 14 such pairs; the two it misses share 9 % and 0 %
#: of their prose (a weekly digest whose golds overlap, not copies of one page), and it takes no pair of
#: different articles when the titles agree.
NEAR_DUPLICATE_SHARE = 0.5

#: A block's own text counts as prose when it has at least this many characters… (short enough for a paragraph of
#: Chinese, whose sentences run 20–60 characters)
PROSE_MIN_CHARS = 20
#: …and at most this share of it is link text (the learner's :data:`fce.learn.MAX_LINK_DENSITY`).
PROSE_MAX_LINK_DENSITY = 0.3

#: Query parameters that say where a visitor came from, not what the page is (Google Analytics' ``utm_*``, the
#: click ids of Google, Facebook and Microsoft ads, Mailchimp's).
TRACKING_PARAMETERS = re.compile(r"utm_[a-z_]+|gclid|fbclid|msclkid|mc_cid|mc_eid|ref|ref_src")

SAME_URL = "same-url"
SAME_CONTENT = "same-content"
NEAR_DUPLICATE = "near-duplicate"


@dataclass(frozen=True, slots=True)
class Duplicate:
    """Page ``index`` of a sample, dropped as a copy of page ``of`` (an earlier page), for ``reason``
    (``same-url``, ``same-content`` or ``near-duplicate``)."""

    index: int
    of: int
    reason: str


def normalize_url(url: str | None) -> str | None:
    """``url`` reduced to what names the page: lower-case host without ``www.``, path without a trailing slash,
    the query without tracking parameters (:data:`TRACKING_PARAMETERS`) in sorted order, no scheme, no fragment.
    None for no URL."""
    if not url:
        return None
    parts = urlsplit(url.strip())
    host = (parts.hostname or "").lower().removeprefix("www.")
    query = sorted((k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True)
                   if not TRACKING_PARAMETERS.fullmatch(k.lower()))
    path = parts.path.rstrip("/")
    return f"{host}{path}" + (f"?{urlencode(query)}" if query else "")


def _prose(tree: BlockTree) -> dict[str, int]:
    """The page's prose: own texts of blocks of at least :data:`PROSE_MIN_CHARS` characters and at most
    :data:`PROSE_MAX_LINK_DENSITY` link text, with their lengths."""
    cols = tree.columns
    lengths, links = cols.text_lengths, cols.link_chars
    keep = [n >= PROSE_MIN_CHARS and lc <= PROSE_MAX_LINK_DENSITY * n for n, lc in zip(lengths, links, strict=True)]
    return {text: len(text) for text in compress(tree.texts, keep)}


def distinct_pages(trees: Sequence[BlockTree], urls: Sequence[str | None] | None = None,
                   titles: Sequence[str | None] | None = None) -> tuple[list[int], list[Duplicate]]:
    """The indices of the pages of ``trees`` that are no copy of an earlier page, and the copies dropped (module
    docstring). ``urls`` and ``titles`` (per page, None where a page has none) are optional; without ``titles``
    no page is taken for a near-duplicate."""
    n = len(trees)
    urls = list(urls) if urls is not None else [None] * n
    near = titles is not None
    titles = list(titles) if titles is not None else [None] * n
    kept: list[int] = []
    dropped: list[Duplicate] = []
    seen_urls: dict[str, int] = {}
    seen_texts: dict[tuple[str, ...], int] = {}
    prose: dict[int, tuple[dict[str, int], int]] = {}
    for i, tree in enumerate(trees):
        key = normalize_url(urls[i])
        if key is not None and key in seen_urls:
            dropped.append(Duplicate(i, seen_urls[key], SAME_URL))
            continue
        texts = tuple(t for t in tree.texts if t)
        if texts in seen_texts:
            dropped.append(Duplicate(i, seen_texts[texts], SAME_CONTENT))
            continue
        mine = _prose(tree)
        size = sum(mine.values())
        title = _title_key(titles[i])
        copy_of = None
        for j in kept if near else ():
            if _title_key(titles[j]) != title:
                continue
            theirs, their_size = prose[j]
            smaller = min(size, their_size)
            if smaller and sum(n for t, n in mine.items() if t in theirs) >= NEAR_DUPLICATE_SHARE * smaller:
                copy_of = j
                break
        if copy_of is not None:
            dropped.append(Duplicate(i, copy_of, NEAR_DUPLICATE))
            continue
        kept.append(i)
        prose[i] = (mine, size)
        seen_texts[texts] = i
        if key is not None:
            seen_urls[key] = i
    return kept, dropped


def _title_key(title: str | None) -> str:
    return " ".join(title.split()).casefold() if title else ""
