"""Tests of :mod:`fce.show`: block fates, the self-contained overlay, and the overlay in a real headless Chromium.

The browser tests start Debian's ``chromium`` through ``chromedriver`` (Selenium). Without them they fail with a
message saying what to install (``bash scripts/test.sh`` installs both): they must not pass by skipping.
"""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

import pytest
from lxml import etree

from fce.detect import Detector
from fce.errors import BrowserError
from fce.parse import parse_page
from fce.pipeline import learn_template
from fce.show import FATES, PNG_FIRST_HEIGHT, PNG_WIDTH, explain, find_browser, render_html, render_png
from fce.sites import normalize_site
from fce.template import LearnParams, NoiseBlock, Template
from tests._sites import site_pages

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "site"
SITE = "news.example.com"
NEW_PAGE = EXAMPLE / "new" / "590961-quebec-city-officials-question-greener-harbor.html"
CHROMEDRIVER = "chromedriver"

#: Scripts and handlers added to the example page: each would mark the document if it ran.
HOSTILE = (
    '<script>document.documentElement.setAttribute("data-ran", "script")</script>'
    '<img src="x.png" onerror="document.documentElement.setAttribute(\'data-ran\', \'onerror\')">'
    '<iframe src="https://example.org/"></iframe>'
    '<a href="javascript:document.documentElement.setAttribute(\'data-ran\', \'href\')" id="jslink">x</a>'
    '<div style="background:url(https://example.org/bg.png)" onmouseover="window.ran=1">styled</div>'
    '<link rel="stylesheet" href="https://example.org/s.css">'
)


@pytest.fixture(scope="module")
def template() -> Template:
    pages = [parse_page(p.read_bytes(), source=str(p)) for p in sorted((EXAMPLE / "learn").glob("*.html"))]
    return learn_template(pages, SITE)


@pytest.fixture(scope="module")
def new_page():
    return parse_page(NEW_PAGE.read_bytes(), source=str(NEW_PAGE))


def _fate_of(overlay, predicate) -> set[str]:
    return {f for b, f in zip(overlay.tree.blocks, overlay.fates, strict=True) if b.text and predicate(b)}


# --- fates --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", ["guided", "rules"])
def test_template_fates_on_the_example_site(template, new_page, mode):
    overlay = explain(new_page, template, mode=mode)
    assert overlay.extraction.method == "template"
    assert overlay.mode == mode
    assert _fate_of(overlay, lambda b: b.tag == "h1") == {"content"}
    assert _fate_of(overlay, lambda b: ".NAV[.main-nav]." in b.path) == {"noise-path"}
    assert _fate_of(overlay, lambda b: ".FOOTER[" in b.path) == {"noise-path"}
    assert _fate_of(overlay, lambda b: "[.byline]" in b.path) == {"noise-path"}
    assert _fate_of(overlay, lambda b: b.path.endswith("DIV[.story-body].P")) == {"content"}
    # the words of every "content" block are in the extraction (own text: an inline span's words are its own)
    words = set(overlay.extraction.text.split())
    content = [b for b, f in zip(overlay.tree.blocks, overlay.fates, strict=True) if f == "content" and b.text]
    assert all(set(b.text.split()) <= words for b in content)
    assert overlay.counts()["content"] == len(content) > 5


def test_without_template_the_fallback_is_shown(new_page):
    overlay = explain(new_page, None)
    assert overlay.extraction.method == "mainblock"
    assert overlay.extraction.fallback_reason == "no-template"
    assert overlay.mode is None
    assert _fate_of(overlay, lambda b: b.tag == "h1") == {"fallback"}
    assert _fate_of(overlay, lambda b: ".NAV[.main-nav]." in b.path) == {"other"}
    assert set(overlay.fates) <= {"fallback", "other"}


def test_a_method_is_shown_without_template(new_page, template):
    overlay = explain(new_page, template, method="lqf")
    assert overlay.extraction.method == "lqf"
    assert overlay.counts()["fallback"] > 0 and overlay.counts()["content"] == 0


def test_low_fit_falls_back_and_keeps_noise_paths(template):
    _, page = site_pages("other.test", n=1, layout="table")[0]  # another layout: the template does not fit
    overlay = explain(page, template)
    assert overlay.extraction.fallback_reason == "low-fit"
    assert overlay.counts()["fallback"] > 0
    assert "content" not in overlay.fates


