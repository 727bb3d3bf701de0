"""Discovery of test packages (fce.evaluation.packages) on directory trees built in the test."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from fce.errors import SourceError
from fce.evaluation.packages import Document, GoldStatus, group_by_site, iter_documents, read_description
from tests._data import DATA


def _write(path: Path, content: str | bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")
    return path


@pytest.fixture
def dataset_dir(tmp_path: Path) -> Path:
    """``ds1/<site>/<id>.*`` as in /work/shared/data: meta, gold, an empty gold, a missing gold."""
    ds = tmp_path / "ds1"
    _write(ds / "README.md", "# ds1\n")
    site_a = ds / "a.example.com"
    _write(site_a / "p2.html", b"<html><body><p>two</p></body></html>")
    _write(site_a / "p2.txt", "two\n")
    _write(site_a / "p2.json", json.dumps({"url": "http://a.example.com/2", "site": "a.example.com"}))
    _write(site_a / "p1.html", b"<html>\xe9t\xe9</html>")  # raw bytes, not UTF-8
    _write(site_a / "p1.txt", "Gold one\n")
    _write(
        site_a / "p1.json", json.dumps({"url": "http://a.example.com/1", "dataset": "ds1", "extra": [1, 2]})
    )
    _write(site_a / "p3.html", b"<html></html>")
    _write(site_a / "p3.txt", " \n\n")  # empty gold
    site_b = ds / "b.org"
    _write(site_b / "q.html", b"<html>q</html>")  # no gold, no meta
    mixed = ds / "mixed"
    _write(mixed / "m1.html", b"<html>m</html>")
    _write(mixed / "m1.txt", "m")
    _write(mixed / "m1.json", json.dumps({"url": None, "site": "c.net"}))  # meta names the site
    _write(ds / ".hidden" / "h.html", b"<html>hidden</html>")
    return ds


@pytest.fixture
def gottron_package(tmp_path: Path) -> Path:
    """A Gottron-style test package: a description file and documents sharing stems."""
    pkg = tmp_path / "packages" / "heise"
    _write(pkg / "description.txt", "heise online articles, automatically extracted\n")
    _write(pkg / "001.htm", b"<html>one</html>")
    _write(pkg / "001.txt", "one")
    _write(pkg / "002.html", b"<html>two</html>")
    _write(pkg / "002.htm", b"<html>two, older copy</html>")  # .html wins
    _write(pkg / "002.txt", "Gr\xfc\xdfe".encode("cp1252"))  # an old hand-made gold file
    _write(pkg / "002.json", json.dumps({"url": "http://www.heise.de/2", "language": "de"}))
    return pkg


def _keys(docs: list[Document]) -> list[tuple[str, str, str]]:
    return [(d.dataset, d.site, d.doc_id) for d in docs]


def test_dataset_layout(dataset_dir: Path) -> None:
    docs = list(iter_documents(dataset_dir))
    assert _keys(docs) == [
        ("ds1", "a.example.com", "p1"),
        ("ds1", "a.example.com", "p2"),
        ("ds1", "a.example.com", "p3"),
        ("ds1", "b.org", "q"),
        ("ds1", "c.net", "m1"),
    ]
    p1, p2, p3, q, m1 = docs
    assert p1.status == GoldStatus.OK and p1.url == "http://a.example.com/1"
    assert p1.meta == {"url": "http://a.example.com/1", "dataset": "ds1", "extra": [1, 2]}
    assert p1.read_html() == b"<html>\xe9t\xe9</html>"
    assert p1.read_gold() == "Gold one\n"
    assert p2.url == "http://a.example.com/2"
    assert p3.status == GoldStatus.EMPTY and p3.gold_path is not None and p3.read_gold() == " \n\n"
    assert q.status == GoldStatus.MISSING and q.gold_path is None and q.read_gold() is None
    assert q.meta == {} and q.url is None
    assert m1.site == "c.net" and m1.url is None  # from the meta, not the directory "mixed"
    assert m1.html_path == dataset_dir / "mixed" / "m1.html"


def test_site_dir_and_single_file(dataset_dir: Path) -> None:
    docs = list(iter_documents([dataset_dir / "b.org"]))
    assert _keys(docs) == [("ds1", "b.org", "q")]  # dataset = the parent directory
    docs = list(iter_documents(str(dataset_dir / "a.example.com" / "p2.html")))
    assert _keys(docs) == [("ds1", "a.example.com", "p2")]


def test_gottron_package(gottron_package: Path) -> None:
    docs = list(iter_documents(gottron_package))
    assert _keys(docs) == [("packages", "heise", "001"), ("packages", "heise", "002")]
    one, two = docs
    assert one.html_path.suffix == ".htm" and one.read_gold() == "one"
    assert two.html_path.name == "002.html" and two.read_html() == b"<html>two</html>"
    assert two.read_gold() == "Grüße"  # not UTF-8: read as Windows-1252
    assert two.url == "http://www.heise.de/2" and two.meta["language"] == "de"
    assert read_description(gottron_package) == "heise online articles, automatically extracted\n"
    assert read_description(gottron_package.parent) is None


def test_root_with_several_datasets_is_sorted_and_deduplicated(
    dataset_dir: Path, gottron_package: Path, tmp_path: Path
) -> None:
    docs = list(iter_documents([gottron_package, tmp_path, dataset_dir / "b.org"]))
    assert len(docs) == 7  # 5 + 2, each once although three paths overlap
    assert _keys(docs) == sorted(_keys(docs))
    assert docs == list(iter_documents([tmp_path]))  # deterministic


def test_group_by_site(dataset_dir: Path) -> None:
    groups = group_by_site(reversed(list(iter_documents(dataset_dir))))
    assert list(groups) == [("ds1", "a.example.com"), ("ds1", "b.org"), ("ds1", "c.net")]
    assert [d.doc_id for d in groups[("ds1", "a.example.com")]] == ["p1", "p2", "p3"]


def test_document_is_frozen_and_hashable(dataset_dir: Path) -> None:
    doc = next(iter_documents(dataset_dir))
    with pytest.raises(AttributeError):
        doc.site = "x"  # type: ignore[misc]
    assert len({doc, doc}) == 1  # meta (a dict) does not take part in the hash


def test_missing_path_is_a_source_error(tmp_path: Path) -> None:
    with pytest.raises(SourceError):
        list(iter_documents(tmp_path / "nope"))
    with pytest.raises(OSError):  # SourceError is an OSError
        list(iter_documents([tmp_path / "nope"]))


def test_not_a_page_file(tmp_path: Path) -> None:
    with pytest.raises(SourceError):
        list(iter_documents(_write(tmp_path / "x.txt", "gold")))


@pytest.mark.parametrize("meta", ["{not json", "[1, 2]"])
def test_bad_meta_is_a_source_error(tmp_path: Path, meta: str) -> None:
    _write(tmp_path / "s" / "d.html", b"<html></html>")
    _write(tmp_path / "s" / "d.json", meta)
    with pytest.raises(SourceError, match="d.json"):
        list(iter_documents(tmp_path))


def test_gold_of_an_html_comment_alone_is_empty(tmp_path: Path) -> None:
    pkg = tmp_path / "ds" / "a.example.com"
    _write(pkg / "p.html", b"<html><body><ul><li>a section page</li></ul></body></html>")
    _write(pkg / "p.txt", b"<!-- this page contains no article -->\n")
    _write(pkg / "q.html", b"<html><body><p>text</p></body></html>")
    _write(pkg / "q.txt", b"<!-- a note -->\ntext\n")
    p, q = iter_documents(tmp_path / "ds")
    assert p.status == GoldStatus.EMPTY and q.status == GoldStatus.OK


def test_empty_directory(tmp_path: Path) -> None:
    assert list(iter_documents(tmp_path)) == []


@pytest.mark.skipif(DATA is None, reason="shared data not present")
def test_real_dataset_cleanportaleval() -> None:
    # README: 71 pages, 4 sites, 1 empty gold (bbc.co.uk_news_05); one more is an annotator's note that the page
    # has no article (bbc.co.uk_news_04: "<!-- this page contains no article -->")
    assert DATA is not None
    docs = list(iter_documents(DATA / "cleanportaleval"))
    assert len(docs) == 71
    assert {d.site for d in docs} == {"tv.msnbc.com", "washingtonpost.com", "blogs.wsj.com", "bbc.co.uk"}
    assert [d.doc_id for d in docs if d.status == GoldStatus.EMPTY] == ["bbc.co.uk_news_04", "bbc.co.uk_news_05"]
    assert all(d.dataset == "cleanportaleval" and d.url for d in docs)
