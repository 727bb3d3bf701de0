"""Tests for tests.sitegen: determinism, gold versus the page's visible text, boilerplate, layouts, charsets,
and the committed example site."""

from __future__ import annotations

import hashlib
import importlib.util
import json
from collections import Counter
from pathlib import Path
from typing import Literal

import lxml.html
import pytest

from tests.sitegen import (
    CHARSETS,
    LIVE_BLOG_STANDING,
    GeneratedPage,
    SiteStyle,
    generate_mixed_site,
    generate_site,
    write_site,
)

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
Layout = Literal["div", "table"]
LAYOUTS: list[Layout] = ["div", "table"]
Sites = dict[str, list[GeneratedPage]]
# Where the article paragraphs sit, per layout (see the tests.sitegen module doc).
PARAGRAPH_PATHS = {"div": "HTML.BODY.DIV.MAIN.ARTICLE.DIV.P", "table": "HTML.BODY.TABLE.TR.TD.TABLE.TR.TD.P"}
HEADLINE_PATHS = {"div": "HTML.BODY.DIV.MAIN.ARTICLE.H1", "table": "HTML.BODY.TABLE.TR.TD.H1"}


def _norm(text: str) -> str:
    return " ".join(text.split())


def _tree(page: GeneratedPage) -> lxml.html.HtmlElement:
    """The page parsed from its bytes (libxml2 reads the declared charset), scripts and styles removed."""
    root = lxml.html.document_fromstring(page.html)
    for element in root.xpath("//script | //style | //noscript | //head"):
        element.drop_tree()
    return root


def _path(element: lxml.html.HtmlElement) -> str:
    return ".".join(e.tag.upper() for e in [*reversed(list(element.iterancestors())), element])


def _blocks(root: lxml.html.HtmlElement) -> list[tuple[lxml.html.HtmlElement, str]]:
    """Every element with its whitespace-normalised text, in document order."""
    return [(e, _norm(e.text_content())) for e in root.iter() if isinstance(e.tag, str)]


def _gold_elements(page: GeneratedPage) -> list[lxml.html.HtmlElement]:
    """Per gold line, the next element whose whole text is that line and no child's is (the innermost)."""
    blocks, found, start = _blocks(_tree(page)), [], 0
    for line in page.gold.split("\n"):
        k = next(
            k
            for k in range(start, len(blocks))
            if blocks[k][1] == line and all(_norm(c.text_content()) != line for c in blocks[k][0])
        )
        found.append(blocks[k][0])
        start = k + 1
    return found


@pytest.fixture(scope="module")
def sites() -> Sites:
    return {layout: generate_site("news.example.org", 12, seed=3, style=SiteStyle(layout=layout))
            for layout in LAYOUTS}  # fmt: skip


# --- determinism ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("layout", LAYOUTS)
def test_same_seed_same_bytes(layout: Layout) -> None:
    style = SiteStyle(layout=layout)
    assert generate_site("a.example", 6, seed=5, style=style) == generate_site(
        "a.example", 6, seed=5, style=style
    )


@pytest.mark.parametrize(("other_domain", "other_seed"), [("a.example", 6), ("b.example", 5)])
def test_other_seed_or_domain_other_pages(other_domain: str, other_seed: int) -> None:
    pages = generate_site("a.example", 6, seed=5)
    others = generate_site(other_domain, 6, seed=other_seed)
    assert all(a.html != b.html and a.gold != b.gold for a, b in zip(pages, others, strict=True))


def test_page_does_not_depend_on_page_count() -> None:
    assert generate_site("a.example", 8, seed=1)[:5] == generate_site("a.example", 5, seed=1)


def test_pages_of_a_site_differ(sites: Sites) -> None:
    for pages in sites.values():
        assert len({p.url for p in pages}) == len({p.gold for p in pages}) == len(pages)
        assert len({p.page_id for p in pages}) == len(pages)


