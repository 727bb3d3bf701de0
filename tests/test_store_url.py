"""open_store(): URL schemes, environment precedence, options, redaction."""

from __future__ import annotations

from pathlib import Path
from typing import cast

import platformdirs
import pytest
import redis

from templates_store import (
    MemoryStore,
    RedisStore,
    SQLiteStore,
    StoreConfigError,
    default_store_path,
    open_store,
    redact_url,
)
from templates_store.sqlite import DEFAULT_BUSY_TIMEOUT

# Nothing here connects: port 1 is never listened on, and open_store does no I/O.
NOWHERE = "127.0.0.1:1"


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("sqlite:///abs/dir/t.db", "/abs/dir/t.db"),
        ("sqlite:////abs/dir/t.db", "/abs/dir/t.db"),
        ("sqlite:///abs/my%20file.db", "/abs/my file.db"),
        ("sqlite:///abs/t.db?timeout=1&ttl=3", "/abs/t.db"),
        ("SQLITE:///abs/t.db", "/abs/t.db"),
        ("/abs/templates.sqlite3", "/abs/templates.sqlite3"),
        ("/abs/any-name", "/abs/any-name"),
        ("/abs/dir/with?question.db", "/abs/dir/with?question.db"),  # a path, not a URL: no query
    ],
)
def test_sqlite_absolute(url: str, expected: str) -> None:
    store = open_store(url)
    assert isinstance(store, SQLiteStore)
    assert store.path == Path(expected)


@pytest.mark.parametrize("url", ["sqlite://rel/t.db", "rel/t.db", "./rel/t.db"])
def test_sqlite_relative_to_working_directory(url: str, tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    store = cast(SQLiteStore, open_store(url))
    assert store.path == tmp_path / "rel" / "t.db"
    monkeypatch.chdir("/")  # the path was fixed when the store was opened
    store.put("example.com", "x")
    assert (tmp_path / "rel" / "t.db").exists()
    store.close()


def test_sqlite_home_directory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    assert cast(SQLiteStore, open_store("~/t.db")).path == tmp_path / "t.db"


def test_sqlite_options() -> None:
    store = cast(SQLiteStore, open_store("sqlite:///abs/t.db?timeout=0.5&ttl=60"))
    assert (store.busy_timeout, store.default_ttl) == (0.5, 60.0)
    plain = cast(SQLiteStore, open_store("sqlite:///abs/t.db"))
    assert (plain.busy_timeout, plain.default_ttl) == (DEFAULT_BUSY_TIMEOUT, None)


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("redis://127.0.0.1:1/0", dict(prefix="fce", default_ttl=None, socket_timeout=2.0, retries=3)),
        ("rediss://127.0.0.1:1/0", dict(prefix="fce")),
        ("unix:///tmp/redis.sock?db=2", dict(prefix="fce")),
        ("redis://127.0.0.1:1/0?prefix=myapp&ttl=86400", dict(prefix="myapp", default_ttl=86400.0)),
        ("redis://127.0.0.1:1?socket_timeout=0.5&socket_connect_timeout=0.25&retries=0",
         dict(socket_timeout=0.5, socket_connect_timeout=0.25, retries=0)),
    ],
)
def test_redis_urls(url: str, expected: dict) -> None:
    store = open_store(url)
    assert isinstance(store, RedisStore)
    assert {key: getattr(store, key) for key in expected} == expected


def test_redis_options_are_ours_and_the_rest_go_to_redis_py() -> None:
    store = cast(RedisStore, open_store("redis://:pw@127.0.0.1:1/0?prefix=p&db=5&health_check_interval=7&retries=1"))
    kwargs = cast(redis.Redis, store._client()).connection_pool.connection_kwargs  # not a cluster URL
    assert (kwargs["db"], kwargs["health_check_interval"], kwargs["password"]) == (5, 7, "pw")
    assert "prefix" not in kwargs and "retries" not in kwargs
    assert kwargs["retry"].get_retries() == 1
    assert store.url == "redis://:***@127.0.0.1:1/0?db=5&health_check_interval=7&prefix=p&retries=1"


def test_memory() -> None:
    assert isinstance(open_store("memory://"), MemoryStore)


def test_store_url_reopens_an_equivalent_store(tmp_path: Path) -> None:
    for url in [f"sqlite://{tmp_path}/t.db?timeout=2&ttl=5", "redis://127.0.0.1:1/3?prefix=x&ttl=5", "memory://?ttl=5"]:
        store = open_store(url)
        again = open_store(store.url)
        assert (type(again), again.url, again.default_ttl) == (type(store), store.url, 5.0)


