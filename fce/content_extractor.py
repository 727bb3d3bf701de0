"""ContentExtractor (Debnath et al.), as the FastCE paper describes it (§II).

Every page of a site is partitioned into blocks; each block keeps its own text (sub-block text removed, Figure 3).
For every block B, count the pages that contain a block similar to B (cosine of feature vectors above
:data:`~fce.features.SIMILARITY_THRESHOLD`). A block found in many pages is noise; otherwise it is content.

Two ways to compare, with the same result (``comparison=``; the tests hold them equal):

* ``"merged"`` (the default, :data:`DEFAULT_COMPARISON`): identical blocks (same text and counts) are merged
  first (on 30 pages of a news site a third of the blocks are distinct, so a ninth of the pairs remain), then the
  pairs of distinct blocks with cosine above 0.9 (:func:`fce.features.self_similar_pairs`: compiled, a search
  that verifies only the pairs sharing a rare term; else ``X·Xᵀ > 0.9``) give, through a product with the
  block-to-page incidence matrix, the number of pages holding a similar block;
* ``"pairwise"`` (:data:`PAIRWISE`): the algorithm as the paper states it, "compares B with all blocks in all
  input web pages", one block at a time: every block against every block of every page, nothing merged. It is
  the reference the merged comparison is tested against, and the all-pairs baseline ``bench`` times learning
  against.

A block is similar to a block identical to it even where the cosine is undefined (a block of punctuation alone
has no term and no count, so a zero vector): identical blocks are the same block, as the merged comparison
treats them.

This class is both the baseline of the paper's Table II (``fce eval`` times it against FastCE) and the first stage
of :class:`fce.learn.TemplateLearner`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import compress
from operator import itemgetter
from typing import TYPE_CHECKING

import numpy as np

from fce.blocks import Block, BlockTree, blocks_of
from fce.features import (
    COUNT_FEATURES,
    FEATURES_COMPILED,
    SIMILARITY_THRESHOLD,
    block_vectors,
    self_similar_arrays,
    self_similar_pairs,
    similar_page_counts,
)
from fce.parse import Page

if TYPE_CHECKING:
    import scipy.sparse as sp

__all__ = [
    "CE_MIN_OCCURRENCE",
    "CE_OCCURRENCE_FRACTION",
    "COMPARISONS",
    "DEFAULT_COMPARISON",
    "MERGED",
    "PAIRWISE",
    "BlockKey",
    "ContentExtractor",
    "block_counts",
    "occurrence_threshold",
]

#: A block is noise when similar blocks occur in at least this share of the input pages. The paper says only
#: "many" (§II). 0.05 (with the minimum below) was measured on msv-big9 (9 sites, 4 template generations each,
#: so a template's boilerplate appears in only ~25% of a mixed sample): see README, "Where fce departs".
CE_OCCURRENCE_FRACTION = 0.05

#: …and in at least this many pages. Two: on a sample of one site, a block that recurs at all is boilerplate far
#: more often than shared content (measured on msv-big9: 0.885 WF against 0.871 with three; README).
CE_MIN_OCCURRENCE = 2

#: Identical blocks merged; the similar pairs found among the distinct blocks (learning's way).
MERGED = "merged"
#: Every block compared with every block of every page, one block at a time (the paper's statement).
PAIRWISE = "pairwise"
COMPARISONS = (MERGED, PAIRWISE)
DEFAULT_COMPARISON = MERGED

BlockKey = tuple[str, tuple[int, ...]]


#: The non-term features of a block as one C call (blocks are named tuples).
_COUNTS = itemgetter(*(Block._fields.index(name) for name in COUNT_FEATURES))


def block_counts(block: Block) -> tuple[int, ...]:
    """The non-term features of a block, in :data:`~fce.features.COUNT_FEATURES` order."""
    return _COUNTS(block)  # type: ignore[no-any-return]


def occurrence_threshold(n_pages: int, fraction: float = CE_OCCURRENCE_FRACTION,
                         minimum: int = CE_MIN_OCCURRENCE) -> int:
    """Pages a block must recur on to be noise, for ``n_pages`` input pages."""
    return max(min(minimum, n_pages), math.ceil(fraction * n_pages))


@dataclass(frozen=True, slots=True)
class _Distinct:
    keys: list[BlockKey]  # distinct (text, counts) of text-bearing blocks
    key_of: list[np.ndarray]  # per page: index into keys per block (-1 for blocks without own text)
    vectors: sp.csr_matrix


class ContentExtractor:
    """ContentExtractor over the pages of one site.

    Parameters are stored as given (scikit-learn's contract); :meth:`fit` returns ``self`` and sets

    * ``trees_``: the block tree of every page;
    * ``is_content_``: per page, a boolean array over its blocks (blocks without own text are never content);
    * ``occurrences_``: per page, the number of pages holding a block similar to each block (0 for empty blocks);
    * ``threshold_``: the page count at or above which a block is noise;
    * ``n_comparisons_``: block pairs compared: the square of the distinct blocks (``"merged"``) or of all
      text-bearing blocks (``"pairwise"``);
    * ``distinct_``, ``distinct_occurrences_`` (``"merged"`` only): the distinct blocks and their page counts;
    * ``similar_pairs_`` (``"merged"`` only): the pairs of distinct blocks whose cosine is above the threshold, as
      two int32 arrays ``rows, cols`` (both orders of a pair; ``(i, i)`` unless block ``i``'s vector is zero).
    """

    def __init__(
        self,
        *,
        similarity_threshold: float = SIMILARITY_THRESHOLD,
        occurrence_fraction: float = CE_OCCURRENCE_FRACTION,
        min_occurrence: int = CE_MIN_OCCURRENCE,
        path_style: str = "paper",
        comparison: str = DEFAULT_COMPARISON,
    ) -> None:
        self.similarity_threshold = similarity_threshold
        self.occurrence_fraction = occurrence_fraction
        self.min_occurrence = min_occurrence
        self.path_style = path_style
        self.comparison = comparison

    def fit(self, pages: Sequence[Page] | Sequence[BlockTree]) -> ContentExtractor:
        if self.comparison not in COMPARISONS:
            raise ValueError(f"comparison must be one of {COMPARISONS}, not {self.comparison!r}")
        trees = [p if isinstance(p, BlockTree) else blocks_of(p, self.path_style) for p in pages]
        n_pages = len(trees)
        self.threshold_ = occurrence_threshold(n_pages, self.occurrence_fraction, self.min_occurrence)
        self.trees_ = trees
        if self.comparison == PAIRWISE:
            self.occurrences_, n_compared = _pairwise_occurrences(trees, self.similarity_threshold)
        else:
            distinct = _distinct_blocks(trees)
            occurrences, self.similar_pairs_ = _page_occurrences(distinct, n_pages, self.similarity_threshold)
            self.distinct_ = distinct
            self.distinct_occurrences_ = occurrences
            self.occurrences_ = [np.where(key_of >= 0, occurrences[np.maximum(key_of, 0)], 0)
                                 for key_of in distinct.key_of]
            n_compared = len(distinct.keys)
        self.is_content_ = [(occ > 0) & (occ < self.threshold_) for occ in self.occurrences_]
        self.n_comparisons_ = n_compared * n_compared
        return self

    def content_blocks(self, page_index: int) -> list[Block]:
        """Content blocks of one input page in ContentExtractor's output order: atomic sub-blocks before the
        block they were cut from (post-order, as the paper's Figure 3 shows), so phrases spanning blocks break."""
        tree = self.trees_[page_index]
        mask = self.is_content_[page_index]
        order: list[int] = []
        stack: list[tuple[int, bool]] = [(0, False)]
        while stack:
            idx, expanded = stack.pop()
            if expanded:
                order.append(idx)
                continue
            stack.append((idx, True))
            stack.extend((c, False) for c in reversed(tree[idx].children))
        return [tree[i] for i in order if mask[i]]

    def content_text(self, page_index: int) -> str:
        return "\n".join(b.text for b in self.content_blocks(page_index))


def _distinct_blocks(trees: Sequence[BlockTree]) -> _Distinct:
    """The distinct (own text, counts) of the pages' text-bearing blocks, read column-wise (no :class:`Block` is
    built), and per page the index of each block's."""
    index: dict[BlockKey, int] = {}
    keys: list[BlockKey] = []
    key_of: list[np.ndarray] = []
    for tree in trees:
        texts, counts = tree.texts, tree.count_rows(COUNT_FEATURES)
        ids = [-1] * len(texts)
        for i in compress(range(len(texts)), texts):
            key = (texts[i], counts[i])
            k = index.get(key)
            if k is None:
                k = index[key] = len(keys)
                keys.append(key)
            ids[i] = k
        key_of.append(np.asarray(ids, dtype=np.int64))
    # (no key: an empty matrix of the vectors' width)
    vectors = block_vectors([k[0] for k in keys], [k[1] for k in keys])
    return _Distinct(keys=keys, key_of=key_of, vectors=vectors)


def _page_occurrences(distinct: _Distinct, n_pages: int,
                      threshold: float) -> tuple[np.ndarray, tuple[np.ndarray, np.ndarray]]:
    """For every distinct block, the number of pages that hold a block similar to it (itself included); and the
    similar pairs of distinct blocks (:func:`~fce.features.self_similar_arrays`: ``rows, cols``, both orders of a
    pair and ``(i, i)`` where the cosine holds, so not for a block whose vector is zero).

    The counts are the nonzeros per row of ``S · I``, where ``S`` marks the similar pairs and every block's pair
    with itself, and ``I`` is the incidence of blocks and pages. Compiled (``fce/_features.pyx``), the pages are
    counted straight from the search's pairs (measured: the sparse algebra was ~5 % of learning); the sparse
    product below is the definition it is tested against."""
    n = len(distinct.keys)
    if n == 0:
        return np.zeros(0, dtype=np.int64), (np.zeros(0, dtype=np.int32), np.zeros(0, dtype=np.int32))
    # the (block, page) incidences, sorted by block and then page: one sort of block × pages + page
    ids = np.concatenate(distinct.key_of)
    page_of = np.repeat(np.arange(len(distinct.key_of), dtype=np.int64), [len(k) for k in distinct.key_of])
    held = ids >= 0
    incidences = np.unique(ids[held] * len(distinct.key_of) + page_of[held])
    blocks, pages = np.divmod(incidences, len(distinct.key_of))
    if FEATURES_COMPILED:
        indptr = np.zeros(n + 1, dtype=np.int64)
        np.cumsum(np.bincount(blocks, minlength=n), out=indptr[1:])
        pairs = self_similar_arrays(distinct.vectors, threshold)
        return similar_page_counts(pairs, indptr, pages, n_pages), pairs
    import scipy.sparse as sp  # (on first use: fce.features)

    incidence = sp.csr_matrix((np.ones(len(blocks), dtype=np.int32), (blocks, pages)), shape=(n, n_pages))
    similar = self_similar_pairs(distinct.vectors, threshold).astype(np.int32).tocoo()
    pairs = (similar.row.astype(np.int32), similar.col.astype(np.int32))
    similar = similar.tocsr().maximum(sp.identity(n, dtype=np.int32, format="csr"))  # a block is similar to itself
    pages_with_similar = (similar @ incidence).tocsr()
    return np.diff(pages_with_similar.indptr).astype(np.int64), pairs


def _pairwise_occurrences(trees: Sequence[BlockTree], threshold: float) -> tuple[list[np.ndarray], int]:
    """For every block of every page, the number of pages holding a block similar to it, found as the paper
    states ContentExtractor: the block is compared with every block of every page, one block at a time.

    A comparison is a cosine, read for one block against all blocks at once: the blocks holding each of its terms
    (the columns of the term-by-block matrix), weighted by the term's weight in the block. Returns the per-page
    counts (0 for blocks without own text) and the number of blocks compared with each other.
    """
    page_of: list[int] = []
    texts: list[str] = []
    counts: list[tuple[int, ...]] = []
    key_ids: list[int] = []
    keys: dict[BlockKey, int] = {}
    for page, tree in enumerate(trees):
        for block in tree.blocks:
            if block.text:
                key = (block.text, block_counts(block))
                page_of.append(page)
                texts.append(block.text)
                counts.append(key[1])
                key_ids.append(keys.setdefault(key, len(keys)))
    occurrences = [np.zeros(len(tree), dtype=np.int64) for tree in trees]
    if not texts:
        return occurrences, 0
    vectors = block_vectors(texts, counts)
    blocks_by_term = vectors.T.tocsr()  # row t: the blocks holding term t, with its weight in each
    pages = np.asarray(page_of)
    identical = np.asarray(key_ids)
    found = np.empty(len(texts), dtype=np.int64)
    for i in range(len(texts)):
        lo, hi = vectors.indptr[i], vectors.indptr[i + 1]
        cosines = blocks_by_term[vectors.indices[lo:hi]].T @ vectors.data[lo:hi]
        similar = (cosines > threshold) | (identical == identical[i])
        found[i] = np.count_nonzero(np.bincount(pages[similar], minlength=len(trees)))
    at = 0
    for page, tree in enumerate(trees):
        for block in tree.blocks:
            if block.text:
                occurrences[page][block.index] = found[at]
                at += 1
    return occurrences, len(texts)
