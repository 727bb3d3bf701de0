"""Several layouts per site: group a site's pages by structure, and pick a page's layout at detection time.

Real sites serve several layouts (articles, galleries, video pages, index pages) and redesign every few years; a
template learned from a mix fits none of them well. Here:

* a page's **structure** is the set of block paths that carry text on it (:func:`page_paths`, qualified paths of
  :mod:`fce.blocks`, so ``DIV[#story]`` and ``DIV[.article-body]`` differ);
* :func:`group_pages` clusters a site's pages by the Jaccard distance of those sets (average-linkage agglomerative
  clustering, SciPy's, cut at :data:`LAYOUT_DISTANCE`): no random state, no number of clusters to guess, and
  the result does not depend on the order the pages come in (they are put in a canonical order first);
* the layout learner (:class:`fce.learn.LayoutLearner`) learns one :class:`~fce.template.Template` per group of at
  least :data:`MIN_LAYOUT_PAGES` pages, stored together as one :class:`~fce.template.SiteTemplates` record;
* :class:`SiteDetector` picks, for a new page, the layout whose template fits it best (the share of the page's text
  on paths the layout saw while learning, :meth:`fce.detect.Detector.fit_score`), ties broken by the match of the
  page with the layout's profile (:func:`profile_match`), then by layout order; it reports both figures.

**Drift.** Every detection is either a *fit* (a layout's template was used) or a *fallback*; stores count both per
site (``TemplateStore.record``) and keep the outcomes of the last ``templates_store.RECENT_WINDOW`` detections
(a sliding window, not decayed counts: easy to explain, exact, and the same in all three backends).
:func:`is_stale` flags a site whose recent fit rate is below :data:`STALE_FIT_RATE` once the window holds at least
:data:`STALE_MIN_RECENT` detections; ``fce learn`` or :func:`fce.service.relearn_stale` then replace its layouts.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from itertools import compress, repeat
from typing import TYPE_CHECKING

import numpy as np

from fce.blocks import BlockTree
from fce.detect import DEFAULT_MODE, MIN_FIT, Detector, merged_codes, templates_sums
from fce.features import keyed_stream
from fce.template import SiteTemplates, Template

if TYPE_CHECKING:
    from templates_store import SiteCounters

__all__ = [
    "LAYOUT_DISTANCE",
    "MIN_LAYOUT_PAGES",
    "STALE_FIT_RATE",
    "STALE_MIN_RECENT",
    "LayoutChoice",
    "SiteDetector",
    "group_pages",
    "is_stale",
    "page_paths",
    "profile_match",
    "site_of_detector",
]

#: Pages whose text-path sets are further apart than this (average-linkage Jaccard distance) are different layouts.
#: Measured on msv-big9 (``bench/layouts_bench.py``, "Layout distances"): pages of one site and capture year are
#: at median distance 0.09–0.44 (nymag, whose pages vary most, 0.87), pages of different capture years (redesigns)
#: at least 0.78 apart and mostly ≥ 0.85. 0.7 sits between the two.
LAYOUT_DISTANCE = 0.7

#: A group of pages becomes a layout of its own only with at least this many pages; smaller groups are left out of
#: learning (their pages go to the fallback at detection time). When no group is this large, one template is
#: learned from all pages (the one-layout learner). The paper learns from 20–30 pages, but a layout of a site has
#: fewer; FastCE's repetition test needs a few pages (``fce.learn.MIN_PAGES`` = 3). Measured on msv-big9 k-fold
#: (``bench/layouts_bench.py``, ~7 pages per capture year in each fold's learning set): 3 to 6 give the same
#: site-macro word F1 (0.961); the share of pages that get a layout falls as the minimum grows (min 0.55, 0.45,
#: 0.42, 0.17 over the sites for 3, 4, 5, 6). 4 keeps a stray pair or triple of odd pages from becoming a layout
#: and every site's fit rate above :data:`STALE_FIT_RATE`.
MIN_LAYOUT_PAGES = 4

#: A site whose recent fit rate (share of its recent detections where a layout's template was used) is below this
#: is stale. Measured on msv-big9 (``bench/layouts_bench.py``): a site's layouts fit 45–100 % of its held-out pages
#: of the years they were learned from (nymag 45 %: many of its pages are one-offs, in no layout), and 0 % of its
#: 2017 pages when learned from 2005–2013. 0.25 lies between the two with room on both sides.
STALE_FIT_RATE = 0.25

#: Fewer recent detections than this say nothing about a site (a couple of odd pages must not flag it).
#: 10 = the number of pages per site and capture year of msv-big9: one capture of a redesigned site flags it.
STALE_MIN_RECENT = 10


def page_paths(tree: BlockTree) -> frozenset[str]:
    """The structure of a page: the paths of its blocks that carry text of their own."""
    cols = tree.columns  # (column-wise, so that the loop runs in C: this runs for every detection)
    return frozenset(compress(cols.paths, cols.text_lengths))


def _canonical_key(tree: BlockTree) -> str:
    """An order for pages that does not depend on the order they were given in (their text and structure): the
    SHA-1 of every block's path and own text (:func:`fce.features.keyed_stream`: one buffer, hashed in one call;
    measured, four hash updates per block took 4.5 ms for 30 pages, a tenth of learning, and this ~2 ms)."""
    return hashlib.sha1(keyed_stream(tree.columns.paths, tree.texts), usedforsecurity=False).hexdigest()


def canonical_order(trees: Sequence[BlockTree]) -> list[int]:
    """Indices of ``trees`` in a canonical order (by content), so that learning is independent of input order."""
    keys = [_canonical_key(t) for t in trees]
    return sorted(range(len(trees)), key=lambda i: (keys[i], i))


def group_pages(path_sets: Sequence[frozenset[str]], *, distance: float = LAYOUT_DISTANCE) -> np.ndarray:
    """Group pages by structure: a label per page (0, 1, ...), largest group first, ties by first page.

    Average-linkage agglomerative clustering of the pages' path sets under the Jaccard distance, cut at
    ``distance``: the merges at or above it are undone (SciPy's ``linkage`` and ``fcluster``, as scikit-learn's
    ``AgglomerativeClustering(linkage="average", distance_threshold=distance)`` computes and cuts it; the tests
    compare the two). Deterministic for a given order of ``path_sets``. SciPy's clustering is imported in 0.15 s,
    scikit-learn's in 0.8 s, which ``fce learn`` paid on every run; ``fcluster`` cuts in C, where ``cut_tree``
    took ~0.9 ms of a site's ~2 ms grouping.
    """
    n = len(path_sets)
    if n <= 1:
        return np.zeros(n, dtype=np.int64)
    from scipy.cluster.hierarchy import fcluster, linkage

    column: dict[str, int] = {}
    for paths in path_sets:  # (which column a path gets changes no distance)
        for path in paths:
            column.setdefault(path, len(column))
    matrix = np.zeros((n, max(len(column), 1)), dtype=bool)
    for row, paths in enumerate(path_sets):
        matrix[row, [column[p] for p in paths]] = True
    # Jaccard distance of the condensed pairs; two pages without text are alike (0/0 is taken as 0)
    dist = jaccard_distances(matrix)
    tree = linkage(dist, method="average")
    # the merges below ``distance`` kept: the flat clusters whose members are at most the largest float below it
    # apart (average linkage has no inversions, so this undoes exactly the last merges, those at or above it)
    raw = fcluster(tree, t=np.nextafter(distance, -np.inf), criterion="distance")
    sizes = np.bincount(raw)
    first = {int(label): int(np.flatnonzero(raw == label)[0]) for label in np.unique(raw)}
    order = sorted(first, key=lambda label: (-sizes[label], first[label]))
    relabel = {old: new for new, old in enumerate(order)}
    return np.asarray([relabel[int(x)] for x in raw], dtype=np.int64)


def jaccard_distances(matrix: np.ndarray) -> np.ndarray:
    """The Jaccard distances of the rows of a boolean matrix, condensed (``scipy.spatial.distance.pdist(matrix,
    "jaccard")``), two empty rows at distance 0 (where ``pdist`` gives NaN). From one product of the matrix with
    itself: the counts of shared and of all set columns are whole numbers, exact in float64, so each distance is
    the same division ``pdist`` makes (the tests compare the two), in ~0.05 ms where ``pdist`` took 0.3–0.7 ms for
    30 pages."""
    n = matrix.shape[0]
    rows = matrix.astype(np.float64)
    shared = rows @ rows.T
    sizes = np.diag(shared)
    first, second = np.triu_indices(n, 1)  # the condensed order: (0, 1), (0, 2), …, (1, 2), …
    both = shared[first, second]
    union = sizes[first] + sizes[second] - both
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.nan_to_num((union - both) / union, nan=0.0)


def profile_match(paths: frozenset[str], template: Template) -> float:
    """Cosine similarity of a page's path set with a layout's profile (per path, the share of the layout's learning
    pages that had text on it): 1.0 when the page has exactly the paths every learning page had."""
    return _Profile(template).match(paths)


class _Profile:
    """A layout's profile, its norm computed once (:func:`profile_match`)."""

    __slots__ = ("known", "n_pages", "norm")

    def __init__(self, template: Template) -> None:
        self.known = template.known_paths
        self.n_pages = template.n_pages
        self.norm = math.sqrt(sum((c / self.n_pages) ** 2 for c in self.known.values())) if self.n_pages > 0 else 0.0

    def match(self, paths: frozenset[str]) -> float:
        return self.of_sums(sum(map(self.known.get, paths, repeat(0))), len(paths))

    def of_sums(self, counts: int, n_paths: int) -> float:
        """The match of a page whose ``n_paths`` paths have ``counts`` learning pages in all
        (:func:`fce.detect.templates_sums`)."""
        if not n_paths or not self.norm:
            return 0.0
        dot = counts / self.n_pages
        return dot / (math.sqrt(n_paths) * self.norm)


