"""fce.pipeline: template vs fallback decisions, the Extractor over a store, golden outputs on the example site."""

import dataclasses
import gc
import os
import weakref
from pathlib import Path

import pytest

from fce.detect import Detector
from fce.errors import TemplateNotFoundError, UnknownMethodError
from fce.extraction import Extraction
from fce.learn import TemplateLearner
from fce.methods import get_method
from fce.parse import parse_page
from fce.pipeline import DEFAULT_FALLBACK, Extractor, extract, learn_template
from fce.template import LearnParams, Template
from templates_store import open_store
from tests._sites import site_pages

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "site"
GOLDEN = Path(__file__).resolve().parent / "golden"


@pytest.fixture(scope="module")
def example_template():
    pages = [parse_page(p.read_bytes(), source=str(p)) for p in sorted((EXAMPLE / "learn").glob("*.html"))]
    return TemplateLearner("news.example.com").fit(pages).template_


@pytest.mark.parametrize("name", sorted(p.stem for p in (EXAMPLE / "new").glob("*.html")))
def test_golden_example_site(example_template, name):
    page = parse_page((EXAMPLE / "new" / f"{name}.html").read_bytes())
    result = extract(page, example_template)
    assert result.method == "template" and result.fit is not None and result.fit > 0.9
    golden = GOLDEN / f"example-{name}.txt"
    if os.environ.get("FCE_UPDATE_GOLDEN"):
        golden.write_text(result.text + "\n", encoding="utf-8")
    assert golden.exists(), f"missing {golden}; run with FCE_UPDATE_GOLDEN=1 and review the diff"
    assert result.text + "\n" == golden.read_text(encoding="utf-8")


def test_an_extraction_with_its_content_is_what_replace_makes():
    # (Extraction.with_content names every field: one added to the class must be added there too)
    fields = dataclasses.fields(Extraction)
    full = Extraction(**{f.name: object() for f in fields})
    for output in ("markdown", "html"):
        made = full.with_content(**{output: "written"})
        assert [getattr(made, f.name) for f in fields] == [
            getattr(dataclasses.replace(full, **{output: "written"}), f.name) for f in fields]


def test_no_template_falls_back():
    page = parse_page(b"<html><body><p>" + b"long text " * 50 + b"</p><ul><li>nav</li></ul></body></html>")
    result = extract(page, None, site="x.test")
    assert result.method == DEFAULT_FALLBACK and result.fallback_reason == "no-template"
    assert result.fit is None and result.site == "x.test"


def test_no_template_and_no_fallback_raises():
    page = parse_page(b"<p>x</p>")
    with pytest.raises(TemplateNotFoundError):
        extract(page, None, fallback=None)


def test_low_fit_falls_back():
    pages = site_pages()
    template = TemplateLearner("news.test").fit([p for _, p in pages[:20]]).template_
    foreign = parse_page(b"<html><body><table><tr><td>" + b"Different layout words. " * 40
                         + b"</td></tr></table></body></html>")
    result = extract(foreign, template)
    assert result.method == DEFAULT_FALLBACK and result.fallback_reason == "low-fit"
    assert result.fit is not None and result.fit < 0.5
    assert "Different layout words." in result.text


def test_empty_template_extraction_falls_back():
    pages = site_pages()
    template = TemplateLearner("news.test").fit([p for _, p in pages[:20]]).template_
    g, page = pages[25]
    # every known path boilerplate, no content path: the template extracts nothing
    hollow = dataclasses.replace(template, content_paths={}, noise_paths=frozenset(template.known_paths))
    result = extract(page, Detector(hollow))
    assert result.fallback_reason == "empty" and result.text


def test_unknown_fallback_method():
    with pytest.raises(UnknownMethodError):
        Extractor(None, fallback="nope")