def test_noise_by_similarity():
    path = "HTML.BODY.DIV.P"
    promo = "Sign up for our morning newsletter and get the top stories in your inbox every day"
    params = LearnParams(similarity_threshold=0.9, occurrence_fraction=0.05, min_occurrence=2,
                         min_path_support=0.0, rules="recursive", path_style="paper")
    tpl = Template(site="t.test", content_paths={path: 20}, noise_blocks=(NoiseBlock(path, promo, (0, 0, 0, 0, 0)),),
                   known_paths={path: 20, "HTML.BODY.DIV": 20}, n_pages=20, params=params, learned_at="now")
    article = "The council approved the new harbor budget on Monday after a long debate, officials said."
    page = parse_page(f"<html><body><div><p>{article}</p><p>{promo}!</p><p>Other words here.</p></div></body></html>")
    overlay = explain(page, tpl, mode="rules")
    fates = {b.text: f for b, f in zip(overlay.tree.blocks, overlay.fates, strict=True) if b.text}
    assert fates[article] == "content"
    assert fates[promo + "!"] == "noise-similar"
    assert overlay.extraction.text == article + "\nOther words here."


# --- the overlay HTML ---------------------------------------------------------------------------------------


def test_overlay_of_a_page_with_hidden_parts():
    # (the blocks segmentation leaves out — hidden, skip links — are not outlined, and the others are their own)
    html = ("<html><body><a class='skip-link' href='#main'><span>Skip to content</span></a>"
            "<div hidden><p>Collapsed comments</p></div><div style='display: none'><p>A mobile menu</p></div>"
            "<div id='main'><p>The council approved the new harbor budget on Monday after a long debate.</p>"
            "<ul aria-hidden='true'><li>Decorative</li></ul><p>Officials said work starts in May.</p></div>"
            "</body></html>")
    page = parse_page(html)
    root = etree.fromstring(render_html(page, explain(page, None)), etree.HTMLParser())
    outlined = {el.text: el.get("data-fce-fate") for el in root.iter("p", "li", "span") if el.get("data-fce-fate")}
    assert outlined == {"The council approved the new harbor budget on Monday after a long debate.": "fallback",
                        "Officials said work starts in May.": "fallback"}


def test_overlay_of_markup_lxml_cannot_write_back():
    # attribute names lxml cannot address (reuters.com: <meta {="…">), control characters (and U+FFFE) in the text
    # after a removed element (seattlepi.com), in a style sheet and in a class name
    html = ("<html><head><meta { content='x' name='a'><style>p{background:url(x.png)}\x0b</style></head><body>"
            "<div class='story\x01' a{b='1' onclick{='alert(1)'><script>x()</script>Before\x0c after"
            "<p style='color:red' on{load='x()' a\x02b='1' onmouseover='y()'>"
            "The council approved the new harbor budget on Monday.</p>"
            "<iframe src='x'></iframe>\x01tail\ufffe</div></body></html>")
    page = parse_page(html)
    out = render_html(page, explain(page, None))
    root = etree.fromstring(out, etree.HTMLParser())
    assert not root.xpath("//script | //iframe") and "alert" not in out and "url(" not in out
    assert "Before" in out and "tail" in out and "The council approved" in out
    div = root.find(".//div[@data-fce-path]")
    assert div is not None and "\x01" not in div.get("data-fce-path")


def _hostile_page():
    text = NEW_PAGE.read_text(encoding="utf-8").replace("</body>", HOSTILE + "</body>")
    return parse_page(text.encode("utf-8"), source="hostile.html")


def test_overlay_is_self_contained(template):
    page = _hostile_page()
    before = etree.tostring(page.root)
    out = render_html(page, explain(page, template))
    assert etree.tostring(page.root) == before  # the page is not modified
    doc = etree.HTML(out)
    assert not doc.xpath("//script | //iframe | //frame | //object | //embed | //link | //base | //noscript")
    assert not [a for el in doc.iter() if isinstance(el.tag, str) for a in el.attrib if a.lower().startswith("on")]
    for attr in ("src", "href", "srcset", "action", "poster"):
        for value in doc.xpath(f"//@{attr}"):
            assert value.startswith("data:image/"), (attr, value)
    assert not re.search(r"url\s*\(", out, re.IGNORECASE)
    assert "styled" in out and doc.xpath("//a[@id='jslink']")[0].tail is None
    small = parse_page("<p>before <script>x()</script>after <iframe></iframe>end</p>")
    tail = render_html(small, explain(small, None))
    assert "before after end" in " ".join(etree.HTML(tail).xpath("string(//p)").split())  # text after a removed tag
    csp = doc.xpath("//head/meta[@http-equiv='Content-Security-Policy']/@content")
    assert csp and "default-src 'none'" in csp[0]
    assert doc.xpath("//head/meta[@charset='utf-8']")


