"""fce.service: learning a site's layouts from files, the site listing with counters and the stale flag, the counts
of a detection run, relearning stale sites (the end-to-end redesign case is in tests/test_layouts.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from fce.errors import StoreFailure
from fce.layouts import STALE_MIN_RECENT
from fce.service import detect_sources, learn_sources, relearn_stale, save_template, site_rows
from fce.template import SiteTemplates
from templates_store import MemoryStore, VersionConflict
from tests._store import stored
from tests.sitegen import GeneratedPage, SiteStyle, generate_mixed_site, generate_site

SITE = "svc.test"


def _write(pages: list[GeneratedPage], directory: Path) -> list[str]:
    directory.mkdir(parents=True, exist_ok=True)
    paths = []
    for i, page in enumerate(pages):
        path = directory / f"p{i}.html"
        path.write_bytes(page.html)
        path.with_suffix(".json").write_text(json.dumps({"url": page.url}))
        paths.append(str(path))
    return paths


def test_learn_sources_learns_the_layouts_and_says_what_was_left_out(tmp_path: Path) -> None:
    styles = (SiteStyle(), SiteStyle(layout="table"))
    pages = generate_mixed_site(SITE, 24, styles, seed=2) + generate_site(SITE, 2, seed=9,
                                                                          style=SiteStyle(theme="odd"))
    result = learn_sources(_write(pages, tmp_path / "pages"), site=SITE)
    assert isinstance(result.record, SiteTemplates) and len(result.record.layouts) == 2
    assert [t.n_pages for t in result.record.layouts] == [12, 12] and result.record.n_pages == 26
    assert result.template is result.record.layouts[0]
    assert any("2 page(s) of svc.test fit none of its 2 layout(s)" in w for w in result.warnings)
    one = learn_sources(_write(pages[:20], tmp_path / "few"), site=SITE, layouts=False)
    assert len(one.record.layouts) == 1 and one.record.layouts[0].n_pages == 20


def test_learn_sources_refuses_a_sample_of_another_site_and_skips_strays(tmp_path: Path) -> None:
    from fce.errors import LearnError

    others = _write(generate_site("other.test", 6, seed=3), tmp_path / "other")
    with pytest.raises(LearnError, match=r"none of the 6 page\(s\) is of svc.test: they are of other.test \(6\)"):
        learn_sources(others, site=SITE)
    mine = _write(generate_site(SITE, 8, seed=4), tmp_path / "mine")
    result = learn_sources([*mine, *others[:2]], site=SITE)
    assert result.record.n_pages == 8 and len(result.skipped) == 2
    assert all("a page of other.test, not of svc.test" in w for w in result.warnings[:2])


def test_learn_sources_reports_the_copies_it_left_out(tmp_path: Path) -> None:
    pages = generate_site(SITE, 6, seed=5)
    copies = [GeneratedPage(p.url + "?utm_source=feed", p.html, p.gold, p.charset) for p in pages[:2]]
    result = learn_sources(_write([*pages, *copies], tmp_path / "pages"), site=SITE)
    assert result.record.n_pages == 6
    assert [(d["reason"]) for d in result.record.extra["duplicates"]] == ["same-url", "same-url"]


def test_site_rows_list_layouts_counters_and_staleness() -> None:
    pages = generate_site(SITE, 12, seed=1)
    store = MemoryStore()
    from fce.parse import parse_page
    from fce.pipeline import learn_site

    record = learn_site([parse_page(p.html, url=p.url) for p in pages[:10]], SITE)
    assert save_template(store, record) == 1
    with pytest.raises(StoreFailure):
        save_template(store, record, expected_version=0)  # compare-and-set: someone stored it already
    store.put("broken.test", "{}")
    store.record(SITE, "0" * STALE_MIN_RECENT)
    broken, row = site_rows(store)
    assert broken["site"] == "broken.test" and broken["layouts"] is None and "schema" in broken["error"]
    assert (row["site"], row["version"], row["n_pages"]) == (SITE, 1, 10)
    assert row["layouts"] == [{"n_pages": 10, "content_paths": len(record.layouts[0].content_paths),
                               "noise_blocks": len(record.layouts[0].noise_blocks)}]
    assert (row["fits"], row["fallbacks"], row["recent"], row["recent_fit_rate"], row["stale"]) == (
        0, STALE_MIN_RECENT, STALE_MIN_RECENT, 0.0, True)
    assert site_rows(store, [SITE, "missing.test"]) == [row]
    assert site_rows(store, min_recent=STALE_MIN_RECENT + 1)[1]["stale"] is False


def test_a_detection_run_counts_every_page_of_a_stored_site(tmp_path: Path) -> None:
    pages = generate_site(SITE, 24, seed=3)
    store = MemoryStore()
    learned = learn_sources(_write(pages[:20], tmp_path / "learn"), site=SITE)
    save_template(store, learned.record)
    rows = list(detect_sources(_write(pages[20:], tmp_path / "new"), store=store))
    assert [r.extraction.method if r.extraction is not None else None for r in rows] == ["template"] * 4
    assert [r.to_dict()["layout"] for r in rows] == [0] * 4
    assert store.counters([SITE])[SITE].recent == "1111"  # written when the iterator was exhausted
    list(detect_sources(_write(pages[20:21], tmp_path / "again"), store=store, record=False))
    assert store.counters([SITE])[SITE].recent == "1111"


def test_relearn_stale_needs_counts_and_pages() -> None:
    from fce.parse import parse_page
    from fce.pipeline import learn_site

    pages = [parse_page(p.html, url=p.url) for p in generate_site(SITE, 20, seed=4)]
    store = MemoryStore()
    save_template(store, learn_site(pages[:10], SITE))
    fresh = relearn_stale(store, {f"https://www.{SITE}/": pages[10:]})  # names are normalised
    assert [(o.site, o.status) for o in fresh] == [(SITE, "fresh")]  # no counts: nothing says it is stale
    store.record(SITE, "0" * STALE_MIN_RECENT)
    (outcome,) = relearn_stale(store, {SITE: pages[10:13]})
    assert outcome.status == "too-few" and "3 page(s)" in outcome.message
    (outcome,) = relearn_stale(store, {SITE: pages[10:]}, min_pages=10)
    assert (outcome.status, outcome.version) == ("relearned", 2)
    assert json.loads(stored(store, SITE).payload)["n_pages"] == 10


def test_relearn_raises_store_failures() -> None:
    class Broken(MemoryStore):
        def counters(self, sites):
            raise VersionConflict("template store memory://: boom", url="memory://", site=SITE, expected=1,
                                  actual=2)

    with pytest.raises(StoreFailure, match="boom"):
        relearn_stale(Broken(), {SITE: []})
