"""fce.detect: the paper's three extraction rules, verbatim and recursive, the noise-block comparison, fit."""

import time

import pytest

from fce.detect import Detector
from fce.parse import parse_page
from fce.template import LearnParams, NoiseBlock, Template

PAGE = b"""<html><body><div><p>Alpha <span>beta</span> gamma</p><ul><li>nav one</li></ul>
<div><p>inner content</p> junk</div></div><div><p>second</p></div></body></html>"""


def template(paths, *, noise=(), rules="paper", known=None):
    return Template(
        site="t.example",
        content_paths=dict.fromkeys(paths, 1),
        noise_blocks=tuple(noise),
        known_paths=dict.fromkeys(known if known is not None else paths, 1),
        n_pages=3,
        params=LearnParams(0.9, 0.05, 2, 0.0, rules, "paper", 1.0),
        learned_at="2026-01-01T00:00:00+00:00",
    )


def texts(tpl, page=PAGE):
    return [b.text for b in Detector(tpl, mode="rules").match(parse_page(page)).blocks]


def test_rule_1_all_sub_block_paths_in_p_extracts_the_whole_block():
    assert texts(template(["HTML.BODY.DIV.P", "HTML.BODY.DIV.P.SPAN"])) == ["Alpha beta gamma", "second"]


def test_rule_2_sub_block_without_paths_in_p_is_left_out():
    assert texts(template(["HTML.BODY.DIV.P"])) == ["Alpha gamma", "second"]


@pytest.mark.parametrize(
    ("rules", "expected"),
    [
        ("paper", ["inner content\njunk"]),  # rule 3 verbatim: B' kept whole, its own text included
        ("recursive", ["inner content"]),  # the rules again inside B': its own text is not on P
    ],
)
def test_rule_3_sub_block_with_a_path_in_p_is_kept(rules, expected):
    tpl = template(["HTML.BODY.DIV", "HTML.BODY.DIV.DIV.P"], rules=rules)
    # candidates: the two top-level DIVs; the first keeps only the inner DIV (its P and LIs are not on P)
    assert texts(tpl)[:1] == expected


def test_only_top_most_candidates_no_duplicates():
    tpl = template(["HTML.BODY.DIV", "HTML.BODY.DIV.P", "HTML.BODY.DIV.P.SPAN", "HTML.BODY.DIV.DIV.P"])
    out = texts(tpl)
    assert out == ["Alpha beta gamma\ninner content\njunk", "second"]  # rule 3 keeps the inner DIV whole


def test_blocks_similar_to_stored_noise_are_dropped():
    noise = [NoiseBlock("HTML.BODY.DIV.P", "second", (0, 0, 0, 0, 0))]
    assert texts(template(["HTML.BODY.DIV.P", "HTML.BODY.DIV.P.SPAN"], noise=noise)) == ["Alpha beta gamma"]


def test_noise_of_another_path_is_not_compared():
    noise = [NoiseBlock("HTML.BODY.UL.LI", "second", (0, 0, 0, 0, 0))]
    assert texts(template(["HTML.BODY.DIV.P"], noise=noise)) == ["Alpha gamma", "second"]


def test_output_in_document_order_with_indices():
    detector = Detector(template(["HTML.BODY.DIV.P", "HTML.BODY.DIV.P.SPAN"]), mode="rules")
    blocks = detector.match(parse_page(PAGE)).blocks
    assert [b.index for b in blocks] == sorted(b.index for b in blocks)


def test_fit_is_share_of_text_on_known_paths():
    page = b"<html><body><div><p>aaaa</p></div><ul><li>bbbb</li></ul></body></html>"
    tpl = template(["HTML.BODY.DIV.P"], known=["HTML.BODY.DIV.P"])
    assert Detector(tpl, mode="rules").match(parse_page(page)).fit == pytest.approx(0.5)


def test_no_candidates_gives_empty_match():
    m = Detector(template(["HTML.BODY.TABLE.TR.P"]), mode="rules").match(parse_page(PAGE))
    assert m.blocks == () and m.n_candidates == 0


GUIDED_PAGE = b"""<html><body><div class="nav"><p>Home news sport weather and everything else in the menu</p></div>
<div class="story"><p>The council met on Tuesday, and after a long, heated debate it approved the harbour plan.</p>
<p>Residents, shop owners and fishermen had asked for changes, and the plan now includes a new quay.</p></div>
</body></html>"""


def test_guided_mode_drops_template_noise_paths_before_scoring():
    tpl = template(["HTML.BODY.DIV.P"], known=["HTML.BODY.DIV.P"])
    out = Detector(tpl, mode="guided").match(parse_page(GUIDED_PAGE)).blocks
    assert "council met" in out[0].text and "Residents" in out[0].text
    # a template that saw the story's paragraphs only as noise leaves nothing to score
    noisy = template([], known=["HTML.BODY.DIV.P"])
    assert Detector(noisy, mode="guided").match(parse_page(GUIDED_PAGE)).blocks == ()


