"""``mainblock``: hand-made pages for the rules that keep an article whole and tell an article from a page (the
prose of step 12, the pruning of steps 6 and 11, reviews and galleries as chrome, hidden pages, chunks, repeats)."""

from __future__ import annotations

import fce
from fce.blocks import blocks_of, subtree_sums
from fce.methods import mainblock as mb
from fce.parse import parse_page
from tests.test_methods_mainblock import FOOTER, LOREM, chrome, extract, extract_page, page, paras


def _region_keep(body: str):  # type: ignore[no-untyped-def]
    """The region's ``keep`` over ``<body>`` (step 11) and the page's block tree."""
    tree = blocks_of(parse_page(page(body)))
    return mb._region_keep(tree, subtree_sums(tree, mb._INLINE), 1, False), tree


def _index(tree, names: str) -> int:  # type: ignore[no-untyped-def]
    return next(i for i, path in enumerate(tree.columns.paths) if path.endswith(f"[{names}]"))


def test_a_paragraph_of_linked_names_is_not_prose() -> None:
    # a "kudos" line: hundreds of linked user names in an inline span, longer than the story; its link text lies in
    # the span, so the paragraph's own link density is low, but it is a link list, not prose beside the article
    names = ", ".join(f'<a href="/u/{i}">reader{i}</a>' for i in range(150))
    body = (f'{chrome()}<div class="work"><div class="chapter">{paras(6, "alpha")}</div></div>'
            f'<div id="kudos"><p class="kudos">Kudos from <span>{names}</span> and more.</p></div>{FOOTER}')
    text, info = extract_page(body)
    assert text.count("alpha") == 6 and "reader99" not in text
    assert info["page_type_reason"] == "article-prose"


def test_a_heading_is_not_prose() -> None:
    # an article of short lines (a blog in Chinese: none longer than a sibling paragraph's 80 characters) under a
    # banner whose long <h2> would otherwise be all the page's prose
    lines = "".join(f"<p>第{i}天，我們來到山上的營地，楓紅滿山，雲霧繚繞，令人難忘。</p>" for i in range(30))
    tagline = "A blog of camping trips in the mountains, with photographs of every site we visit. "
    banner = f"<h2>{tagline * 2}</h2>"
    body = f'<div id="banner">{banner}</div><div class="article-content">{lines}</div>'
    text, info = extract_page(body)
    assert text.count("營地") == 30 and "A blog of camping" not in text
    assert info["page_type"] == "article"


def test_a_furniture_named_block_holding_most_of_the_container_stays() -> None:
    # the story's paragraphs sit in a wrapper whose id names a share bar: it holds most of the container's text
    # (after a lead of more than RETRY_MIN_CHARS characters: the retry without names does not come to rescue it)
    body = (f'<div class="article"><h1>Harbour plan</h1>{paras(5, "lead")}'
            f'<div id="share-btns-container" class="wrapper">{paras(8, "alpha")}</div>'
            f'<div class="share">Share this story</div></div><div class="other"><div>{paras(1, "aside")}</div></div>')
    text = extract(body)
    assert text.count("lead") == 5 and text.count("alpha") == 8
    assert "Share this" not in text and "aside" not in text


def test_region_keeps_long_prose_sections_whatever_their_names_but_not_comments() -> None:
    # documentation sections named after their headings ("sharing-…"), a share bar, a long comment thread
    section = f'<div id="sharing-with-a-single-developer" class="section"><h2>Sharing</h2>{paras(20, "alpha")}</div>'
    comments = f'<div class="comments-list">{paras(20, "beta")}</div>'
    body = f'<div class="doc">{paras(20, "gamma")}{section}<div class="share">Share on Mastodon</div>{comments}</div>'
    keep, tree = _region_keep(body)
    assert keep(_index(tree, "#sharing-with-a-single-developer .section"))
    assert not keep(_index(tree, ".share"))
    assert not keep(_index(tree, ".comments-list"))


def test_region_leaves_out_galleries_and_reviews_even_when_they_hold_most_of_it() -> None:
    slides = "".join(f"<li><p>Slide {i}: {LOREM}, {LOREM}.</p></li>" for i in range(20))
    reviews = "".join(f'<div class="review"><p>Review {i}: {LOREM}, {LOREM}.</p></div>' for i in range(20))
    for box, names in ((f'<div class="full-gallery"><ul>{slides}</ul></div>', ".full-gallery"),
                       (f'<div class="product-reviews">{reviews}</div>', ".product-reviews")):
        keep, tree = _region_keep(f'<div class="story">{paras(2, "alpha")}</div>{box}')
        assert not keep(_index(tree, names))


