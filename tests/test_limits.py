"""fce.limits: the per-page time limit, in the main thread (SIGALRM), in other threads (watchdog), nested, and
threaded through extract, learning and `fce detect --page-timeout`."""

from __future__ import annotations

import json
import signal
import threading
import time
from collections.abc import Sequence
from pathlib import Path

import pytest
from typer.testing import CliRunner

import fce
from fce import cli, limits
from fce.errors import PageTimeoutError
from fce.extraction import ExtractedBlock
from fce.limits import DEFAULT_PAGE_TIMEOUT, check_deadline, run_limited, time_limit
from fce.methods import _REGISTRY, MethodInfo
from tests.sitegen import generate_site

PAGE = b"<html><body><p>Some text of a page.</p></body></html>"


def spin(seconds: float) -> None:
    """Busy Python code (no system call to interrupt)."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        pass


def test_interrupts_busy_code_in_the_main_thread() -> None:
    started = time.monotonic()
    with pytest.raises(PageTimeoutError) as caught, time_limit(0.2, "a.html"):
        spin(5)
    assert 0.15 < time.monotonic() - started < 1.5
    assert str(caught.value) == "a.html: processing took longer than the 0.2 s time limit"
    assert isinstance(caught.value, TimeoutError) and caught.value.exit_code == 8


def test_interrupts_a_blocking_call() -> None:
    started = time.monotonic()
    with pytest.raises(PageTimeoutError), time_limit(0.2):
        time.sleep(5)
    assert time.monotonic() - started < 1.5


def test_cannot_be_swallowed_by_except_exception() -> None:
    with pytest.raises(PageTimeoutError), time_limit(0.1):
        while True:
            try:
                spin(1)
            except Exception:  # noqa: BLE001 -- what careless limited code does
                pass


@pytest.mark.parametrize(("outer", "inner", "expected"), [(0.2, 5, "outer"), (5, 0.2, "inner")])
def test_nested_limits_name_the_one_that_ran_out(outer: float, inner: float, expected: str) -> None:
    with pytest.raises(PageTimeoutError) as caught, time_limit(outer, "outer"), time_limit(inner, "inner"):
        spin(5)
    assert str(caught.value).startswith(f"{expected}: ")


def test_nothing_left_behind() -> None:
    before = signal.getsignal(signal.SIGALRM)
    with time_limit(0.05):
        pass
    with pytest.raises(PageTimeoutError), time_limit(0.05):
        spin(1)
    spin(0.3)  # a late alarm would raise here
    assert signal.getsignal(signal.SIGALRM) == before
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)


def test_another_alarm_is_kept() -> None:
    fired: list[float] = []
    previous = signal.signal(signal.SIGALRM, lambda signum, frame: fired.append(time.monotonic()))
    try:
        started = time.monotonic()
        signal.setitimer(signal.ITIMER_REAL, 0.3)
        with time_limit(5):
            spin(0.1)
        spin(0.4)
        assert len(fired) == 1 and 0.25 < fired[0] - started < 1.0  # fired when it was due, not reset
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def test_other_threads_are_interrupted_by_the_watchdog() -> None:
    outcome: list[object] = []

    def work() -> None:
        try:
            run_limited(0.2, lambda: spin(5), source="thread.html")
        except PageTimeoutError as error:
            outcome.append(error)

    started = time.monotonic()
    thread = threading.Thread(target=work)
    thread.start()
    thread.join(10)
    assert time.monotonic() - started < 2
    assert [str(e) for e in outcome] == ["thread.html: processing took longer than the 0.2 s time limit"]


def test_many_tiny_limits_in_threads_never_leak_the_interrupt() -> None:
    """Deadlines that run out as the block ends: always PageTimeoutError or a result, never a stray Expired."""
    errors: list[BaseException] = []

    def work() -> None:
        try:
            for _ in range(300):
                try:
                    run_limited(0.0005, lambda: spin(0.001))
                except PageTimeoutError:
                    pass
            spin(0.3)  # a late interruption would land here
        except BaseException as error:  # noqa: BLE001 -- anything at all is the failure
            errors.append(error)

    threads = [threading.Thread(target=work) for _ in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert errors == []


@pytest.mark.parametrize("seconds", [None, 0])
def test_no_limit(seconds: float | None) -> None:
    with time_limit(seconds):
        spin(0.05)
    check_deadline()


@pytest.mark.parametrize("seconds", [-1, float("nan"), float("inf"), True])
def test_bad_limits_are_refused(seconds: float) -> None:
    with pytest.raises(ValueError):
        time_limit(seconds)


def test_check_deadline_is_the_cooperative_check() -> None:
    with time_limit(5, "x"):
        check_deadline()  # in time: nothing
    limit = time_limit(1, "x")
    limit.deadline = time.monotonic() - 1  # as if it had run out where no interrupt can arrive
    with pytest.raises(PageTimeoutError):
        limit.check()


def test_default_is_documented() -> None:
    assert DEFAULT_PAGE_TIMEOUT == 30.0


# --- threaded through the pipeline and the CLI --------------------------------------------------------------


def _slow_method(page: fce.Page) -> Sequence[ExtractedBlock]:
    spin(10)
    return ()


@pytest.fixture
def slow_method(monkeypatch: pytest.MonkeyPatch) -> str:
    fce.methods.available_methods()  # load the registry before adding to it
    monkeypatch.setitem(_REGISTRY, "slow", MethodInfo("slow", _slow_method, paper="a test"))
    return "slow"


def test_extract_timeout_bounds_the_fallback(slow_method: str) -> None:
    page = fce.parse_page(PAGE, source="p.html")
    started = time.monotonic()
    with pytest.raises(PageTimeoutError) as caught:
        fce.extract(page, None, fallback=slow_method, timeout=0.2)
    assert time.monotonic() - started < 2 and str(caught.value).startswith("p.html: ")


def _slow_output(*args: object, **kwargs: object) -> None:
    spin(10)


@pytest.mark.parametrize(("output", "slow"), [("text", "page_metadata"), ("markdown", "to_markdown"),
                                              ("html", "to_html")])
def test_metadata_and_structure_are_inside_the_limit(output: str, slow: str, monkeypatch: pytest.MonkeyPatch) -> None:
    # they read the page's markup again: a page on which they are slow is a timeout, not a hang
    monkeypatch.setattr(fce.pipeline, slow, _slow_output)
    page = fce.parse_page(PAGE, source="p.html")
    started = time.monotonic()
    with pytest.raises(PageTimeoutError) as caught:
        fce.extract(page, None, metadata=True, output=output, timeout=0.2)
    assert time.monotonic() - started < 2 and str(caught.value).startswith("p.html: ")


@pytest.mark.parametrize("how", [["--method", "mainblock"], ["--store", "memory://"]])
def test_cli_page_timeout_bounds_the_metadata(how: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FCE_DATA_DIR", str(tmp_path))
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(fce.pipeline, "page_metadata", _slow_output)
    (tmp_path / "p.html").write_bytes(PAGE)
    result = CliRunner().invoke(cli.app, ["detect", *how, "--page-timeout", "0.2", "--format", "json", "p.html"])
    assert result.exit_code == PageTimeoutError.exit_code
    assert result.stderr.splitlines() == ["fce: error: p.html: processing took longer than the 0.2 s time limit"]


def test_learning_timeout_is_per_page(monkeypatch: pytest.MonkeyPatch) -> None:
    # learning these 20 pages takes ~15 ms: an interruption dropped by a GC callback (dask.distributed's, left by
    # earlier tests) must be raised again well within that
    monkeypatch.setattr(limits, "REFIRE_INTERVAL", 0.001)
    pages = [fce.parse_page(p.html, url=p.url) for p in generate_site("example.com", 20, seed=1)]
    with pytest.raises(PageTimeoutError) as caught:
        fce.learn_template(pages, "example.com", timeout=1e-5)
    assert str(caught.value).startswith("example.com: learning from 20 pages took longer than the 0.0002 s")


def test_cli_page_timeout(slow_method: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FCE_DATA_DIR", str(tmp_path))
    monkeypatch.chdir(tmp_path)
    (tmp_path / "p.html").write_bytes(PAGE)
    (tmp_path / "q.html").write_bytes(PAGE)
    result = CliRunner().invoke(cli.app, ["detect", "--method", slow_method, "--page-timeout", "0.2",
                                          "--format", "json", "p.html", "q.html"])
    assert result.exit_code == PageTimeoutError.exit_code
    assert result.stderr.splitlines() == [
        f"fce: error: {name}: processing took longer than the 0.2 s time limit" for name in ("p.html", "q.html")]
    assert [json.loads(line)["status"] for line in result.stdout.splitlines()] == ["timeout", "timeout"]
    result = CliRunner().invoke(cli.app, ["detect", "--store", "memory://", "--fallback", slow_method,
                                          "--page-timeout", "0.2", "p.html"])
    assert result.exit_code == PageTimeoutError.exit_code


def test_an_interruption_is_not_raised_inside_a_gc_callback(monkeypatch: pytest.MonkeyPatch) -> None:
    # Python drops an exception raised in a gc callback ("Exception ignored in"): the limit must wait until the
    # callback has returned, and then end the block
    import gc
    import sys

    dropped: list[object] = []
    monkeypatch.setattr(sys, "unraisablehook", dropped.append)

    calls: list[str] = []

    def slow_callback(phase: str, info: dict[str, int]) -> None:
        if phase == "start" and not calls:
            calls.append(phase)
            end = time.monotonic() + 0.15
            while time.monotonic() < end:  # Python code running when the limit runs out
                pass

    def work() -> None:
        gc.collect()
        end = time.monotonic() + 3.0
        while time.monotonic() < end:
            pass

    gc.callbacks.append(slow_callback)
    started = time.monotonic()
    try:
        with pytest.raises(PageTimeoutError):
            run_limited(0.02, work, source="gc")
    finally:
        gc.callbacks.remove(slow_callback)
    assert calls and time.monotonic() - started < 2.0  # interrupted after the callback returned, not at the end
    # (an interruption may still be dropped in a weakref callback run by the collection, and refired: not ours)
    assert not [d for d in dropped if getattr(d, "object", None) is slow_callback]
