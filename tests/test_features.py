"""fce.features: block vectors, the similarity test, and their compiled parts (``fce/_features.pyx``), which must
give exactly what scikit-learn's ``HashingVectorizer`` and the sparse product give."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from fce import features
from fce._accel import NO_ACCEL_ENV, switched_off
from fce.blocks import blocks_of
from fce.content_extractor import block_counts
from fce.parse import parse_page
from tests.sitegen import generate_site

compiled = pytest.mark.skipif(not features.FEATURES_COMPILED, reason="fce._features is not built")


def test_the_compiled_features_are_built():
    # like the compiled segmentation (tests/test_blocks.py): the suite must not quietly test the fallback only
    if switched_off():
        assert not features.FEATURES_COMPILED
        return
    assert features.FEATURES_COMPILED, ("fce._features is not built: reinstall with a C compiler (pip install -e .),"
                                        f" or set {NO_ACCEL_ENV}=1 to test the Python code only")


def site_blocks(seed: int = 0, n_pages: int = 8) -> tuple[list[str], list[tuple[int, ...]]]:
    texts, counts = [], []
    for page in generate_site(f"features{seed}.example", n_pages, seed=seed):
        for block in blocks_of(parse_page(page.html, url=page.url)).blocks:
            if block.text:
                texts.append(block.text)
                counts.append(block_counts(block))
    return texts, counts


def assert_same_csr(got: sp.csr_matrix, want: sp.csr_matrix) -> None:
    assert got.shape == want.shape
    np.testing.assert_array_equal(got.indptr, want.indptr)
    np.testing.assert_array_equal(got.indices, want.indices)
    np.testing.assert_array_equal(got.data, want.data)
    assert got.data.dtype == want.data.dtype


# --- term hashing -------------------------------------------------------------------------------------------------


@compiled
@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=40), st.integers(0, 2**32 - 1))
def test_murmurhash_is_scikit_learns(data, seed):
    from sklearn.utils import murmurhash3_32

    from fce import _features  # type: ignore[attr-defined]

    assert _features.murmurhash3_32(data, seed) == murmurhash3_32(data, seed=seed)


# every code point: letters of all scripts, digits, marks, "_", punctuation, lone surrogates (never part of a word;
# a text holding one has no UTF-8 form), characters whose lower case is longer ("İ")
ANY_TEXT = st.text(alphabet=st.characters(codec=None, exclude_categories=()), max_size=40)
WORDY_TEXT = st.text(alphabet=st.sampled_from("aZé_9 İß\u2163\u0663\U0001d7d8\ud800,.-\t\u00a0"), max_size=40)
# ASCII only (read byte by byte by the compiled hashing): every ASCII character, and words of mixed case
ASCII_TEXT = st.text(alphabet=st.characters(max_codepoint=127), max_size=60)
ASCII_WORDS = st.lists(st.sampled_from(["The", "a", "STORM", "x_1", "42", "_", "Zz", "@", "-", " ", "\t", "\n"]),
                       max_size=30).map("".join)


@compiled
@settings(max_examples=500, deadline=None)
@given(st.lists(st.one_of(ANY_TEXT, WORDY_TEXT, ASCII_TEXT, ASCII_WORDS), min_size=1, max_size=6))
def test_compiled_terms_are_the_hashing_vectorizers(texts):
    from fce import _features  # type: ignore[attr-defined]

    want = features._vectorizer().transform(texts)
    data, indices, indptr = _features.hashed_terms(texts, features.N_TERM_FEATURES)
    assert_same_csr(sp.csr_matrix((data, indices, indptr), shape=want.shape), want)


@compiled
@settings(max_examples=100, deadline=None)
@given(st.lists(st.lists(st.sampled_from(["the", "a", "storm", "Vote", "Plan", "café", "x_1", "42", "Ünï", "ßig"]
                                         + [f"w{i}" for i in range(60)]), min_size=0, max_size=400),
                min_size=1, max_size=4))
def test_compiled_terms_of_long_blocks(blocks):
    # rows longer than the insertion sort's limit are sorted by qsort: the same matrix
    from fce import _features  # type: ignore[attr-defined]

    texts = [" ".join(words) for words in blocks]
    want = features._vectorizer().transform(texts)
    data, indices, indptr = _features.hashed_terms(texts, features.N_TERM_FEATURES)
    assert_same_csr(sp.csr_matrix((data, indices, indptr), shape=want.shape), want)


@compiled
def test_one_huge_block_is_not_quadratic():
    # a 10 MB page of text in one element is one block: its terms are sorted in n log n (insertion sort took 1 s
    # for 80,000 words and would take minutes here)
    import time

    rng = np.random.default_rng(0)
    text = " ".join(f"w{i}" for i in rng.integers(0, 2_000_000, size=400_000))
    start = time.process_time()
    vectors = features.block_vectors([text, text[:500], "w1 w2"], [(0,) * len(features.COUNT_FEATURES)] * 3)
    features.self_similar_pairs(vectors)
    assert time.process_time() - start < 10


@compiled
def test_compiled_terms_on_a_generated_site():
    texts, _ = site_blocks()
    assert_same_csr(features.hashed_terms(texts), features._vectorizer().transform(texts))


@compiled
def test_hashed_terms_refuses_no_features():
    from fce import _features  # type: ignore[attr-defined]

    with pytest.raises(ValueError, match="n_features"):
        _features.hashed_terms(["a"], 0)


def test_block_vectors_compiled_or_not(monkeypatch):
    texts, counts = site_blocks(seed=1)
    got = features.block_vectors(texts, counts)
    monkeypatch.setattr(features, "_FEATURES", None)
    assert_same_csr(got, features.block_vectors(texts, counts))
    np.testing.assert_allclose(sp.linalg.norm(got, axis=1), 1.0, rtol=1e-6)


# --- the similar pairs of a set -----------------------------------------------------------------------------------


def product_pairs(vectors: sp.csr_matrix, threshold: float) -> set[tuple[int, int]]:
    product = features.similar_pairs(vectors, vectors, threshold).tocoo()
    return set(zip(product.row.tolist(), product.col.tolist(), strict=True))


def searched_pairs(vectors: sp.csr_matrix, threshold: float) -> set[tuple[int, int]]:
    found = features.self_similar_pairs(vectors, threshold)
    assert found.dtype == np.int8 and found.shape == (vectors.shape[0],) * 2 and (found.data == 1).all()
    coo = found.tocoo()
    pairs = set(zip(coo.row.tolist(), coo.col.tolist(), strict=True))
    assert len(pairs) == found.nnz  # no pair twice
    return pairs


@compiled
@pytest.mark.parametrize("threshold", [-0.5, 0.0, 0.3, 0.9, 0.99, 1.0, 1.5])
def test_similar_pairs_searched_as_the_product_finds_them(threshold):
    texts, counts = site_blocks(seed=2)
    vectors = features.block_vectors(texts, counts)
    want = product_pairs(vectors, threshold)
    assert searched_pairs(vectors, threshold) == want
    if threshold == 0.9:
        assert any(i != j for i, j in want)  # the site's navigation repeats: the test has pairs to find


WORDS = ["harbour", "council", "storm", "the", "a", "vote", "plan", "frog", "rain", "art", "of", "and"]


@compiled
@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.lists(st.sampled_from(WORDS), max_size=12),
                          st.tuples(*[st.integers(0, 3)] * len(features.COUNT_FEATURES))),
                min_size=1, max_size=25),
       st.sampled_from([0.5, 0.8, 0.9, 0.95]))
def test_similar_pairs_near_the_threshold(blocks, threshold):
    # a twelve-word vocabulary and small counts put many cosines close to the threshold, on both sides
    vectors = features.block_vectors([" ".join(words) for words, _ in blocks], [c for _, c in blocks])
    assert searched_pairs(vectors, threshold) == product_pairs(vectors, threshold)


@compiled
@settings(max_examples=100, deadline=None)
@given(st.lists(st.lists(st.sampled_from([f"w{i}" for i in range(80)]), min_size=20, max_size=200),
                min_size=2, max_size=12), st.sampled_from([0.5, 0.9]))
def test_similar_pairs_of_long_blocks(blocks, threshold):
    # rows with more terms than the insertion sort's limit, most of them shared: the prefix order comes from qsort
    vectors = features.block_vectors([" ".join(words) for words in blocks], [(0,) * 5] * len(blocks))
    assert searched_pairs(vectors, threshold) == product_pairs(vectors, threshold)


@compiled
@settings(max_examples=200, deadline=None)
@given(st.integers(1, 40), st.integers(1, 30), st.floats(0.05, 0.6), st.integers(0, 2**31), st.floats(0.0, 0.99))
def test_similar_pairs_of_random_unit_rows(n_rows, n_cols, density, seed, threshold):
    rows = sp.random(n_rows, n_cols, density=density, format="csr", dtype=np.float32, random_state=seed)
    norms = np.sqrt(np.asarray(rows.multiply(rows).sum(axis=1)).ravel())
    rows = sp.csr_matrix(sp.diags(np.where(norms > 0, 1 / np.where(norms > 0, norms, 1), 0)) @ rows, dtype=np.float32)
    assert searched_pairs(rows, threshold) == product_pairs(rows, threshold)


def test_similar_pairs_of_nothing():
    empty = sp.csr_matrix((0, features.N_TERM_FEATURES + len(features.COUNT_FEATURES)), dtype=np.float32)
    assert features.self_similar_pairs(empty).shape == (0, 0)
    zero = sp.csr_matrix((3, 10), dtype=np.float32)  # blocks without a term or a count: similar to nothing
    assert features.self_similar_pairs(zero).nnz == 0


@pytest.mark.parametrize("texts", [[], [""], ["...", "a b a"], ["Ünïcode wörds ß İ", "x_y 42"]])
def test_block_vectors_of_edge_cases_compiled_or_not(texts, monkeypatch):
    counts = [(i, 0, 2 * i, 0, 1) for i in range(len(texts))]
    got = features.block_vectors(texts, counts)
    monkeypatch.setattr(features, "_FEATURES", None)
    assert_same_csr(got, features.block_vectors(texts, counts))


@compiled
@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.one_of(ANY_TEXT, WORDY_TEXT),
                          st.tuples(*[st.integers(0, 10**6)] * len(features.COUNT_FEATURES))), max_size=8))
def test_compiled_block_vectors_are_scikit_learns(blocks):
    texts, counts = [t for t, _ in blocks], [c for _, c in blocks]
    got = features.block_vectors(texts, counts)
    compiled_parts = features._FEATURES
    try:
        features._FEATURES = None
        want = features.block_vectors(texts, counts)
    finally:
        features._FEATURES = compiled_parts
    assert_same_csr(got, want)


# --- the pages of similar blocks (ContentExtractor's occurrence counts) --------------------------------------------


def product_page_counts(vectors: sp.csr_matrix, block_pages: list[list[int]], n_pages: int,
                        threshold: float) -> np.ndarray:
    """The definition: nonzeros per row of (similar pairs, and each block with itself) · (block-page incidence)."""
    n = vectors.shape[0]
    similar = features.similar_pairs(vectors, vectors, threshold).astype(np.int32)
    similar = similar.maximum(sp.identity(n, dtype=np.int32, format="csr"))
    rows = [b for b, pages in enumerate(block_pages) for _ in pages]
    cols = [p for pages in block_pages for p in pages]
    incidence = sp.csr_matrix((np.ones(len(rows), dtype=np.int32), (rows, cols)), shape=(n, n_pages))
    return np.diff((similar @ incidence).tocsr().indptr)


def counted_pages(vectors: sp.csr_matrix, block_pages: list[list[int]], n_pages: int,
                  threshold: float) -> np.ndarray:
    indptr = np.cumsum([0] + [len(p) for p in block_pages])
    pages = np.asarray([p for ps in block_pages for p in sorted(ps)], dtype=np.int64)
    return features.similar_page_counts(features.self_similar_arrays(vectors, threshold), indptr, pages, n_pages)


@compiled
@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.lists(st.sampled_from(WORDS), max_size=8),
                          st.sets(st.integers(0, 6), min_size=1, max_size=4)), min_size=1, max_size=25),
       st.sampled_from([0.5, 0.9]))
def test_similar_page_counts_are_the_products(blocks, threshold):
    vectors = features.block_vectors([" ".join(words) for words, _ in blocks], [(0,) * 5] * len(blocks))
    block_pages = [sorted(pages) for _, pages in blocks]
    got = counted_pages(vectors, block_pages, 7, threshold)
    np.testing.assert_array_equal(got, product_page_counts(vectors, block_pages, 7, threshold))
    assert got.dtype == np.int64
    assert all(c >= len(pages) for c, pages in zip(got.tolist(), block_pages, strict=True))


@compiled
def test_similar_page_counts_refuse_what_does_not_index():
    vectors = features.block_vectors(["a b", "c"], [(0,) * 5] * 2)
    rows, cols = features.self_similar_arrays(vectors)
    compiled_counts = features._FEATURES.similar_page_counts
    ok = np.asarray([0, 1, 2], dtype=np.int64)
    assert compiled_counts(rows, cols, ok, np.asarray([0, 1], dtype=np.int64), 2).tolist() == [1, 1]
    with pytest.raises(ValueError, match="page index"):
        compiled_counts(rows, cols, ok, np.asarray([0, 2], dtype=np.int64), 2)
    with pytest.raises(ValueError, match="does not index"):
        compiled_counts(rows, cols, np.asarray([0, 1, 3], dtype=np.int64), np.asarray([0, 1], dtype=np.int64), 2)
    with pytest.raises(ValueError, match="decrease"):
        compiled_counts(rows, cols, np.asarray([0, 2, 1], dtype=np.int64), np.asarray([0, 1], dtype=np.int64), 2)
    with pytest.raises(ValueError, match="not there"):
        compiled_counts(np.asarray([5], dtype=np.int32), np.asarray([0], dtype=np.int32), ok,
                        np.asarray([0, 1], dtype=np.int64), 2)


# --- the bytes of a page's canonical key (fce.layouts) -------------------------------------------------------------

KEY_TEXT = st.text(st.characters(min_codepoint=0, max_codepoint=0x10FFFF), max_size=12)  # surrogates included


@compiled
@settings(max_examples=500, deadline=None)
@given(st.lists(st.tuples(KEY_TEXT, KEY_TEXT), max_size=10))
def test_keyed_stream_is_the_joined_encodings(pairs):
    paths, texts = [p for p, _ in pairs], [t for _, t in pairs]
    want = b"".join(p.encode("utf-8", "surrogatepass") + b"\0" + t.encode("utf-8", "surrogatepass") + b"\1"
                    for p, t in pairs)
    assert features._FEATURES.keyed_stream(paths, texts) == want


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(KEY_TEXT, KEY_TEXT), max_size=10))
def test_keyed_stream_is_the_same_compiled_or_not(pairs):
    paths, texts = [p for p, _ in pairs], [t for _, t in pairs]
    got = features.keyed_stream(paths, texts)
    compiled_features = features._FEATURES
    features._FEATURES = None
    try:
        assert features.keyed_stream(paths, texts) == got
        with pytest.raises(ValueError, match="same length"):
            features.keyed_stream(paths, [*texts, "x"])
    finally:
        features._FEATURES = compiled_features


@compiled
def test_keyed_stream_refuses_what_is_not_pairs_of_strings():
    with pytest.raises(ValueError, match="same length"):
        features._FEATURES.keyed_stream(["a"], [])
    with pytest.raises(TypeError, match="str"):
        features._FEATURES.keyed_stream(["a"], [b"x"])


@compiled
@given(st.lists(st.tuples(*[st.integers(0, 2**40)] * 5), max_size=20), st.booleans())
def test_count_table_is_numpys(rows, as_lists):
    from fce import _features  # type: ignore[attr-defined]

    given_rows = [list(r) for r in rows] if as_lists else rows
    got = _features.count_table(given_rows, 5)
    np.testing.assert_array_equal(got, np.asarray(rows, dtype=np.float64).reshape(len(rows), 5))
    assert got.dtype == np.float64 and got.flags.c_contiguous


@compiled
def test_count_table_refuses_rows_of_another_width():
    from fce import _features  # type: ignore[attr-defined]

    with pytest.raises(ValueError, match="row 1 has 4 counts, not 5"):
        _features.count_table([(0,) * 5, (0,) * 4], 5)
    with pytest.raises(ValueError):
        features.block_vectors(["a", "b"], [(0,) * 5, (1,) * 6])


@pytest.mark.parametrize("compiled", [True, False])
def test_index_of_numbers_items_in_order_of_first_sight(compiled, monkeypatch):
    if not compiled:
        monkeypatch.setattr(features, "_FEATURES", None)
    elif features._FEATURES is None:
        pytest.skip("fce._features is not built")
    table = {"b": 0}
    got = features.index_of(["a", "b", "a", "c"], table)
    assert got.tolist() == [1, 0, 1, 2] and got.dtype == np.int64
    assert table == {"b": 0, "a": 1, "c": 2}
    assert features.index_of([], table).tolist() == []