def test_overlay_marks_blocks_and_has_the_panel(template, new_page):
    overlay = explain(new_page, template)
    doc = etree.HTML(render_html(new_page, overlay))
    h1 = doc.xpath("//h1")[0]
    assert "fce-content" in h1.get("class").split() and h1.get("data-fce-fate") == "content"
    assert h1.get("title").startswith("HTML.BODY.DIV[.page-wrap]") and h1.get("data-fce-path").endswith("H1[.headline]")
    assert doc.xpath("//*[@id='fce-method']")[0].text == "template"
    assert doc.xpath("//*[@id='fce-fit']")[0].text == "1.000"
    assert doc.xpath("//*[@id='fce-text']")[0].text == overlay.extraction.text
    assert len(doc.xpath("//*[@data-fce-fate]")) == sum(overlay.counts().values())
    assert {row.get("class") for row in doc.xpath("//aside[@id='fce-panel']//tr[starts-with(@class,'fce-legend')]")} \
        == {f"fce-legend-{name}" for name in FATES}


# --- in a real browser --------------------------------------------------------------------------------------


def _browser_or_fail() -> str:
    browser = find_browser()
    if browser is None or shutil.which(CHROMEDRIVER) is None:
        pytest.fail("Chromium and chromedriver are needed (apt-get install chromium chromium-driver; "
                    "bash scripts/test.sh installs them)")
    return browser


@pytest.fixture(scope="module")
def driver():
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    browser = _browser_or_fail()
    options = webdriver.ChromeOptions()
    options.binary_location = browser
    for arg in ("--headless", "--disable-gpu", "--window-size=1280,2000", "--no-first-run"):
        options.add_argument(arg)
    if os.geteuid() == 0:
        options.add_argument("--no-sandbox")
    drv = webdriver.Chrome(service=Service(shutil.which(CHROMEDRIVER)), options=options)
    try:
        yield drv
    finally:
        drv.quit()


def test_overlay_in_chromium(driver, template, tmp_path):
    page = _hostile_page()
    target = tmp_path / "overlay.html"
    target.write_text(render_html(page, explain(page, template)), encoding="utf-8")
    driver.get(target.as_uri())
    rows = driver.execute_script(
        "return Array.from(document.querySelectorAll('[data-fce-fate]')).map(e => ["
        "e.tagName, e.className, e.getAttribute('data-fce-path'), getComputedStyle(e).outlineColor,"
        "getComputedStyle(e).outlineStyle])")
    by_tag = {}
    for tag, cls, path, colour, style in rows:
        by_tag.setdefault(tag, []).append((cls.split(), path, colour, style))
    (h1,) = by_tag["H1"]
    assert "fce-content" in h1[0] and h1[2] == "rgb(26, 150, 65)" and h1[3] == "solid"  # FATES["content"]
    nav = [r for r in by_tag["LI"] if ".NAV[.main-nav]." in r[1]]
    assert nav and all("fce-noise-path" in r[0] and r[2] == "rgb(215, 25, 28)" for r in nav)
    assert all("fce-content" in r[0] for r in by_tag["P"] if r[1].endswith("DIV[.story-body].P"))
    ran = driver.execute_script("return [document.documentElement.getAttribute('data-ran'), window.ran || null,"
                                " document.scripts.length, document.querySelectorAll('iframe').length]")
    assert ran == [None, None, 0, 0]
    driver.find_element("id", "jslink").click()
    assert driver.execute_script("return document.documentElement.getAttribute('data-ran')") is None
    panel = driver.find_element("id", "fce-panel")
    assert panel.is_displayed() and "template" in driver.find_element("id", "fce-method").text


def _png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")


def test_png(template, new_page, tmp_path):
    _browser_or_fail()
    out = render_png(render_html(new_page, explain(new_page, template)), tmp_path / "o.png", width=800)
    width, height = _png_size(out.read_bytes())
    assert width == 800 and height >= PNG_FIRST_HEIGHT


def test_png_is_the_whole_page_up_to_the_limit(tmp_path):
    _browser_or_fail()
    page = "<html><body style='margin:0'>" + "<div style='height:100px'>x</div>" * 30 + "</body></html>"
    assert _png_size(render_png(page, tmp_path / "a.png", width=640).read_bytes()) == (640, 3000)
    assert _png_size(render_png(page, tmp_path / "b.png", width=640, max_height=1200).read_bytes()) == (640, 1200)


def test_an_event_that_came_before_a_commands_answer_is_kept():
    # (a unit test of the DevTools client's reading: no browser; its messages are given)
    from fce.show import _DevTools

    devtools = object.__new__(_DevTools)
    devtools.events, devtools.last_id = [], 0
    load = {"method": "Page.loadEventFired", "sessionId": "s", "params": {}}
    incoming = [{"method": "Page.frameNavigated", "sessionId": "s"}, load, {"id": 1, "result": {"frameId": "f"}}]
    devtools._send = lambda method, params, session: 1
    devtools._receive = incoming.pop
    incoming.reverse()
    assert devtools.call("Page.navigate", {"url": "file:///x"}, "s") == {"frameId": "f"}
    assert devtools.event("Page.loadEventFired", "s") is load and not devtools.events


