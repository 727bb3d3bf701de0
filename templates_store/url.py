"""Store URLs: :func:`open_store` picks a backend from a URL, :func:`redact_url` hides its password.

=============================================  ==============================================
``None``                                       ``$FCE_STORE``, else the default SQLite file
``sqlite:///abs/path.db``                      SQLite file at ``/abs/path.db``
``sqlite://relative.db``                       SQLite file relative to the working directory
``/any/path``, ``templates.db``, ``~/t.db``    SQLite file (anything without ``scheme://``)
``redis://[user:password@]host:port/db``       Redis (``rediss://`` TLS, ``unix:///socket``)
``redis+cluster://[user:password@]host:port``  Redis Cluster, seeded by any of its nodes
                                               (``rediss+cluster://`` TLS)
``memory://``                                  a fresh in-process store (tests, docs)
=============================================  ==============================================

The default SQLite file is ``templates.sqlite3`` in ``$FCE_DATA_DIR`` or, without it, in
``platformdirs.user_data_dir("fce")``.

Query options. All backends: ``ttl`` (seconds; default expiry of a ``put`` without ``ttl``).
SQLite: ``timeout`` (seconds a writer waits for a lock, default 5). Redis: ``prefix`` (key prefix,
default ``fce``), ``socket_timeout`` and ``socket_connect_timeout`` (seconds, default 2),
``retries`` (default 3); other query options (``db``, ``ssl_cert_reqs``, ...) go to redis-py.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Mapping
from pathlib import Path
from urllib.parse import SplitResult, parse_qsl, unquote, urlencode, urlsplit

import platformdirs

from templates_store.base import TemplateStore
from templates_store.errors import StoreConfigError
from templates_store.naming import redact_url, with_query

__all__ = [
    "DEFAULT_FILENAME",
    "ENV_DATA_DIR",
    "ENV_STORE",
    "default_store_path",
    "open_store",
    "redact_url",
    "with_query",
]

ENV_STORE = "FCE_STORE"
ENV_DATA_DIR = "FCE_DATA_DIR"
DEFAULT_FILENAME = "templates.sqlite3"
REDIS_SCHEMES = ("redis", "rediss", "unix", "redis+cluster", "rediss+cluster")
_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*)://")


def open_store(url: str | None = None, *, env: Mapping[str, str] | None = None) -> TemplateStore:
    """Open the template store that ``url`` names (see the module docstring for the forms).

    ``url`` ``None`` or empty falls back to ``env["FCE_STORE"]`` (``env`` defaults to ``os.environ``),
    then to the default SQLite file. Nothing is connected or created until the store is first used,
    so a bad URL fails here but an unreachable server fails at the first call
    (use :meth:`TemplateStore.ping` to check early).
    """
    env = os.environ if env is None else env
    if not url:
        url = env.get(ENV_STORE) or str(default_store_path(env))
    match = _SCHEME.match(url)
    if match is None:  # a plain filesystem path
        from templates_store.sqlite import SQLiteStore

        return SQLiteStore(url)
    scheme = match.group(1).lower()
    if scheme == "sqlite":
        return _open_sqlite(url)
    if scheme in REDIS_SCHEMES:
        return _open_redis(url)
    if scheme == "memory":
        return _open_memory(url)
    raise _config_error(url, f"unknown scheme {scheme!r} (use sqlite://, redis://, rediss://, unix://, "
                             "redis+cluster://, rediss+cluster://, memory:// or a file path)")


def default_store_path(env: Mapping[str, str] | None = None) -> Path:
    """Where the default SQLite store lives: ``$FCE_DATA_DIR/templates.sqlite3`` or the user data dir."""
    env = os.environ if env is None else env
    data_dir = env.get(ENV_DATA_DIR) or platformdirs.user_data_dir("fce", appauthor=False)
    return Path(data_dir).expanduser() / DEFAULT_FILENAME


# --- per-scheme parsing ------------------------------------------------------------------------


def _open_sqlite(url: str) -> TemplateStore:
    from templates_store.sqlite import DEFAULT_BUSY_TIMEOUT, SQLiteStore

    parts = _split(url)
    options = _query_options(url, parse_qsl(parts.query, keep_blank_values=True), allowed={"ttl", "timeout"})
    # sqlite:///abs/path -> netloc "", path "/abs/path"; sqlite://rel.db -> netloc "rel.db", path "".
    path = unquote(parts.netloc + parts.path)
    if re.match(r"^/[A-Za-z]:[/\\]", path):  # sqlite:///C:/data/t.db on Windows
        path = path[1:]
    elif path.startswith("//"):  # sqlite:////abs/t.db, the SQLAlchemy spelling of an absolute path
        path = "/" + path.lstrip("/")
    if not path:
        raise _config_error(url, "no file path after sqlite://")
    return SQLiteStore(
        path,
        busy_timeout=_seconds_or(url, options, "timeout", DEFAULT_BUSY_TIMEOUT),
        default_ttl=_seconds(url, options, "ttl"),
    )


def _open_redis(url: str) -> TemplateStore:
    from templates_store.redis import (
        DEFAULT_PREFIX,
        DEFAULT_RETRIES,
        DEFAULT_SOCKET_CONNECT_TIMEOUT,
        DEFAULT_SOCKET_TIMEOUT,
        RedisStore,
    )

    ours = {"prefix", "ttl", "socket_timeout", "socket_connect_timeout", "retries"}
    parts = _split(url)
    pairs = parse_qsl(parts.query, keep_blank_values=True)
    options = _query_options(url, [(k, v) for k, v in pairs if k in ours], allowed=ours)
    rest = urlencode([(k, v) for k, v in pairs if k not in ours])
    redis_url = url.partition("?")[0] + (f"?{rest}" if rest else "")
    prefix = options.get("prefix", DEFAULT_PREFIX)
    return RedisStore(
        redis_url,
        prefix=prefix,
        default_ttl=_seconds(url, options, "ttl"),
        socket_timeout=_seconds_or(url, options, "socket_timeout", DEFAULT_SOCKET_TIMEOUT),
        socket_connect_timeout=_seconds_or(url, options, "socket_connect_timeout",
                                               DEFAULT_SOCKET_CONNECT_TIMEOUT),
        retries=_non_negative_int(url, options, "retries", DEFAULT_RETRIES),
    )


def _open_memory(url: str) -> TemplateStore:
    from templates_store.memory import MemoryStore

    parts = _split(url)
    if parts.netloc or parts.path:
        raise _config_error(url, "memory:// takes no host or path")
    options = _query_options(url, parse_qsl(parts.query, keep_blank_values=True), allowed={"ttl"})
    return MemoryStore(default_ttl=_seconds(url, options, "ttl"))


def _config_error(url: str, problem: str) -> StoreConfigError:
    """The error of a store URL that cannot be used (its password masked)."""
    return StoreConfigError(f"template store {redact_url(url)}: {problem}", url=redact_url(url))


def _split(url: str) -> SplitResult:
    try:
        return urlsplit(url)
    except ValueError as exc:  # e.g. "Invalid IPv6 URL"
        raise _config_error(url, str(exc)) from None


def _query_options(url: str, pairs: list[tuple[str, str]], *, allowed: set[str]) -> dict[str, str]:
    options: dict[str, str] = {}
    for key, value in pairs:
        if key not in allowed:
            raise _config_error(url, f"unknown option {key!r} (known: {', '.join(sorted(allowed))})")
        if key in options:
            raise _config_error(url, f"option {key!r} given twice")
        options[key] = value
    return options


def _seconds(url: str, options: Mapping[str, str], key: str) -> float | None:
    """The option as a positive number of seconds, or None when absent."""
    if key not in options:
        return None
    try:
        value = float(options[key])
    except ValueError:
        value = math.nan
    if not (value > 0 and math.isfinite(value)):
        raise _config_error(url, f"option {key}={options[key]!r} is not a positive number of seconds")
    return value


def _seconds_or(url: str, options: Mapping[str, str], key: str, default: float) -> float:
    value = _seconds(url, options, key)
    return default if value is None else value


def _non_negative_int(url: str, options: Mapping[str, str], key: str, default: int) -> int:
    if key not in options:
        return default
    value = options[key]
    if not re.fullmatch(r"[0-9]+", value):
        raise _config_error(url, f"option {key}={value!r} is not a non-negative integer")
    return int(value)
