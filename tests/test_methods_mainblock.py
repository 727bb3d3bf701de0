"""``mainblock`` (``fce/methods/mainblock.py``): hand-made pages whose expected output follows from its rules."""

from __future__ import annotations

from fce.blocks import blocks_of, subtree_sums
from fce.methods import get_method
from fce.methods import mainblock as mb
from fce.parse import parse_page

#: Sentences long enough (> MIN_PARAGRAPH_CHARS, with commas) to score as paragraphs.
LOREM = "The council met on Monday, and after a long debate, it approved the plan for the new harbour"


def para(tag: str = "p", n: int = 1, word: str = "alpha", attrs: str = "") -> str:
    return f"<{tag}{attrs}>{word} {LOREM} {n}, again.</{tag}>"


def paras(k: int, word: str, tag: str = "p") -> str:
    return "".join(para(tag, n, word) for n in range(k))


def page(body: str, head: str = "") -> bytes:
    return f"<html><head>{head}</head><body>{body}</body></html>".encode()


def extract(body: str) -> str:
    """The article scoring's text (steps 1–10, :func:`~fce.methods.mainblock.select_main`)."""
    return "\n".join(b.text for b in mb.select_main(blocks_of(parse_page(page(body)))))


def extract_page(body: str, **kwargs: bool) -> tuple[str, dict[str, object]]:
    """What the registered method gives (the page's kind chosen, steps 11–14): text and ``info``."""
    found = mb.extract_page(parse_page(page(body)), **kwargs)
    return "\n".join(b.text for b in found), found.info


def nav(k: int = 8) -> str:
    return "<ul>" + "".join(f'<li><a href="/s{i}">Section number {i}</a></li>' for i in range(k)) + "</ul>"


def test_registered_with_its_parameters() -> None:
    info = get_method("mainblock")
    assert info.params["min_paragraph_chars"] == mb.MIN_PARAGRAPH_CHARS == 25
    assert info.params["top_candidates"] == mb.TOP_CANDIDATES == 5
    assert info.params["retry_min_chars"] == mb.RETRY_MIN_CHARS == 500


def test_the_container_of_the_paragraphs_wins_over_navigation() -> None:
    text = extract(f'<div class="menu">{nav()}</div><div>{paras(4, "alpha")}</div><div>{para(word="beta")}</div>')
    assert text.count("alpha") == 4
    assert "Section number" not in text


def test_headline_just_outside_the_container_comes_first() -> None:
    text = extract(f'<div><h1>Harbour plan approved</h1><div>{paras(4, "alpha")}</div></div>')
    assert text.splitlines()[0] == "Harbour plan approved"
    assert text.count("alpha") == 4


def test_link_lists_and_furniture_inside_the_container_are_left_out() -> None:
    body = (f'<div>{paras(4, "alpha")}{nav()}'
            f'<div class="related">{para(word="furniture")}</div>'
            f'<p class="related">{para("span", word="kept")}</p></div>')  # fmt: skip
    text = extract(body)
    assert text.count("alpha") == 4
    assert "Section number" not in text  # link density 1 > MAX_LINK_DENSITY
    assert "furniture" not in text  # a box named as furniture
    assert "kept" in text  # a <p> stays whatever its name


def test_bylines_dates_captions_and_short_boxes_are_left_out() -> None:
    long_meta = "meta " * 50  # more than META_MAX_CHARS: a wrapper, not a byline
    body = (f'<div><div class="byline">By Jane Doe</div><p>Published <span class="date">Nov. 19, 2019</span></p>'
            f'{paras(3, "alpha")}<div class="photo-caption">A harbour, seen from above, at dawn today</div>'
            f'<div>Share this</div><p>Short.</p>'
            f'<div class="article-meta">{long_meta}</div></div>')  # fmt: skip
    text = extract(body)
    assert text.count("alpha") == 3
    for gone in ("Jane Doe", "Nov. 19", "seen from above", "Share this"):
        assert gone not in text
    assert "Published" in text and "Short." in text  # the paragraph stays, only its date span goes
    assert "meta meta" in text


