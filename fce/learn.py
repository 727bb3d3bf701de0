"""The preparation phase of FastCE (§III, Figure 4): learn a site template from 20–30 of its pages.

1. segment every page into blocks (:mod:`fce.blocks`);
2. run ContentExtractor over them (:mod:`fce.content_extractor`) to tell content blocks from noise;
3. P = the paths of content blocks; store the distinct noise blocks whose path is in P.

:class:`TemplateLearner` learns one template from all pages (the paper). :class:`LayoutLearner` first groups the
pages by structure (:mod:`fce.layouts`) and learns one template per layout.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from itertools import compress
from typing import Any

import numpy as np

from fce.blocks import DEFAULT_PATH_STYLE, INLINE_BLOCK_TAGS, BlockTree, blocks_of
from fce.content_extractor import CE_MIN_OCCURRENCE, CE_OCCURRENCE_FRACTION, ContentExtractor
from fce.errors import LearnError
from fce.features import SIMILARITY_THRESHOLD, index_of
from fce.layouts import LAYOUT_DISTANCE, MIN_LAYOUT_PAGES, canonical_order, group_pages, page_paths
from fce.parse import Page
from fce.template import LearnParams, NoiseBlock, SiteTemplates, Template

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

#: Words in the id/class names of a qualified path that mark page furniture, not content. A block on such a path is
#: never content while learning: comments, author boxes and "related" lists are unique per page, so repetition
#: alone (ContentExtractor) calls them content. The same kind of name list readability and boilerpipe use.
#: These match anywhere inside a name (``postcomments``, ``trb_embed_related``, ``datestamp``)…
NOISE_NAME_PARTS = (
    "comment", "disqus", "sidebar", "footer", "sponsor", "related", "promo", "breadcrumb", "newsletter",
    "outbrain", "taboola", "stamp", "byline", "dateline", "signup", "subscribe", "trending", "popular", "advert",
    "social", "sharing", "toolbar", "masthead", "cookie", "recirc", "recommend",
)  # fmt: skip
#: …these only as a whole name token (``ad`` must not match ``header`` or ``lead``).
NOISE_NAME_TOKENS = frozenset({"ad", "ads", "wm", "tags", "share", "menu", "nav", "navbar", "navigation"})

#: …unless the same element's names also hold one of these (``content-sidebar-wrap`` wraps the article too).
CONTENT_NAME_TOKENS = frozenset({"content", "article", "main", "body", "entry", "post", "story", "hentry"})

#: :data:`NOISE_NAME_PARTS` as one pattern (one C call where a generator over the parts made ~26 Python steps).
_FURNITURE_PART = re.compile("|".join(map(re.escape, NOISE_NAME_PARTS)))
_QUALIFIER = re.compile(r"([A-Z][A-Z0-9]*)\[([^\]]*)\]")
_NAME_SPLIT = re.compile(r"[\s#.\-_:]+")


def name_words(qualifier: str) -> tuple[bool, bool]:
    """For one element's id/class names (``#main .story``): whether they hold a content word
    (:data:`CONTENT_NAME_TOKENS`) and whether they hold a furniture word (:data:`NOISE_NAME_PARTS`,
    :data:`NOISE_NAME_TOKENS`)."""
    names = qualifier.lower()
    tokens = set(_NAME_SPLIT.split(names))
    furniture = bool(tokens & NOISE_NAME_TOKENS) or _FURNITURE_PART.search(names) is not None
    return bool(tokens & CONTENT_NAME_TOKENS), furniture


def noise_named(path: str) -> bool:
    """True when the nearest element on ``path`` (from the block up, ``HTML`` and ``BODY`` excluded) whose id/class
    names are telling holds a furniture word (:data:`NOISE_NAME_PARTS`, :data:`NOISE_NAME_TOKENS`) rather than a
    content word (:data:`CONTENT_NAME_TOKENS`). The nearest telling name wins: comments inside ``#article`` are
    furniture, an article inside ``#content-sidebar-wrap`` or ``<body class="ad-column">`` is not."""
    for tag, qualifier in reversed(_QUALIFIER.findall(path)):
        if tag in ("HTML", "BODY"):
            continue
        content, furniture = name_words(qualifier)
        if content:
            return False
        if furniture:
            return True
    return False


#: Detection rules: ``"paper"`` applies the three extraction rules of §III verbatim; ``"recursive"`` applies them
#: again inside every sub-block B' that is kept, instead of keeping B' whole.
RULES = ("paper", "recursive")
#: Measured on msv-big9 (README, "Where fce departs from the paper"): the recursive reading keeps less navigation.
DEFAULT_RULES = "recursive"


