"""The preparation phase of FastCE (§III, Figure 4): learn a site template from 20–30 of its pages.

1. segment every page into blocks (:mod:`fce.blocks`);
2. run ContentExtractor over them (:mod:`fce.content_extractor`) to tell content blocks from noise;
3. P = the paths of content blocks; store the distinct noise blocks whose path is in P.

:class:`TemplateLearner` learns one template from all pages (the paper). :class:`LayoutLearner` first drops the
copies of a page in the sample (:mod:`fce.duplicates`), groups the pages by structure (:mod:`fce.layouts`) and
learns one template per layout.

Beyond the paper, a template learns what guided detection (:mod:`fce.detect`) reads, each step measured on the
four per-site evaluation sets (README, "How it works"):

* **boilerplate paths** (:data:`GUIDED_CONTENT_SHARE`): the paths whose text was mostly noise — repeated across
  pages, link lists, furniture — and nothing else; a path that held unique text on a single page is not one of
  them, even where P leaves it out;
* **the headline's path** (:data:`TITLE_MIN_CHARS` …): where the site puts the text that the page's ``<title>`` or
  ``og:title`` repeats, voted over the learning pages;
* **the site's consensus** (:data:`CONSENSUS_MIN_PAGES`): guided detection is run on every learning page; a path
  with text on several of them that it never chose is furniture of this site, whatever a single page suggests
  (a page whose reader comments outscore its article).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import fields, replace
from datetime import UTC, datetime
from itertools import compress
from typing import Any

import numpy as np

from fce.blocks import DEFAULT_PATH_STYLE, INLINE_BLOCK_TAGS, BlockTree, blocks_of
from fce.content_extractor import CE_MIN_OCCURRENCE, CE_OCCURRENCE_FRACTION, ContentExtractor
from fce.detect import Detector
from fce.duplicates import Duplicate, distinct_pages
from fce.errors import LearnError
from fce.features import SIMILARITY_THRESHOLD, index_of
from fce.kinds import DetectionMode, Rules
from fce.layouts import LAYOUT_DISTANCE, MIN_LAYOUT_PAGES, canonical_order, group_pages, page_paths
from fce.metadata import extract_metadata, raw_title
from fce.names import noise_named
from fce.parse import Page
from fce.template import LearnParams, NoiseBlock, SiteTemplates, Template
from fce.version import __version__

__all__ = [
    "MIN_PAGES",
    "MIN_PATH_SUPPORT",
    "RECOMMENDED_PAGES",
    "DEFAULT_RULES",
    "RULES",
    "LayoutLearner",
    "TemplateLearner",
]

#: The paper learns from "between 20 to 30 web pages" (§IV). Fewer than this: a warning.
RECOMMENDED_PAGES = 20

#: Below this many usable pages nothing can be learned: a block's recurrence needs a few pages to be seen.
MIN_PAGES = 3

#: A path enters P when content blocks had it on at least this share of the learning pages. 0 is the paper's
#: rule (any content block adds its path); see README, "Where fce departs from the paper" for the measured choice.
MIN_PATH_SUPPORT = 0.0

#: A path that held content on a single learning page enters P only when that page had at least this many
#: characters of content on it: one article's unusual paragraph path is kept, a one-off timestamp or caption is
#: not. (The paper keeps every content path; measured on msv-big9, README.) Inline blocks (the paper's
#: ``<span>`` inside a ``<p>``) are exempt: they are short by nature, and rule 2 would cut them out of their
#: paragraph mid-sentence.
SINGLE_PAGE_PATH_MIN_CHARS = 200

#: Blocks whose own text is more than this share link text are never content while learning (a list of links to
#: other articles is unique per page, so ContentExtractor alone calls it content). 1.0 disables the filter (the
#: paper); the measured choice is in README, "Where fce departs from the paper".
MAX_LINK_DENSITY = 0.3

#: A path enters P only when at least this share of the text seen on it while learning was content (by
#: characters). 0 is the paper's rule.
MIN_CONTENT_SHARE = 0.5

#: Guided detection removes the paths on which less than this share of the text seen while learning was content
#: (by characters): the site's boilerplate. P's rules (:data:`MIN_CONTENT_SHARE`, :data:`SINGLE_PAGE_PATH_MIN_CHARS`)
#: are for the paper's extraction rules, which keep every block on P; removing every path not in P took unique
#: text away from pages (a first paragraph on a path of its own, seen on one learning page). Measured, k-fold
#: site-macro word F1 with guided detection, against removing every known path not in P: cleanportaleval +0.005,
#: dragnet-small +0.0025, daniel-small +0.0008, msv-big9 +0.0002 (0.5: +0.0037, +0.0012, +0.0006, ±0).
GUIDED_CONTENT_SHARE = 0.3

#: The headline of a learning page is the first block whose own text matches its ``og:title`` or ``<title>``: the
#: same text, or a part of the title of at least :data:`TITLE_PART_SHARE` of it (``<title>`` adds the site's
#: name: ``Headline - Site``), or a text holding the whole title in at least :data:`TITLE_WHOLE_SHARE` of it;
#: blocks of fewer than this many characters are not considered (a one-word title matches menus).
TITLE_MIN_CHARS = 8
TITLE_PART_SHARE = 0.5
TITLE_WHOLE_SHARE = 0.8
#: A path is the site's headline path when it held the headline on at least this share of the learning pages
#: (and on two of them at least). Measured, k-fold site-macro word F1 with guided detection: dragnet-small
#: +0.008, daniel-small +0.004, cleanportaleval +0.0017, msv-big9 ±0 (its articles' titles are inside the
#: article's container already).
TITLE_VOTE_SHARE = 0.5
#: ``<title>`` is looked for in the page's first this many characters (heads of 100–500 K characters of inline
#: script exist; a title after that is no page's).
TITLE_SEARCH_CHARS = 1024 * 1024
#: Typography that a page's headline and its ``<title>`` spell differently (curly quotes, an ellipsis, dashes in
#: one, the ASCII in the other: gawker.com), read as the ASCII when they are compared.
_TYPOGRAPHY = str.maketrans({"\u2018": "'", "\u2019": "'", "\u201a": "'", "\u201b": "'", "\u2032": "'",
                             "\u201c": '"', "\u201d": '"', "\u201e": '"', "\u201f": '"', "\u2033": '"',
                             "\u2026": "...", "\u2013": "-", "\u2014": "-", "\u2010": "-", "\u2011": "-",
                             "\u2012": "-"})

#: A path with text on at least this many learning pages of a layout on which guided detection chose none of it is
#: taken out as the site's furniture. Measured, k-fold site-macro word F1: dragnet-small +0.0043, daniel-small
#: +0.0023, msv-big9 +0.0001, cleanportaleval −0.0003 (two pages: −0.0035 for dragnet-small, three for daniel-small;
#: four: −0.0014 for dragnet-small). A path chosen on a fifth of its pages and taken out too: no change.
CONSENSUS_MIN_PAGES = 3

#: Detection rules: ``"paper"`` applies the three extraction rules of §III verbatim; ``"recursive"`` applies them
#: again inside every sub-block B' that is kept, instead of keeping B' whole.
RULES = tuple(Rules)
#: Measured on msv-big9 (README, "Where fce departs from the paper"): the recursive reading keeps less navigation.
DEFAULT_RULES = Rules.RECURSIVE


class TemplateLearner:
    """Learn a :class:`~fce.template.Template` for one site (scikit-learn style: ``fit`` returns ``self``).

    After :meth:`fit`: ``template_`` (the template), ``extractor_`` (the fitted ContentExtractor; its pages are the
    usable ones, those with text and no copy of an earlier page), ``is_content_`` (per usable page, the blocks taken
    as content: ContentExtractor's labels less link-dense and furniture-named blocks), ``n_pages_``,
    ``duplicates_`` (the pages dropped as copies, :class:`fce.duplicates.Duplicate`, indices into the pages given).
    Parameters are keyword-only and stored as given; those of fce's additions to the paper
    (``guided_content_share`` … ``distinct``) are described in the module docstring, and
    ``TemplateLearner(path_style="paper", rules="paper", max_link_density=1.0, min_content_share=0.0,
    noise_names=False, single_page_path_min_chars=0, inline_inherit=False, guided_content_share=None,
    title_anchor=False, consensus=False, distinct=False)`` is the paper's learner.
    """

    def __init__(
        self,
        site: str = "",
        *,
        similarity_threshold: float = SIMILARITY_THRESHOLD,
        occurrence_fraction: float = CE_OCCURRENCE_FRACTION,
        min_occurrence: int = CE_MIN_OCCURRENCE,
        min_path_support: float = MIN_PATH_SUPPORT,
        rules: str = DEFAULT_RULES,
        path_style: str = DEFAULT_PATH_STYLE,
        max_link_density: float = MAX_LINK_DENSITY,
        min_content_share: float = MIN_CONTENT_SHARE,
        noise_names: bool = True,
        single_page_path_min_chars: int = SINGLE_PAGE_PATH_MIN_CHARS,
        inline_inherit: bool = True,
        guided_content_share: float | None = GUIDED_CONTENT_SHARE,
        title_anchor: bool = True,
        consensus: bool = True,
        distinct: bool = True,
    ) -> None:
        self.site = site
        self.similarity_threshold = similarity_threshold
        self.occurrence_fraction = occurrence_fraction
        self.min_occurrence = min_occurrence
        self.min_path_support = min_path_support
        self.rules = rules
        self.path_style = path_style
        self.max_link_density = max_link_density
        self.min_content_share = min_content_share
        self.noise_names = noise_names
        self.single_page_path_min_chars = single_page_path_min_chars
        self.inline_inherit = inline_inherit
        self.guided_content_share = guided_content_share
        self.title_anchor = title_anchor
        self.consensus = consensus
        self.distinct = distinct

    def fit(self, pages: Sequence[Page] | Sequence[BlockTree]) -> TemplateLearner:
        trees, heads, usable, duplicates = _sample(pages, self.path_style, self.distinct, self.site)
        self._fit([trees[i] for i in usable], {}, None if heads is None else [heads[i] for i in usable])
        self.duplicates_ = duplicates
        return self

    def _fit(self, usable: Sequence[BlockTree], named: dict[str, bool],
             heads: Sequence[tuple[str | None, str | None]] | None) -> TemplateLearner:
        """:meth:`fit` on the usable pages' trees (with text, copies dropped), with ``named`` caching
        :func:`noise_named` per path (shared by the layouts of a site) and ``heads``, each page's ``<title>`` and
        ``og:title`` (None where unknown: no headline path is learned)."""
        if self.rules not in RULES:
            raise ValueError(f"rules must be one of {RULES}, not {self.rules!r}")
        _check_sample(len(usable), 0, self.site)
        ce = ContentExtractor(
            similarity_threshold=self.similarity_threshold,
            occurrence_fraction=self.occurrence_fraction,
            min_occurrence=self.min_occurrence,
            path_style=self.path_style,
        ).fit(usable)
        n = len(usable)
        is_content = [self._content_mask(tree, mask, named)
                      for tree, mask in zip(usable, ce.is_content_, strict=True)]
        # per path (numbered in `names`), over all pages at once: the pages where a content block has it (with or
        # without own text: an inline block inherits its paragraph's label), the pages where a block with own text
        # has it, whether an inline block with own text has it, and the characters of own text on it, all and
        # content (sums of ints in float64: exact)
        names: dict[str, int] = {}
        ids = np.concatenate([index_of(tree.columns.paths, names) for tree in usable])
        flags = np.concatenate(is_content)
        lengths = np.concatenate([np.frombuffer(tree.columns.text_lengths, dtype="l") for tree in usable])
        tag_names: dict[str, int] = {}
        tags = np.concatenate([index_of(tree.columns.tags, tag_names) for tree in usable])
        inline = np.array([tag in INLINE_BLOCK_TAGS for tag in tag_names], dtype=bool)[tags]
        page = np.repeat(np.arange(n, dtype=np.int64), [len(tree.columns.paths) for tree in usable])
        n_paths = len(names)
        has_text = lengths > 0

        def pages_with(where: np.ndarray) -> np.ndarray:
            return np.bincount(np.unique(page[where] * n_paths + ids[where]) % n_paths, minlength=n_paths)

        content_support = pages_with(flags)
        known = pages_with(has_text)
        inline_paths = np.bincount(ids[has_text & inline], minlength=n_paths) > 0
        all_chars = np.bincount(ids, weights=lengths, minlength=n_paths)
        content_chars = np.bincount(ids[flags], weights=lengths[flags], minlength=n_paths)
        need = max(1, math.ceil(self.min_path_support * n))
        chosen = ((content_support >= need) & (content_chars >= self.min_content_share * all_chars)
                  & ((content_support > 1) | inline_paths | (content_chars >= self.single_page_path_min_chars)))
        path_of = list(names)
        paths = {path_of[i]: c for i, c in zip(np.flatnonzero(chosen).tolist(),
                                                content_support[chosen].tolist(), strict=True)}
        known_paths = {path_of[i]: c for i, c in zip(np.flatnonzero(known).tolist(), known[known > 0].tolist(),
                                                     strict=True)}
        noise_paths = None
        if self.guided_content_share is not None:
            # the boilerplate of guided detection (GUIDED_CONTENT_SHARE): known paths whose text was mostly noise
            mostly_noise = (known > 0) & ~((content_support > 0)
                                           & (content_chars >= self.guided_content_share * all_chars))
            noise_paths = frozenset(path_of[i] for i in np.flatnonzero(mostly_noise).tolist())
        noise = _distinct_noise(ce, is_content, paths)
        self.extractor_ = ce
        self.is_content_ = is_content
        self.n_pages_ = n
        template = Template(
            site=self.site,
            content_paths=paths,
            noise_blocks=noise,
            known_paths=known_paths,
            n_pages=n,
            params=self.params(),
            learned_at=datetime.now(UTC).isoformat(timespec="seconds"),
            fce_version=__version__,
            noise_paths=noise_paths,
            title_path=title_path(usable, heads) if self.title_anchor and heads is not None else None,
        )
        if self.consensus:
            template = replace(template, unchosen_paths=unchosen_paths(template, usable))
        self.template_ = template
        return self

    def params(self) -> LearnParams:
        """This learner's parameters as stored in its templates."""
        return LearnParams(**{f.name: getattr(self, f.name) for f in fields(LearnParams)})

    def _content_mask(self, tree: BlockTree, mask: np.ndarray, named: dict[str, bool]) -> np.ndarray:
        """ContentExtractor's labels, less link-dense blocks (:data:`MAX_LINK_DENSITY`) and blocks on paths named
        as furniture (:data:`fce.names.NOISE_NAME_TOKENS`; ``named`` caches :func:`noise_named` per path); inline blocks
        inside a content block are content (``inline_inherit``): a ``<span>`` naming "the House of
        Representatives" recurs across articles, but it is part of its paragraph, and rule 2 would cut it out of
        the sentence."""
        mask = mask.copy()
        limit = self.max_link_density
        cols = tree.columns
        if limit < 1.0:  # (int against float in float64, as Python compares them: the counts are far below 2**53)
            mask &= ~(np.frombuffer(cols.link_chars, dtype="l") > limit * np.frombuffer(cols.text_lengths, dtype="l"))
        if self.noise_names:
            paths = cols.paths
            for i in np.flatnonzero(mask).tolist():
                path = paths[i]
                flag = named.get(path)
                if flag is None:
                    flag = named[path] = noise_named(path)
                if flag:
                    mask[i] = False
        if self.inline_inherit:
            parents = cols.parents
            flags = mask.tolist()
            # the inline blocks, in document order: a parent's label is final before its children's
            for i in compress(range(len(flags)), map(INLINE_BLOCK_TAGS.__contains__, cols.tags)):
                if not flags[i]:
                    up = parents[i]
                    if up >= 0 and flags[up]:
                        flags[i] = True
            mask = np.array(flags, dtype=bool)
        return mask


class LayoutLearner:
    """Learn a :class:`~fce.template.SiteTemplates` record for one site: one template per layout (scikit-learn
    style: ``fit`` returns ``self``).

    The usable pages (those with text) are put in a canonical order (:func:`fce.layouts.canonical_order`: the
    result does not depend on the order they come in), the copies of a page dropped (:mod:`fce.duplicates`, unless
    ``template_params`` holds ``distinct=False``), the rest grouped by structure (:func:`fce.layouts.group_pages`,
    cut at ``layout_distance``), and a :class:`TemplateLearner` (with ``path_style`` and ``template_params``) is
    fitted on each group of at least ``min_layout_pages`` pages. When no group is that large, one template is
    learned from all pages.

    After :meth:`fit`: ``model_`` (the record; its ``extra["duplicates"]`` counts the copies dropped by reason),
    ``labels_`` (per given page, the layout it taught, ``-1`` for a page left out: no text, a copy, or in a group
    too small), ``n_pages_`` (usable distinct pages), ``duplicates_`` (the copies dropped,
    :class:`fce.duplicates.Duplicate`, indices into the pages given).
    """

    def __init__(
        self,
        site: str = "",
        *,
        min_layout_pages: int = MIN_LAYOUT_PAGES,
        layout_distance: float = LAYOUT_DISTANCE,
        path_style: str = DEFAULT_PATH_STYLE,
        template_params: Mapping[str, Any] | None = None,
    ) -> None:
        self.site = site
        self.min_layout_pages = min_layout_pages
        self.layout_distance = layout_distance
        self.path_style = path_style
        self.template_params = template_params

    def fit(self, pages: Sequence[Page] | Sequence[BlockTree]) -> LayoutLearner:
        if self.min_layout_pages < MIN_PAGES:
            raise ValueError(f"min_layout_pages must be at least {MIN_PAGES}, not {self.min_layout_pages}")
        params = dict(self.template_params or {})
        trees, heads, order, duplicates = _sample(pages, self.path_style, params.get("distinct", True), self.site)
        groups = group_pages([page_paths(trees[i]) for i in order], distance=self.layout_distance)
        members = [[order[j] for j in np.flatnonzero(groups == g)] for g in range(int(groups.max()) + 1)]
        members = [m for m in members if len(m) >= self.min_layout_pages] or [order]
        labels = np.full(len(trees), -1, dtype=np.int64)
        layouts = []
        named: dict[str, bool] = {}  # noise_named per path, for all layouts
        for index, group in enumerate(members):
            learner = TemplateLearner(self.site, path_style=self.path_style, **params)
            layouts.append(learner._fit([trees[i] for i in group], named,
                                        None if heads is None else [heads[i] for i in group]).template_)
            labels[group] = index
        self.labels_ = labels
        self.n_pages_ = len(order)
        self.duplicates_ = duplicates
        self.model_ = SiteTemplates(site=self.site, layouts=tuple(layouts), n_pages=len(order),
                                    learned_at=layouts[0].learned_at, fce_version=__version__,
                                    extra=duplicates_extra(pages, duplicates))
        return self


def duplicates_extra(pages: Sequence[Page] | Sequence[BlockTree], duplicates: Sequence[Duplicate]) -> dict[str, Any]:
    """What a site record keeps of the copies dropped from its learning sample (``extra["duplicates"]``): each
    copy and the page it copies, named by source or URL (``#index`` for a bare block tree), and why."""
    if not duplicates:
        return {}

    def name(i: int) -> str:
        page = pages[i]
        return f"#{i}" if isinstance(page, BlockTree) else page.source or page.url or f"#{i}"

    return {"duplicates": [{"page": name(d.index), "copy_of": name(d.of), "reason": d.reason} for d in duplicates]}


def _sample(pages: Sequence[Page] | Sequence[BlockTree], path_style: str, distinct: bool, site: str,
            ) -> tuple[list[BlockTree], list[tuple[str | None, str | None]] | None, list[int], list[Duplicate]]:
    """The learning sample: every page's block tree and (for :class:`~fce.parse.Page` inputs) its titles
    (:func:`_heads`), the indices of the usable pages (with some own text) in canonical order with the copies of an
    earlier one dropped (``distinct``), and those copies. Raises :class:`~fce.errors.LearnError` when fewer than
    :data:`MIN_PAGES` remain."""
    trees = [p if isinstance(p, BlockTree) else blocks_of(p, path_style) for p in pages]
    urls = [None if isinstance(p, BlockTree) else p.url for p in pages]
    heads = None if any(isinstance(p, BlockTree) for p in pages) else [_heads(p) for p in pages]  # type: ignore[arg-type]
    usable = [i for i, t in enumerate(trees) if any(t.columns.text_lengths)]
    order = [usable[i] for i in canonical_order([trees[i] for i in usable])]
    duplicates: list[Duplicate] = []
    if distinct:
        kept, found = distinct_pages([trees[i] for i in order], [urls[i] for i in order],
                                     None if heads is None else [heads[i][1] for i in order])
        duplicates = sorted((Duplicate(order[d.index], order[d.of], d.reason) for d in found),
                            key=lambda d: d.index)
        order = [order[i] for i in kept]
    _check_sample(len(order), len(duplicates), site)
    return trees, heads, order, duplicates


def _check_sample(n_distinct: int, n_duplicates: int, site: str) -> None:
    """:class:`~fce.errors.LearnError` for a sample of fewer than :data:`MIN_PAGES` usable distinct pages."""
    if n_distinct >= MIN_PAGES:
        return
    copies = f" ({n_duplicates} more were copies of another page)" if n_duplicates else ""
    raise LearnError(
        f"{n_distinct} distinct usable page(s) with text{copies}; at least {MIN_PAGES} are needed "
        f"({RECOMMENDED_PAGES}–30 recommended)",
        source=site or None,
    )


def _heads(page: Page) -> tuple[str | None, str | None]:
    """A page's headline as its metadata gives it (:func:`fce.metadata.extract_metadata` of the head: JSON-LD,
    ``og:title``, ``<title>`` without the site's name) and its raw ``<title>`` (None where missing); for a page
    without markup (made from a tree), its tree's ``<title>``."""
    html = page.html
    if html is None:
        title = page.root.findtext(".//title")
        return None, (" ".join(title.split()) or None if title else None)
    return extract_metadata(html, url=page.url, read_body=False).title, raw_title(html, TITLE_SEARCH_CHARS)


def _comparable(text: str) -> str:
    """A headline or title as :func:`title_path` compares them: whitespace collapsed, typography as ASCII
    (:data:`_TYPOGRAPHY`), case folded."""
    return " ".join(text.split()).translate(_TYPOGRAPHY).casefold()


def _title_match(text: str, titles: Sequence[str]) -> bool:
    """Whether a block's own text is the headline that one of ``titles`` repeats (:data:`TITLE_MIN_CHARS` …)."""
    if len(text) < TITLE_MIN_CHARS:
        return False
    for title in titles:
        if text == title or (text in title and len(text) >= TITLE_PART_SHARE * len(title)) or (
                title in text and len(title) >= TITLE_WHOLE_SHARE * len(text)):
            return True
    return False


def title_path(trees: Sequence[BlockTree], heads: Sequence[tuple[str | None, str | None]]) -> str | None:
    """The path on which the learning pages hold their headline (:data:`TITLE_VOTE_SHARE`), or None."""
    votes: Counter[str] = Counter()
    for tree, (title, og) in zip(trees, heads, strict=True):
        wanted = [_comparable(t) for t in (og, title) if t]
        if not wanted:
            continue
        paths = tree.columns.paths
        for i, text in enumerate(tree.texts):
            if text and _title_match(_comparable(text), wanted):
                votes[paths[i]] += 1
                break
    if not votes:
        return None
    path, count = min(votes.items(), key=lambda kv: (-kv[1], kv[0]))  # the most votes; ties by path
    return path if count >= max(2, TITLE_VOTE_SHARE * len(trees)) else None


def unchosen_paths(template: Template, trees: Sequence[BlockTree]) -> frozenset[str]:
    """The paths with text on at least :data:`CONSENSUS_MIN_PAGES` of the learning pages ``trees`` of which
    guided detection with ``template`` chose nothing (module docstring). Pages where it chose nothing at all do
    not vote."""
    detector = Detector(template, mode=DetectionMode.GUIDED)
    chosen: Counter[str] = Counter()
    present: Counter[str] = Counter()
    for tree in trees:
        match = detector.match(tree)
        if not match.blocks:
            continue
        cols = tree.columns
        paths, lengths = cols.paths, cols.text_lengths
        chosen.update({paths[i] for i in match.covered if lengths[i]})
        present.update(set(compress(paths, lengths)))
    return frozenset(p for p, n in present.items() if n >= CONSENSUS_MIN_PAGES and not chosen[p])


def _distinct_noise(ce: ContentExtractor, is_content: Sequence[np.ndarray],
                    paths: dict[str, int]) -> tuple[NoiseBlock, ...]:
    """Noise blocks on content paths, one representative per group of mutually similar blocks of a path.

    The candidates are the distinct (path, own text, counts) of the pages' noise blocks on a path of ``paths``, in
    sorted order; each is kept unless an earlier kept candidate of its path is similar to it (cosine of their
    feature vectors above the threshold). The pairs are those ContentExtractor found among its distinct blocks
    (``ce.similar_pairs_``: a candidate's (text, counts) is one of them), not searched again: a pair's cosine
    does not depend on the other blocks of the search (the tests compare this with a search among the candidates).
    """
    distinct = ce.distinct_
    rows, cols = ce.similar_pairs_
    seen: dict[tuple[str, int], None] = {}
    for tree, key_of, mask in zip(ce.trees_, distinct.key_of, is_content, strict=True):
        # column-wise: a block with own text has a key (>= 0); no Block is built
        noise = ((key_of >= 0) & ~mask).tolist()
        for path, key in zip(compress(tree.columns.paths, noise), compress(key_of.tolist(), noise), strict=True):
            if path in paths:
                seen.setdefault((path, key), None)
    keys = distinct.keys
    candidates = sorted(seen, key=lambda c: (c[0], keys[c[1]]))  # by (path, text, counts)
    if not candidates:
        return ()
    # each key's similar keys (the pairs sorted by their first block)
    order = np.argsort(rows, kind="stable")
    partners = cols[order].tolist()
    starts = np.zeros(len(keys) + 1, dtype=np.int64)
    np.cumsum(np.bincount(rows, minlength=len(keys)), out=starts[1:])
    first = starts.tolist()
    kept: list[int] = []
    at = 0
    while at < len(candidates):  # one path at a time (its candidates are consecutive)
        path = candidates[at][0]
        end = at
        of_key: dict[int, int] = {}  # key -> its candidate on this path
        while end < len(candidates) and candidates[end][0] == path:
            of_key[candidates[end][1]] = end
            end += 1
        covered: set[int] = set()
        for i in range(at, end):
            if i in covered:
                continue
            kept.append(i)
            key = candidates[i][1]
            for other in partners[first[key]:first[key + 1]]:
                j = of_key.get(other)
                if j is not None:
                    covered.add(j)
        at = end
    return tuple(NoiseBlock(path=candidates[i][0], text=keys[candidates[i][1]][0], counts=keys[candidates[i][1]][1])
                 for i in kept)