def test_split_boxes_of_equal_score_are_joined_at_their_common_ancestor() -> None:
    # Four boxes, each a <div> around a <div> of paragraphs: the inner divs score alike (≥ ALTERNATIVE_SHARE of
    # the best), so the nearest ancestor holding at least MIN_ALTERNATIVES of them is extracted (Readability.js).
    boxes = "".join(f"<div><div>{paras(2, f'box{i}')}</div></div>" for i in range(4))
    text = extract(f"<div>{boxes}</div><div>{nav()}</div>")
    assert all(text.count(f"box{i}") == 2 for i in range(4))
    assert "Section number" not in text


def test_two_boxes_are_not_enough_to_join() -> None:
    # (told apart by their names: with the same path the second would come as a repeat, see below)
    boxes = f'<div class="a"><div>{paras(3, "first")}</div></div><div class="b"><div>{paras(3, "later")}</div></div>'
    text = extract(f"<div>{boxes}</div>")
    assert text.count("first") == 3 and "later" not in text  # equal scores: the first in document order


def test_promotion_climbs_to_an_ancestor_scoring_more_than_the_one_below() -> None:
    tree = blocks_of(parse_page(page("<div><div><div><p>x</p></div></div></div>")))
    outer, middle, inner = (b.index for b in tree.blocks if b.tag == "div")
    # inner is best; middle keeps more than a third of it, outer scores more than middle: outer wins.
    assert mb._promote(tree.columns, inner, {inner: 90.0, middle: 40.0, outer: 60.0}) == outer
    # below a third of the last score the climb stops.
    assert mb._promote(tree.columns, inner, {inner: 90.0, middle: 20.0, outer: 60.0}) == inner


def test_chunks_of_an_article_with_the_same_names_are_joined() -> None:
    chunk = '<div class="chunk"><div class="body">{}</div></div>'
    body = (f'<div>{chunk.format(paras(3, "first"))}<div class="rail">{nav()}</div>'
            f'{chunk.format(paras(3, "second"))}<div class="other"><div>{paras(1, "aside")}</div></div></div>')
    text = extract(body)
    assert text.count("first") == 3 and text.count("second") == 3
    assert text.index("first") < text.index("second")
    assert "Section number" not in text and "aside" not in text


def test_containers_with_the_same_path_further_away_are_joined() -> None:
    # The two parts of the article sit four levels apart (too far for the chunks, only two parts for the
    # promotion): the second has exactly the path of the best container and scores as much, so it comes too.
    part = '<div class="scale"><div class="outer"><div class="mha"><div class="body">{}</div></div></div></div>'
    body = (f'<div class="page">{part.format(paras(3, "first"))}<div class="rail">{nav()}</div>'
            f'{part.format(paras(3, "second"))}<div class="other"><div class="body">{paras(2, "aside")}</div></div>'
            f'</div>')  # fmt: skip
    text = extract(body)
    assert text.count("first") == 3 and text.count("second") == 3
    assert text.index("first") < text.index("second")
    assert "Section number" not in text and "aside" not in text  # another path, however named


def test_loose_text_beside_sub_blocks_scores_to_its_own_box() -> None:
    # The article is loose text in a box that also holds a heading and a share bar; its parent holds a long menu.
    # Scored to the parent (link density near 1) the article would lose to the footer's paragraph; wrapped into
    # <p>s inside its box, as readability does, it wins.
    loose = f"{LOREM} 1, again. {LOREM} 2, and more.<br>{LOREM} 3, at last."
    body = (f'<div class="row"><div class="col">{nav(30)}</div>'
            f'<div class="col"><h2>Harbour plan</h2>{loose}<div class="tools">Facebook Twitter</div></div></div>'
            f'<div class="bottom"><div>Harbour Street 1, Springfield, phone 555, open daily, all welcome</div></div>')
    text = extract(body)
    assert "approved the plan for the new harbour 3" in text
    assert "Harbour Street" not in text and "Section number" not in text


def test_loose_text_inside_furniture_still_scores_to_the_parent() -> None:
    # A long comment whose text sits beside a quote: inside a box named as furniture it is not wrapped into its
    # own box (readability would not score it at all), so it does not outscore the article.
    # Its commas score 26 points: to its own box (5 + 26, + 5 of the quote) it would beat the article's
    # 5 + 5 × 5; to the furniture-named parent (5 − 25 + 26) it does not.
    comment = ", ".join(f"reader view number {i}" for i in range(12))
    body = (f'<div class="col">{paras(5, "alpha")}</div>'
            f'<div class="comments"><div class="text">{comment}<blockquote>{LOREM}</blockquote>{comment}</div></div>')
    text = extract(body)
    assert text.count("alpha") == 5 and "reader view" not in text