def _version() -> str:
    from fce import __version__

    return __version__


class TemplateLearner:
    """Learn a :class:`~fce.template.Template` for one site (scikit-learn style: ``fit`` returns ``self``).

    After :meth:`fit`: ``template_`` (the template), ``extractor_`` (the fitted ContentExtractor; its pages are the
    usable ones, those with text), ``is_content_`` (per usable page, the blocks taken as content: ContentExtractor's
    labels less link-dense and furniture-named blocks), ``n_pages_``. Parameters are keyword-only and stored as given.
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

    def fit(self, pages: Sequence[Page] | Sequence[BlockTree]) -> TemplateLearner:
        return self._fit(pages, {})

    def _fit(self, pages: Sequence[Page] | Sequence[BlockTree], named: dict[str, bool]) -> TemplateLearner:
        """:meth:`fit`, with ``named`` caching :func:`noise_named` per path (shared by the layouts of a site)."""
        if self.rules not in RULES:
            raise ValueError(f"rules must be one of {RULES}, not {self.rules!r}")
        trees = [p if isinstance(p, BlockTree) else blocks_of(p, self.path_style) for p in pages]
        usable = [t for t in trees if any(t.columns.text_lengths)]  # a page with some own text
        if len(usable) < MIN_PAGES:
            raise LearnError(
                f"{len(usable)} usable page(s) with text; at least {MIN_PAGES} are needed "
                f"({RECOMMENDED_PAGES}–30 recommended)",
                source=self.site or None,
            )
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
        noise = _distinct_noise(ce, is_content, paths)
        self.extractor_ = ce
        self.is_content_ = is_content
        self.n_pages_ = n
        self.template_ = Template(
            site=self.site,
            content_paths=paths,
            noise_blocks=noise,
            known_paths=known_paths,
            n_pages=n,
            params=LearnParams(
                similarity_threshold=self.similarity_threshold,
                occurrence_fraction=self.occurrence_fraction,
                min_occurrence=self.min_occurrence,
                min_path_support=self.min_path_support,
                rules=self.rules,
                path_style=self.path_style,
                max_link_density=self.max_link_density,
            ),
            learned_at=datetime.now(UTC).isoformat(timespec="seconds"),
            fce_version=_version(),
        )
        return self

    def _content_mask(self, tree: BlockTree, mask: np.ndarray, named: dict[str, bool]) -> np.ndarray:
        """ContentExtractor's labels, less link-dense blocks (:data:`MAX_LINK_DENSITY`) and blocks on paths named
        as furniture (:data:`NOISE_NAME_TOKENS`; ``named`` caches :func:`noise_named` per path); inline blocks
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
    result does not depend on the order they come in), grouped by structure (:func:`fce.layouts.group_pages`,
    cut at ``layout_distance``), and a :class:`TemplateLearner` (with ``path_style`` and ``template_params``) is
    fitted on each group of at least ``min_layout_pages`` pages. When no group is that large, one template is
    learned from all pages.

    After :meth:`fit`: ``model_`` (the record), ``labels_`` (per given page, the layout it taught, ``-1`` for a
    page left out: no text, or in a group too small), ``n_pages_`` (usable pages).
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
        trees = [p if isinstance(p, BlockTree) else blocks_of(p, self.path_style) for p in pages]
        usable = [i for i, t in enumerate(trees) if any(t.columns.text_lengths)]
        if len(usable) < MIN_PAGES:
            raise LearnError(
                f"{len(usable)} usable page(s) with text; at least {MIN_PAGES} are needed "
                f"({RECOMMENDED_PAGES}–30 recommended)",
                source=self.site or None,
            )
        order = [usable[i] for i in canonical_order([trees[i] for i in usable])]
        groups = group_pages([page_paths(trees[i]) for i in order], distance=self.layout_distance)
        members = [[order[j] for j in np.flatnonzero(groups == g)] for g in range(int(groups.max()) + 1)]
        members = [m for m in members if len(m) >= self.min_layout_pages] or [order]
        params = dict(self.template_params or {})
        labels = np.full(len(trees), -1, dtype=np.int64)
        layouts = []
        named: dict[str, bool] = {}  # noise_named per path, for all layouts
        for index, group in enumerate(members):
            learner = TemplateLearner(self.site, path_style=self.path_style, **params)
            layouts.append(learner._fit([trees[i] for i in group], named).template_)
            labels[group] = index
        self.labels_ = labels
        self.n_pages_ = len(usable)
        self.model_ = SiteTemplates(site=self.site, layouts=tuple(layouts), n_pages=len(usable),
                                    learned_at=layouts[0].learned_at, fce_version=_version())
        return self


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