def test_extractor_loads_each_template_once(tmp_path):
    pages = site_pages()
    store = open_store(f"sqlite:///{tmp_path / 't.db'}")
    store.put("news.test", learn_template([p for _, p in pages[:20]], "news.test").to_json())
    calls = []
    real = store.get_many

    def counting(sites):
        calls.append(list(sites))
        return real(sites)

    store.get_many = counting  # type: ignore[method-assign]
    ex = Extractor(store)
    results = [ex.extract(p) for _, p in pages[20:25]]
    assert all(r.method == "template" and r.site == "news.test" for r in results)
    assert calls == [["news.test"]]
    store.close()


# --- layouts and the counters of fits and fallbacks -------------------------------------------------------------


def test_extractor_counts_fits_and_fallbacks_in_batches(monkeypatch):
    import fce.pipeline

    pages = site_pages()
    store = open_store("memory://")
    store.put("news.test", learn_template([p for _, p in pages[:20]], "news.test").to_json())  # schema 1
    monkeypatch.setattr(fce.pipeline, "OUTCOME_BATCH", 4)
    calls = []
    real = store.record

    def counting(site, outcomes, *, version=None):
        calls.append((site, outcomes, version))
        return real(site, outcomes, version=version)

    store.record = counting  # type: ignore[method-assign]
    ex = Extractor(store)
    foreign = parse_page(b"<html><body><table><tr><td>" + b"Different layout words. " * 40
                         + b"</td></tr></table></body></html>", url="https://news.test/other")
    results = [ex.extract(p) for _, p in pages[20:23]] + [ex.extract(foreign)]
    assert [r.info["layout"] for r in results] == [0, 0, 0, None]
    assert calls == [("news.test", "1110", 1)]  # the 4th detection filled the batch
    ex.extract(pages[23][1])
    ex.extract(parse_page(b"<p>no site</p>"))  # no site, no template: nothing to count
    assert len(calls) == 1
    ex.flush()
    assert calls[1] == ("news.test", "1", 1)
    got = store.counters(["news.test"])["news.test"]
    assert (got.fits, got.fallbacks, got.recent) == (4, 1, "11101")
    ex.flush()  # nothing pending: no call
    assert len(calls) == 2


def test_extractor_without_recording_and_with_a_failing_store():
    from templates_store import StoreUnavailable

    pages = site_pages()
    store = open_store("memory://")
    store.put("news.test", learn_template([p for _, p in pages[:20]], "news.test").to_json())
    quiet = Extractor(store, record=False)
    quiet.extract(pages[20][1])
    quiet.flush()
    assert store.counters(["news.test"])["news.test"].recent == ""

    def refuse(site, outcomes, *, version=None):
        raise StoreUnavailable("template store memory://: locked", url="memory://", site=site)

    store.record = refuse  # type: ignore[method-assign]
    ex = Extractor(store)
    assert ex.extract(pages[21][1]).method == "template"
    ex.flush()  # the counts are monitoring: detection does not fail for them
    assert ex.dropped_outcomes == 1 and "locked" in str(ex.record_error)


def test_extract_reports_fit_layout_and_match():
    pages = site_pages()
    template = TemplateLearner("news.test").fit([p for _, p in pages[:20]]).template_
    for compiled in (template, Detector(template)):
        result = extract(pages[25][1], compiled)
        assert result.method == "template" and result.fit > 0.9
        assert result.info["layout"] == 0 and 0.5 < result.info["match"] <= 1.0
    empty = extract(pages[25][1], template, fallback=None, min_fit=1.01)  # fit too low, no fallback allowed
    assert empty.method == "template" and empty.info["layout"] == 0


def test_a_detector_is_wrapped_for_layout_choice_once(example_template):
    from fce.layouts import SiteDetector
    from fce.pipeline import compile_site

    detector = Detector(example_template)
    site = compile_site(detector)
    assert isinstance(site, SiteDetector) and site.detectors == (detector,)
    assert compile_site(detector) is site  # reused page after page
    assert compile_site(detector, min_fit=0.9) is not site and compile_site(detector, min_fit=0.9).min_fit == 0.9
    assert compile_site(Detector(example_template)) is not site
    gone = weakref.ref(detector)
    del detector, site
    gc.collect()
    assert gone() is None  # the wrapper lives with its detector, not longer