def test_iframe_fallback_text_neither_scores_nor_appears() -> None:
    # The text between <iframe> tags is never shown (a browser displays the framed page): neither inside the
    # article nor as a rival container, however long and comma-rich.
    ad = "<iframe src='/ad'>" + ", ".join(f"buy cheap thing number {i}" for i in range(30)) + "</iframe>"
    text = extract(f'<div class="col">{paras(3, "alpha")}{ad}</div><div class="ad">{ad}{ad}</div>')
    assert text.count("alpha") == 3
    assert "buy cheap" not in text


def test_siblings_are_pruned_like_the_container_inside() -> None:
    # Beside the article's box: a print-only copy of the URL and a byline, each long enough to pass as a
    # sibling paragraph, each pruned as it would be inside the container (META_NAME_PARTS, short).
    url = "https://www.example.com/news/article/Harbour-plan-approved-after-a-long-debate-14848175.php"
    body = (f'<div class="page"><div class="print-header"><span>{url}</span></div>'
            f'<div class="byline">By Jane Doe, Staff Writer, with reporting from the harbour office today</div>'
            f'<div class="body">{paras(4, "alpha")}</div>'
            f'<p>A plain paragraph after the article, long enough to count as one on its own here.</p></div>')
    text = extract(body)
    assert text.count("alpha") == 4 and "plain paragraph" in text
    assert "14848175" not in text and "Jane Doe" not in text


def test_photo_galleries_inside_the_article_are_left_out_at_any_length() -> None:
    slides = "".join(f'<div class="slide"><span>Photo {i} of 6: the harbour at dawn seen from the new bridge with '
                     f'the old cranes in the background</span></div>' for i in range(6))
    body = f'<div class="col">{paras(3, "alpha")}<div class="hst-resgallery">{slides}</div>{paras(3, "beta")}</div>'
    text = extract(body)
    assert text.count("alpha") == 3 and text.count("beta") == 3
    assert "Photo 3" not in text  # a gallery of 6 captions, far longer than META_MAX_CHARS


def test_sibling_paragraphs_but_not_sibling_boxes_are_added() -> None:
    sentence = "A plain paragraph next to the article, long enough to count as one on its own here."
    body = (f'<div><div>{paras(4, "alpha")}</div><p>{sentence}</p>'
            f'<div><h3>More from the site</h3><div>{sentence.replace("plain", "boxed")}</div></div></div>')
    text = extract(body)
    assert "plain paragraph" in text
    assert "boxed" not in text


def test_short_result_is_retried_without_pruning() -> None:
    # The long text sits in a block whose text is mostly links: pruned on the first pass, which then yields
    # less than RETRY_MIN_CHARS; the retry keeps it.
    linked = " ".join(f'<a href="/t{i}">linked words number {i}</a> and' for i in range(30))
    body = f"<div><p>{LOREM}.</p><div>{linked} {LOREM}.</div></div>"
    text = extract(body)
    assert "linked words number 29" in text
    assert LOREM in text


def test_boilerplate_blocks_neither_score_nor_appear_and_covered_lists_the_output() -> None:
    tree = blocks_of(parse_page(page(f'<div id="a">{paras(3, "alpha")}</div><div id="b">{paras(2, "beta")}</div>')))
    alpha = [b.index for b in tree.blocks if "alpha" in b.text]
    boilerplate = [b.index in alpha for b in tree.blocks]
    covered: list[int] = []
    out = mb.select_main(tree, boilerplate, covered)
    text = "\n".join(b.text for b in out)
    assert "alpha" not in text and text.count("beta") == 2
    assert {tree.blocks[i].text for i in covered if tree.blocks[i].text} == {
        b.text for b in tree.blocks if "beta" in b.text
    }


def test_empty_and_text_free_pages_give_nothing() -> None:
    assert extract("") == ""
    assert extract("<div><img src='a.png'><div></div></div>") == ""
    assert mb.select_main(blocks_of(parse_page(b"<html></html>"))) == []


