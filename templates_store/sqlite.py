"""Embedded template store: one SQLite file, the default backend.

One table ``templates(site PRIMARY KEY, payload, version, updated_at, expires_at)`` in WAL mode, so
readers never wait for a writer, and one ``counters(site PRIMARY KEY, version, fits, fallbacks, recent,
overruled)`` (schema version 3; an older file gains what it lacks when first opened for writing). A file that
cannot be written (its folder read-only, a full disk) is read immutable: reads work, writes fail as read-only.
Every write runs in a ``BEGIN IMMEDIATE`` transaction, which takes
the database's write lock before reading the current version: replace is atomic and
compare-and-set is race-free across threads and processes. Expired rows are invisible to reads
and are purged by the next write.

The connection is opened lazily, once per process (a store that crosses ``fork`` or pickling opens
its own), and shared by the threads of that process behind a lock.
"""

from __future__ import annotations

import os
import sqlite3
import threading
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any
from urllib.parse import quote

from templates_store.base import (
    SiteCounters,
    StoredTemplate,
    TemplateStore,
    check_expected_version,
    check_outcomes,
    check_payload,
    check_seconds,
    check_site,
    conflict_message,
    unique_sites,
    updated_counters,
)
from templates_store.errors import StoreCorrupt, StoreError, StoreUnavailable, VersionConflict
from templates_store.naming import with_query

__all__ = ["DEFAULT_BUSY_TIMEOUT", "SQLiteStore"]

# Seconds a writer waits for another connection's write lock before giving up (SQLite's own
# default is 0: fail at once). A put holds the lock for well under a millisecond plus the payload
# write, so 5 s only runs out when a process is stuck inside a transaction.
DEFAULT_BUSY_TIMEOUT = 5.0
SCHEMA_VERSION = 3  # PRAGMA user_version of the layout below (1: without the counters table, 2: without overruled)
_GET_MANY_CHUNK = 500  # sites per "IN (...)" query, well below SQLite's 32766 bound variables
_LIVE = "(expires_at IS NULL OR expires_at > ?)"
_SCHEMA = """
CREATE TABLE IF NOT EXISTS templates (
    site TEXT PRIMARY KEY NOT NULL,
    payload TEXT NOT NULL,
    version INTEGER NOT NULL,
    updated_at REAL NOT NULL,
    expires_at REAL
);
CREATE INDEX IF NOT EXISTS templates_expiry ON templates (expires_at) WHERE expires_at IS NOT NULL;
CREATE TABLE IF NOT EXISTS counters (
    site TEXT PRIMARY KEY NOT NULL,
    version INTEGER NOT NULL,
    fits INTEGER NOT NULL,
    fallbacks INTEGER NOT NULL,
    recent TEXT NOT NULL,
    overruled INTEGER NOT NULL DEFAULT 0
);
"""
# Schema 2 to 3: the counters table gains its overruled column (a file of schema 1 has no counters table yet, and
# _SCHEMA makes it whole).
_UPGRADE_2 = "ALTER TABLE counters ADD COLUMN overruled INTEGER NOT NULL DEFAULT 0"
# Result codes that mean "cannot use the file now" rather than "the file is not a store".
_UNAVAILABLE_CODES = ("SQLITE_BUSY", "SQLITE_LOCKED", "SQLITE_CANTOPEN", "SQLITE_READONLY", "SQLITE_IOERR",
                      "SQLITE_FULL", "SQLITE_PERM", "SQLITE_AUTH", "SQLITE_PROTOCOL")
_CORRUPT_CODES = ("SQLITE_NOTADB", "SQLITE_CORRUPT", "SQLITE_FORMAT")
# Result codes of opening an existing file that cannot be written to now (a full disk, a file system remounted
# read-only): the file is then read immutable (SQLiteStore._open).
_NO_ROOM_CODES = ("SQLITE_FULL", "SQLITE_IOERR", "SQLITE_READONLY", "SQLITE_CANTOPEN")
_HINTS = {
    "SQLITE_BUSY": " (another connection held the lock past the {timeout:g} s busy timeout)",
    "SQLITE_LOCKED": " (another connection held the lock past the {timeout:g} s busy timeout)",
    "SQLITE_CANTOPEN": " (is it a file in a writable directory?)",
    "SQLITE_READONLY": " (the file, its directory or its disk cannot be written: read-only, or full)",
}
_reset_lock = threading.Lock()  # serialises re-initialisation of stores in a freshly forked process
# Connections a forked child inherited. They are kept referenced so that they are never closed: a
# child closing its copy could checkpoint and delete the WAL file that the parent is still using,
# and would drop the child's own POSIX locks on the file (https://sqlite.org/howtocorrupt.html, 2.6).
_inherited: list[sqlite3.Connection] = []


