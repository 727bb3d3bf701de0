"""fce.ingest.engine: time limits, the local engine's retries and recovery, and the same job on Dask."""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Iterator
from concurrent.futures import Future
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from typing import Any

import pytest

from fce.errors import EngineError, PageTimeoutError, StoreFailure
from fce.ingest import ingest
from fce.ingest.engine import DaskEngine, LocalEngine, drop_swallowed_timeouts, open_engine
from fce.limits import run_limited
from templates_store import MemoryStore
from tests.sitegen import generate_site
from tests.test_ingest_corpus import MAX_BYTES, build_crawl, check_rows, rows_of


def _spin(seconds: float) -> str:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        pass
    return "finished"


# --- time limits (fce.limits) inside tasks ---------------------------------------------------------------


class _SlowFinalizer:
    def __del__(self) -> None:
        _spin(0.3)  # the limit fires while this finalizer runs: the interruption cannot propagate from here


def _garbage_then_spin() -> str:
    for _ in range(3):
        _SlowFinalizer()
    return _spin(5)


@pytest.mark.parametrize("in_thread", [False, True])
def test_an_interruption_swallowed_by_a_finalizer_is_not_reported(in_thread: bool) -> None:
    """Python drops an exception raised in ``__del__`` ("Exception ignored in ...", an error under pytest's
    unraisable-exception check); fce.limits interrupts again, and the dropped one is not reported."""
    outcome: list[str] = []

    def check() -> None:
        drop_swallowed_timeouts()
        try:
            run_limited(0.1, _garbage_then_spin)
        except PageTimeoutError:
            outcome.append("timeout")

    if in_thread:
        thread = threading.Thread(target=check)
        thread.start()
        thread.join()
    else:
        check()
    assert outcome == ["timeout"]


# --- the local engine ------------------------------------------------------------------------------------


def _fail_once(marker: str) -> str:
    """Fails with StoreFailure the first time (per marker file), then succeeds."""
    path = Path(marker)
    if not path.exists():
        path.write_text("failed once")
        raise StoreFailure("template store redis://x: unreachable")
    return f"done in {os.getpid()}"


def _die_once(marker: str) -> str:
    """Kills its worker process the first time (as the kernel's OOM killer would), then succeeds."""
    path = Path(marker)
    if not path.exists():
        path.write_text("died once")
        os._exit(1)
    return "survived"


def _always_fail(_: str) -> str:
    raise StoreFailure("template store redis://x: unreachable")


@pytest.mark.parametrize("workers", [0, 2])
def test_local_engine_retries_a_store_failure(workers: int, tmp_path: Path) -> None:
    with LocalEngine(workers) as engine:
        results = dict(engine.run(_fail_once, [str(tmp_path / "a"), str(tmp_path / "b")], retries=1))
        assert all(str(r).startswith("done") for r in results.values())
        failed = dict(engine.run(_always_fail, ["x"], retries=1))
        assert isinstance(failed[0], StoreFailure)


def test_local_engine_recovers_from_a_dead_worker(tmp_path: Path) -> None:
    with LocalEngine(2) as engine:
        results = dict(engine.run(_die_once, [str(tmp_path / "m"), str(tmp_path / "m2")], retries=1))
    assert results == {0: "survived", 1: "survived"}


def _prepared_freeze_count(owner: tuple[str, int]) -> int:
    import gc

    from fce.ingest.engine import prepare_worker

    prepare_worker(owner)
    prepare_worker(owner)  # once per process
    return gc.get_freeze_count()


def test_workers_freeze_their_start_up_objects_and_the_driver_does_not() -> None:
    import gc

    from fce.ingest.engine import process_id

    before = gc.get_freeze_count()
    assert _prepared_freeze_count(process_id()) == before  # the driver: untouched
    with LocalEngine(1) as engine:
        ((_, frozen),) = engine.run(_prepared_freeze_count, [process_id()])
    assert isinstance(frozen, int) and frozen > 1000  # fce's modules, lxml, tldextract's list, ...