# --- gold ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("layout", LAYOUTS)
def test_gold_format(sites: Sites, layout: Layout) -> None:
    for page in sites[layout]:
        lines = page.gold.split("\n")
        assert 1 + 3 <= len(lines), "headline and at least three paragraphs"
        assert all(line == _norm(line) and line for line in lines)
        assert _tree(page).xpath("string(//h1)").strip() == lines[0]


@pytest.mark.parametrize("layout", LAYOUTS)
def test_gold_words_appear_in_order_in_visible_text(sites: Sites, layout: Layout) -> None:
    for page in sites[layout]:
        visible = iter(_tree(page).text_content().split())
        assert all(word in visible for word in page.gold.split()), page.url  # subsequence test


@pytest.mark.parametrize("layout", LAYOUTS)
def test_each_gold_line_is_one_block_in_document_order(sites: Sites, layout: Layout) -> None:
    for page in sites[layout]:
        elements = _gold_elements(page)
        tags = Counter(e.tag for e in elements)
        assert _path(elements[0]) == HEADLINE_PATHS[layout]
        assert set(tags) <= {"h1", "p", "li", "figcaption", "td"}
        assert tags["p"] >= 3
        assert all(_path(e) == PARAGRAPH_PATHS[layout] for e in elements if e.tag == "p")


@pytest.mark.parametrize("layout", LAYOUTS)
def test_gold_leaves_out_noise_on_content_paths(sites: Sites, layout: Layout) -> None:
    """Every page ends its article with the same promo/copyright paragraph on the content path; not gold."""
    for page in sites[layout]:
        on_content_path = [text for e, text in _blocks(_tree(page)) if _path(e) == PARAGRAPH_PATHS[layout]]
        assert on_content_path[-1] not in page.gold.split("\n")
        assert "reserved" in on_content_path[-1] or "Sign up" in on_content_path[-1]


def test_paper_figure_1_inline_spans(sites: Sites) -> None:
    """Paragraphs hold <span class="yshortcuts"> (the FastCE paper's Figure 1), links, em, strong and b."""
    inline: Counter[str] = Counter()
    for page in sites["div"]:
        for p in _tree(page).xpath("//article//div[@class='story-body']/p[not(@class)]"):
            inline.update(child.tag for child in p)
            assert _norm(p.text_content()) in page.gold.split("\n")
    assert {"span", "a", "em", "strong", "b"} <= set(inline)
    assert sites["div"][0].html.count(b'class="yshortcuts" id="lw_') >= 1


def test_articles_have_lists_and_captions_sometimes(sites: Sites) -> None:
    for layout, pages in sites.items():
        tags = Counter(e.tag for page in pages for e in _gold_elements(page))
        assert tags["li"] > 0 and (tags["figcaption"] if layout == "div" else tags["td"]) > 0, layout


# --- boilerplate ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("layout", LAYOUTS)
def test_boilerplate_repeats_and_content_does_not(sites: Sites, layout: Layout) -> None:
    pages = sites[layout]
    texts = [{text for _, text in _blocks(_tree(page)) if text} for page in pages]
    on_every_page = set.intersection(*texts)
    # navigation, footer and the newsletter box, with the same text on every page
    assert any("All rights reserved" in t for t in on_every_page)
    assert any("top stories" in t for t in on_every_page)
    assert "Home" in on_every_page
    # content lines are on their own page only
    counts = Counter(line for page in pages for line in set(page.gold.split("\n")))
    assert max(counts.values()) == 1


@pytest.mark.parametrize("layout", LAYOUTS)
def test_boilerplate_varies_a_bit(sites: Sites, layout: Layout) -> None:
    """The "Most popular" list draws from a site-wide pool; related links are page-specific."""
    popular, related = [], []
    for page in sites[layout]:
        root = lxml.html.document_fromstring(page.html)
        popular.append(tuple(root.xpath("//ol/li//text()")))
        related.append(tuple(a.text for a in root.xpath("//*[@class='related']//a")))
    assert len(set(popular)) > 1
    assert len({item for items in popular for item in items}) <= 8
    assert len({link for links in related for link in links}) == sum(len(links) for links in related)


