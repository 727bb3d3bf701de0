"""SQLite backend: the file, several processes, and the ways a file can be unusable."""

from __future__ import annotations

import multiprocessing
import os
import pickle
import sqlite3
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import suppress
from multiprocessing.context import ForkContext, SpawnContext
from pathlib import Path
from typing import Any, cast

import pytest

from templates_store import SQLiteStore, StoreCorrupt, StoreUnavailable, VersionConflict, open_store
from templates_store.sqlite import SCHEMA_VERSION
from tests._store import stored

PROCESSES = 4
INCREMENTS = 25  # per process
NOBODY = 65534  # uid and gid of the unprivileged user on Debian-like systems


def _cas_increments(store: SQLiteStore, site: str, count: int, start: Any, results: Any) -> None:
    """Add 1 to the site's counter ``count`` times by compare-and-set, all workers starting together."""
    start.wait()
    conflicts = 0
    for _ in range(count):
        while True:
            current = store.get(site)
            version = 0 if current is None else current.version
            value = 0 if current is None else int(current.payload)
            try:
                store.put(site, str(value + 1), expected_version=version)
                break
            except VersionConflict:
                conflicts += 1
    store.close()
    results.put(conflicts)


def _plain_puts(store: SQLiteStore, site: str, count: int, start: Any, results: Any) -> None:
    start.wait()
    results.put([store.put(site, str(os.getpid())) for _ in range(count)])


def _run_together(start_method: str, target: Callable[..., None], *args: Any) -> list[Any]:
    """Run ``target(*args, start, results)`` in PROCESSES processes released at once by a barrier."""
    if start_method not in multiprocessing.get_all_start_methods():
        pytest.skip(f"no {start_method} start method on this platform")
    # get_context(str) is typed BaseContext, which has no Process; the tests here use fork and spawn only.
    context = cast(ForkContext | SpawnContext, multiprocessing.get_context(start_method))
    start, results = context.Barrier(PROCESSES), context.Queue()
    workers = [context.Process(target=target, args=(*args, start, results)) for _ in range(PROCESSES)]
    for worker in workers:
        worker.start()
    collected = [results.get(timeout=60) for _ in workers]
    for worker in workers:
        worker.join(timeout=60)
        assert worker.exitcode == 0
    return collected


def _reports_own_connection(store: SQLiteStore, start: Any, results: Any) -> None:
    inherited = store._conn
    store.get("example.com")
    results.put(inherited is not None and store._conn is not inherited)


def _one_line(error: BaseException) -> str:
    message = str(error)
    assert "\n" not in message
    return message


def test_persists_across_store_objects(tmp_path: Path) -> None:
    path = tmp_path / "nested" / "dirs" / "t.sqlite3"
    with SQLiteStore(path) as first:
        first.put("example.com", "one")
        first.put("example.com", "two")
    assert path.exists()
    with open_store(str(path)) as second:
        assert stored(second, "example.com").payload == "two"
        assert second.put("example.com", "three", expected_version=2) == 3


def test_file_layout(tmp_path: Path) -> None:
    path = tmp_path / "t.db"
    with SQLiteStore(path) as store:
        store.put("example.com", "{}", ttl=60)
    conn = sqlite3.connect(path)
    try:
        assert conn.execute("PRAGMA journal_mode").fetchone() == ("wal",)
        assert conn.execute("PRAGMA user_version").fetchone() == (SCHEMA_VERSION,)
        columns = [row[1] for row in conn.execute("PRAGMA table_info(templates)")]
        assert columns == ["site", "payload", "version", "updated_at", "expires_at"]
        site, payload, version, updated_at, expires_at = conn.execute("SELECT * FROM templates").fetchone()
        assert (site, payload, version) == ("example.com", "{}", 1)
        assert expires_at == pytest.approx(updated_at + 60)
    finally:
        conn.close()


def test_expired_rows_are_purged_by_the_next_write(tmp_path: Path) -> None:
    path = tmp_path / "t.db"
    with SQLiteStore(path) as store:
        store.put("old.com", "x", ttl=0.05)
        time.sleep(0.1)
        store.put("new.com", "y")
    conn = sqlite3.connect(path)
    try:
        assert [site for (site,) in conn.execute("SELECT site FROM templates")] == ["new.com"]
    finally:
        conn.close()


