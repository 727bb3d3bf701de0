"""Tests of :mod:`fce.evaluation.metadata`: the scoring functions as tables, the runner on a dataset written to a
temporary directory, and — when the evaluation data is on disk — fce against trafilatura on the Readability test
pages (the gate) and a crash check on a sample of the other datasets."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from fce.evaluation.metadata import (
    FIELDS,
    authors_match,
    byline_names,
    description_matches,
    evaluate,
    format_table,
    language_matches,
    main,
    metadata_peers,
    same_day,
    score_metadata,
    site_name_matches,
    summarise,
    title_matches,
)
from fce.metadata import Metadata
from tests._data import DATA

READABILITY = DATA / "readability" if DATA is not None else None
#: fce's floors on the Readability pages (measured: title 97.6 %, authors 69.7 %, published 100 %, site name
#: 100 %, description 69.5 %, language 98.6 %), a few points below so that a regression fails, not noise.
FLOORS = {"title": 0.93, "authors": 0.64, "published": 0.95, "site_name": 0.95, "description": 0.65,
          "language": 0.95}

needs_data = pytest.mark.skipif(READABILITY is None or not READABILITY.is_dir(),
                                reason="evaluation data not on disk")


# --- scoring -------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("predicted", "expected", "match"), [
    ("A title", "A title", True),
    ("A  title\n", " A title", True),
    ("A title", "a title", False),
    (None, "A title", False),
    ("", "A title", False),
])
def test_title_matches(predicted: str | None, expected: str, match: bool) -> None:
    assert title_matches(predicted, expected) is match


@pytest.mark.parametrize(("byline", "names"), [
    ("Jane Doe", {"jane doe"}),
    ("By Jane Doe and John Roe", {"jane doe", "john roe"}),
    ("by Jane  Doe, John Roe; Ann Poe & Bo Lo | Al Ma", {"jane doe", "john roe", "ann poe", "bo lo", "al ma"}),
    ("By\n\t\tScott Cunningham", {"scott cunningham"}),
    ("Jong, Michiel de", {"jong", "michiel de"}),
    ("", set()),
])
def test_byline_names(byline: str, names: set[str]) -> None:
    assert byline_names(byline) == names


@pytest.mark.parametrize(("predicted", "byline", "match"), [
    (("Jane Doe",), "By Jane Doe", True),
    (("John Roe", "Jane Doe"), "Jane Doe and John Roe", True),
    (("jane  doe",), "JANE DOE", True),
    (("Jane Doe",), "Jane Doe and John Roe", False),
    ((), "Jane Doe", False),
])
def test_authors_match(predicted: tuple[str, ...], byline: str, match: bool) -> None:
    assert authors_match(predicted, byline) is match


@pytest.mark.parametrize(("predicted", "expected", "match"), [
    ("2015-07-24", "2015-07-24T05:36:09+01:00", True),
    ("2015-07-24T23:59:00-08:00", "2015-07-24", True),
    ("2015-07-25T01:00:00+00:00", "2015-07-24T17:00:00-08:00", False),  # the same instant, another day as written
    ("2017-11-03T03:01:00", "2017-11-03 03:01:00.000000", True),
    (None, "2015-07-24", False),
    ("2015-07-24", "not a date", False),
])
def test_same_day(predicted: str | None, expected: str, match: bool) -> None:
    assert same_day(predicted, expected) is match


def test_site_name_description_language() -> None:
    assert site_name_matches("the  Guardian", "The Guardian")
    assert not site_name_matches("Guardian", "The Guardian")
    assert description_matches("Some text  here.", "Some text\n here.")
    assert not description_matches("Some text", "Some text here.")
    assert language_matches("en-US", "en-us")
    assert not language_matches("en", "en-us")
    assert not language_matches(None, "en")


def test_score_metadata_scores_only_fields_with_an_expected_value() -> None:
    meta = Metadata(title="T", authors=("Jane Doe",), published="2020-01-02", site_name="S",
                    description="D", language="en")
    expected = {"title": "T", "byline": "By Jane Doe", "publishedTime": "2020-01-02T10:00:00Z", "siteName": None,
                "excerpt": "", "lang": "EN", "dir": "ltr"}
    assert score_metadata(meta, expected) == {"title": True, "authors": True, "published": True, "language": True}


# --- the runner ----------------------------------------------------------------------------------------------------


PAGE = """<html lang="en"><head><title>Harbour plan approved - Example Times</title>
<meta property="og:site_name" content="Example Times">
<meta name="description" content="The council approved it.">
<meta name="author" content="Jane Doe"></head><body><h1>Harbour plan approved</h1></body></html>"""


@pytest.fixture
def dataset(tmp_path: Path) -> Path:
    """A dataset of two pages: one with expected metadata, one without."""
    site = tmp_path / "set" / "example.com"
    site.mkdir(parents=True)
    (site / "a.html").write_text(PAGE, encoding="utf-8")
    (site / "a.json").write_text(json.dumps({"url": "https://example.com/2021/03/04/harbour", "expected_metadata": {
        "title": "Harbour plan approved", "byline": "Jane Doe", "excerpt": "The council approved it.",
        "siteName": "Example Times", "publishedTime": "2021-03-04T08:00:00Z", "lang": "en"}}), encoding="utf-8")
    (site / "b.html").write_bytes(b"\x00\x01 not html at all")
    return tmp_path / "set"


def test_evaluate_scores_fce(dataset: Path) -> None:
    results = evaluate(dataset)
    assert [(r.doc_id, r.extractor, r.error) for r in results] == [("a", "fce", None), ("b", "fce", None)]
    assert results[0].scores == dict.fromkeys(FIELDS, True)
    assert results[1].scores == {}
    summary = {s.field: s for s in summarise(results)}
    assert (summary["title"].correct, summary["title"].n, summary["title"].found, summary["title"].pages) == \
        (1, 1, 1, 2)


def test_evaluate_counts_an_extractor_error_and_goes_on(dataset: Path) -> None:
    def broken(text: str, url: str | None) -> Metadata:
        raise RuntimeError("boom")

    results = evaluate(dataset, extractors={"broken": broken})
    assert [r.error for r in results] == ["RuntimeError: boom"] * 2
    assert "errors" in format_table(summarise(results), results)


def test_unknown_peer(dataset: Path) -> None:
    with pytest.raises(ValueError, match="unknown extractor"):
        evaluate(dataset, peers=["nope"])


def test_format_table_and_main(dataset: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main([str(dataset), "--misses"]) == 0
    out = capsys.readouterr().out
    header, *rows = out.splitlines()
    assert header.split() == ["field", "fce", "acc", "fce", "found", "n"]
    assert rows[0].split() == ["title", "100.0%", "50.0%", "1"]
    assert any(row.startswith("errors") for row in rows)


def test_metadata_peers_of_eval_peers() -> None:
    assert metadata_peers(["readability", "trafilatura-precision", "trafilatura", "resiliparse"]) == ["trafilatura"]
    assert metadata_peers([]) == []


def test_trafilatura_peer(dataset: Path) -> None:
    pytest.importorskip("trafilatura")
    results = evaluate(dataset, peers=["trafilatura"])
    assert [(r.doc_id, r.extractor) for r in results] == [("a", "fce"), ("a", "trafilatura"), ("b", "fce"),
                                                          ("b", "trafilatura")]
    assert all(r.error is None for r in results)
    assert results[1].scores["title"] is True


# --- the evaluation data -------------------------------------------------------------------------------------------


@needs_data
def test_fce_is_at_least_as_accurate_as_trafilatura_on_the_readability_pages() -> None:
    pytest.importorskip("trafilatura")
    assert READABILITY is not None
    results = evaluate(READABILITY, peers=["trafilatura"])
    summary = {(s.extractor, s.field): s for s in summarise(results)}
    assert not [r for r in results if r.error]
    for field in FIELDS:
        fce, peer = summary[("fce", field)], summary[("trafilatura", field)]
        assert fce.accuracy is not None and fce.accuracy >= FLOORS[field], (field, fce.accuracy)
        assert fce.accuracy >= (peer.accuracy or 0.0), (field, fce.accuracy, peer.accuracy)


@needs_data
@pytest.mark.parametrize("dataset", ["cleaneval", "cleanportaleval", "daniel-small", "dragnet-small", "l3s-gn1",
                                     "msv-big9", "scrapinghub", "wcxb-dev"])
def test_no_crash_on_the_other_datasets(dataset: str) -> None:
    if DATA is None or not (DATA / dataset).is_dir():
        pytest.skip(f"{dataset} not on disk")
    results = evaluate(DATA / dataset, sample=10)
    assert results and not [r for r in results if r.error]
    assert sum(bool(r.metadata and r.metadata.title) for r in results) >= len(results) / 2