def test_a_headline_the_mask_took_out_of_the_chosen_container_is_put_in_front():
    from dataclasses import replace

    page = parse_page(GUIDED_PAGE.replace(b'<div class="story">', b'<div class="story"><h2>Harbour plan passes</h2>'))
    paths = ["HTML.BODY.DIV.P"]
    masked = template(paths, known=[*paths, "HTML.BODY.DIV.H2"])  # the headline's path known as noise
    out = Detector(masked, mode="guided").match(page).blocks
    assert "Harbour plan" not in out[0].text  # the container is chosen, its headline masked out
    titled = Detector(replace(masked, title_path="HTML.BODY.DIV.H2"), mode="guided").match(page)
    assert [b.text for b in titled.blocks][0] == "Harbour plan passes" and titled.title
    assert "council met" in titled.blocks[1].text
    # a headline the container's text holds already is not put twice
    kept = Detector(replace(template([*paths, "HTML.BODY.DIV.H2"]), title_path="HTML.BODY.DIV.H2"), mode="guided")
    match = kept.match(page)
    assert sum(b.text.count("Harbour plan passes") for b in match.blocks) == 1 and not match.title


def test_a_headline_path_that_repeats_the_headline_of_the_selection_is_not_put_again():
    """freshome.com's share box repeats each post's headline in an ``h3`` before the post, on every page: learned as
    the headline's path, it put the headline a second time in front of the post's own ``h1``."""
    from dataclasses import replace

    page = parse_page(GUIDED_PAGE.replace(b'<div class="story">', b'<div class="share"><h3>Harbour plan passes</h3>'
                                          b'</div><div class="story"><h1>Harbour plan passes</h1>'))
    paths = ["HTML.BODY.DIV.P", "HTML.BODY.DIV.H1"]
    tpl = replace(template(paths, known=[*paths, "HTML.BODY.DIV.H3"]), title_path="HTML.BODY.DIV.H3")
    match = Detector(tpl, mode="guided").match(page)
    text = "\n".join(b.text for b in match.blocks)
    assert text.count("Harbour plan passes") == 1 and "council met" in text and not match.title


def test_guided_mode_leaves_out_a_noise_blocks_text_on_a_content_path():
    promo = "Like us on Facebook to follow the harbour news."
    head, tail = GUIDED_PAGE.rsplit(b"</p></div>", 1)  # the story's end
    page = parse_page(head + b"</p><p>" + promo.encode() + b"</p></div>" + tail)
    tpl = template(["HTML.BODY.DIV.P"], noise=[NoiseBlock("HTML.BODY.DIV.P", promo, (0,))])
    out = "\n".join(b.text for b in Detector(tpl, mode="guided").match(page).blocks)
    assert "council met" in out and "Residents" in out and promo not in out
    other = template(["HTML.BODY.DIV.P"], noise=[NoiseBlock("HTML.BODY.DIV.P", promo.replace("us", "them"), (0,))])
    assert promo in "\n".join(b.text for b in Detector(other, mode="guided").match(page).blocks)


def test_an_article_whose_paragraphs_were_noise_while_learning_is_not_masked():
    page = parse_page(GUIDED_PAGE)
    paragraphs = [b.text for b in Detector(template(["HTML.BODY.DIV.P"]), mode="guided").match(page).blocks]
    story = paragraphs[0].split("\n")  # the story's two paragraphs, seen on two learning pages: noise blocks
    noise = [NoiseBlock("HTML.BODY.DIV.P", text, (0,)) for text in story]
    out = Detector(template(["HTML.BODY.DIV.P"], noise=noise), mode="guided").match(page).blocks
    assert "council met" in out[0].text and "Residents" in out[0].text  # most of the page: not the site's repeats


def test_the_standfirst_in_the_headlines_box_is_put_after_it_whatever_the_box_is_named():
    from dataclasses import replace

    teaser = "The harbour plan passed after a long night of debate, and work on the new quay starts in spring."
    page = parse_page(GUIDED_PAGE.replace(b'<div class="story">', b'<div class="promo"><h2>Harbour plan passes</h2>'
                                          b"<p>" + teaser.encode() + b'</p></div><div class="story">'))
    body, box = "HTML.BODY.DIV[.story].P", "HTML.BODY.DIV[.promo]"  # the box is furniture by its name
    tpl = replace(template([body], known=[body, box + ".H2", box + ".P"]), title_path=box + ".H2")
    tpl = replace(tpl, params=replace(tpl.params, path_style="qualified"))
    lines = "\n".join(b.text for b in Detector(tpl, mode="guided").match(page).blocks).split("\n")
    assert lines[:3] == ["Harbour plan passes", teaser, lines[2]] and "council met" in lines[2]


