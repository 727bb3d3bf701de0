"""fce.learn: the preparation phase on generated sites; determinism; errors."""

import random

import pytest

from fce.detect import Detector
from fce.errors import LearnError
from fce.evaluation.measures import word_f
from fce.learn import TemplateLearner
from fce.parse import parse_page
from tests._sites import site_pages


@pytest.mark.parametrize("layout", ["div", "table"])
def test_learned_template_extracts_new_pages(layout):
    pages = site_pages("learn.test", 36, 3, layout)
    learner = TemplateLearner("learn.test").fit([p for _, p in pages[:30]])
    assert learner.template_.n_pages == 30 and learner.n_pages_ == 30
    detector = Detector(learner.template_)
    scores = [word_f(detector.detect(p).text, g.gold).f1 for g, p in pages[30:]]
    assert min(scores) > 0.8, scores
    assert sum(scores) / len(scores) > 0.9, scores


def test_fit_returns_self_and_stores_params_unchanged():
    learner = TemplateLearner("x.test", occurrence_fraction=0.2)
    assert learner.occurrence_fraction == 0.2
    assert learner.fit([p for _, p in site_pages()[:10]]) is learner


def test_learning_is_deterministic_and_order_independent():
    pages = [p for _, p in site_pages()[:20]]
    a = TemplateLearner("s.test").fit(pages).template_
    b = TemplateLearner("s.test").fit(list(reversed(pages))).template_
    strip = lambda t: {**t.to_dict(), "learned_at": None}  # noqa: E731
    assert strip(a) == strip(b)


def test_noise_blocks_share_content_paths():
    # paper paths: the promo paragraph sits on the article's P path (qualified paths tell it apart by its class)
    t = TemplateLearner("s.test", path_style="paper").fit([p for _, p in site_pages()[:20]]).template_
    assert t.noise_blocks, "the generated site repeats a promo paragraph on the article path"
    assert all(nb.path in t.content_paths for nb in t.noise_blocks)


def test_too_few_pages():
    with pytest.raises(LearnError, match="at least 3"):
        TemplateLearner("s.test").fit([p for _, p in site_pages()[:2]])


def test_pages_without_text_are_not_usable():
    empty = [parse_page(b"<html><body><script>x</script></body></html>")] * 5
    with pytest.raises(LearnError):
        TemplateLearner("s.test").fit(empty)


def test_bad_rules_parameter():
    with pytest.raises(ValueError):
        TemplateLearner("s.test", rules="other").fit([p for _, p in site_pages()[:5]])


def test_layout_learner_passes_template_params_to_every_layout():
    from fce.learn import LayoutLearner
    from tests.sitegen import SiteStyle, generate_mixed_site

    generated = generate_mixed_site("lay.test", 16, (SiteStyle(), SiteStyle(layout="table")), seed=2)
    pages = [parse_page(g.html, url=g.url) for g in generated]
    learner = LayoutLearner("lay.test", template_params={"rules": "paper"}, path_style="qualified").fit(pages)
    assert [t.params.rules for t in learner.model_.layouts] == ["paper", "paper"]
    assert [t.n_pages for t in learner.model_.layouts] == [8, 8]
    assert learner.labels_.tolist() == [0, 1] * 8 or learner.labels_.tolist() == [1, 0] * 8
    with pytest.raises(LearnError):
        LayoutLearner("lay.test").fit(pages[:2])


ARTICLES = [
    "The council voted on the harbour plan today after a long debate about the costs.",
    "A storm closed schools across the region on Monday morning and cut the power.",
    "Scientists found a new species of frog in the rainforest near the northern river.",
    "The museum opened a new wing for modern art this weekend with a free concert.",
]


