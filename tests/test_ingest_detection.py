"""fce.ingest.detection: one detect task run directly, in this process: rows, statuses, time per stage, manifest."""

from __future__ import annotations

import json
import uuid
from pathlib import Path

from fce.ingest import WarcPage, write_warc
from fce.ingest.detection import ROW_KEYS, STAGES, DetectTask, detect_input
from fce.ingest.engine import process_id
from fce.ingest.readers import InputSource
from fce.ingest.settings import Settings
from templates_store import MemoryStore
from tests.sitegen import generate_site


def test_one_row_per_record_and_the_time_of_each_stage(tmp_path: Path) -> None:
    site = generate_site("detect.example.org", 3)
    pages = [WarcPage(p.url, p.html, content_type=f"text/html; charset={p.charset}") for p in site] + [
        WarcPage("https://detect.example.org/logo.png", b"\x89PNG", content_type="image/png"),
        WarcPage("https://detect.example.org/empty.html", b""),
    ]
    path = write_warc(tmp_path / "in.warc.gz", pages)
    settings = Settings(run_id=uuid.uuid4().hex, owner=process_id(), store=MemoryStore(), max_bytes=200_000,
                        timeout=30.0, min_pages=20, fallback="mainblock", method=None, ttl=None)
    task = DetectTask(InputSource(str(path), "warc"), str(tmp_path / "out.jsonl"), str(tmp_path / "m.json"),
                      settings)
    result = detect_input(task)
    rows = [json.loads(line) for line in (tmp_path / "out.jsonl").read_text().splitlines()]
    assert [r["status"] for r in rows] == ["fallback"] * 3 + ["skipped_non_html", "empty"]
    assert all(list(r) == list(ROW_KEYS) for r in rows) and [r["record"] for r in rows] == list(range(5))
    assert result.rows == 5 and result.counts == {"empty": 1, "fallback": 3, "skipped_non_html": 1}
    assert list(result.stage_seconds) == list(STAGES)
    assert result.stage_seconds["parse"] > 0 and result.stage_seconds["extract"] > 0
    assert sum(result.stage_seconds.values()) <= result.seconds + 0.01
    manifest = json.loads((tmp_path / "m.json").read_text())
    assert manifest["done"] is True and manifest["rows"] == 5 and manifest["stage_seconds"] == result.stage_seconds
    assert not (tmp_path / "out.jsonl.part").exists()


COMMENTED = ("<html><body><main><article><h1>Harbour plan approved</h1>"
             + "<p>The council met on Monday, and after a long debate, it approved the plan for the harbour.</p>" * 4
             + "</article><div id='comments'>"
             + "<div class='comment-body'><p>A reader says: this plan is long overdue, and welcome news.</p></div>" * 3
             + "</div></main></body></html>")


def _rows(tmp_path: Path, *, comments: bool) -> list[dict]:
    path = write_warc(tmp_path / f"c{comments}.warc.gz", [WarcPage("https://news.example.org/a.html",
                                                                   COMMENTED.encode())])
    settings = Settings(run_id=uuid.uuid4().hex, owner=process_id(), store=MemoryStore(), max_bytes=200_000,
                        timeout=30.0, min_pages=20, fallback="mainblock", method=None, ttl=None, comments=comments)
    out = tmp_path / f"c{comments}.jsonl"
    detect_input(DetectTask(InputSource(str(path), "warc"), str(out), str(tmp_path / f"c{comments}.json"), settings))
    return [json.loads(line) for line in out.read_text().splitlines()]


def test_rows_give_the_kind_of_page_and_on_request_its_comments(tmp_path: Path) -> None:
    (plain,) = _rows(tmp_path, comments=False)
    assert plain["page_type"] == "article" and plain["comments"] is None
    assert "council met" in plain["text"] and "A reader says" not in plain["text"]
    (row,) = _rows(tmp_path, comments=True)
    assert row["text"] == plain["text"] and row["comments"].count("A reader says") == 3