def test_reader_reviews_are_not_the_product() -> None:
    # a product's description beside its customer reviews, whose list outscores it; a description shorter than
    # RETRY_MIN_CHARS too (the retry without names leaves the reviews found in chrome out as well)
    items = "".join(f'<div class="review"><p>Review {i}: {LOREM}, {LOREM}, great.</p></div>' for i in range(8))
    reviews = f'<div class="list">{items}</div>'
    for k in (6, 3):
        body = (f'{chrome()}<main><h1>The harbour lamp</h1><div class="description">{paras(k, "lamp")}</div>'
                f'<div class="product-reviews">{reviews}</div></main>{FOOTER}')
        assert "Review 3" not in extract(body)
        text, _ = extract_page(body)
        assert text.count("lamp The council") == k and "Review 3" not in text


def test_a_page_hidden_until_its_scripts_run_is_read_from_its_hidden_wrapper() -> None:
    body = f'<div id="next"><div style="visibility:hidden;min-height:100vh">{paras(4, "alpha")}</div></div>'
    text, info = extract_page(body)
    assert text.count("alpha") == 4 and info["noscript"] is True
    # a page that shows its content keeps its hidden blocks out
    text, info = extract_page(f'<div>{paras(4, "alpha")}</div><div hidden>{paras(2, "beta")}</div>')
    assert "beta" not in text and "noscript" not in info


def test_a_short_chunk_of_the_article_with_the_same_names_is_joined() -> None:
    # an article cut into sections by rules: the first section is short (a fifth of the main one's score, less
    # than readability's sibling share) but has the sections' names
    section = '<section class="ef"><div class="np"><div class="txt">{}</div></div></section>'
    body = (f'<article><div>{section.format(paras(2, "first"))}<hr>'
            f'{section.format(paras(30, "second"))}</div></article><div class="other">{paras(1, "aside")}</div>')
    text = extract(body)
    assert text.count("first") == 2 and text.count("second") == 30 and "aside" not in text
    assert text.index("first") < text.index("second")


def test_parts_with_the_same_path_end_under_other_wrappers_are_joined() -> None:
    # the article's first part sits under a differently named wrapper than its later parts (the page's lead
    # section): the last steps of the path (tags and names) are the same, the path from the root is not
    part = '<div class="outer"><div class="mha"><div class="section"><div class="body">{}</div></div></div></div>'
    body = (f'<div class="lead-wrapper">{part.format(paras(4, "first"))}</div><div class="rail">ads</div>'
            f'<div class="acf"><div class="x">{part.format(paras(4, "second"))}</div></div>'
            f'<div class="acf"><div class="y">{part.format(paras(3, "third"))}</div></div>')
    text = extract(body)
    assert text.count("first") == 4 and text.count("second") == 4 and text.count("third") == 3


def test_nested_boxes_with_the_same_unnamed_path_end_are_not_joined_twice() -> None:
    # tables in tables: the inner box's path ends as the container's does, but lies inside it (and says nothing
    # of a template: no names); it comes out once, with the container
    inner = f"<div><table><tr><td>{paras(2, 'beta')}</td></tr></table></div>"
    body = f"<div><div><table><tr><td>{paras(4, 'alpha')}{inner}</td></tr></table></div></div>"
    text = extract(body)
    assert text.count("beta The council") == 2


def test_chunks_whose_names_differ_by_a_modifier_class_are_joined() -> None:
    # the first chunk of the article carries one more class than the others; a sibling box of another kind stays out
    body = (f'<article><div class="intro">Read on</div><div class="bodytext section version"><div>{paras(6, "first")}'
            f'</div></div><div class="bodyimage section"><div>{paras(1, "photo")}</div></div>'
            f'<div class="bodytext section"><div>{paras(3, "second")}</div></div></article>'
            f'<div class="other"><div>{paras(1, "aside")}</div></div>')
    text = extract(body)
    assert text.count("first") == 6 and text.count("second") == 3
    assert "photo" not in text and "aside" not in text
    assert mb._same_kind(".bodytext .section", ".bodytext .section .version")
    assert not mb._same_kind(".bodyimage .section", ".bodytext .section .version")


def test_nothing_inside_a_template_is_read_as_what_the_page_shows() -> None:
    # a <template>'s content is never shown, with scripts or without: neither its <noscript> nor a hidden block in
    # it is the text of a page that shows next to nothing (the robustness properties found the <noscript> case)
    for inside in ("<noscript><p>Words of a template that no reader sees.</p></noscript>",
                   "<div hidden><p>Words of a template that no reader sees.</p></div>"):
        assert fce.extract(parse_page(f"<html><body><template>{inside}</template></body></html>"), None).text == ""
    shown = "<noscript><p>Words the page shows without its scripts.</p></noscript>"
    assert fce.extract(parse_page(f"<html><body><p>x</p>{shown}</body></html>"), None).text == (
        "Words the page shows without its scripts.")