@pytest.mark.parametrize(
    ("url", "fragment"),
    [
        ("postgres://user:hunter2@db/templates", "unknown scheme 'postgres'"),
        ("http://example.com/templates", "unknown scheme 'http'"),
        ("sqlite://", "no file path"),
        ("sqlite:///abs/t.db?tll=5", "unknown option 'tll'"),
        ("sqlite:///abs/t.db?ttl=5&ttl=6", "given twice"),
        ("sqlite:///abs/t.db?ttl=-1", "ttl='-1'"),
        ("sqlite:///abs/t.db?timeout=soon", "timeout='soon'"),
        ("redis://:hunter2@127.0.0.1:1/0?ttl=nan", "ttl='nan'"),
        ("redis://127.0.0.1:1/0?retries=-1", "retries='-1'"),
        ("redis://127.0.0.1:1/0?retries=²", "retries="),
        ("redis://127.0.0.1:1/0?prefix=", "prefix ''"),
        ("redis://127.0.0.1:1/0?prefix=a{b}", "prefix 'a{b}'"),
        ("redis://:hunter2@127.0.0.1:notaport/0", "invalid Redis URL"),
        ("redis://:hunter2@[::1/0", "Invalid IPv6 URL"),
        ("sqlite://[/t.db", "Invalid IPv6 URL"),
        ("redis://:hunter2@127.0.0.1:1/0?bogus_option=1", "invalid Redis URL"),
        ("memory://somewhere", "takes no host or path"),
        ("memory://?prefix=x", "unknown option 'prefix'"),
    ],
)
def test_bad_urls(url: str, fragment: str) -> None:
    with pytest.raises(StoreConfigError) as caught:
        open_store(url)
    message = str(caught.value)
    assert isinstance(caught.value, ValueError)
    assert fragment in message
    assert "hunter2" not in message and "\n" not in message
    assert caught.value.url is not None
    assert caught.value.url in message  # the store's URL, redacted (canonical where a store got that far)


# --- which URL: argument, then $FCE_STORE, then the default file ----------------------------------


def test_argument_wins_over_environment(tmp_path: Path) -> None:
    env = {"FCE_STORE": "memory://", "FCE_DATA_DIR": str(tmp_path / "data")}
    assert cast(SQLiteStore, open_store(f"{tmp_path}/explicit.db", env=env)).path == tmp_path / "explicit.db"


def test_environment_store_wins_over_default(tmp_path: Path) -> None:
    env = {"FCE_STORE": f"sqlite://{tmp_path}/env.db", "FCE_DATA_DIR": str(tmp_path / "data")}
    assert cast(SQLiteStore, open_store(None, env=env)).path == tmp_path / "env.db"
    assert cast(SQLiteStore, open_store("", env=env)).path == tmp_path / "env.db"


def test_default_in_data_dir(tmp_path: Path) -> None:
    store = cast(SQLiteStore, open_store(env={"FCE_DATA_DIR": str(tmp_path / "data"), "FCE_STORE": ""}))
    assert store.path == tmp_path / "data" / "templates.sqlite3"
    assert default_store_path({"FCE_DATA_DIR": str(tmp_path)}) == tmp_path / "templates.sqlite3"


def test_default_in_user_data_dir() -> None:
    expected = Path(platformdirs.user_data_dir("fce", appauthor=False)) / "templates.sqlite3"
    assert cast(SQLiteStore, open_store(env={})).path == expected
    assert default_store_path({}) == expected


def test_env_defaults_to_the_process_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FCE_STORE", "memory://")
    assert isinstance(open_store(), MemoryStore)
    monkeypatch.delenv("FCE_STORE")
    monkeypatch.setenv("FCE_DATA_DIR", str(tmp_path))
    assert cast(SQLiteStore, open_store()).path == tmp_path / "templates.sqlite3"


# --- redaction -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("url", "redacted"),
    [
        ("redis://:secret@host:6379/0", "redis://:***@host:6379/0"),
        ("redis://user:secret@host:6379/0", "redis://user:***@host:6379/0"),
        ("rediss://user:p%40ss%3Aword@host/0", "rediss://user:***@host/0"),
        ("redis://user:p@ss@host/0", "redis://user:***@host/0"),  # an unescaped @ in the password
        ("redis://:pa/ss@host/0", "redis://:***@host/0"),  # an unescaped /
        ("redis://u:pw@host/0?client_name=a@b", "redis://u:***@host/0?client_name=a@b"),
        ("redis://host/0?PassWord=secret&db=1#x", "redis://host/0?PassWord=***&db=1#x"),
        ("sqlite:///dir/user:x@host.db", "sqlite:///dir/user:x@host.db"),  # a path, no user info
        ("redis://user@host/0", "redis://user@host/0"),  # no password, nothing to hide
        ("redis://host:6379/0?prefix=x", "redis://host:6379/0?prefix=x"),
        ("unix:///run/redis.sock?db=0&password=secret", "unix:///run/redis.sock?db=0&password=***"),
        ("redis://:secret@[::1]:6379/0", "redis://:***@[::1]:6379/0"),
        ("redis://:secret@[::1:6379/0", "redis://:***@[::1:6379/0"),  # unparsable, still masked
        ("sqlite:///tmp/t.db", "sqlite:///tmp/t.db"),
        ("/plain/path.db", "/plain/path.db"),
        ("memory://", "memory://"),
    ],
)
def test_redact_url(url: str, redacted: str) -> None:
    assert redact_url(url) == redacted


def test_repr_and_url_never_show_the_password() -> None:
    store = cast(RedisStore, open_store("redis://user:hunter2@127.0.0.1:1/0?prefix=x"))
    assert "hunter2" not in repr(store) and "hunter2" not in store.url
    assert "hunter2" not in repr(store._client())