@pytest.mark.parametrize("start_method", ["spawn", "fork"])
def test_processes_do_not_lose_compare_and_set_updates(tmp_path: Path, start_method: str) -> None:
    store = SQLiteStore(tmp_path / "shared.sqlite3")  # not created yet: the workers race to create it
    if start_method == "fork":
        store.put("warm.com", "x")  # the children inherit this open connection and must not use it
    # The barrier makes the workers collide (each usually sees dozens of conflicts), but on a loaded
    # machine they may happen to take turns: the test then passes without having proved much.
    _run_together(start_method, _cas_increments, store, "counter.com", INCREMENTS)
    final = stored(store, "counter.com")
    assert (final.payload, final.version) == (str(PROCESSES * INCREMENTS), PROCESSES * INCREMENTS)
    if start_method == "fork":
        assert (tmp_path / "shared.sqlite3-wal").exists()  # no child closed the parent's connection
        assert stored(store, "warm.com").payload == "x"
    store.close()


def test_unconditional_puts_from_processes_get_distinct_versions(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "shared.sqlite3")
    chunks = _run_together("fork", _plain_puts, store, "example.com", 20)  # fork: fast; spawn is tested above
    assert sorted(v for chunk in chunks for v in chunk) == list(range(1, PROCESSES * 20 + 1))


def test_forked_child_opens_its_own_connection(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "t.db")
    store.put("example.com", "x")
    assert _run_together("fork", _reports_own_connection, store) == [True] * PROCESSES
    assert stored(store, "example.com").payload == "x"  # and the parent's connection still works
    store.close()


def test_pickle_round_trip_before_and_after_use(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "t.db", busy_timeout=1.5, default_ttl=30)
    fresh = pickle.loads(pickle.dumps(store))
    store.put("example.com", "x")
    used = pickle.loads(pickle.dumps(store))
    for copy in (fresh, used):
        assert (copy.path, copy.busy_timeout, copy.default_ttl, copy.url) == (
            store.path, 1.5, 30.0, store.url)
        assert copy.get("example.com").payload == "x"
        copy.close()
    assert "_conn" in store.__dict__ and store._conn is not None  # pickling left the original usable
    store.close()


def _drop_privileges() -> None:
    os.setgid(NOBODY)
    os.setuid(NOBODY)


@pytest.fixture
def unprivileged(tmp_path: Path) -> Iterator[tuple[Path, Callable[..., Any]]]:
    """A scratch directory and a ``run(fn, *args)`` that calls ``fn`` without root's powers.

    Root ignores file permissions, and test containers often run as root; there ``run`` calls
    ``fn`` in a forked child that has switched to the ``nobody`` user.
    """
    if os.geteuid() != 0:
        yield tmp_path, lambda fn, *args: fn(*args)
        return
    if "fork" not in multiprocessing.get_all_start_methods():
        pytest.skip("running as root, and no fork to drop privileges")
    with tempfile.TemporaryDirectory(prefix="fce-nobody-") as scratch:  # tmp_path's parents are 0700
        os.chmod(scratch, 0o777)
        with multiprocessing.get_context("fork").Pool(1, initializer=_drop_privileges) as pool:
            yield Path(scratch), lambda fn, *args: pool.apply(fn, args)


def _put_error(path: Path) -> str | None:
    """The message of the StoreUnavailable that a put to ``path`` raises (None if it succeeds)."""
    try:
        SQLiteStore(path).put("example.com", "y")
    except StoreUnavailable as error:
        return _one_line(error)
    return None


def _record_and_count(path: Path) -> tuple[bool, tuple[int, int]]:
    """Record a fit in ``path`` and read example.com's counters back, as this (unprivileged) process."""
    store = SQLiteStore(path)
    counted = store.record("example.com", "1")
    got = store.counters(["example.com"])["example.com"]
    return counted, (got.fits, got.fallbacks)