# -- the compiled module against its source (the module is written in Cython's pure Python mode) ---------------------


def test_the_compiled_module_is_built() -> None:
    # like the compiled segmentation and byte scans: the suite must not quietly test the source only
    import os

    if os.environ.get("FCE_NO_ACCEL", "") not in ("", "0"):
        assert not mb.COMPILED
        return
    assert mb.COMPILED, "fce/methods/mainblock.py is not compiled: reinstall with a C compiler (pip install -e .)"


def test_fce_no_accel_runs_the_source() -> None:
    import os
    import subprocess
    import sys

    probe = "import fce.methods.mainblock as m; print(m.COMPILED, m.__file__.endswith('.py'))"

    def run(value: str) -> list[str]:
        env = {**os.environ, "FCE_NO_ACCEL": value}
        return subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True,
                              check=True).stdout.split()

    assert run("1") == ["False", "True"]
    assert run("") in (["True", "False"], ["False", "True"])  # compiled where built, the source otherwise


def _source_module():  # type: ignore[no-untyped-def]
    """``fce/methods/mainblock.py`` run as Python, beside the compiled module (its registration kept apart)."""
    import importlib.util
    from pathlib import Path

    import pytest

    from fce import methods

    source = Path(mb.__file__).with_name("mainblock.py")
    spec = importlib.util.spec_from_file_location("fce_mainblock_source", source)
    module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(methods, "_REGISTRY", {})
        spec.loader.exec_module(module)  # type: ignore[union-attr]
    assert not module.COMPILED
    return module


def _selection(module, tree, mask):  # type: ignore[no-untyped-def]
    covered: list[int] = []
    return module.select_main(tree, mask, covered), covered


def test_the_source_selects_as_the_compiled_module_does() -> None:
    import random

    import pytest

    from fce.detect import Detector
    from fce.learn import TemplateLearner
    from tests._sites import site_pages

    if not mb.COMPILED:
        pytest.skip("the compiled module is not built (or FCE_NO_ACCEL is set)")
    source = _source_module()
    rng = random.Random(7)
    compared = 0
    for layout, seed in (("div", 1), ("table", 2), ("div", 5)):
        pages = [p for _, p in site_pages("agree.test", 14, seed, layout)]
        detector = Detector(TemplateLearner("agree.test").fit(pages[:10]).template_)
        for parsed in pages + [parse_page(page(para() * 3 + nav() + paras(4, "beta", "div")))]:
            tree = blocks_of(parsed)
            guided = [p in detector.noise_paths for p in tree.columns.paths]
            masks = [None, guided, [rng.random() < 0.3 for _ in range(len(tree))]]
            for mask in masks:
                assert _selection(source, tree, mask) == _selection(mb, tree, mask)
                compared += 1
    assert compared == 3 * (3 * 15)


def test_the_selection_leaves_no_reference_cycles() -> None:
    # compiled, closures calling closures share one scope object that refers to them: a cycle that kept every
    # page's columns alive until the cyclic GC ran (a ~2 ms collection every ~50 detections)
    import gc

    from fce.detect import Detector
    from fce.learn import TemplateLearner
    from tests._sites import site_pages

    pages = [p for _, p in site_pages("cycles.test", 12, 4, "div")]
    detector = Detector(TemplateLearner("cycles.test").fit(pages[:10]).template_)
    trees = [blocks_of(p) for p in pages[10:]]
    masks = [[p in detector.noise_paths for p in t.columns.paths] for t in trees]
    enabled = gc.isenabled()
    gc.disable()
    try:
        gc.collect()
        for tree, mask in zip(trees, masks, strict=True):
            for boilerplate in (None, mask):
                assert mb.select_main(tree, boilerplate, [])
        assert gc.collect() == 0
    finally:
        if enabled:
            gc.enable()


# -- the page's kind (steps 11-14): an article, or content over the page's main region ------------------------------


def card(i: int, word: str = "item") -> str:
    """One card of a list: a linked title and a short teaser (a listing's record, a "more stories" teaser)."""
    return (f'<div class="card"><h3><a href="/{word}/{i}">The {word} number {i} of the week, reviewed</a></h3>'
            f'<span>Posted {i} hours ago by the desk</span></div>')


