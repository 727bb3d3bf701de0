"""fce.content_extractor: ContentExtractor's noise/content labels and its occurrence threshold."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fce import content_extractor
from fce.blocks import blocks_of
from fce.content_extractor import MERGED, PAIRWISE, ContentExtractor, occurrence_threshold
from fce.features import FEATURES_COMPILED
from fce.parse import parse_page
from tests.sitegen import generate_site


def page(article: str) -> object:
    return parse_page(
        f"<html><body><ul><li>Home</li><li>World</li></ul><div><p>{article}</p></div>"
        "<div>Copyright 2026 Example News</div></body></html>".encode()
    )


ARTICLES = [
    "The council voted on the harbour plan today after a long debate.",
    "A storm closed schools across the region on Monday morning.",
    "Scientists found a new species of frog in the rainforest.",
    "The museum opened a new wing for modern art this weekend.",
]


def test_repeated_blocks_are_noise_unique_blocks_content():
    ce = ContentExtractor().fit([page(a) for a in ARTICLES])
    for i, article in enumerate(ARTICLES):
        texts = [b.text for b in ce.content_blocks(i)]
        assert texts == [article]


def test_occurrences_count_pages_with_a_similar_block():
    ce = ContentExtractor().fit([page(a) for a in ARTICLES])
    tree, occ = ce.trees_[0], ce.occurrences_[0]
    by_text = {b.text: int(occ[b.index]) for b in tree if b.text}
    assert by_text["Home"] == 4 and by_text["Copyright 2026 Example News"] == 4
    assert by_text[ARTICLES[0]] == 1


def test_near_duplicates_count_as_similar():
    pages = [page(a) for a in ARTICLES]
    # one word more than the footer: cosine 4/sqrt(4*5) = 0.89 is not similar; a long near-copy is
    pages.append(parse_page(b"<html><body><div>Copyright 2026 Example News Ltd</div></body></html>"))
    near = "The council voted on the harbour plan today after a long and heated debate."
    pages.append(page(near))
    ce = ContentExtractor().fit(pages)
    assert ce.is_content_[4].any()
    assert [b.text for b in ce.content_blocks(5)] == []  # similar to ARTICLES[0] on another page


def test_comparisons_counted_per_strategy():
    pages = [page(a) for a in ARTICLES]
    merged = ContentExtractor().fit(pages)
    pairwise = ContentExtractor(comparison=PAIRWISE).fit(pages)
    n_blocks = sum(1 for tree in merged.trees_ for b in tree if b.text)
    assert pairwise.n_comparisons_ == n_blocks * n_blocks
    assert merged.n_comparisons_ == len(merged.distinct_.keys) ** 2
    assert merged.n_comparisons_ < pairwise.n_comparisons_  # the navigation and footer are merged


def test_unknown_comparison_is_refused():
    with pytest.raises(ValueError, match="comparison"):
        ContentExtractor(comparison="sampled").fit([page(a) for a in ARTICLES])


def assert_same_labels(trees):
    merged = ContentExtractor(comparison=MERGED).fit(trees)
    pairwise = ContentExtractor(comparison=PAIRWISE).fit(trees)
    assert merged.threshold_ == pairwise.threshold_
    for a, b in zip(merged.occurrences_, pairwise.occurrences_, strict=True):
        np.testing.assert_array_equal(a, b)
    for a, b in zip(merged.is_content_, pairwise.is_content_, strict=True):
        np.testing.assert_array_equal(a, b)
    return pairwise


def test_pairwise_is_the_paper_statement_on_the_fixture():
    pairwise = assert_same_labels([page(a) for a in ARTICLES])
    for i, article in enumerate(ARTICLES):
        assert [b.text for b in pairwise.content_blocks(i)] == [article]


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_merged_comparison_equals_the_pairwise_one_on_generated_sites(seed):
    site = generate_site(f"ce{seed}.example", 12, seed=seed)
    assert_same_labels([parse_page(p.html, url=p.url) for p in site])


def test_identical_blocks_without_terms_are_similar():
    # "/" and "→" have no term and no count: their vectors are zero, their cosine undefined. Identical blocks are
    # the same block in both comparisons; different term-less blocks are not similar to each other.
    pages = [parse_page(f"<html><body><p>{a}</p><div>/</div><div>→</div></body></html>".encode()) for a in ARTICLES]
    pages.append(parse_page("<html><body><p>Alone here today</p><div>→</div></body></html>".encode()))
    pairwise = assert_same_labels(pages)
    by_text = {b.text: int(pairwise.occurrences_[0][b.index]) for b in pairwise.trees_[0] if b.text}
    assert by_text["/"] == 4 and by_text["→"] == 5


WORDS = ["harbour", "council", "storm", "the", "a", "vote", "plan", "frog", "rain", "art"]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(st.lists(st.sampled_from(WORDS), min_size=0, max_size=6), min_size=1, max_size=5),
                min_size=2, max_size=6))
def test_merged_comparison_equals_the_pairwise_one_on_random_pages(pages):
    # a ten-word vocabulary makes many cosines fall near the 0.9 threshold, on both sides of it
    trees = [
        parse_page(("<html><body>" + "".join(f"<p>{' '.join(words) or '.'}</p>" for words in blocks)
                    + "</body></html>").encode())
        for blocks in pages
    ]
    assert_same_labels(trees)


@pytest.mark.skipif(not FEATURES_COMPILED, reason="fce._features is not built")
@pytest.mark.parametrize("seed", [0, 1])
def test_compiled_page_counts_are_the_sparse_products(seed, monkeypatch):
    # the pages of similar blocks counted from the search's pairs equal the sparse product that defines them
    site = generate_site(f"occ{seed}.example", 10, seed=seed)
    trees = [blocks_of(parse_page(p.html, url=p.url)) for p in site]
    distinct = content_extractor._distinct_blocks(trees)
    counted, searched = content_extractor._page_occurrences(distinct, len(trees), 0.9)
    monkeypatch.setattr(content_extractor, "FEATURES_COMPILED", False)
    product, multiplied = content_extractor._page_occurrences(distinct, len(trees), 0.9)
    np.testing.assert_array_equal(counted, product)
    assert counted.dtype == product.dtype == np.int64 and counted.max() == len(trees)  # the navigation recurs
    # and the similar pairs kept for the noise blocks are the product's
    pairs = [sorted(zip(rows.tolist(), cols.tolist(), strict=True)) for rows, cols in (searched, multiplied)]
    assert pairs[0] == pairs[1] and pairs[0]
    assert all(a.dtype == np.int32 for a in (*searched, *multiplied))


@pytest.mark.parametrize(("n", "expected"), [(1, 1), (2, 2), (10, 2), (30, 2), (60, 3), (100, 5)])
def test_occurrence_threshold(n, expected):
    assert occurrence_threshold(n) == expected


def test_output_order_is_post_order_as_in_figure_3():
    html = b"<html><body><p>Start <span>middle words</span> end</p></body></html>"
    other = b"<html><body><p>Another page entirely</p></body></html>"
    ce = ContentExtractor().fit([parse_page(html), parse_page(other)])
    assert [b.text for b in ce.content_blocks(0)] == ["middle words", "Start end"]