def _get_payload(path: Path) -> str | None:
    """The payload stored for example.com, read by this (unprivileged) process."""
    record = SQLiteStore(path).get("example.com")
    return None if record is None else record.payload


def test_unwritable_directory(unprivileged: tuple[Path, Callable[..., Any]]) -> None:
    scratch, run = unprivileged
    locked = scratch / "locked"
    locked.mkdir()
    locked.chmod(0o555)
    for path in (locked / "t.db", locked / "sub" / "t.db"):
        message = run(_put_error, path)
        assert message is not None and str(path.parent) in message


def test_read_only_database_file(unprivileged: tuple[Path, Callable[..., Any]]) -> None:
    scratch, run = unprivileged
    path = scratch / "ro" / "t.db"
    with SQLiteStore(path) as store:
        store.put("example.com", "x")
    for file in path.parent.iterdir():
        file.chmod(0o444)
    path.parent.chmod(0o555)
    message = run(_put_error, path)
    assert message is not None and str(path) in message
    assert run(_get_payload, path) == "x"  # a user who cannot write reads it (opened immutable)
    assert run(_record_and_count, path) == (False, (0, 0))  # and counts nothing, without an error
    assert stored(SQLiteStore(path), "example.com").payload == "x"  # unchanged


def test_a_version_1_file_gains_the_counters_table(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    conn = sqlite3.connect(path)
    conn.executescript("CREATE TABLE templates (site TEXT PRIMARY KEY NOT NULL, payload TEXT NOT NULL, "
                       "version INTEGER NOT NULL, updated_at REAL NOT NULL, expires_at REAL);"
                       "INSERT INTO templates VALUES ('example.com', '{}', 3, 1.0, NULL);"
                       "PRAGMA user_version = 1;")
    conn.close()
    with SQLiteStore(path) as store:
        assert stored(store, "example.com").version == 3
        assert store.record("example.com", "01", version=3) is True
        assert (store.counters(["example.com"])["example.com"].fits, SCHEMA_VERSION) == (1, 3)


def test_a_version_2_file_gains_the_overruled_column(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    conn = sqlite3.connect(path)
    conn.executescript("CREATE TABLE templates (site TEXT PRIMARY KEY NOT NULL, payload TEXT NOT NULL, "
                       "version INTEGER NOT NULL, updated_at REAL NOT NULL, expires_at REAL);"
                       "CREATE TABLE counters (site TEXT PRIMARY KEY NOT NULL, version INTEGER NOT NULL, "
                       "fits INTEGER NOT NULL, fallbacks INTEGER NOT NULL, recent TEXT NOT NULL);"
                       "INSERT INTO templates VALUES ('example.com', '{}', 3, 1.0, NULL);"
                       "INSERT INTO counters VALUES ('example.com', 3, 5, 1, '111101');"
                       "PRAGMA user_version = 2;")
    conn.close()
    with SQLiteStore(path) as store:
        before = store.counters(["example.com"])["example.com"]
        assert (before.fits, before.fallbacks, before.overruled, before.recent) == (5, 1, 0, "111101")
        assert store.record("example.com", "0122", version=3) is True
        after = store.counters(["example.com"])["example.com"]
        assert (after.fits, after.fallbacks, after.overruled, after.recent) == (6, 2, 2, "1111010122")
    assert sqlite3.connect(path).execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 3


@pytest.mark.parametrize("layout", ["parent is a file", "path is a directory"])
def test_unusable_path_is_unavailable(tmp_path: Path, layout: str) -> None:
    if layout == "parent is a file":
        (tmp_path / "file").write_text("not a directory")
        path = tmp_path / "file" / "t.db"
    else:
        path = tmp_path / "dir.db"
        path.mkdir()
    store = SQLiteStore(path)
    with pytest.raises(StoreUnavailable) as caught:
        store.ping()
    message = _one_line(caught.value)
    assert str(path) in message or str(path.parent) in message
    assert caught.value.url == store.url
    with pytest.raises(StoreUnavailable):
        store.put("example.com", "x")


def test_locked_database_fails_after_busy_timeout(tmp_path: Path) -> None:
    path = tmp_path / "t.db"
    store = SQLiteStore(path, busy_timeout=0.2)
    store.put("example.com", "x")
    blocker = sqlite3.connect(path, isolation_level=None)
    blocker.execute("BEGIN IMMEDIATE")  # another process in the middle of a write
    try:
        started = time.monotonic()
        with pytest.raises(StoreUnavailable) as caught:
            store.put("example.com", "y")
        assert 0.15 < time.monotonic() - started < 3
        message = _one_line(caught.value)
        assert "locked" in message and str(path) in message and "example.com" in message
        assert stored(store, "example.com").payload == "x"  # WAL: readers do not wait for the writer
    finally:
        blocker.execute("ROLLBACK")
        blocker.close()
    assert store.put("example.com", "z") == 2
    store.close()


def test_file_that_is_not_sqlite(tmp_path: Path) -> None:
    path = tmp_path / "notes.db"
    path.write_text("these are my notes, not a database\n" * 100)
    store = open_store(str(path))
    with pytest.raises(StoreCorrupt) as caught:
        store.get("example.com")
    message = _one_line(caught.value)
    assert str(path) in message and "not a readable SQLite" in message
    assert path.read_text().startswith("these are my notes")  # left alone


def test_unreadable_record_names_the_site(tmp_path: Path) -> None:
    path = tmp_path / "t.db"
    with SQLiteStore(path) as store:
        store.put("good.com", "x")
        store.put("bad.com", "x")
    conn = sqlite3.connect(path)
    conn.execute("UPDATE templates SET payload = ? WHERE site = 'bad.com'", (b"\xff\xfe",))
    conn.commit()
    conn.close()
    with SQLiteStore(path) as store:
        assert stored(store, "good.com").payload == "x"
        with pytest.raises(StoreCorrupt) as caught:
            store.get("bad.com")
        assert caught.value.site == "bad.com" and "bad.com" in _one_line(caught.value)
        with pytest.raises(StoreCorrupt):
            store.put("bad.com", "y", expected_version=1)


def test_newer_schema_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "t.db"
    conn = sqlite3.connect(path)
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    conn.close()
    with pytest.raises(StoreCorrupt, match="newer"):
        SQLiteStore(path).get("example.com")


def test_url_of_the_store(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "my file.db", busy_timeout=2, default_ttl=60)
    assert store.url == f"sqlite://{(tmp_path / 'my%20file.db').as_posix()}?timeout=2&ttl=60"
    again = cast(SQLiteStore, open_store(store.url))
    assert (again.path, again.busy_timeout, again.default_ttl) == (store.path, 2.0, 60.0)


def _mount_full_tmpfs(where: Path) -> bool:
    """A small tmpfs at ``where`` (root only); False where it cannot be mounted."""
    import shutil
    import subprocess

    if os.geteuid() != 0 or shutil.which("mount") is None:
        return False
    where.mkdir()
    return subprocess.run(["mount", "-t", "tmpfs", "-o", "size=160k", "tmpfs", str(where)],
                          capture_output=True).returncode == 0


def test_a_full_disk_still_reads(tmp_path: Path) -> None:
    import subprocess

    disk = tmp_path / "disk"
    if not _mount_full_tmpfs(disk):
        pytest.skip("needs root to mount a small tmpfs")
    try:
        path = disk / "t.db"
        with SQLiteStore(path) as store:
            store.put("example.com", "payload")
        (disk / "t.db-shm").unlink(missing_ok=True)
        (disk / "t.db-wal").unlink(missing_ok=True)
        fill = os.open(disk / "fill", os.O_WRONLY | os.O_CREAT)
        try:  # fill the disk to its last byte
            with suppress(OSError):
                while True:
                    os.write(fill, b"\0" * 4096)
        finally:
            os.close(fill)
        with SQLiteStore(path) as store:
            assert stored(store, "example.com").payload == "payload"  # a read needs no room
            assert store.record("example.com", "1") is False  # counts are not taken, without an error
            with pytest.raises(StoreUnavailable, match="cannot be written"):
                store.put("example.com", "new")
    finally:
        subprocess.run(["umount", str(disk)], capture_output=True)