@pytest.mark.parametrize(
    ("style", "marker", "present"),
    [
        (SiteStyle(comments_rate=1.0), b'class="comments"', True),
        (SiteStyle(comments_rate=0.0), b'class="comments"', False),
        (SiteStyle(layout="table", comments_rate=1.0), b"Reader comments", True),
        (SiteStyle(ads=False), b"Advertisement", False),
        (SiteStyle(layout="table", ads=False), b"Advertisement", False),
        (SiteStyle(sidebar=False), b"Most popular", False),
        (SiteStyle(related_links=0), b"Related articles", False),
        (SiteStyle(footer=False), b"All rights reserved", False),
        (SiteStyle(in_article_promo=False, newsletter=False), b"top stories", False),
    ],
)
def test_style_knobs(style: SiteStyle, marker: bytes, present: bool) -> None:
    pages = generate_site("knobs.example", 4, seed=1, style=style)
    assert all((marker in page.html) is present for page in pages)


def test_paragraph_count_knob() -> None:
    for page in generate_site("a.example", 5, style=SiteStyle(paragraphs=(2, 2), list_rate=0, figure_rate=0)):
        assert len(page.gold.split("\n")) == 1 + 2


@pytest.mark.parametrize(
    "bad",
    [{"layout": "flex"}, {"charset": "utf-16"}, {"nav_items": 0}, {"popular_items": 9}, {"related_links": -1},
     {"paragraphs": (4, 3)}, {"comments_rate": 1.5}],
)  # fmt: skip
def test_invalid_style(bad: dict) -> None:
    with pytest.raises(ValueError):
        SiteStyle(**bad)


# --- charsets ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("charset", CHARSETS)
def test_charset_round_trip(layout: Layout, charset: str) -> None:
    pages = generate_site("charset.example", 10, seed=4, style=SiteStyle(layout=layout, charset=charset))
    golds = "\n".join(page.gold for page in pages)
    assert "é" in golds and "“" in golds and "’" in golds
    for page in pages:
        assert page.charset == charset
        assert f"charset={charset}".encode() in page.html.replace(b'"', b"")
        text = page.html.decode(charset)  # the bytes are in the declared charset
        if charset != "utf-8":
            assert b"\xc3\xa9" not in page.html  # no UTF-8 é
        if "“" in page.gold:  # ISO-8859-1 lacks curly quotes: they are written as character references
            assert ("&#8220;" if charset == "iso-8859-1" else "“") in text
        visible = _norm(_tree(page).text_content())  # lxml decodes from the <meta> declaration
        assert all(line in visible for line in page.gold.split("\n"))


# --- files ---------------------------------------------------------------------------------------------


def test_write_site(tmp_path: Path) -> None:
    pages = generate_site("www.files.example", 3, seed=2, style=SiteStyle(charset="windows-1252"))
    paths = write_site(pages, tmp_path / "out")
    assert [p.name for p in paths] == [f"{page.page_id}.html" for page in pages]
    assert len(list((tmp_path / "out").iterdir())) == 3 * len(pages)
    for page, path in zip(pages, paths, strict=True):
        assert path.read_bytes() == page.html
        assert path.with_suffix(".txt").read_text(encoding="utf-8") == page.gold + "\n"
        meta = json.loads(path.with_suffix(".json").read_text(encoding="utf-8"))
        assert meta["url"] == page.url and meta["site"] == "files.example"
        assert meta["sha256_html"] == hashlib.sha256(page.html).hexdigest()


# --- the committed example -----------------------------------------------------------------------------