class SQLiteStore(TemplateStore):
    """Templates in the SQLite file ``path`` (created with its parent directories on first use).

    ``busy_timeout``: seconds a write waits for another process's lock before
    :class:`~templates_store.errors.StoreUnavailable`. ``default_ttl``: expiry (seconds) of a
    ``put`` without ``ttl``.
    """

    _conn: sqlite3.Connection | None  # this process's connection, opened on first use
    _lock: threading.RLock
    _pid: int  # the process that _conn and _lock belong to

    def __init__(self, path: str | os.PathLike[str], *, busy_timeout: float = DEFAULT_BUSY_TIMEOUT,
                 default_ttl: float | None = None) -> None:
        self.path = Path(os.path.abspath(Path(path).expanduser()))
        self.busy_timeout = check_seconds(busy_timeout, "busy_timeout")
        self.default_ttl = None if default_ttl is None else check_seconds(default_ttl, "default_ttl")
        options = {"timeout": (self.busy_timeout, DEFAULT_BUSY_TIMEOUT), "ttl": (self.default_ttl, None)}
        self.url = with_query("sqlite:///" + quote(self.path.as_posix().lstrip("/"), safe="/:~"),
                              {key: value for key, (value, default) in options.items() if value != default})
        self._init_process_state()

    # --- TemplateStore ---------------------------------------------------------------------------

    def get(self, site: str) -> StoredTemplate | None:
        check_site(site)
        with self._connection(site) as conn:
            row = conn.execute(
                f"SELECT site, payload, version, updated_at FROM templates WHERE site = ? AND {_LIVE}",
                (site, time.time()),
            ).fetchone()
        return None if row is None else self._template(row)

    def get_many(self, sites: Iterable[str]) -> dict[str, StoredTemplate]:
        wanted = unique_sites(sites)
        rows: list[tuple[Any, ...]] = []
        with self._connection() as conn:
            now = time.time()
            conn.execute("BEGIN")  # one snapshot across the chunks
            try:
                for start in range(0, len(wanted), _GET_MANY_CHUNK):
                    chunk = wanted[start:start + _GET_MANY_CHUNK]
                    rows += conn.execute(
                        "SELECT site, payload, version, updated_at FROM templates "
                        f"WHERE site IN ({', '.join('?' * len(chunk))}) AND {_LIVE}",
                        (*chunk, now),
                    ).fetchall()
            finally:
                conn.execute("COMMIT")
        found = {row[0]: self._template(row) for row in rows}
        return {site: found[site] for site in wanted if site in found}

    def put(self, site: str, payload: str, *, expected_version: int | None = None,
            ttl: float | None = None) -> int:
        check_site(site)
        check_payload(payload)
        expected_version = check_expected_version(expected_version)
        ttl = self._effective_ttl(ttl)
        with self._write(site) as conn:
            now = time.time()  # after BEGIN IMMEDIATE: the time at which we hold the write lock
            conn.execute("DELETE FROM templates WHERE expires_at IS NOT NULL AND expires_at <= ?", (now,))
            row = conn.execute("SELECT site, payload, version, updated_at FROM templates WHERE site = ?",
                               (site,)).fetchone()
            actual = 0 if row is None else self._template(row).version
            if expected_version is not None and expected_version != actual:
                raise VersionConflict(conflict_message(self.url, site, expected_version, actual),
                                      url=self.url, site=site, expected=expected_version, actual=actual)
            version = actual + 1
            conn.execute(
                "INSERT INTO templates (site, payload, version, updated_at, expires_at) "
                "VALUES (?, ?, ?, ?, ?) "
                "ON CONFLICT (site) DO UPDATE SET payload = excluded.payload, version = excluded.version, "
                "updated_at = excluded.updated_at, expires_at = excluded.expires_at",
                (site, payload, version, now, None if ttl is None else now + ttl),
            )
            conn.execute("DELETE FROM counters WHERE site = ?", (site,))  # a new template starts afresh
        return version

    def delete(self, site: str) -> bool:
        check_site(site)
        with self._write(site) as conn:
            now = time.time()
            live = conn.execute(f"DELETE FROM templates WHERE site = ? AND {_LIVE}", (site, now)).rowcount
            conn.execute("DELETE FROM templates WHERE site = ?", (site,))  # an expired row, if any
            conn.execute("DELETE FROM counters WHERE site = ?", (site,))
        return live > 0

    def sites(self) -> list[str]:
        with self._connection() as conn:
            rows = conn.execute(f"SELECT site FROM templates WHERE {_LIVE}", (time.time(),)).fetchall()
        return sorted(site for (site,) in rows)

    def record(self, site: str, outcomes: str, *, version: int | None = None) -> bool:
        check_site(site)
        check_outcomes(outcomes)
        version = check_expected_version(version)
        with self._connection(site):
            if self._immutable:
                return False  # a store deployed read-only counts nothing
        with self._write(site) as conn:
            row = conn.execute(f"SELECT version FROM templates WHERE site = ? AND {_LIVE}",
                               (site, time.time())).fetchone()
            if row is None or (version is not None and row[0] != version):
                return False
            current = self._counters(conn, site, row[0])
            new = updated_counters(current, outcomes)
            conn.execute("INSERT OR REPLACE INTO counters (site, version, fits, fallbacks, recent, overruled) "
                         "VALUES (?, ?, ?, ?, ?, ?)",
                         (site, new.version, new.fits, new.fallbacks, new.recent, new.overruled))
        return True

    def counters(self, sites: Iterable[str]) -> dict[str, SiteCounters]:
        wanted = unique_sites(sites)
        found: dict[str, SiteCounters] = {}
        with self._connection() as conn:
            now = time.time()
            has_table = not self._immutable or conn.execute(
                "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'counters'").fetchone() is not None
            conn.execute("BEGIN")  # one snapshot across the chunks
            try:
                for start in range(0, len(wanted), _GET_MANY_CHUNK):
                    chunk = wanted[start:start + _GET_MANY_CHUNK]
                    rows = conn.execute(
                        f"SELECT site, version FROM templates WHERE site IN ({', '.join('?' * len(chunk))}) "
                        f"AND {_LIVE}", (*chunk, now)).fetchall()
                    for site, version in rows:
                        found[site] = (self._counters(conn, site, version) if has_table
                                       else SiteCounters(site, version))
            finally:
                conn.execute("COMMIT")
        return {site: found[site] for site in wanted if site in found}

    def _counters(self, conn: sqlite3.Connection, site: str, version: int) -> SiteCounters:
        row = conn.execute("SELECT fits, fallbacks, recent, overruled FROM counters WHERE site = ? AND version = ?",
                           (site, version)).fetchone()
        if row is None:
            return SiteCounters(site, version)
        fits, fallbacks, recent, overruled = row
        if not (type(fits) is int and type(fallbacks) is int and isinstance(recent, str)
                and type(overruled) is int):
            raise StoreCorrupt(f"template store {self.url}: unreadable counters for site {site!r}",
                               url=self.url, site=site)
        return SiteCounters(site, version, fits, fallbacks, recent, overruled)

    def ping(self) -> None:
        with self._connection() as conn:
            conn.execute("SELECT count(*) FROM templates").fetchone()

    def close(self) -> None:
        self._adopt_process()
        with self._lock:
            if self._conn is not None:
                self._conn.close()
            self._conn = None

    # --- pickling: the connection stays in the process that opened it -------------------------

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        for name in ("_conn", "_lock", "_pid", "_immutable"):
            state.pop(name, None)
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._init_process_state()

    # --- internals -------------------------------------------------------------------------------

    def _init_process_state(self) -> None:
        self._conn = None
        self._immutable = False  # opened read-only (see _open)
        self._lock = threading.RLock()
        self._pid = os.getpid()

    def _adopt_process(self) -> None:
        """After a fork, leave the parent's connection and lock alone and start afresh."""
        if self._pid != os.getpid():
            with _reset_lock:
                if self._pid != os.getpid():
                    if self._conn is not None:
                        _inherited.append(self._conn)
                    self._init_process_state()

    @contextmanager
    def _connection(self, site: str | None = None) -> Iterator[sqlite3.Connection]:
        """This process's connection, held exclusively; sqlite3 errors become StoreErrors."""
        self._adopt_process()
        with self._lock:
            try:
                if self._conn is None:
                    self._conn = self._open()
                yield self._conn
            except sqlite3.Error as exc:
                raise self._error(exc, site) from exc

    @contextmanager
    def _write(self, site: str) -> Iterator[sqlite3.Connection]:
        with self._connection(site) as conn:
            conn.execute("BEGIN IMMEDIATE")  # take the write lock now, before reading the version
            try:
                yield conn
            except BaseException:
                with suppress(sqlite3.Error):  # the original error is the one to report
                    conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")

    def _open(self) -> sqlite3.Connection:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            reason = "a file is in the way" if isinstance(exc, FileExistsError) else exc.strerror
            raise StoreUnavailable(
                f"template store {self.url}: cannot create directory {self.path.parent}: {reason}",
                url=self.url) from exc
        if self._read_only():
            # A store deployed read-only (files and folder not writable, e.g. templates shipped to workers):
            # WAL needs a writable -shm file, so open it immutable; reads work, writes fail as read-only.
            return self._open_immutable()
        self._immutable = False
        conn = sqlite3.connect(self.path, timeout=self.busy_timeout, isolation_level=None,
                               check_same_thread=False)  # our lock serialises the threads
        try:
            self._prepare(conn)
        except sqlite3.OperationalError as exc:
            conn.close()
            if not (getattr(exc, "sqlite_errorname", "").startswith(_NO_ROOM_CODES) and self.path.is_file()):
                raise
            # A full disk (or a file system gone read-only): WAL cannot map its -shm file, so nothing can be read
            # the usual way. Reads must not need to write: open the file immutable, as a store deployed read-only
            # is; writes fail as read-only and counts are not taken. (Transactions still in a -wal file are not
            # seen: they are checkpointed into the file when the last writer closes, which a full disk prevents.)
            return self._open_immutable()
        except BaseException:
            conn.close()
            raise
        return conn

    def _open_immutable(self) -> sqlite3.Connection:
        uri = f"file:{quote(str(self.path.resolve()))}?mode=ro&immutable=1"
        conn = sqlite3.connect(uri, uri=True, timeout=self.busy_timeout, isolation_level=None,
                               check_same_thread=False)
        self._immutable = True
        return conn

    def _read_only(self) -> bool:
        """An existing store file that this process cannot write, in a folder it cannot write either."""
        return (self.path.exists() and not os.access(self.path, os.W_OK)
                and not os.access(self.path.parent, os.W_OK))

    def _prepare(self, conn: sqlite3.Connection) -> None:
        """Set the connection up and create the schema, retrying while other processes do the same.

        When several processes open a new file at once, two of them may both try to switch it to
        WAL; SQLite then fails one at once with "database is locked" instead of letting it wait.
        """
        conn.execute(f"PRAGMA busy_timeout = {round(self.busy_timeout * 1000)}")
        deadline = time.monotonic() + self.busy_timeout
        while True:
            try:
                self._prepare_once(conn)
                return
            except sqlite3.OperationalError as exc:
                code = getattr(exc, "sqlite_errorname", "")
                if not code.startswith(("SQLITE_BUSY", "SQLITE_LOCKED")) or time.monotonic() > deadline:
                    raise
            time.sleep(0.01)

    def _prepare_once(self, conn: sqlite3.Connection) -> None:
        if conn.execute("PRAGMA journal_mode = WAL").fetchone()[0] != "wal":
            raise sqlite3.OperationalError("could not switch to WAL mode")  # e.g. an in-memory file system
        conn.execute("PRAGMA synchronous = NORMAL")  # durable at checkpoints: the usual WAL trade-off
        if conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION:
            return
        conn.execute("BEGIN IMMEDIATE")
        try:
            (schema,) = conn.execute("PRAGMA user_version").fetchone()  # again, now that we hold the lock
            if schema > SCHEMA_VERSION:
                raise StoreCorrupt(f"template store {self.url}: {self.path} has schema version {schema}, "
                                   f"newer than this templates_store reads ({SCHEMA_VERSION}); upgrade fce",
                                   url=self.url)
            if schema < SCHEMA_VERSION:
                if schema == 2:
                    conn.execute(_UPGRADE_2)
                for statement in _SCHEMA.split(";"):
                    if statement.strip():
                        conn.execute(statement)
                conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        except BaseException:
            with suppress(sqlite3.Error):
                conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")

    def _template(self, row: tuple[Any, ...]) -> StoredTemplate:
        site, payload, version, updated_at = row
        if not (isinstance(payload, str) and type(version) is int and version >= 1
                and isinstance(updated_at, int | float)):
            raise StoreCorrupt(
                f"template store {self.url}: unreadable record for site {site!r} "
                f"(payload {type(payload).__name__}, version {version!r}, updated_at {updated_at!r})",
                url=self.url, site=site)
        return StoredTemplate(site=site, payload=payload, version=version, updated_at=float(updated_at))

    def _error(self, exc: sqlite3.Error, site: str | None) -> StoreError:
        code = getattr(exc, "sqlite_errorname", "")
        reason = " ".join(str(exc).split())
        head = f"template store {self.url}" + ("" if site is None else f" (site {site!r})")
        if code.startswith(_CORRUPT_CODES):
            return StoreCorrupt(f"{head}: {self.path} is not a readable SQLite template database: {reason}",
                                url=self.url, site=site)
        if code.startswith(_UNAVAILABLE_CODES) or isinstance(exc, sqlite3.OperationalError):
            hint = next((text for prefix, text in _HINTS.items() if code.startswith(prefix)), "")
            hint = hint.format(timeout=self.busy_timeout)
            return StoreUnavailable(f"{head}: cannot use {self.path}: {reason}{hint}",
                                    url=self.url, site=site)
        return StoreError(f"{head}: {reason}", url=self.url, site=site)
