"""fce.ingest.pipeline: the whole job on the local engine, against SQLite, memory and a real redis-server.

The crawl is built by ``test_ingest_corpus.build_crawl`` (three generated sites plus non-HTML and broken records).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

import pytest

from fce.errors import SourceError, StoreFailure
from fce.ingest import ROW_KEYS, ingest
from fce.ingest import detection as ingest_detection
from fce.ingest import learning as ingest_learning
from fce.ingest import pipeline as ingest_pipeline
from fce.ingest.readers import JsonLinesReader
from fce.template import SiteTemplates
from templates_store import MemoryStore, open_store
from tests._store import stored
from tests.sitegen import generate_site, write_site
from tests.test_ingest_corpus import LEARNED, MAX_BYTES, SMALL, Crawl, build_crawl, check_rows, rows_of


@pytest.fixture(scope="module")
def crawl(tmp_path_factory: pytest.TempPathFactory) -> Crawl:
    return build_crawl(tmp_path_factory.mktemp("crawl"))


def run(crawl: Crawl, out: Path, store: Any, **options: Any) -> Any:
    options = {"max_bytes": MAX_BYTES, "progress": False, "workers": 0, **options}
    return ingest([str(f) for f in crawl.files], out_dir=out, store=store, **options)


def manifests(out: Path) -> list[dict[str, Any]]:
    return [json.loads(p.read_text()) for p in sorted(out.glob("*.manifest.json"))]


# --- the whole job ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Reference:
    """The job run once per module on a local pool of 2 processes with a SQLite store."""

    summary: Any
    rows: list[dict[str, Any]]
    out: Path
    store_url: str
    templates: dict[str, str]  # site -> payload learned

    def store(self) -> MemoryStore:
        """A fresh in-process store holding the learned templates (tests that need no learning of their own)."""
        store = MemoryStore()
        for site, payload in self.templates.items():
            store.put(site, payload)
        return store


@pytest.fixture(scope="module")
def reference(crawl: Crawl, tmp_path_factory: pytest.TempPathFactory) -> Reference:
    tmp = tmp_path_factory.mktemp("reference")
    store_url = f"sqlite:///{tmp / 'templates.db'}"
    summary = run(crawl, tmp / "out", store_url, workers=2)
    with open_store(store_url) as store:
        templates = {site: stored(store, site).payload for site in store.sites()}
    return Reference(summary, rows_of(tmp / "out"), tmp / "out", store_url, templates)


def test_local_pool_learns_and_extracts_every_record(crawl: Crawl, reference: Reference) -> None:
    summary, rows = reference.summary, reference.rows
    check_rows(crawl, rows)
    assert all(list(row) == list(ROW_KEYS) for row in rows)
    warc = [row for row in rows if row["warc_record_id"] is not None]
    assert warc and all(row["warc_record_id"].startswith("<urn:uuid:") and row["warc_date"] for row in warc)
    extracted = [row for row in rows if row["status"] in ("ok", "fallback")]
    assert extracted and all(isinstance(row["metadata"], dict) for row in extracted)
    assert sum(bool(row["metadata"].get("title")) for row in extracted) > 0.9 * len(extracted)
    assert summary.rows == crawl.records and summary.workers == 2
    assert summary.learned == LEARNED and summary.not_learned == {"too_few_pages": 1}
    assert summary.domains == 3 and summary.failures == ()
    assert sorted(reference.templates) == sorted(LEARNED)  # not the small domain
    # 25 pages each; alpha's gzip-encoded copy at www. is the same page, learned from once; beta's 404 page is not
    # sampled
    records = {site: SiteTemplates.from_json(payload, site=site) for site, payload in reference.templates.items()}
    assert {site: record.n_pages for site, record in records.items()} == {"alpha.co.uk": 25, "beta.org": 25}
    assert [d["reason"] for d in records["alpha.co.uk"].extra["duplicates"]] == ["same-content"]
    found = manifests(reference.out)
    assert [m["done"] for m in found] == [True, True]
    assert sum(m["rows"] for m in found) == crawl.records
    assert {Path(m["input"]).name: m["other_records"] for m in found} == crawl.other
    assert f"records:   {crawl.records} in" in summary.to_text()


def test_manifests_and_summary_say_where_the_time_went(crawl: Crawl, reference: Reference) -> None:
    found = manifests(reference.out)
    for manifest in found:
        stages = manifest["stage_seconds"]
        assert sorted(stages) == sorted(ingest_detection.STAGES)
        assert stages["parse"] > 0 and stages["extract"] > 0 and stages["read"] > 0
        assert sum(stages.values()) <= manifest["seconds"] + 0.01  # laps of one clock: no time counted twice
    summary = reference.summary
    for stage in ingest_detection.STAGES:
        assert summary.stage_seconds[stage] == pytest.approx(sum(m["stage_seconds"][stage] for m in found),
                                                             abs=0.002)
    assert "cpu/page:  read " in summary.to_text() and " ms (CPU, in the workers)" in summary.to_text()
    assert "wall/page: read " in summary.to_text()
    assert summary.stage_cpu_seconds["extract"] > 0


def test_the_largest_inputs_are_submitted_first(crawl: Crawl, reference: Reference, tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    from fce.ingest.engine import LocalEngine

    submitted: dict[str, list[str]] = {}
    real_run = LocalEngine.run

    def recording_run(self: Any, fn: Any, tasks: Any, **kw: Any) -> Any:
        submitted[fn.__name__] = [Path(task.source.path).name for task in tasks if hasattr(task, "source")]
        return real_run(self, fn, tasks, **kw)

    monkeypatch.setattr(LocalEngine, "run", recording_run)
    run(crawl, tmp_path / "out", MemoryStore())
    by_size = [f.name for f in sorted(crawl.files, key=lambda f: -f.stat().st_size)]
    assert by_size[0] != crawl.files[0].name  # the test means something: the order is not the given one
    assert submitted["sample_input"] == submitted["detect_input"] == by_size


def test_in_process_run_gives_the_same_rows(crawl: Crawl, reference: Reference, tmp_path: Path) -> None:
    run(crawl, tmp_path / "here", reference.store(), workers=0)
    assert sorted(map(json.dumps, rows_of(tmp_path / "here"))) == sorted(map(json.dumps, reference.rows))


def test_rerun_skips_completed_inputs_and_redoes_changed_ones(crawl: Crawl, reference: Reference,
                                                              tmp_path: Path) -> None:
    store = reference.store()
    out = tmp_path / "out"
    first = run(crawl, out, store)
    assert first.fresh == 2 and first.learned == ()  # templates are fresh: not learned again
    again = run(crawl, out, store)
    assert len(again.skipped) == 2 and again.rows == 0 and again.domains == 0  # nothing sampled either
    output = next(out.glob("crawl-2.warc.*.jsonl"))
    output.write_text(output.read_text()[:-10])  # a damaged output is not complete
    third = run(crawl, out, store)
    assert [Path(p).name for p in third.completed] == ["crawl-2.warc"] and len(third.skipped) == 1
    os.utime(crawl.files[0], ns=(1, 1))  # a changed input is done again
    fourth = run(crawl, out, store)
    assert [Path(p).name for p in fourth.completed] == ["crawl-1.warc.gz"]
    check_rows(crawl, rows_of(out))


def test_learn_only_then_detect_only(crawl: Crawl, tmp_path: Path) -> None:
    store = MemoryStore()
    learned = run(crawl, tmp_path / "learn", store, learn_only=True)
    assert learned.learned == LEARNED and learned.rows == 0
    assert not list((tmp_path / "learn").glob("*.jsonl"))
    assert store.sites() == sorted(LEARNED)
    detected = run(crawl, tmp_path / "detect", store, detect_only=True)
    assert detected.learned == () and detected.domains == 0
    check_rows(crawl, rows_of(tmp_path / "detect"))
    assert {stored(store, s).site for s in LEARNED} == set(LEARNED)  # untouched: versions stay 1
    assert [stored(store, s).version for s in LEARNED] == [1, 1]


def test_detect_only_without_templates_falls_back_everywhere(crawl: Crawl, tmp_path: Path) -> None:
    summary = run(crawl, tmp_path / "out", MemoryStore(), detect_only=True)
    assert "ok" not in summary.counts
    assert all(r["fallback_reason"] == "no-template" for r in rows_of(tmp_path / "out") if r["status"] == "fallback")


def test_a_concurrent_newer_template_is_kept(crawl: Crawl, tmp_path: Path) -> None:
    class RacingStore(MemoryStore):
        """Another learner stores a template between our read and our compare-and-set put."""

        def put(self, site: str, payload: str, *, expected_version: int | None = None,
                ttl: float | None = None) -> int:
            if site == "beta.org" and expected_version == 0 and self.get(site) is None:
                super().put(site, payload.replace('"n_pages":25', '"n_pages":24'))
            return super().put(site, payload, expected_version=expected_version, ttl=ttl)

    store = RacingStore()
    summary = run(crawl, tmp_path / "out", store)
    assert summary.conflicts == 1 and summary.learned == ("alpha.co.uk",)
    kept = stored(store, "beta.org")
    assert kept.version == 1 and SiteTemplates.from_json(kept.payload).n_pages == 24  # theirs, not ours


def test_unusable_templates_are_relearned_or_reported(crawl: Crawl, tmp_path: Path) -> None:
    store = MemoryStore()
    store.put("alpha.co.uk", "{not json")
    store.put("beta.org", json.dumps({"schema": -1}))
    detected = run(crawl, tmp_path / "detect", store, detect_only=True)  # nothing relearned: rows say why
    rows = rows_of(tmp_path / "detect")
    bad = [r for r in rows if r["domain"] in LEARNED and r["fallback_reason"] == "template-error"]
    assert len(bad) > 40 and "store_error" not in detected.counts  # extracted by the fallback, not lost
    assert all(r["status"] == "fallback" and r["text"] and "template" in r["error"] for r in bad)
    learned = run(crawl, tmp_path / "learn", store)  # a full run learns them again, with CAS on version 1
    assert learned.learned == LEARNED
    assert [stored(store, s).version for s in LEARNED] == [2, 2]
    check_rows(crawl, rows_of(tmp_path / "learn"))


def test_refresh_after_relearns_old_templates(crawl: Crawl, reference: Reference, tmp_path: Path) -> None:
    store = reference.store()
    again = run(crawl, tmp_path / "b", store, learn_only=True, refresh_after=1e-6)
    assert again.learned == LEARNED and [stored(store, s).version for s in LEARNED] == [2, 2]


# --- records and limits ----------------------------------------------------------------------------------


def test_per_record_time_limit(tmp_path: Path) -> None:
    pages = generate_site("delta.com", 3)
    # 16 MB of one-word paragraphs: ~0.8 s to parse and ~0.9 s to extract (mainblock, column-wise),
    # several times the limit; the generated pages take a few ms each
    slow = "<html><body>" + "<p>w</p>" * 2_000_000 + "</body></html>"
    with (tmp_path / "pages.jsonl").open("w") as f:
        for p in pages:
            f.write(json.dumps({"url": p.url, "html": p.html.decode(p.charset)}) + "\n")
        f.write(json.dumps({"url": "https://delta.com/slow.html", "html": slow}) + "\n")
    summary = ingest([tmp_path / "pages.jsonl"], out_dir=tmp_path / "out", store=MemoryStore(), timeout=0.25,
                     progress=False, detect_only=True)
    rows = {r["url"]: r for r in rows_of(tmp_path / "out")}
    assert rows["https://delta.com/slow.html"]["status"] == "timeout"
    assert "0.25 s" in rows["https://delta.com/slow.html"]["error"]
    assert summary.counts == {"fallback": 3, "timeout": 1}


def test_json_lines_and_folder_inputs(tmp_path: Path) -> None:
    pages = generate_site("epsilon.io", 22)
    with (tmp_path / "a.jsonl").open("w") as f:
        for p in pages[:11]:
            f.write(json.dumps({"url": p.url, "html": p.html.decode(p.charset)}) + "\n")
        f.write("not json\n\n")  # a broken line is a record; a blank line is not
        f.write(json.dumps({"url": "https://epsilon.io/x", "body": "no html key"}) + "\n")
        f.write(json.dumps({"url": "https://epsilon.io/big", "html": "<p>" + "x" * 300_000 + "</p>"}) + "\n")
    folder = tmp_path / "site"
    write_site(pages[11:], folder)
    (folder / "notes.txt").write_text("not a page")
    store = MemoryStore()
    summary = ingest([tmp_path / "a.jsonl", folder], out_dir=tmp_path / "out", store=store, max_bytes=MAX_BYTES,
                     min_pages=20, progress=False)
    assert summary.learned == ("epsilon.io",)  # sampled from both inputs: 11 + 11 pages
    rows = rows_of(tmp_path / "out")
    assert len(rows) == 22 + 3
    assert summary.counts["decode_error"] == 2 and summary.counts["too_large"] == 1
    assert sum(r["status"] == "ok" for r in rows) >= 18
    assert {r["url"] for r in rows} >= {p.url for p in pages}  # folder pages got their URL from the .json


def test_missing_input_and_unreadable_store_are_errors(crawl: Crawl, tmp_path: Path) -> None:
    with pytest.raises(SourceError):
        ingest([tmp_path / "nope.warc"], out_dir=tmp_path / "out", store=MemoryStore(), progress=False)
    (tmp_path / "x.txt").write_text("x")
    with pytest.raises(SourceError, match="not an input"):
        ingest([tmp_path / "x.txt"], out_dir=tmp_path / "out", store=MemoryStore(), progress=False)
    with pytest.raises(ValueError):
        run(crawl, tmp_path / "out", MemoryStore(), learn_only=True, detect_only=True)
    (tmp_path / "file").write_text("")
    with pytest.raises(SourceError, match="output directory"):
        run(crawl, tmp_path / "file" / "out", MemoryStore())


def test_hostile_page_costs_one_row(crawl: Crawl, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    real_extract = ingest_detection.extract

    def explode(page: Any, *args: Any, **kwargs: Any) -> Any:
        if page.url and page.url.endswith("missing.html"):
            raise RecursionError("maximum recursion depth exceeded")
        return real_extract(page, *args, **kwargs)

    monkeypatch.setattr(ingest_detection, "extract", explode)
    summary = run(crawl, tmp_path / "out", MemoryStore())
    rows = {r["url"]: r for r in rows_of(tmp_path / "out")}
    assert rows["https://beta.org/missing.html"]["status"] == "error"
    assert "RecursionError" in rows["https://beta.org/missing.html"]["error"]
    assert summary.rows == crawl.records


def test_long_json_line_is_too_large_and_named(tmp_path: Path) -> None:
    path = tmp_path / "long.jsonl"
    path.write_text(json.dumps({"url": "https://zeta.com/long", "html": "<p>" + "y" * 5000 + "</p>"}) + "\n"
                    + json.dumps({"url": "https://zeta.com/short", "html": "<p>short page</p>"}) + "\n")
    from fce.ingest.readers import InputSource

    records = list(JsonLinesReader(InputSource(str(path), "jsonl"), max_bytes=1000).records())
    assert [(r.url, r.status) for r in records] == [("https://zeta.com/long", "too_large"),
                                                    ("https://zeta.com/short", None)]


# --- Redis ---------------------------------------------------------------------------------------------------


@pytest.mark.redis
def test_redis_store_shared_by_worker_processes(crawl: Crawl, tmp_path: Path, redis_url: str) -> None:
    summary = run(crawl, tmp_path / "out", redis_url, workers=2)
    check_rows(crawl, rows_of(tmp_path / "out"))
    assert summary.learned == LEARNED and summary.store == redis_url
    import redis

    raw = cast(list[bytes], redis.Redis.from_url(redis_url).keys("fce:tpl:*"))  # no decode_responses: bytes
    keys = sorted(k.decode() for k in raw)
    assert keys == ["fce:tpl:{alpha.co.uk}", "fce:tpl:{beta.org}"]  # one key per domain, in a hash tag


@pytest.mark.redis
def test_redis_unreachable_at_start_is_a_clear_error(crawl: Crawl, tmp_path: Path, stoppable_redis: Any) -> None:
    stoppable_redis.stop()
    with pytest.raises(StoreFailure, match=f"127.0.0.1:{stoppable_redis.port}"):
        run(crawl, tmp_path / "out", stoppable_redis.url, workers=2)
    assert not list((tmp_path / "out").glob("*.manifest.json"))


@pytest.mark.redis
def test_redis_down_during_detect_fails_loudly_and_a_rerun_completes(
        crawl: Crawl, tmp_path: Path, stoppable_redis: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    run(crawl, tmp_path / "learn", stoppable_redis.url, learn_only=True)
    stoppable_redis.stop()
    monkeypatch.setattr(ingest_pipeline, "_ping", lambda store: None)  # the server goes away after the start
    with pytest.raises(StoreFailure) as failure:  # every task fails after its retries; none falls back silently
        run(crawl, tmp_path / "out", stoppable_redis.url, detect_only=True, workers=2, retries=1)
    assert "unreachable" in str(failure.value) and "rerun" in str(failure.value)
    assert failure.value.exit_code == 13
    assert not manifests(tmp_path / "out") and not rows_of(tmp_path / "out")
    stoppable_redis.start()  # an empty server (the test server keeps nothing on disk): the rerun learns again
    done = run(crawl, tmp_path / "out", stoppable_redis.url, workers=2)
    assert len(done.completed) == 2 and done.learned == LEARNED
    check_rows(crawl, rows_of(tmp_path / "out"))


@pytest.mark.redis
def test_redis_dropped_mid_input_loses_nothing(tmp_path: Path, stoppable_redis: Any,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """The server stops while the third input is half written: the run fails naming the store; the first two
    inputs are complete; a rerun once the server is back does only the third; one row per record in all."""
    crawl = build_crawl(tmp_path / "crawl")
    late = generate_site("late.example.com", 6)
    third = tmp_path / "crawl" / "late.jsonl"
    with third.open("w") as f:
        for i, p in enumerate(late):  # new domains: their templates are not in the worker's cache yet
            f.write(json.dumps({"url": p.url.replace("late.example.com", f"late{i}.com"),
                                "html": p.html.decode(p.charset)}) + "\n")
    inputs = [str(f) for f in crawl.files] + [str(third)]
    ingest(inputs, out_dir=tmp_path / "learn", store=stoppable_redis.url, learn_only=True, max_bytes=MAX_BYTES,
           progress=False)
    monkeypatch.setattr(ingest_detection, "PREFETCH_RECORDS", 2)  # several store round trips per input
    real_open = ingest_detection.open_input

    def open_and_stop(source: Any, **kw: Any) -> Any:
        reader = real_open(source, **kw)
        if source.path == str(third):
            records = reader.records

            def stop_after_two(**kw2: Any) -> Any:
                for i, record in enumerate(records(**kw2)):
                    if i == 2:
                        stoppable_redis.stop()
                    yield record

            reader.records = stop_after_two  # type: ignore[method-assign]
        return reader

    monkeypatch.setattr(ingest_detection, "open_input", open_and_stop)
    with pytest.raises(StoreFailure, match=f"redis://127.0.0.1:{stoppable_redis.port}/0.*1 of 3 inputs not completed"):
        ingest(inputs, out_dir=tmp_path / "out", store=stoppable_redis.url, detect_only=True, max_bytes=MAX_BYTES,
               workers=0, retries=0, progress=False)
    assert len(manifests(tmp_path / "out")) == 2
    assert list((tmp_path / "out").glob("late.jsonl.*.jsonl.part"))  # half written, not taken for done
    monkeypatch.setattr(ingest_detection, "open_input", real_open)
    stoppable_redis.start()
    rerun = ingest(inputs, out_dir=tmp_path / "out", store=stoppable_redis.url, detect_only=True,
                   max_bytes=MAX_BYTES, workers=0, progress=False)
    assert len(rerun.skipped) == 2 and [Path(p).name for p in rerun.completed] == ["late.jsonl"]
    rows = rows_of(tmp_path / "out")
    assert len(rows) == crawl.records + len(late)
    assert len({(r["url"], r["record"]) for r in rows}) == len(rows)
    check_rows(crawl, [r for r in rows if not r["url"].startswith("https://late")])
    assert SMALL not in {r["domain"] for r in rows if r["status"] == "ok"}


def test_a_crash_while_learning_costs_only_that_domain(crawl: Crawl, tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    real_learn = ingest_learning.learn_site

    def learn(pages: Any, site: str, **kwargs: Any) -> Any:
        if site == "beta.org":
            raise RecursionError("maximum recursion depth exceeded")
        return real_learn(pages, site, **kwargs)

    monkeypatch.setattr(ingest_learning, "learn_site", learn)
    summary = run(crawl, tmp_path / "out", MemoryStore())
    assert summary.learned == ("alpha.co.uk",) and summary.not_learned == {"failed": 1, "too_few_pages": 1}
    assert summary.rows == crawl.records and not summary.failures


@pytest.mark.parametrize(("declared", "encoding", "seen"), [
    ("utf-8", "utf-8", "café crème"),
    ("iso-8859-15", "iso-8859-15", "à 2 € la tasse"),  # the header decides: € is byte 0xA4 there, ¤ in windows-1252
    ("windows-1252", "utf-8", "café crème"),  # valid UTF-8 under a server's default label (fce.parse)
])
def test_the_http_charset_decodes_the_page(declared: str, encoding: str, seen: str, tmp_path: Path) -> None:
    """The page's bytes (no <meta charset>) read as the HTTP header says, as a browser would, unless they are valid
    UTF-8 (fce.parse.MISLABELLED_UTF8_EXTRA_BYTES)."""
    from fce.ingest import WarcPage, write_warc

    text = "Le café crème de la crémerie est très apprécié à Zürich, à 2 € la tasse. " * 8
    body = f"<html><body><article><p>{text}</p></article></body></html>".encode(encoding)
    page = WarcPage("https://cafe.fr/", body, content_type=f"text/html; charset={declared}")
    write_warc(tmp_path / "c.warc", [page])
    ingest([tmp_path / "c.warc"], out_dir=tmp_path / "out", store=MemoryStore(), progress=False)
    (row,) = rows_of(tmp_path / "out")
    assert seen in row["text"]


# --- drift: detections are counted, stale domains are learned again ------------------------------------------


def test_detections_count_for_drift_and_a_stale_domain_is_relearned(crawl: Crawl, tmp_path: Path) -> None:
    from fce.layouts import STALE_MIN_RECENT

    store = MemoryStore()
    first = run(crawl, tmp_path / "first", store)
    assert first.learned == LEARNED and first.stale == 0
    rows = rows_of(tmp_path / "first")
    counters = store.counters(list(LEARNED))
    for domain in LEARNED:  # every row of a learned domain counted once, as a fit or a fallback
        done = [r for r in rows if r["domain"] == domain and r["status"] in ("ok", "fallback")]
        assert counters[domain].fits + counters[domain].fallbacks == len(done) > 0
        assert counters[domain].fits == sum(r["status"] == "ok" for r in done)

    stale, fresh = LEARNED[0], LEARNED[1]  # a redesign: the stale domain's recent detections all fell back
    before = stored(store, stale).version
    store.record(stale, "0" * (STALE_MIN_RECENT * 10), version=before)
    again = run(crawl, tmp_path / "again", store)
    assert again.learned == (stale,) and again.stale == 1 and again.fresh == 1
    assert stored(store, stale).version > before and stored(store, fresh).version == 1
    assert "(1 of them stale)" in again.to_text()

    store.record(fresh, "0" * (STALE_MIN_RECENT * 10), version=stored(store, fresh).version)
    kept = run(crawl, tmp_path / "kept", store, relearn_stale=False)  # --keep-stale
    assert kept.learned == () and kept.stale == 0


# --- the drift counts when the store refuses them ----------------------------------------------------------


class _RefusingCounts(MemoryStore):
    """A store that keeps its templates but refuses every count (a Redis that drops between the template reads
    and the writes of the counters): a fake of one method, for the reporting around it."""

    def record(self, site: str, outcomes: str, *, version: int | None = None) -> bool:
        from templates_store import StoreUnavailable

        raise StoreUnavailable("template store memory://: connection lost", url="memory://")


def test_counts_the_store_refuses_are_reported_not_lost_silently(crawl: Crawl, reference: Reference,
                                                                  tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    import fce.pipeline

    monkeypatch.setattr(fce.pipeline, "RECORD_RETRY_DELAY", 0.0)
    store = _RefusingCounts()
    for site, payload in reference.templates.items():
        store.put(site, payload)
    summary = run(crawl, tmp_path / "out", store, detect_only=True)
    assert summary.rows == crawl.records  # every row is written
    counted = summary.counts.get("ok", 0) + summary.counts.get("fallback", 0)
    assert 0 < summary.outcomes_lost <= counted and "connection lost" in summary.outcomes_error
    assert sum(m["outcomes_lost"] for m in manifests(tmp_path / "out")) == summary.outcomes_lost
    assert f"counts:    {summary.outcomes_lost} fit/fallback counts not stored" in summary.to_text()
