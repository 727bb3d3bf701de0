"""fce.content_extractor: ContentExtractor's noise/content labels and its occurrence threshold."""

import pytest

from fce.content_extractor import ContentExtractor, occurrence_threshold
from fce.parse import parse_page


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


def test_comparisons_are_all_pairs():
    ce = ContentExtractor().fit([page(a) for a in ARTICLES])
    n = sum(int((k >= 0).sum()) for k in ce.distinct_.key_of)
    assert ce.n_comparisons_ == n * n


@pytest.mark.parametrize(("n", "expected"), [(1, 1), (2, 2), (10, 2), (30, 2), (60, 3), (100, 5)])
def test_occurrence_threshold(n, expected):
    assert occurrence_threshold(n) == expected


def test_output_order_is_post_order_as_in_figure_3():
    html = b"<html><body><p>Start <span>middle words</span> end</p></body></html>"
    other = b"<html><body><p>Another page entirely</p></body></html>"
    ce = ContentExtractor().fit([parse_page(html), parse_page(other)])
    assert [b.text for b in ce.content_blocks(0)] == ["middle words", "Start end"]