def test_what_a_path_counts_toward():
    # a textless <span> (an icon) inside a content paragraph inherits the paragraph's label, so its path is a
    # content path (rule 2 keeps the paragraph whole); a path is known only where a block on it had own text
    pages = [
        parse_page(f"<html><body><ul><li>Home</li><li>World</li></ul><div><p>{a} <span><img src='i.png'></span>"
                   "</p></div><div>Copyright 2026 News</div></body></html>".encode())
        for a in ARTICLES
    ]
    template = TemplateLearner("s.test", path_style="paper").fit(pages).template_
    assert template.content_paths == {"HTML.BODY.DIV.P": 4, "HTML.BODY.DIV.P.SPAN": 4}
    assert "HTML.BODY.DIV.P.SPAN" not in template.known_paths
    assert template.known_paths["HTML.BODY.DIV.P"] == 4 and template.known_paths["HTML.BODY.UL.LI"] == 4
    assert "HTML.BODY.UL.LI" not in template.content_paths


def _noise_by_search(learner):
    """The definition of a template's noise blocks: the distinct (path, text, counts) of the noise blocks on content
    paths, sorted, each kept unless an earlier kept one of its path is similar to it by a search among them."""
    from itertools import compress

    from fce.features import COUNT_FEATURES, block_vectors, self_similar_pairs
    from fce.template import NoiseBlock

    ce, paths = learner.extractor_, learner.template_.content_paths
    seen = set()
    for tree, mask in zip(ce.trees_, learner.is_content_, strict=True):
        noise = [bool(t) and not c for t, c in zip(tree.texts, mask.tolist(), strict=True)]
        for path, text, counts in zip(compress(tree.columns.paths, noise), compress(tree.texts, noise),
                                      compress(tree.count_rows(COUNT_FEATURES), noise), strict=True):
            if path in paths:
                seen.add((path, text, counts))
    candidates = sorted(seen)
    if not candidates:
        return ()
    similar = self_similar_pairs(block_vectors([c[1] for c in candidates], [c[2] for c in candidates]),
                                 learner.similarity_threshold)
    kept, covered = [], set()
    for i, (path, _, _) in enumerate(candidates):
        if i not in covered:
            kept.append(i)
            covered.update(j for j in similar[i].indices.tolist() if candidates[j][0] == path)
    return tuple(NoiseBlock(path=candidates[i][0], text=candidates[i][1], counts=candidates[i][2]) for i in kept)


def _promo_pages(n=8):
    # the article's paragraphs are unique; a promo paragraph on the same path varies in one word (similar, not
    # identical), and a note recurs with either of two links (identical counts and text, or not)
    out = []
    for i in range(n):
        paras = "".join(f"<p>Article {i} paragraph {k} tells of harbour {i * 7 + k} and the tides of season {k}.</p>"
                        for k in range(3))
        promo = f"<p>Subscribe today to our newsletter for daily news updates and offers number {i % 3}</p>"
        note = '<p>Read more in <a href="/a">our archive</a></p>' if i % 2 else "<p>Read more in our archive</p>"
        out.append(parse_page(f"<html><body><div id='nav'><a href='/'>Home</a> <a href='/w'>World</a></div>"
                              f"<div id='story'>{paras}{promo}{note}</div></body></html>".encode()))
    return out


@pytest.mark.parametrize("compiled", [True, False])
@pytest.mark.parametrize("source", ["promo", "site", "table"])
def test_noise_blocks_are_the_search_among_them(source, compiled, monkeypatch):
    # the pairs ContentExtractor found among its distinct blocks stand in for a search among the noise candidates
    from fce import content_extractor

    if not compiled:
        monkeypatch.setattr(content_extractor, "FEATURES_COMPILED", False)
    pages = (_promo_pages() if source == "promo"
             else [p for _, p in site_pages("noise.test", 20, 3, "div" if source == "site" else "table")])
    learner = TemplateLearner("noise.test", path_style="paper", min_content_share=0.0, max_link_density=1.0)
    template = learner.fit(pages).template_
    want = _noise_by_search(learner)
    assert template.noise_blocks == want
    if source == "promo":
        texts = [nb.text for nb in template.noise_blocks]
        assert sum("Subscribe" in t for t in texts) == 1, texts  # the variants are similar: one is kept


