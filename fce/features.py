"""Feature vectors of blocks for ContentExtractor's similarity test (Debnath et al., as described in FastCE §II).

A block's vector holds its terms (hashed word counts, scikit-learn's ``HashingVectorizer``: stateless, so a
template's noise blocks are vectorised identically at detection time without a stored vocabulary; compiled in
``fce/_features.pyx`` where it was built, with the same result) plus the counts of images, scripts, links, form fields
and iframes the paper lists. Rows are L2-normalised, so the cosine of two blocks is the dot product of their rows
and all pairwise cosines of a set are one sparse matrix product.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from typing import TYPE_CHECKING, Any

import numpy as np

from fce._accel import compiled

if TYPE_CHECKING:
    import scipy.sparse as sp

__all__ = [
    "COUNT_FEATURES",
    "N_TERM_FEATURES",
    "SIMILARITY_THRESHOLD",
    "FEATURES_COMPILED",
    "PREFIX_MARGIN",
    "block_vectors",
    "hashed_terms",
    "index_of",
    "keyed_stream",
    "self_similar_arrays",
    "self_similar_pairs",
    "similar_page_counts",
    "similar_pairs",
]

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


#: :func:`self_similar_pairs` leaves a row's most frequent terms out of its search index while their share of the
#: row's norm stays below ``threshold - PREFIX_MARGIN`` (the bound of the prefix filter; see ``fce/_features.pyx``).
#: The margin only has to exceed float32 rounding of a sum of products of unit rows (~1e-6); a larger one indexes
#: a few more terms and changes nothing else.
PREFIX_MARGIN = 1e-3


#: The compiled parts of this module (``fce/_features.pyx``), or None.
_FEATURES: Any = compiled("_features")

#: Whether term hashing and the similarity search of a set of blocks run compiled (``fce methods`` says which).
FEATURES_COMPILED = _FEATURES is not None


def hashed_terms(texts: Sequence[str]) -> sp.csr_matrix:
    """The term counts of ``texts``, hashed into :data:`N_TERM_FEATURES` columns: ``HashingVectorizer`` as
    :func:`_vectorizer` configures it, or the compiled version of it (``fce/_features.pyx``; the same matrix)."""
    import scipy.sparse as sp  # (on first use, as in every function here: a detection with a template needs no
    # sparse matrix, and importing scipy.sparse was a fifth of the command line's start-up)

    if _FEATURES is not None:
        data, indices, indptr = _FEATURES.hashed_terms(list(texts), N_TERM_FEATURES)
        return sp.csr_matrix((data, indices, indptr), shape=(len(texts), N_TERM_FEATURES))
    return _vectorizer().transform(texts)


def block_vectors(texts: Sequence[str], counts: np.ndarray | Sequence[Sequence[int]]) -> sp.csr_matrix:
    """L2-normalised feature rows, one per block: hashed term counts followed by the :data:`COUNT_FEATURES`
    (compiled where built: ``fce/_features.pyx``, the same matrix)."""
    import scipy.sparse as sp

    if not len(texts):
        return sp.csr_matrix((0, N_TERM_FEATURES + len(COUNT_FEATURES)), dtype=np.float32)
    if _FEATURES is not None:
        if isinstance(counts, list):  # (of tuples, as the callers give them: read in C)
            table = _FEATURES.count_table(counts, len(COUNT_FEATURES))
        else:
            table = np.asarray(counts, dtype=np.float64).reshape(len(texts), len(COUNT_FEATURES))
        table = np.ascontiguousarray(table)
        data, indices, indptr = _FEATURES.unit_rows(list(texts), table, N_TERM_FEATURES)
        return sp.csr_matrix((data, indices, indptr), shape=(len(texts), N_TERM_FEATURES + len(COUNT_FEATURES)))
    from sklearn.preprocessing import normalize

    terms = hashed_terms(texts)
    extra = sp.csr_matrix(np.asarray(counts, dtype=np.float32).reshape(len(texts), len(COUNT_FEATURES)))
    matrix = sp.hstack([terms, extra], format="csr", dtype=np.float32)
    return normalize(matrix, norm="l2", copy=False)


def self_similar_pairs(vectors: sp.csr_matrix, threshold: float = SIMILARITY_THRESHOLD) -> sp.csr_matrix:
    """``similar_pairs(vectors, vectors, threshold)`` (rows of :func:`block_vectors`), found by the compiled
    all-pairs search with prefix filtering where it was built (``fce/_features.pyx``: the same pairs, without the
    product of every two rows sharing a common word), else by the product."""
    import scipy.sparse as sp

    if _FEATURES is None or vectors.shape[0] == 0:
        return similar_pairs(vectors, vectors, threshold)
    rows, cols = self_similar_arrays(vectors, threshold)
    n = vectors.shape[0]
    return sp.csr_matrix((np.ones(len(rows), dtype=np.int8), (rows, cols)), shape=(n, n))


def self_similar_arrays(vectors: sp.csr_matrix,
                        threshold: float = SIMILARITY_THRESHOLD) -> tuple[np.ndarray, np.ndarray]:
    """The nonzeros of :func:`self_similar_pairs` as two arrays ``rows, cols`` (int32; both orders of a pair, and
    ``(i, i)`` where it holds), straight from the compiled search: for code that reads the pairs without a sparse
    matrix (``fce.content_extractor``). Compiled only (:data:`FEATURES_COMPILED`)."""
    if _FEATURES is None:
        raise RuntimeError("fce._features is not built (or FCE_NO_ACCEL is set)")
    vectors = vectors.tocsr()
    vectors.sort_indices()
    return _FEATURES.self_similar(  # type: ignore[no-any-return]
        vectors.indptr.astype(np.int32, copy=False), vectors.indices.astype(np.int32, copy=False),
        vectors.data.astype(np.float32, copy=False), vectors.shape[1], threshold, PREFIX_MARGIN)


def similar_page_counts(pairs: tuple[np.ndarray, np.ndarray], pages_indptr: np.ndarray, pages: np.ndarray,
                        n_pages: int) -> np.ndarray:
    """Per block ``i`` (``pages[pages_indptr[i]:pages_indptr[i + 1]]``: the distinct pages holding it, int64), the
    number of pages holding it or a block similar to it, given the similar pairs of blocks as
    :func:`self_similar_arrays` returns them (``rows, cols``); counted in C (``fce/_features.pyx``). Compiled only
    (:data:`FEATURES_COMPILED`)."""
    if _FEATURES is None:
        raise RuntimeError("fce._features is not built (or FCE_NO_ACCEL is set)")
    rows, cols = pairs
    return _FEATURES.similar_page_counts(  # type: ignore[no-any-return]
        rows, cols, np.ascontiguousarray(pages_indptr, dtype=np.int64), np.ascontiguousarray(pages, dtype=np.int64),
        n_pages)


def index_of(items: Sequence[str], table: dict[str, int]) -> np.ndarray:
    """Per item its number in ``table`` (item → 0, 1, … in order of first sight), adding the items not yet in it
    with the next numbers; an int64 array. Lets strings (a block's path) be counted and summed by NumPy (compiled
    where built: ``fce/_features.pyx``; the same numbers either way)."""
    if _FEATURES is not None:
        return _FEATURES.index_of(list(items), table)  # type: ignore[no-any-return]
    return np.fromiter((table.setdefault(item, len(table)) for item in items), dtype=np.int64, count=len(items))


def keyed_stream(paths: Sequence[str], texts: Sequence[str]) -> bytes:
    """Each path and text in UTF-8 (surrogates passed), each path followed by a NUL and each text by 0x01, in one
    byte string (what ``fce.layouts`` hashes into a page's canonical key). Compiled where built
    (``fce/_features.pyx``: ASCII strings copied as they are stored, one buffer); the same bytes either way."""
    if _FEATURES is not None:
        return _FEATURES.keyed_stream(list(paths), list(texts))  # type: ignore[no-any-return]
    if len(paths) != len(texts):
        raise ValueError("paths and texts must be of the same length")
    return b"".join(p.encode("utf-8", "surrogatepass") + b"\0" + t.encode("utf-8", "surrogatepass") + b"\1"
                    for p, t in zip(paths, texts, strict=True))


def similar_pairs(left: sp.csr_matrix, right: sp.csr_matrix, threshold: float = SIMILARITY_THRESHOLD,
                  chunk: int = 2048) -> sp.csr_matrix:
    """Boolean sparse matrix of ``cos(left_i, right_j) > threshold``, computed as chunked sparse products."""
    import scipy.sparse as sp

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