def _load_example_script():
    spec = importlib.util.spec_from_file_location("make_example_site", EXAMPLES / "make_example_site.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_committed_example_equals_a_fresh_run(tmp_path: Path) -> None:
    script = _load_example_script()
    written = script.build(tmp_path)
    committed = EXAMPLES / "site"
    fresh = sorted(p.relative_to(tmp_path).as_posix() for p in written)
    on_disk = sorted(p.relative_to(committed).as_posix() for p in committed.rglob("*") if p.is_file())
    assert on_disk == fresh
    for name in fresh:
        assert (committed / name).read_bytes() == (tmp_path / name).read_bytes(), name


def test_example_script_cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _load_example_script().main(["--out", str(tmp_path)])
    assert "wrote 106 files" in capsys.readouterr().out
    assert (tmp_path / "urls.txt").read_bytes() == (EXAMPLES / "site" / "urls.txt").read_bytes()


def test_readme_python_example(tmp_path: Path) -> None:
    readme = (EXAMPLES / "README.md").read_text(encoding="utf-8")
    code = readme.split("```python\n", 1)[1].split("```", 1)[0].replace("/tmp/oldnews", str(tmp_path))
    exec(compile(code, "examples/README.md", "exec"), {})
    assert len(list((tmp_path / "learn").glob("*.html"))) == 30
    assert len(list((tmp_path / "new").glob("*.txt"))) == 5
    assert b"charset=windows-1252" in next((tmp_path / "new").glob("*.html")).read_bytes()


def test_example_layout() -> None:
    site = EXAMPLES / "site"
    assert len(list((site / "learn").glob("*.html"))) == 30
    assert len(list((site / "new").glob("*.html"))) == 5
    listed = [line for line in (site / "urls.txt").read_text().splitlines() if not line.startswith("#")]
    assert len(listed) == 30 and all((site / line).is_file() for line in listed)
    assert sum(p.stat().st_size for p in EXAMPLES.rglob("*") if p.is_file()) < 1_500_000


# --- several layouts: themes, live blogs, mixed sites ---------------------------------------------------------------


def test_theme_renames_class_and_id_names_but_those_kept():
    plain = generate_site("theme.test", 2, seed=4)
    themed = generate_site("theme.test", 2, seed=4, style=SiteStyle(theme="v2", theme_keep=("story-body",)))
    assert [p.gold for p in plain] == [p.gold for p in themed] and [p.url for p in plain] == [p.url for p in themed]
    html = themed[0].html.decode()
    assert 'class="v2-story"' in html and 'id="v2-main"' in html and 'class="story-body"' in html
    assert 'class="story"' not in html
    with pytest.raises(ValueError, match="theme"):
        SiteStyle(theme="Bad Theme")


def test_live_blog_has_a_standing_introduction_outside_the_gold():
    style = SiteStyle(live_blog=True)
    pages = generate_site("live.test", 3, seed=2, style=style)
    intros = []
    for page in pages:
        story = _tree(page).xpath('//div[@class="story-body"]')[0]
        standing = [_norm(p.text_content()) for p in story.xpath("./p[not(@class)]")]  # not promo, read-more
        entries = [_norm(p.text_content()) for p in story.xpath('./div[@class="entry"]/p')]
        assert len(standing) == LIVE_BLOG_STANDING and entries
        assert all(line not in page.gold for line in standing)
        assert all(entry in page.gold for entry in entries)
        intros.append(standing)
    assert intros[0] == intros[1] == intros[2]  # the same on every live blog of the site
    with pytest.raises(ValueError, match="live_blog"):
        SiteStyle(layout="table", live_blog=True)


def test_mixed_site_alternates_the_layouts():
    styles = (SiteStyle(), SiteStyle(layout="table"))
    mixed = generate_mixed_site("mix.test", 6, styles, seed=1)
    assert mixed == generate_mixed_site("mix.test", 6, styles, seed=1)
    for i, page in enumerate(mixed):
        assert page == generate_site("mix.test", 6, seed=1, style=styles[i % 2])[i]
    assert len({p.url for p in mixed}) == 6
    with pytest.raises(ValueError):
        generate_mixed_site("mix.test", 2, ())