def chrome() -> str:
    """A site header with a menu, and a footer: what the region leaves out by tag and name."""
    return (f'<header class="site-header">{nav(6)}</header>'
            f'<div class="cookie-banner">We use cookies to improve your visit, see our policy for details.</div>')


FOOTER = '<footer><p>Copyright Example Media, all rights reserved, 2024, and more words here.</p></footer>'


def test_a_short_story_stays_an_article_beside_a_definition_list_of_teasers() -> None:
    def teasers(k: int) -> str:  # "more headlines" of a section: a linked headline, then its summary
        return "".join(f'<dt><a href="/story/{k}/{i}">Headline number {i} of section {k}</a></dt><dd>Summary {i}: '
                       f"the mayor said on Friday that the ferry timetable would change again in the spring after "
                       f"the consultation ended, and that fares would stay as they are for now.</dd>" for i in range(4))

    rail = "".join(f'<div class="more"><dl>{teasers(k)}</dl></div>' for k in range(3))
    body = (f'{chrome()}<div class="main"><div class="story">{paras(6, "alpha")}</div></div>'
            f'<div class="rail">{rail}</div>{FOOTER}')
    text, info = extract_page(body)
    assert text.count("alpha") == 6 and "Summary 3" not in text
    assert (info["page_type"], info["page_type_reason"]) == ("article", "article-prose")


def test_an_article_stays_an_article_beside_its_teasers_and_comments() -> None:
    comments = "".join(f'<div class="comment-body"><p>Reader {i} says: {LOREM}, truly.</p></div>' for i in range(3))
    body = (f'{chrome()}<div class="story">{paras(6, "alpha")}</div>'
            f'<div class="more">{"".join(card(i) for i in range(6))}</div>'
            f'<div id="comments">{comments}</div>{FOOTER}')
    text, info = extract_page(body)
    assert text.count("alpha") == 6
    assert "number 3 of the week" not in text and "Reader 1" not in text and "Copyright" not in text
    assert info["page_type"] == "article" and info["page_type_reason"] == "article-prose"
    assert "comments" not in info
    text_with, info_with = extract_page(body, comments=True)
    assert text_with == text  # kept comments are a field of their own, never the main text
    assert str(info_with["comments"]).count("Reader") == 3


def test_a_list_of_cards_is_a_listing() -> None:
    intro = "<p>Every new item of the week, in the order they came in.</p>"
    body = f'{chrome()}<div class="list">{intro}{"".join(card(i) for i in range(12))}</div>{FOOTER}'
    text, info = extract_page(body)
    assert all(f"The item number {i} of the week" in text for i in range(12))
    assert "Posted 11 hours ago" in text and "every new item" in text.lower()
    assert "Section number" not in text and "cookies" not in text and "Copyright" not in text
    assert info["page_type"] == "listing"


def test_content_over_several_regions_is_taken_whole() -> None:
    # a product: a short description, then parts each with a specification table and a list, in <main>
    rows = "".join(f"<tr><th>Property {i}</th><td>{i * 10} mm</td></tr>" for i in range(6))
    parts = "".join(f"<section><h2>Part {i}</h2><table>{rows}</table><ul><li>Fits model {i}</li>"
                    f"<li>Sold in pairs</li></ul></section>" for i in range(6))
    body = (f'{chrome()}<main><h1>The harbour lamp</h1><div class="description">{para(word="lamp")}</div>{parts}'
            f'</main><div class="sidebar">{nav(12)}</div>{FOOTER}')
    assert "Property" not in extract(body)  # the article scoring keeps the description alone
    text, info = extract_page(body)
    assert "The harbour lamp" in text and "lamp The council" in text
    assert "Part 5" in text and text.count("50 mm") == 6 and "Fits model 5" in text
    assert "Section number" not in text and "Copyright" not in text and "cookies" not in text
    assert info["page_type"] == "page" and info["page_type_reason"] == "data-elsewhere"


def test_an_article_outside_the_main_element_is_not_the_content() -> None:
    # the longest prose of the page is a block of text for search engines below <main>, which holds the grid
    seo = f'<div class="seo-text">{paras(5, "seo")}</div>'
    body = f'{chrome()}<main><h1>Lamps</h1>{"".join(card(i, "lamp") for i in range(10))}</main>{seo}{FOOTER}'
    text, info = extract_page(body)
    assert "The lamp number 9 of the week" in text and "seo" not in text
    assert info["page_type_reason"] == "outside-main"


