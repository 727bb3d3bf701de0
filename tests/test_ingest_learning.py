"""fce.ingest.learning: the sample task (map side) and the size of learn batches. The learn task itself runs in
every ``test_ingest_pipeline`` job (learned templates, conflicts, crashes, timeouts)."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest

from fce.ingest import WarcPage, write_warc
from fce.ingest.engine import process_id
from fce.ingest.learning import SampleTask, learn_batch_size, sample_input
from fce.ingest.readers import InputSource
from fce.ingest.settings import Settings
from tests.sitegen import generate_site

HTML = b"<html><body><p>a page</p></body></html>"


def settings() -> Settings:
    return Settings(run_id=uuid.uuid4().hex, owner=process_id(), store=None, max_bytes=200_000, timeout=30.0,
                    min_pages=2, fallback="mainblock", method=None, ttl=None)


def test_sample_input_takes_the_pages_worth_learning_from(tmp_path: Path) -> None:
    site = generate_site("news.sample.co.uk", 4)
    pages = [WarcPage(p.url, p.html) for p in site] + [
        WarcPage("https://sample.co.uk/gone.html", HTML, status="404 Not Found"),  # an error page
        WarcPage("https://sample.co.uk/logo.png", b"\x89PNG", content_type="image/png"),  # not HTML
        WarcPage("https://other.org/a.html", HTML),
        WarcPage("https://other.org/big.html", b"<p>" + b"x" * 300_000),  # over the size cap
    ]
    path = write_warc(tmp_path / "a.warc.gz", pages)
    sample = sample_input(SampleTask(3, InputSource(str(path), "warc"), 2, settings()))
    assert sample.pages == {"other.org": 1, "sample.co.uk": 4}
    assert [len(e) for e in sample.entries.values()] == [1, 2]  # k = 2
    assert {e.input for entries in sample.entries.values() for e in entries} == {3}
    assert all(e.url in {p.url for p in site} for e in sample.entries["sample.co.uk"])


@pytest.mark.parametrize(("jobs", "workers", "size"), [(13, 2, 2), (100, 2, 8), (8, 1, 2), (1, 4, 1), (0, 2, 1),
                                                       (5, 0, 2)])
def test_learn_batches_give_every_worker_several_tasks(jobs: int, workers: int, size: int) -> None:
    assert learn_batch_size(jobs, workers) == size