def test_blocks_for_reads_the_template_and_the_fallback():
    from fce.detect import Detector
    from fce.layouts import SiteDetector
    from fce.learn import TemplateLearner
    from fce.pipeline import blocks_for, parse_blocks
    from fce.template import SiteTemplates
    from tests._sites import site_pages

    pages = [p for _, p in site_pages("blocks.test", 8, 2)]
    qualified = TemplateLearner("blocks.test").fit(pages).template_
    paper = TemplateLearner("blocks.test", path_style="paper").fit(pages).template_
    record = SiteTemplates.of(qualified)
    for template in (qualified, Detector(qualified), record, SiteDetector(record)):
        assert blocks_for(template, "mainblock") == blocks_for(template, None) == "qualified"
        assert blocks_for(template, "density") is None  # the fallback reads the lxml tree
    assert blocks_for(paper, None) == "paper" and blocks_for(paper, "mainblock") is None  # two styles: the tree
    assert blocks_for(None, "plain") == "qualified" and blocks_for(None, "ccb") is None
    assert parse_blocks("mainblock") == parse_blocks(None) == "qualified" and parse_blocks("density") is None


#: The learning parameters of the hand-made templates below (qualified paths, as fce learn stores).
HAND_MADE_PARAMS = LearnParams(0.9, 0.05, 2, 0.0, "recursive", "qualified", 0.3)


def test_a_template_that_keeps_a_sliver_of_the_page_is_overruled():
    """A page the template reads wrongly: its selection keeps one short box while the paths it keeps hold ten
    times more text (here a long list whose items are mostly link text, which the scoring passes over). The check
    runs the fallback, the result says why and with which figures, and the store counts it as overruled."""
    from fce.pipeline import CHECK_MIN_SHARE, OutcomeBatch, outcome_of
    from templates_store import OVERRULED, MemoryStore

    lead = "The council approved the harbor budget after a long debate about the cost of the new ferry. " * 4
    items = "".join(f'<li><a href="/{i}">{"Read the whole story about the harbor and its ferries " * 2}</a> '
                    f"more</li>" for i in range(40))
    html = f'<html><body><div class="a"><p>{lead}</p></div><div class="b"><ul>{items}</ul></div></body></html>'
    page = parse_page(html.encode())
    paths = {"HTML.BODY.DIV[.a].P": 5, "HTML.BODY.DIV[.b].UL.LI": 5}
    template = Template(site="s.test", content_paths=paths, noise_blocks=(), known_paths=paths, n_pages=5,
                        params=HAND_MADE_PARAMS, learned_at="",
                        noise_paths=frozenset())
    alone = Detector(template).match(page)
    assert 0 < alone.chars < CHECK_MIN_SHARE * sum(len(t) for t in (lead.strip(), items))
    result = extract(page, Detector(template))
    assert result.fallback_reason == "check" and result.method == DEFAULT_FALLBACK
    check = result.check
    assert check is not None and (check.winner, check.rule) == ("fallback", "kept-too-little")
    assert check.template_chars == alone.chars and check.expected_chars > 10 * check.template_chars
    assert check.fallback_chars == len(result.text)
    assert result.to_dict()["check"]["rule"] == "kept-too-little"
    assert outcome_of(result) == OVERRULED
    store = MemoryStore()
    store.put("s.test", template.to_json())
    batch = OutcomeBatch(store)
    batch.add("s.test", 1, result)
    batch.flush()
    assert store.counters(["s.test"])["s.test"].overruled == 1