def test_a_container_in_page_chrome_is_not_the_article() -> None:
    # a cookie dialog's comma-rich list of partners outscores a short article (step 10), with less of the text
    partners = ", ".join(f"p{i}" for i in range(30))
    dialog = f'<div id="cookie-consent"><div class="text"><p>{partners}</p></div></div>'
    body = f'<div class="story">{paras(3, "alpha")}</div>{dialog}'
    text = extract(body)
    assert text.count("alpha") == 3 and "p29" not in text
    tree = blocks_of(parse_page(page(body)))
    inner = next(b.index for b in tree.blocks if "p29" in b.text)
    assert mb._chrome_around(tree, subtree_sums(tree)[0], inner) == inner - 2  # the dialog, not its inner boxes


def test_one_long_comment_is_not_the_article_a_thread_of_them_may_be() -> None:
    # one reader's comment outscoring the article (a numbered list, commas) in a list item named as a comment,
    # its own box named "content": left out, the article chosen again (the retry of step 10)
    comment = ", ".join(f"point {i} of the reader" for i in range(60))
    thread = f'<ul class="child"><li class="comment"><article class="content"><p>{comment}</p></article></li></ul>'
    body = f'<div class="story">{paras(5, "alpha")}</div><section id="opinions">{thread}</section>'
    text = extract(body)
    assert text.count("alpha") == 5 and "point 39" not in text
    replies = "".join(f'<li class="comment"><article class="content"><p>{i}: {comment}</p></article></li>'
                      for i in range(3))
    text = extract(f'<div class="story">{paras(2, "alpha")}</div><ul class="child">{replies}</ul>')
    assert text.count("point 39") == 3  # a thread of them: what the page is about


def test_a_thread_of_posts_named_as_comments_is_the_content() -> None:
    posts = "".join(f'<div class="comment"><div class="author">user{i}</div><p>Post {i}: {LOREM}, {LOREM}.</p>'
                    f'</div>' for i in range(5))
    body = f'{chrome()}<div class="thread"><h1>Which lamp for the harbour?</h1>{posts}</div>{FOOTER}'
    text, info = extract_page(body)
    assert all(f"Post {i}:" in text for i in range(5)) and "Which lamp" in text
    assert info["page_type"] == "forum"


def test_an_article_with_code_is_documentation_and_keeps_its_link_lists() -> None:
    code = "".join(f"<pre>lamp.switch(on=True)  # step {i}</pre>" for i in range(3))
    see_also = "<ul>" + "".join(f'<li><a href="/ref/{i}">Reference page {i}</a></li>' for i in range(4)) + "</ul>"
    body = f'{chrome()}<div class="doc">{paras(4, "alpha")}{code}<h2>See also</h2>{see_also}</div>{FOOTER}'
    assert "Reference page" not in extract(body)  # the article scoring prunes the link list…
    text, info = extract_page(body)
    assert "Reference page 3" in text and "step 2" in text and text.count("alpha") == 4  # …documentation keeps it
    assert info["page_type"] == "documentation"


def test_a_page_of_a_few_words_gives_them() -> None:
    text, info = extract_page("Test")
    assert text == "Test"
    assert info["page_type_reason"] == "no-article"
    text, _ = extract_page('<article><h2>Case 1</h2><img src="a.png"><h2>Case 2</h2></article>')
    assert text == "Case 1\nCase 2"


def test_a_page_that_shows_nothing_without_scripts_is_read_from_its_noscript() -> None:
    body = f'<div id="app"></div><noscript><div class="post">{paras(3, "alpha")}</div></noscript>'
    text, info = extract_page(body)
    assert text.count("alpha") == 3 and info["noscript"] is True
    text, info = extract_page(f'<div class="story">{paras(3, "alpha")}</div><noscript>Enable scripts</noscript>')
    assert "noscript" not in info and "Enable" not in text
    # a <noscript> of text alone, no element in it, is that text
    words = "Read this article with scripts off: its whole text is here. " * 6
    text, info = extract_page(f'<div id="app"></div><noscript>{words}</noscript>')
    assert text == words.strip() and info["noscript"] is True
    # a hidden block is weighed by the text it would show, not by its scripts' text
    hidden = f'<div style="display:none"><script>var data = "{"x " * 3000}";</script><p>Loading</p></div>'
    text, info = extract_page(body + hidden)
    assert text.count("alpha") == 3 and info["noscript"] is True


