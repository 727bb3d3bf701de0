"""``fce/api.py``: the one call, ``fce.extract_html``, on the bundled example site: what it gives back, with and
without a template store, and what it refuses."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import fce
from fce.errors import EmptyPageError, NotHTMLError
from fce.parse import parse_page
from fce.pipeline import extract, learn_site
from fce.service import save_template
from templates_store import MemoryStore, open_store

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "site"


def _pages(folder: str) -> list[tuple[bytes, str]]:
    """(bytes, url) of the example site's pages in ``folder`` (``learn`` or ``new``)."""
    return [(path.read_bytes(), json.loads(path.with_suffix(".json").read_text(encoding="utf-8"))["url"])
            for path in sorted((EXAMPLE / folder).glob("*.html"))]


@pytest.fixture(scope="module")
def store() -> MemoryStore:
    memory = MemoryStore()
    learned = [parse_page(data, url=url) for data, url in _pages("learn")]
    save_template(memory, learn_site(learned, "news.example.com"))
    return memory


def test_without_a_store_it_is_the_single_page_method_with_metadata_and_markdown():
    data, url = _pages("new")[0]
    result = fce.extract_html(data, url)
    same = extract(parse_page(data, url=url), None, site="example.com", metadata=True, output="markdown")
    assert result.to_dict() == same.to_dict()  # (the block tree made from the parse's events: the same output)
    assert result.method == "mainblock" and result.site == "example.com"
    assert result.metadata.title and result.metadata.title.split()[0] in result.text
    assert result.markdown.startswith("# ") and result.html is None
    assert fce.extract_html(data.decode("utf-8"), url).to_dict() == result.to_dict()  # text or bytes alike


def test_formats():
    data, url = _pages("new")[1]
    text = fce.extract_html(data, url, format="text")
    assert text.markdown is None and text.html is None and text.text
    html = fce.extract_html(data, url, format="html")
    assert html.html.startswith("<h1>") and html.text == text.text
    with pytest.raises(ValueError, match="to_dict"):
        fce.extract_html(data, url, format="json")
    with pytest.raises(ValueError):
        fce.extract_html(data, url, format="pdf")


def test_with_a_store_the_sites_template_is_applied(store, tmp_path):
    for data, url in _pages("new"):
        result = fce.extract_html(data, url, store=store)
        assert result.method == "template" and result.fit >= fce.MIN_FIT and result.site == "example.com"
        assert result.metadata.title.split()[0] in result.text and result.markdown.startswith("# ")
    # a store URL is opened (and closed) by the call; a site of its own is not in the store: the fallback
    url_store = f"sqlite:///{tmp_path / 'templates.db'}"
    with open_store(url_store) as opened:
        save_template(opened, learn_site([parse_page(d, url=u) for d, u in _pages("learn")], "news.example.com"))
    data, url = _pages("new")[2]
    assert fce.extract_html(data, url, store=url_store).method == "template"
    assert fce.extract_html(data, url, store=url_store, site="other.example").method == "mainblock"


def test_what_is_not_html_is_refused_by_name():
    with pytest.raises(EmptyPageError):
        fce.extract_html(b"   ")
    with pytest.raises(NotHTMLError):
        fce.extract_html('{"a": 1}')