def test_unknown_mode():
    with pytest.raises(ValueError):
        Detector(template(["HTML.BODY.DIV.P"]), mode="magic")


def test_candidate_counts_are_the_sums_over_the_blocks_whose_text_is_kept():
    from fce.blocks import blocks_of
    from fce.content_extractor import block_counts
    from fce.learn import TemplateLearner
    from tests.sitegen import generate_site

    pages = [parse_page(g.html) for g in generate_site("example.org", 12, seed=3)]
    detector = Detector(TemplateLearner("example.org").fit(pages[:10]).template_, mode="rules")
    tree = blocks_of(pages[11], detector.path_style)
    candidates = detector._extract(tree)
    assert candidates
    for _, _, counts, seen in candidates:
        assert counts == tuple(sum(c) for c in zip(*(block_counts(tree[i]) for i in seen), strict=True))
        assert all(type(c) is int for c in counts)


# -- one pass over a template's coded paths (Detector.path_codes), compiled and in Python ----------------------------


def _by_sets(tree, template):  # type: ignore[no-untyped-def]
    """The fit, profile sums, kept characters and guided boilerplate mask as they are defined over the template's
    sets: a block on a boilerplate path is masked unless one of its descendants is on a kept path (known and not
    boilerplate, or a path of P)."""
    from fce.blocks import text_on_paths
    from fce.layouts import page_paths

    known = frozenset(template.known_paths)
    boilerplate = template.boilerplate_paths & known
    kept = (known - boilerplate) | (template.path_set - known)
    cols = tree.columns
    texty = page_paths(tree)
    sums = (*text_on_paths(tree, known), sum(template.known_paths.get(p, 0) for p in texty), len(texty),
            text_on_paths(tree, known & kept)[0])
    mask = []
    for i, path in enumerate(cols.paths):
        below = range(i + 1, cols.ends[i])
        mask.append(path in boilerplate and not any(cols.paths[k] in kept for k in below))
    return sums, mask


@pytest.mark.parametrize("compiled", [True, False])
def test_template_sums_and_mask_answer_what_the_sets_answer(compiled, monkeypatch):
    import dataclasses
    import random

    from fce import blocks
    from fce.detect import merged_codes, path_codes, template_mask, templates_sums
    from fce.learn import TemplateLearner
    from tests._sites import site_pages

    if compiled and blocks._ACCEL is None:
        pytest.skip("the compiled segmentation is not built")
    if not compiled:
        monkeypatch.setattr(blocks, "_ACCEL", None)
    rng = random.Random(3)
    pages = [p for _, p in site_pages("codes.test", 14, 2, "div")]
    learned = TemplateLearner("codes.test").fit(pages[:10]).template_
    # a hand-edited template too: a path of P never seen while learning, a known path with a count of 0
    edited = dataclasses.replace(learned, content_paths={**learned.content_paths, "HTML.BODY.NEVER": 1},
                                 known_paths={**learned.known_paths, next(iter(learned.known_paths)): 0})
    checked = 0
    for page in pages:
        tree = blocks.segment_element(page.root, learned.params.path_style)
        paths = tree.columns.paths
        # and paths of the page drawn at random into the known paths (with counts) and into P
        drawn = dataclasses.replace(learned, known_paths={p: rng.randint(0, 3) for p in paths if rng.random() < 0.4},
                                    content_paths={p: 1 for p in paths if rng.random() < 0.3})
        for template in (learned, edited, drawn):
            codes = path_codes(template)
            sums = templates_sums(tree, merged_codes([codes]), 1)[0]
            assert (sums, template_mask(tree, codes)) == _by_sets(tree, template)
            checked += 1
        # a site's layouts in one pass: the sums of a pass per layout, in the layouts' order
        tables = [path_codes(t) for t in (drawn, learned, edited, drawn)]
        for k in (1, 2, 4):
            assert (templates_sums(tree, merged_codes(tables[:k]), k)
                    == [templates_sums(tree, merged_codes([codes]), 1)[0] for codes in tables[:k]])
    assert checked == 3 * len(pages)


def test_noise_texts_group_by_path_and_length_in_linear_time():
    # 30,000 noise blocks of one path and one length (a site whose content blocks differ only by a number): one
    # set per (path, length), filled, not a frozenset copied for every text (which took 0.36 s for 8,000)
    noise = [NoiseBlock("HTML.BODY.DIV.P", f"w{i:05d}  text", (0,)) for i in range(30_000)]
    start = time.perf_counter()
    detector = Detector(template(["HTML.BODY.DIV.P"], noise=noise), mode="guided")
    assert time.perf_counter() - start < 2.0  # linear: ~0.05 s; the copying took ~5 s
    assert detector.noise_texts == {"HTML.BODY.DIV.P": {12: frozenset(f"w{i:05d} text" for i in range(30_000))}}