# -- what a site model learns beyond repetition: each failure class of a real crawl sample (tests/_handmade.py) -----


def _extract_f1(record, page, gold, **kwargs):  # type: ignore[no-untyped-def]
    from fce.layouts import SiteDetector
    from fce.pipeline import extract

    result = extract(page, SiteDetector(record, **kwargs))
    return result, word_f(result.text, gold).f1


def test_copies_of_one_article_are_learned_from_once():
    from fce.learn import LayoutLearner
    from tests._handmade import SITE, Article, article_page, comments

    articles = [Article.make(i) for i in range(12)]
    copied = articles[0]
    # three articles, and one captured five times (other dates, other comments): without the copies dropped,
    # ContentExtractor finds its paragraphs "on many pages" and the paper's rules drop every paragraph like them
    sample = [article_page(a, talk=comments(a.number, 2, 1)) for a in articles[1:4]]
    sample += [article_page(copied, talk=comments(100 + k, 2, 1), url=f"https://{SITE}/a/0?d={k}") for k in range(5)]
    learner = LayoutLearner(SITE).fit(sample)
    assert learner.n_pages_ == 4 and [d.reason for d in learner.duplicates_] == ["near-duplicate"] * 4
    copies = learner.model_.extra["duplicates"]
    (original,) = {d["copy_of"] for d in copies}
    dropped = {d["page"] for d in copies}
    assert dropped | {original} == {p.url for p in sample[3:]} and original not in dropped
    naive = LayoutLearner(SITE, template_params={"distinct": False}).fit(sample)
    new, again = articles[9], article_page(copied, talk=comments(200, 2, 1))
    for record, worst in ((learner.model_, 0.9), (naive.model_, None)):
        for mode in ("guided", "rules"):
            _, f_new = _extract_f1(record, article_page(new, talk=comments(9, 2, 1)), new.gold, mode=mode)
            _, f_again = _extract_f1(record, again, copied.gold, mode=mode)
            if worst is not None:
                assert min(f_new, f_again) > worst, (mode, f_new, f_again)
            elif mode == "rules":  # the failure the copies cause
                assert max(f_new, f_again) < 0.3, (f_new, f_again)


def test_a_sample_of_copies_is_refused_naming_how_many_were_distinct():
    from fce.learn import LayoutLearner
    from tests._handmade import SITE, Article, article_page, comments

    one = Article.make(1)
    sample = [article_page(one, talk=comments(k, 2, 1), url=f"https://{SITE}/a/1?d={k}") for k in range(6)]
    sample.append(article_page(Article.make(2)))
    with pytest.raises(LearnError, match=r"2 distinct usable page\(s\) with text \(5 more were copies"):
        LayoutLearner(SITE).fit(sample)


def test_few_pages_and_unique_furniture():
    from fce.learn import LayoutLearner
    from fce.methods import get_method
    from tests._handmade import SITE, Article, article_page, comments

    articles = [Article.make(i) for i in range(10)]
    # five pages, each with a few short reader comments whose text no other page has (so repetition alone calls
    # them content); a new page whose comments are long enough to outscore its article on the page alone
    learner = LayoutLearner(SITE).fit([article_page(a, talk=comments(a.number, 2, 1)) for a in articles[:5]])
    layout = learner.model_.layouts[0]
    assert layout.title_path == "HTML.BODY.DIV[.wrap].H2[.hl]"  # what <title> and og:title repeat
    assert "HTML.BODY.DIV[.wrap].DIV[.talk].DIV[.c].P" in layout.unchosen_paths  # never chosen on the sample
    new = articles[7]
    chatty = comments(new.number, 8, 6)
    result, f1 = _extract_f1(learner.model_, article_page(new, talk=chatty), new.gold)
    alone = word_f(get_method("mainblock")(article_page(new, talk=chatty)).text, new.gold).f1
    assert result.method == "template" and f1 == 1.0 and alone < 0.6
    assert result.check is not None and result.check.winner == "template"
    assert result.check.fallback_chars > result.check.template_chars  # the record says the fallback gave more
    # the paper's learner has none of it
    paper = LayoutLearner(SITE, template_params={"title_anchor": False, "consensus": False}).fit(
        [article_page(a, talk=comments(a.number, 2, 1)) for a in articles[:5]]).model_.layouts[0]
    assert paper.title_path is None and not paper.unchosen_paths


