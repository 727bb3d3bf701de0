"""Feature vectors of blocks for ContentExtractor's similarity test (Debnath et al., as described in FastCE §II).

A block's vector holds its terms (hashed word counts, scikit-learn's ``HashingVectorizer``: stateless, so a
template's noise blocks are vectorised identically at detection time without a stored vocabulary) plus the
counts of images, scripts, links, form fields and iframes the paper lists. Rows are L2-normalised, so the cosine
of two blocks is the dot product of their rows and all pairwise cosines of a set are one sparse matrix product.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from typing import Any

import numpy as np
import scipy.sparse as sp

__all__ = ["COUNT_FEATURES", "N_TERM_FEATURES", "SIMILARITY_THRESHOLD", "block_vectors", "similar_pairs"]

#: Two blocks are similar when the cosine of their feature vectors is above 0.9 (FastCE §II, after Debnath et al.).
SIMILARITY_THRESHOLD = 0.9

#: Hash space for terms. 2**20 buckets make collisions between the few thousand terms of a site negligible.
N_TERM_FEATURES = 2**20

#: The non-term features (FastCE §II: "the number of images, the number of java scripts, hyperlinks and terms").
COUNT_FEATURES = ("n_images", "n_scripts", "n_links", "n_forms", "n_iframes")



@cache
def _vectorizer() -> Any:
    # scikit-learn is imported on first use: commands that never compare blocks (``fce sites``, ``fce methods``,
    # single-page methods) do not pay its import time (about a second).
    from sklearn.feature_extraction.text import HashingVectorizer

    return HashingVectorizer(
        n_features=N_TERM_FEATURES,
        alternate_sign=False,
        norm=None,
        lowercase=True,
        token_pattern=r"(?u)\b\w+\b",  # one-character terms count too: "a", "I", digits in dates and scores
        dtype=np.float32,
    )


def block_vectors(texts: Sequence[str], counts: np.ndarray | Sequence[Sequence[int]]) -> sp.csr_matrix:
    """L2-normalised feature rows, one per block: hashed term counts followed by the :data:`COUNT_FEATURES`."""
    from sklearn.preprocessing import normalize

    terms = _vectorizer().transform(texts)
    extra = sp.csr_matrix(np.asarray(counts, dtype=np.float32).reshape(len(texts), len(COUNT_FEATURES)))
    matrix = sp.hstack([terms, extra], format="csr", dtype=np.float32)
    return normalize(matrix, norm="l2", copy=False)


def similar_pairs(left: sp.csr_matrix, right: sp.csr_matrix, threshold: float = SIMILARITY_THRESHOLD,
                  chunk: int = 2048) -> sp.csr_matrix:
    """Boolean sparse matrix of ``cos(left_i, right_j) > threshold``, computed as chunked sparse products."""
    blocks = []
    right_t = right.T.tocsc()
    for start in range(0, left.shape[0], chunk):
        product = (left[start:start + chunk] @ right_t).tocsr()
        product.data = (product.data > threshold).astype(np.int8)
        product.eliminate_zeros()
        blocks.append(product)
    if not blocks:
        return sp.csr_matrix((left.shape[0], right.shape[0]), dtype=np.int8)
    return sp.vstack(blocks, format="csr")