@dataclass(frozen=True, slots=True)
class LayoutChoice:
    """The layout chosen for a page: its index in the site record (``-1``: none fits, the fallback runs), the fit
    of that layout's template (share of the page's text on its paths) and the page's match with its profile.
    ``best`` is the index of the best candidate whether or not it fits (what a caller without a fallback applies);
    without a fitting layout, ``fit`` and ``match`` are that candidate's. ``kept_chars``: the characters of the
    page's own text on paths that candidate's guided detection keeps (:func:`fce.detect.templates_sums`)."""

    layout: int
    fit: float
    match: float
    best: int
    kept_chars: int = 0


class SiteDetector:
    """A site's layouts compiled for detection: one :class:`~fce.detect.Detector` per layout, and the choice."""

    def __init__(self, record: SiteTemplates | Template | Detector, *, mode: str = DEFAULT_MODE,
                 min_fit: float = MIN_FIT) -> None:
        if isinstance(record, Detector):
            self.detectors: tuple[Detector, ...] = (record,)
            record = SiteTemplates.of(record.template)
        else:
            if isinstance(record, Template):
                record = SiteTemplates.of(record)
            self.detectors = tuple(Detector(t, mode=mode) for t in record.layouts)
        self.record = record
        self._profiles = tuple(_Profile(d.template) for d in self.detectors)
        self._merged = (self.detectors[0].merged_codes if len(self.detectors) == 1  # (the template's own table)
                        else merged_codes([d.path_codes for d in self.detectors]))
        self.mode = self.detectors[0].mode
        self.min_fit = min_fit
        self.path_style = self.detectors[0].path_style

    @property
    def site(self) -> str:
        return self.record.site

    @property
    def template(self) -> Template:
        """The first (largest) layout's template, for callers that know of one template per site."""
        return self.detectors[0].template

    def _scores(self, tree: BlockTree) -> Iterator[tuple[float, float, int, int]]:
        # each layout's fit (fce.detect.Detector.fit_score), profile match (profile_match) and kept characters,
        # from one pass over the page's blocks for all layouts (fce.detect.templates_sums)
        sums = templates_sums(tree, self._merged, len(self.detectors))
        for i, ((known, total, counts, n_paths, kept), profile) in enumerate(zip(sums, self._profiles,
                                                                                   strict=True)):
            yield (known / total if total else 0.0), profile.of_sums(counts, n_paths), -i, kept

    def choose(self, tree: BlockTree, *, min_fit: float | None = None) -> LayoutChoice:
        """The layout whose template fits ``tree`` best (:class:`LayoutChoice`); ``min_fit`` (default: this
        detector's) is the fit below which no layout fits."""
        fit, match, neg, kept = max(self._scores(tree))
        threshold = self.min_fit if min_fit is None else min_fit
        return LayoutChoice(-neg if fit >= threshold else -1, fit, match, -neg, kept)


def site_of_detector(detector: Detector, min_fit: float = MIN_FIT) -> SiteDetector:
    """``detector`` as a one-layout :class:`SiteDetector` (what :func:`fce.pipeline.extract` applies), built once
    per ``min_fit`` and kept on the detector (``Detector.sites``)."""
    site = detector.sites.get(min_fit)
    if site is None:
        site = detector.sites[min_fit] = SiteDetector(detector, min_fit=min_fit)
    return site


def is_stale(counters: SiteCounters | None, *, min_fit_rate: float = STALE_FIT_RATE,
             min_recent: int = STALE_MIN_RECENT) -> bool:
    """Whether a site's recent detections say its layouts no longer fit it (module docstring)."""
    if counters is None or counters.recent_count < min_recent:
        return False
    rate = counters.recent_fit_rate
    return rate is not None and rate < min_fit_rate