def test_the_page_kind_reaches_the_extraction() -> None:
    result = get_method("mainblock")(parse_page(page(f'<div>{paras(4, "alpha")}</div>')))
    assert (result.info["page_type"], result.info["page_type_reason"]) == ("article", "article-prose")
    tree = blocks_of(parse_page(page(f'<div>{paras(4, "alpha")}</div>')))
    texts = [i for i in result.info["covered"] if tree[i].text]  # what went out: the container and its paragraphs
    assert texts == [i for i in range(len(tree)) if "alpha" in tree[i].text]
    assert result.text.count("alpha") == 4


def test_the_source_reads_pages_as_the_compiled_module_does() -> None:
    import pytest

    from tests._sites import site_pages

    if not mb.COMPILED:
        pytest.skip("the compiled module is not built (or FCE_NO_ACCEL is set)")
    source = _source_module()
    bodies = [f'{chrome()}<div class="list">{"".join(card(i) for i in range(12))}</div>{FOOTER}',
              f'{chrome()}<div class="story">{paras(6, "alpha")}</div>{"".join(card(i) for i in range(6))}',
              f'<main><div>{para()}</div><table><tr><td>{LOREM}</td></tr></table></main>{nav()}']
    pages = [p for _, p in site_pages("agree.test", 8, 3, "div")] + [parse_page(page(b)) for b in bodies]
    for parsed in pages:
        tree = blocks_of(parsed)
        for comments in (False, True):
            assert source.select_page(tree, comments=comments) == mb.select_page(tree, comments=comments)


def test_the_bounds_of_step_12_take_a_page_for_an_article_only_where_its_region_does() -> None:
    # _surely_article reads the whole subtree of the region's root, not the region: where it decides, reading the
    # region (_page_kind) finds an article too, and its card marks are _cards' on the article's blocks
    from tests._sites import site_pages

    linked = "".join(f'<p>{LOREM}, see <a href="/n/{i}">note {i}</a>.</p>' for i in range(4))
    comments = "".join(f'<div class="comment-body"><p>Reader {i} says: {LOREM}, truly.</p></div>' for i in range(6))
    bodies = [f'{chrome()}<div class="list">{"".join(card(i) for i in range(12))}</div>{FOOTER}',
              f'{chrome()}<div class="story">{paras(6, "alpha")}</div>{"".join(card(i) for i in range(6))}',
              f'{chrome()}<div class="story">{linked}{paras(2, "alpha")}</div>{FOOTER}',
              f'<div class="story">{paras(2, "alpha")}</div><div class="comments">{comments}</div>',
              f'<main><div>{para()}</div><table><tr><td>{LOREM}</td></tr></table></main>{nav()}',
              f'<div>{paras(4, "alpha")}</div><main>{para(word="beta")}</main>',
              "".join(f"<table><tr><td>{para(word=f'part{i}')}</td></tr></table>" for i in range(5))]  # sections
    pages = [p for _, p in site_pages("agree.test", 8, 3, "div")] + [parse_page(page(b)) for b in bodies]
    decided = 0
    for parsed in pages:
        tree = blocks_of(parsed)
        sums = subtree_sums(tree, mb._INLINE)
        mine: list[int] = []
        article = mb._article(tree, None, mine, sums)
        mains = mb._mains(tree)
        root = mb._region_root(tree, sums[0], mains)
        cards = mb._cards(tree, sums)
        theirs = mb._kept(tree, root, mb._region_keep(tree, sums, root, False))
        marks = mb._surely_article(tree, sums, root, article, mine, mains)
        if marks is not None:
            decided += 1
            assert mb._page_kind(tree, sums, cards, article, mine, theirs, mains) == ("article", "article-prose")
            assert [marks[i] for i in mine] == [cards[i] for i in mine]
    assert 0 < decided < len(pages)  # (both ways are taken)
    assert mb.select_page(tree)[1]["page_type_reason"] == "prose-elsewhere"  # (the sections: the region is read)