def test_png_without_browser(new_page, tmp_path, monkeypatch):
    monkeypatch.setenv("FCE_BROWSER", "no-such-browser-fce")
    assert find_browser() is None
    with pytest.raises(BrowserError, match="no headless browser"):
        render_png("<p>x</p>", tmp_path / "o.png")
    with pytest.raises(BrowserError, match="exited 1 without a screenshot"):
        render_png("<p>x</p>", tmp_path / "o.png", browser="/bin/false")
    assert not (tmp_path / "o.png").exists()


def test_png_of_a_browser_that_hangs(tmp_path):
    hangs = tmp_path / "hangs"
    hangs.write_text("#!/bin/sh\nexec sleep 60\n")
    hangs.chmod(0o755)
    with pytest.raises(BrowserError, match="took more than 1 s"):
        render_png("<p>x</p>", tmp_path / "o.png", browser=str(hangs), timeout=1.0)


# --- the command --------------------------------------------------------------------------------------------


def _fce(*args: str, env: dict[str, str] | None = None):
    from typer.testing import CliRunner

    from fce import cli

    return CliRunner().invoke(cli.app, list(args), env=env)


def test_command(tmp_path, template):
    from templates_store import open_store

    db = f"sqlite:///{tmp_path}/t.db"
    with open_store(db) as store:
        store.put(normalize_site(SITE), template.to_json())  # (the site news.example.com is part of)
    done = _fce("--store", db, "show", str(NEW_PAGE), "-o", str(tmp_path / "o.html"))
    assert done.exit_code == 0, done.stderr
    assert "method template, fit 1.000" in done.stdout
    assert 'data-fce-fate="content"' in (tmp_path / "o.html").read_text(encoding="utf-8")
    done = _fce("--store", db, "show", str(NEW_PAGE), "-o", str(tmp_path / "m.html"), "--method", "bte")
    assert done.exit_code == 0 and "method bte" in done.stdout
    (tmp_path / "plain.txt").write_text("just some words\n")
    bad = _fce("--store", db, "show", str(tmp_path / "plain.txt"), "-o", str(tmp_path / "x.html"))
    assert bad.exit_code == 5 and bad.stderr.startswith(f"fce: error: {tmp_path}/plain.txt: not HTML")
    both = _fce("show", str(NEW_PAGE), "-o", str(tmp_path / "x.html"), "--method", "bte", "--site", SITE)
    assert both.exit_code == 2
    many = _fce("--store", db, "show", str(EXAMPLE / "new"), "-o", str(tmp_path / "x.html"))
    assert many.exit_code == 3 and "takes one page" in many.stderr
    nobrowser = _fce("--store", db, "show", str(NEW_PAGE), "-o", str(tmp_path / "y.html"), "--png",
                     str(tmp_path / "y.png"), env={"FCE_BROWSER": "no-such-browser-fce"})
    assert nobrowser.exit_code == BrowserError.exit_code == 16
    assert nobrowser.stderr.count("\n") == 1 and "no headless browser" in nobrowser.stderr


def test_command_draws_under_the_time_limit(tmp_path, monkeypatch):
    import time

    import fce.show

    def slow(*args, **kwargs):
        time.sleep(30)

    monkeypatch.setattr(fce.show, "render_html", slow)
    started = time.monotonic()
    done = _fce("--store", "memory://", "show", str(NEW_PAGE), "-o", str(tmp_path / "o.html"), "--page-timeout", "1")
    assert done.exit_code == 8 and done.stderr.count("\n") == 1 and "time limit" in done.stderr
    assert time.monotonic() - started < 10 and not (tmp_path / "o.html").exists()


def test_command_png(tmp_path):
    _browser_or_fail()
    png = tmp_path / "o.png"
    done = _fce("--store", "memory://", "show", str(NEW_PAGE), "-o", str(tmp_path / "o.html"), "--png", str(png))
    assert done.exit_code == 0, done.stderr
    assert done.stdout.rstrip().endswith(f"; {png}")
    width, height = _png_size(png.read_bytes())
    assert width == PNG_WIDTH and height >= PNG_FIRST_HEIGHT


def test_detector_is_accepted(template, new_page):
    detector = Detector(template, mode="rules")
    assert explain(new_page, detector).mode == "rules"


def test_hostile_corpus_renders():
    """Every parseable page of the robustness corpus maps onto its blocks and renders without scripts or frames."""
    from fce.errors import FceError
    from tests.test_robustness_corpus import CASES

    rendered = 0
    for case in CASES:
        if case.big:
            continue
        try:
            page = parse_page(case.build())
        except FceError:
            continue
        doc = parse_page(render_html(page, explain(page, None)).encode()).root  # fce's parser: no depth limit
        assert not doc.xpath("//script | //iframe | //frame | //frameset"), case.name
        assert doc.xpath("//aside[@id='fce-panel']"), case.name
        rendered += 1
    assert rendered >= 25
