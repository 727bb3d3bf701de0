"""ContentExtractor (Debnath et al.), as the FastCE paper describes it (§II).

Every page of a site is partitioned into blocks; each block keeps its own text (sub-block text removed, Figure 3).
For every block B, count the pages that contain a block similar to B (cosine of feature vectors above
:data:`~fce.features.SIMILARITY_THRESHOLD`). A block found in many pages is noise; otherwise it is content.

The comparison of every block with every block of every page — ContentExtractor's cost — is done here as sparse
matrix products over the distinct blocks: identical blocks (same text and counts) are merged first, then
``similar = X·Xᵀ > 0.9`` gives, through a product with the block-to-page incidence matrix, the number of pages
holding a similar block.

This class is both the baseline of the paper's Table II (``fce eval`` times it against FastCE) and the first stage
of :class:`fce.learn.TemplateLearner`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from operator import itemgetter

import numpy as np
import scipy.sparse as sp

from fce.blocks import Block, BlockTree, blocks_of
from fce.features import COUNT_FEATURES, SIMILARITY_THRESHOLD, block_vectors, similar_pairs
from fce.parse import Page

__all__ = [
    "CE_MIN_OCCURRENCE",
    "CE_OCCURRENCE_FRACTION",
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
    * ``n_comparisons_``: block pairs compared (ContentExtractor compares every block with every block).
    """

    def __init__(
        self,
        *,
        similarity_threshold: float = SIMILARITY_THRESHOLD,
        occurrence_fraction: float = CE_OCCURRENCE_FRACTION,
        min_occurrence: int = CE_MIN_OCCURRENCE,
        path_style: str = "paper",
    ) -> None:
        self.similarity_threshold = similarity_threshold
        self.occurrence_fraction = occurrence_fraction
        self.min_occurrence = min_occurrence
        self.path_style = path_style

    def fit(self, pages: Sequence[Page] | Sequence[BlockTree]) -> ContentExtractor:
        trees = [p if isinstance(p, BlockTree) else blocks_of(p, self.path_style) for p in pages]
        distinct = _distinct_blocks(trees)
        n_pages = len(trees)
        occurrences = _page_occurrences(distinct, n_pages, self.similarity_threshold)
        self.threshold_ = occurrence_threshold(n_pages, self.occurrence_fraction, self.min_occurrence)
        self.trees_ = trees
        self.distinct_ = distinct
        self.distinct_occurrences_ = occurrences
        self.occurrences_ = []
        self.is_content_ = []
        for key_of in distinct.key_of:
            occ = np.where(key_of >= 0, occurrences[np.maximum(key_of, 0)], 0)
            self.occurrences_.append(occ)
            self.is_content_.append((key_of >= 0) & (occ < self.threshold_))
        n_blocks = sum(int((k >= 0).sum()) for k in distinct.key_of)
        self.n_comparisons_ = n_blocks * n_blocks
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
    index: dict[BlockKey, int] = {}
    keys: list[BlockKey] = []
    key_of: list[np.ndarray] = []
    for tree in trees:
        ids = np.full(len(tree), -1, dtype=np.int64)
        for block in tree.blocks:
            if not block.text:
                continue
            key = (block.text, block_counts(block))
            k = index.get(key)
            if k is None:
                k = index[key] = len(keys)
                keys.append(key)
            ids[block.index] = k
        key_of.append(ids)
    vectors = block_vectors([k[0] for k in keys], [k[1] for k in keys]) if keys else sp.csr_matrix((0, 1))
    return _Distinct(keys=keys, key_of=key_of, vectors=vectors)


def _page_occurrences(distinct: _Distinct, n_pages: int, threshold: float) -> np.ndarray:
    """For every distinct block, the number of pages that hold a block similar to it (itself included)."""
    n = len(distinct.keys)
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    rows, cols = [], []
    for page, ids in enumerate(distinct.key_of):
        present = np.unique(ids[ids >= 0])
        rows.append(present)
        cols.append(np.full(len(present), page))
    incidence = sp.csr_matrix(
        (np.ones(sum(len(r) for r in rows), dtype=np.int32), (np.concatenate(rows), np.concatenate(cols))),
        shape=(n, n_pages),
    )
    similar = similar_pairs(distinct.vectors, distinct.vectors, threshold).astype(np.int32)
    similar = similar.maximum(sp.identity(n, dtype=np.int32, format="csr"))  # a block is similar to itself
    pages_with_similar = (similar @ incidence).tocsr()
    return np.diff(pages_with_similar.indptr).astype(np.int64)