def _one_line_post(sidebar: str) -> bytes:
    nav = "".join(f'<li><a href="/{i}">Section {i}</a></li>' for i in range(8))
    return (f'<html><body><ul class="nav">{nav}</ul><div class="side">{sidebar}</div><div class="post">'
            f'<h1>A video</h1><p>Wow, just wow.</p></div><div class="foot">Copyright 2012 the site, all rights '
            f"reserved, more or less.</div></body></html>").encode()


def _post_template() -> Template:
    content = {"HTML.BODY.DIV[.post].P": 5}
    noise = {"HTML.BODY.UL[.nav].LI", "HTML.BODY.DIV[.side]", "HTML.BODY.DIV[.side].P", "HTML.BODY.DIV[.foot]",
             "HTML.BODY.DIV[.post].H1"}
    known = {**content, **dict.fromkeys(noise, 5), "HTML": 5, "HTML.BODY": 5, "HTML.BODY.UL[.nav]": 5,
             "HTML.BODY.DIV[.post]": 5}
    return Template(site="s.test", content_paths=content, noise_blocks=(), known_paths=known, n_pages=5,
                    params=HAND_MADE_PARAMS, learned_at="",
                    noise_paths=frozenset(noise), title_path="HTML.BODY.DIV[.post].H1")


def test_a_post_too_short_to_score_is_taken_from_the_template_paths_inside_the_fallback():
    """A post of one line under a video: guided detection scores no paragraph, and the fallback finds no article
    either and takes the page's whole region. The template's content paths say which part of it is the post."""
    sidebar = ("Subscribe to our newsletter for the week's best stories, sent every Friday morning. Follow us on "
               "every network you use, and tell your friends.")
    page = parse_page(_one_line_post(sidebar))
    detector = Detector(_post_template())
    assert not detector.match(page).blocks
    fallback = get_method(DEFAULT_FALLBACK)(page)
    assert "Wow, just wow." in fallback.text and "Section 3" in fallback.text  # the region, the post inside it
    result = extract(page, detector)
    assert (result.method, result.fallback_reason, result.text) == ("template", None, "A video\nWow, just wow.")
    check = result.check
    assert check is not None and (check.winner, check.rule) == ("template", "narrowed")
    assert check.template_chars == sum(len(b.text) for b in result.blocks)
    assert check.fallback_chars == len(fallback.text)
    assert result.to_dict()["check"]["rule"] == "narrowed"
    assert extract(page, Detector(_post_template(), mode="rules")).check is None  # the paper's mode: no check


def test_a_post_too_short_to_score_stays_the_fallback_s_where_the_fallback_took_other_text():
    """The fallback took a box off the template's content paths, not the region around them: the template's
    one line may not be the page's content (news.sina.com.hk's pages whose article sits off the learned paths)."""
    page = parse_page(_one_line_post("<p>Subscribe to our newsletter for the week's best stories, sent every "
                                     "Friday morning.</p>"))
    result = extract(page, Detector(_post_template()))
    assert result.method == DEFAULT_FALLBACK and result.fallback_reason == "empty" and result.check is None
    assert "Wow" not in result.text and result.text.startswith("Subscribe")


@pytest.mark.parametrize(("chars", "expected", "fallback", "rule"), [
    (50, 1000, None, "kept-too-little"),  # next to nothing kept: the fallback, whatever it reads
    (50, 1000, 5000, "kept-too-little"),
    (250, 1000, 1000, "fallback-agrees"),  # another region: the fallback reads what the site model expects
    (250, 1000, 1600, "kept-enough"),  # the fallback reads far more than expected: comments, lists of links
    (250, 1000, 400, "kept-enough"),
    (250, 1000, None, "kept-enough"),  # a fallback not run (it reads more than the block tree): no comparison
    (350, 1000, 1000, "kept-enough"),
    (10, 150, 150, "kept-enough"),  # too short a page to judge
])
def test_the_check_rules(chars, expected, fallback, rule):
    from fce.pipeline import _check_rule

    assert _check_rule(chars, expected, fallback) == rule