def test_mixed_page_types_in_the_sample():
    from fce.learn import LayoutLearner
    from tests._handmade import SITE, Article, article_page, comments, listing_html, page

    articles = [Article.make(i) for i in range(30)]
    sample = [article_page(a, talk=comments(a.number, 2, 1)) for a in articles[:8]]
    sample += [page(listing_html(k, articles[10 + 4 * k:14 + 4 * k]), f"https://{SITE}/s/{k}") for k in range(4)]
    learner = LayoutLearner(SITE).fit(sample)
    assert learner.n_pages_ == 12  # one layout here: the section pages share the articles' chrome
    for new in articles[25:28]:
        result, f1 = _extract_f1(learner.model_, article_page(new, talk=comments(new.number, 3, 2)), new.gold)
        assert result.method == "template" and f1 > 0.95, (result.fallback_reason, f1)


def test_the_lead_between_headline_and_body_is_the_articles():
    from fce.learn import LayoutLearner
    from fce.methods import get_method
    from tests._handmade import SITE, Article, article_page, comments, sentence

    def top(lead: str, photo: str) -> str:  # a video's summary and a photo's caption, apart from the body's box
        return (f'<div class="video"><div class="player"><p class="summary">{lead}</p></div></div>'
                f'<div class="photo-box"><p class="caption">{photo}</p></div>')

    def own_top(a: Article) -> str:
        rng = random.Random(f"top|{a.number}")
        return top(sentence(rng, 18), sentence(rng, 18))

    articles = [Article.make(i) for i in range(8)]
    sample = [article_page(a, talk=comments(a.number, 2, 1), top=own_top(a)) for a in articles[:6]]
    record = LayoutLearner(SITE).fit(sample).model_
    new = articles[7]
    rng = random.Random(f"top|{new.number}")
    lead, photo = sentence(rng, 18), sentence(rng, 18)
    result, _ = _extract_f1(record, article_page(new, top=top(lead, photo)), new.gold)
    assert result.method == "template"
    # the headline, the video's summary, the body; not the photo's caption
    assert result.text.split("\n")[:3] == [new.title, lead, new.paragraphs[0]]
    assert photo not in result.text
    assert lead not in get_method("mainblock")(article_page(new, top=top(lead, photo))).text  # the site model's
    # a lead the body repeats is not put twice
    first = ". ".join(new.paragraphs[0].split(". ")[:2]) + "."
    result, _ = _extract_f1(record, article_page(new, top=top(first, photo)), new.gold)
    assert result.text.split("\n")[:2] == [new.title, new.paragraphs[0]]


def test_the_headline_path_reads_curly_quotes_and_dashes_as_the_title_does():
    from fce.blocks import blocks_of
    from fce.learn import _heads, title_path

    titles = ['It\'s the "harbour" plan... again', "Mayor's budget - the second vote", 'A "quiet" winter ahead']
    pages = []
    for k, title in enumerate(titles):
        headline = (title.replace("'", "\u2019").replace(' "', " \u201c").replace('" ', "\u201d ")
                    .replace("...", "\u2026").replace(" - ", " \u2013 "))
        html = (f"<html><head><title>{title}</title></head><body><div class='nav'><a href='/'>Home</a></div>"
                f"<div class='story'><h1>{headline}</h1><p>Paragraph {k} of the story, long enough to read.</p>"
                f"</div></body></html>")
        pages.append(parse_page(html.encode(), url=f"https://times.example/a/{k}"))
    trees = [blocks_of(p) for p in pages]
    assert title_path(trees, [_heads(p) for p in pages]) == "HTML.BODY.DIV[.story].H1"