def test_open_engine_checks_its_arguments() -> None:
    with pytest.raises(ValueError, match="--scheduler"):
        open_engine("local", scheduler="tcp://x:1")
    with pytest.raises(ValueError, match="unknown engine"):
        open_engine("spark")
    with pytest.raises(ValueError, match="workers 0"):
        open_engine("dask", workers=0)


# --- Dask ------------------------------------------------------------------------------------------------


def _warm() -> None:
    import fce.ingest.pipeline  # noqa: F401 -- pay the import once per worker, before the timed tests


@pytest.fixture(scope="module")
def dask_engine() -> Iterator[DaskEngine]:
    """One LocalCluster (2 worker processes) for the module, started by DaskEngine itself; the tests reach it
    through its scheduler address, the ``--scheduler`` path."""
    pytest.importorskip("dask.distributed")
    engine = DaskEngine(None, workers=2)
    engine.client.run(_warm)
    yield engine
    engine.close()


def test_dask_cluster_gives_the_same_rows_as_local(dask_engine: DaskEngine, tmp_path: Path) -> None:
    crawl = build_crawl(tmp_path / "crawl")
    inputs = [str(f) for f in crawl.files]
    address = dask_engine.client.scheduler.address
    on_dask = ingest(inputs, out_dir=tmp_path / "dask", store=f"sqlite:///{tmp_path / 't.db'}", engine="dask",
                     scheduler=address, max_bytes=MAX_BYTES, progress=False)
    assert on_dask.workers == 2 and on_dask.learned == ("alpha.co.uk", "beta.org")
    local = ingest(inputs, out_dir=tmp_path / "local", store=MemoryStore(), workers=0, max_bytes=MAX_BYTES,
                   progress=False)
    dask_rows = rows_of(tmp_path / "dask")
    check_rows(crawl, dask_rows)
    assert sorted(map(json.dumps, dask_rows)) == sorted(map(json.dumps, rows_of(tmp_path / "local")))
    assert on_dask.counts == local.counts


def test_dask_worker_threads_enforce_the_time_limit(dask_engine: DaskEngine, tmp_path: Path) -> None:
    pages = generate_site("delta.com", 2)
    with (tmp_path / "pages.jsonl").open("w") as f:
        for p in pages:
            f.write(json.dumps({"url": p.url, "html": p.html.decode(p.charset)}) + "\n")
        # 16 MB of one-word paragraphs: ~0.8 s to parse and ~0.9 s to extract, several times the
        # limit
        f.write(json.dumps({"url": "https://delta.com/slow", "html": "<p>w</p>" * 2_000_000}) + "\n")
    summary = ingest([tmp_path / "pages.jsonl"], out_dir=tmp_path / "out", store=f"sqlite:///{tmp_path / 't.db'}",
                     engine="dask", scheduler=dask_engine.client.scheduler.address, timeout=0.25,
                     detect_only=True, progress=False)
    assert summary.counts == {"fallback": 2, "timeout": 1}


def test_dask_rejects_an_in_process_store(dask_engine: DaskEngine, tmp_path: Path) -> None:
    crawl_file = tmp_path / "x.jsonl"
    crawl_file.write_text("")
    with pytest.raises(ValueError, match="memory://"):
        ingest([crawl_file], out_dir=tmp_path / "out", store=MemoryStore(), engine="dask",
               scheduler=dask_engine.client.scheduler.address, progress=False)


def _poison(marker: str) -> str:
    """Kills its worker on every attempt when the marker's name says so."""
    if marker.endswith("poison"):
        os._exit(1)
    time.sleep(0.2)
    return "fine"


def test_local_engine_charges_only_the_task_that_kills_its_worker(tmp_path: Path) -> None:
    tasks = [str(tmp_path / name) for name in ("a", "poison", "b", "c")]
    with LocalEngine(2) as engine:
        results = dict(engine.run(_poison, tasks, retries=1))
    assert [results[i] for i in (0, 2, 3)] == ["fine", "fine", "fine"]
    assert isinstance(results[1], BrokenProcessPool)