def test_without_a_fallback_nothing_is_checked():
    pages = site_pages()
    template = TemplateLearner("news.test").fit([p for _, p in pages[:20]]).template_
    result = extract(pages[25][1], Detector(template), fallback=None)
    assert result.method == "template" and result.check is None


def test_counts_a_store_refuses_are_kept_and_retried(monkeypatch):
    import fce.pipeline
    from fce.extraction import Extraction
    from fce.pipeline import OutcomeBatch
    from templates_store import MemoryStore, StoreUnavailable

    class Flaky(MemoryStore):  # a fake of one method: the first two writes of counts fail
        failures = 2

        def record(self, site, outcomes, *, version=None):  # type: ignore[no-untyped-def]
            if self.failures:
                self.failures -= 1
                raise StoreUnavailable("connection lost", url="memory://")
            return super().record(site, outcomes, version=version)

    store = Flaky()
    store.put("s.test", "t")
    fit = Extraction(text="x", method="template")
    batch = OutcomeBatch(store, size=10**6)
    for _ in range(5):
        batch.add("s.test", 1, fit)
    batch.flush()  # refused: kept
    assert batch.dropped == 0 and store.counters(["s.test"])["s.test"].fits == 0
    batch.add("s.test", 1, fit)
    batch.flush(final=True)  # refused once more, then written
    assert batch.dropped == 0 and store.counters(["s.test"])["s.test"].fits == 6

    store.failures = 10**6  # gone for good: the last flush gives the counts up, and says so
    monkeypatch.setattr(fce.pipeline, "RECORD_RETRY_DELAY", 0.0)
    batch.add("s.test", 1, fit)
    batch.flush(final=True)
    assert batch.dropped == 1 and "connection lost" in str(batch.error)


COMMENTED = ("<html><body><main><article><h1>Harbour plan approved</h1>"
             + "<p>The council met on Monday, and after a long debate, it approved the plan for the harbour.</p>" * 4
             + "</article><div id='comments'>"
             + "<div class='comment-body'><p>A reader says: this plan is long overdue, and welcome news.</p></div>" * 3
             + "</div></main></body></html>")


def test_comments_are_a_field_of_their_own_whatever_extracted_the_page():
    page = parse_page(COMMENTED.encode())
    plain = extract(page, None)
    assert plain.comments is None and "A reader says" not in plain.text
    assert plain.page_type == "article" and plain.page_type_reason is not None
    found = extract(page, None, comments=True)
    assert found.text == plain.text and found.comments.count("A reader says") == 3
    lqf = extract(page, None, fallback="lqf", comments=True)  # a method that keeps them, and does not say
    assert "A reader says" in lqf.text and lqf.comments == "" and lqf.page_type is None  # none left over


def test_template_results_give_comments_and_no_page_kind(example_template):
    page = parse_page(sorted((EXAMPLE / "new").glob("*.html"))[0].read_bytes())  # a page with reader comments
    result = extract(page, example_template, comments=True)
    assert result.method == "template" and result.page_type is None
    assert result.comments.startswith("Comments (") and " ago\n" in result.comments
    assert " ago" not in result.text


def test_a_page_read_from_its_noscript_is_rendered_as_paragraphs():
    article = "<p>The council met on Monday, and after a long debate, it approved the plan for the harbour.</p>" * 4
    page = parse_page(f"<html><body><div id='app'></div><noscript><h1>Plan *approved*</h1>{article}</noscript>"
                      "</body></html>".encode())
    result = extract(page, None, output="markdown", comments=True)
    assert result.info.get("noscript") and result.comments == ""
    assert result.markdown.split("\n\n")[0] == "Plan \\*approved\\*"  # its text, escaped, a paragraph a line
    assert len(result.markdown.split("\n\n")) == len(result.text.splitlines())
    html = extract(page, None, output="html").html
    assert html.startswith("<p>Plan *approved*</p>\n<p>The council")