class _QueuedPool:
    """A stand-in for ``ProcessPoolExecutor`` at the moment that matters: the first task has failed and the
    second is still queued (not yet handed to a worker). ``shutdown(cancel_futures=True)`` cancels it the way
    the real pool's manager thread does, with ``Future.cancel()``, which wakes no ``wait()``."""

    def __init__(self) -> None:
        self.queued: list[Future[str]] = []

    def submit(self, fn: Any, task: str) -> Future[str]:
        future: Future[str] = Future()
        if task == "fails":
            future.set_running_or_notify_cancel()
            future.set_exception(StoreFailure("template store redis://x: unreachable"))
        else:
            self.queued.append(future)
        return future

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        if cancel_futures:
            for future in self.queued:
                future.cancel()


def test_local_engine_cancel_drops_a_queued_task_instead_of_waiting_for_it() -> None:
    engine = LocalEngine(2)
    engine._pool = _QueuedPool()  # type: ignore[assignment]
    results: list[tuple[int, object]] = []

    def consume() -> None:
        for index, outcome in engine.run(str, ["fails", "queued"]):
            results.append((index, outcome))
            engine.cancel()

    consumer = threading.Thread(target=consume, daemon=True)
    consumer.start()
    consumer.join(timeout=10)
    assert not consumer.is_alive(), "run() waited for a task that cancel() had dropped"
    assert [index for index, _ in results] == [0] and isinstance(results[0][1], StoreFailure)


def test_unreachable_scheduler_is_an_engine_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("fce.ingest.engine.SCHEDULER_TIMEOUT", 1.0)
    started = time.monotonic()
    with pytest.raises(EngineError, match="cannot reach the Dask scheduler tcp://127.0.0.1:1"):
        DaskEngine("tcp://127.0.0.1:1")
    assert time.monotonic() - started < 10
    assert EngineError.exit_code == 15


# --- worker processes --------------------------------------------------------------------------------------


def _children_of(pid: int) -> set[int]:
    """The processes whose parent is ``pid``, and theirs (Linux /proc)."""
    parents: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat", encoding="ascii", errors="replace") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            parents[int(entry)] = int(fields[1])
    found: set[int] = set()
    frontier = {pid}
    while frontier:
        frontier = {child for child, parent in parents.items() if parent in frontier} - found
        found |= frontier
    return found


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"  # a zombie has ended
    except OSError:
        return False


@pytest.mark.skipif(not os.path.isdir("/proc"), reason="reads processes from /proc (Linux)")
def test_workers_end_when_the_driver_is_killed(tmp_path: Path) -> None:
    """``kill -9`` of ``fce ingest``: its worker processes (and the forkserver they come from) end with it."""
    import signal
    import subprocess
    import sys

    pages = generate_site("kill.test", 30, seed=3)
    with open(tmp_path / "crawl.jsonl", "w", encoding="utf-8") as f:
        for i in range(4000):  # enough work for the workers to be busy when the driver dies
            page = pages[i % len(pages)]
            f.write(json.dumps({"url": f"{page.url}?copy={i}", "html": page.html.decode(page.charset)}) + "\n")
    command = [sys.executable, "-m", "fce", "ingest", "--store", f"sqlite:///{tmp_path}/t.db", "--out",
               str(tmp_path / "out"), "--workers", "2", str(tmp_path / "crawl.jsonl")]
    driver = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        workers: set[int] = set()
        while time.monotonic() < deadline and len(workers) < 3 and driver.poll() is None:
            time.sleep(0.1)
            workers = _children_of(driver.pid)  # the forkserver, its workers (and a resource tracker)
        assert driver.poll() is None and len(workers) >= 3, "the run ended before its workers were seen"
        os.kill(driver.pid, signal.SIGKILL)
        driver.wait(timeout=10)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and any(map(_alive, workers)):
            time.sleep(0.1)
        assert not any(map(_alive, workers)), [p for p in workers if _alive(p)]
    finally:
        if driver.poll() is None:
            driver.kill()
