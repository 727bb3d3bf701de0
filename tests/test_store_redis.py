"""Redis backend against a real redis-server: key layout, faults, passwords, other processes."""

from __future__ import annotations

import multiprocessing
import pickle
import time
import traceback
import uuid
from typing import TYPE_CHECKING, cast

import pytest
import redis
from redis.crc import key_slot

from templates_store import (
    RedisStore,
    StoreConfigError,
    StoreCorrupt,
    StoreError,
    StoreUnavailable,
    open_store,
)
from tests._store import stored

if TYPE_CHECKING:
    from conftest import RedisServer

pytestmark = pytest.mark.redis

# Tight timeouts for fault tests: a refused connection fails at once, so these bound the
# worst case (a server that accepts but does not answer) rather than the usual one.
FAST = "socket_timeout=0.5&socket_connect_timeout=0.5&retries=1"
PASSWORD = "s3cret-hunter2"
BAD = "fce:tpl:{bad.com}"


def _put_in_child(store: RedisStore, site: str, payload: str) -> int:
    version = store.put(site, payload)
    store.close()
    return version


def _everything_printed(error: BaseException) -> str:
    """What a user sees: the message and the whole chained traceback."""
    return "".join(traceback.format_exception(error))


def test_key_layout(redis_url: str) -> None:
    store = open_store(redis_url)
    store.put("example.com", '{"x": 1}', ttl=60)
    raw = redis.Redis.from_url(redis_url, decode_responses=True)
    assert sorted(raw.keys("*")) == ["fce:sites", "fce:tpl:{example.com}"]
    fields = raw.hgetall("fce:tpl:{example.com}")
    assert (fields["payload"], fields["version"]) == ('{"x": 1}', "1")
    assert float(fields["updated_at"]) == pytest.approx(time.time(), abs=5)
    assert 0 < raw.pttl("fce:tpl:{example.com}") <= 60_000
    assert raw.smembers("fce:sites") == {"example.com"}
    store.put("example.com", "again")
    assert raw.ttl("fce:tpl:{example.com}") == -1  # replaced without ttl: no expiry
    raw.close()
    store.close()


def test_counters_live_in_the_sites_hash(redis_url: str) -> None:
    """record is one script on one hash-tagged key (no CROSSSLOT on Cluster); the counters expire with it."""
    store = open_store(redis_url)
    store.put("example.com", "t", ttl=60)
    assert store.record("example.com", "1101", version=1)
    raw = redis.Redis.from_url(redis_url, decode_responses=True)
    assert sorted(raw.keys("*")) == ["fce:sites", "fce:tpl:{example.com}"]
    fields = raw.hgetall("fce:tpl:{example.com}")
    assert (fields["fits"], fields["fallbacks"], fields["recent"]) == ("3", "1", "1101")
    assert 0 < raw.pttl("fce:tpl:{example.com}") <= 60_000  # counting keeps the template's expiry
    store.put("example.com", "new")
    assert "fits" not in raw.hgetall("fce:tpl:{example.com}")
    raw.hset("fce:tpl:{example.com}", "fits", "many")
    with pytest.raises(StoreCorrupt, match="counters"):
        store.counters(["example.com"])
    raw.close()
    store.close()


def test_site_is_the_hash_tag(redis_url: str) -> None:
    store = cast(RedisStore, open_store(redis_url))
    for site in ["example.com", "例え.jp", "a:b"]:
        key = store.key(site)
        assert f"{{{site}}}" in key
        assert key_slot(key.encode()) == key_slot(site.encode())  # Cluster places it by site alone
    store.close()


def test_prefix_separates_stores(redis_url: str) -> None:
    first = cast(RedisStore, open_store(redis_url + "?prefix=one"))
    second = open_store(redis_url + "?prefix=two")
    first.put("example.com", "1")
    assert second.get("example.com") is None and second.sites() == []
    assert first.key("example.com") == "one:tpl:{example.com}"
    first.close()
    second.close()


def test_expired_sites_are_pruned_from_the_index(redis_url: str) -> None:
    store = open_store(redis_url)
    store.put("short.com", "x", ttl=0.05)
    store.put("long.com", "y")
    time.sleep(0.15)
    assert store.sites() == ["long.com"]
    raw = redis.Redis.from_url(redis_url, decode_responses=True)
    assert raw.smembers("fce:sites") == {"long.com"}
    raw.close()
    store.close()


def test_get_many_is_one_round_trip(redis_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    store = cast(RedisStore, open_store(redis_url))
    for i in range(50):
        store.put(f"site{i}.com", str(i))
    client = store._client()
    direct: list[tuple] = []
    executed: list[int] = []
    real_execute = redis.client.Pipeline.execute
    monkeypatch.setattr(client, "execute_command", lambda *args, **kw: direct.append(args))

    def counting_execute(pipe, *args, **kwargs):
        executed.append(len(pipe.command_stack))
        return real_execute(pipe, *args, **kwargs)

    monkeypatch.setattr(redis.client.Pipeline, "execute", counting_execute)
    found = store.get_many(f"site{i}.com" for i in range(100))
    assert len(found) == 50
    assert direct == [] and executed == [100]  # one pipeline of 100 HMGETs
    store.close()


def test_retried_put_is_not_applied_twice(redis_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    # A put whose reply is lost is retried with the same token; the script must recognise it.
    store = open_store(redis_url)
    token = uuid.uuid4()
    monkeypatch.setattr(uuid, "uuid4", lambda: token)
    assert store.put("example.com", "x", expected_version=0) == 1
    assert store.put("example.com", "x", expected_version=0) == 1  # the "retry": no conflict, no v2
    assert stored(store, "example.com").version == 1
    monkeypatch.undo()
    assert store.put("example.com", "y") == 2
    store.close()


@pytest.mark.parametrize(
    ("setup", "match"),
    [
        (lambda raw: raw.hset(BAD, mapping={"payload": "x", "version": "two", "updated_at": "1"}),
         "unreadable record"),
        (lambda raw: raw.hset(BAD, mapping={"payload": b"\xff", "version": 1, "updated_at": 1}),
         "unreadable record"),
        (lambda raw: raw.hset(BAD, mapping={"payload": "x"}), "missing"),
        (lambda raw: raw.set(BAD, "a string, not a hash"), "WRONGTYPE"),
    ],
)
def test_unreadable_records(redis_url: str, setup, match: str) -> None:
    raw = redis.Redis.from_url(redis_url)
    setup(raw)
    raw.close()
    store = open_store(redis_url)
    with pytest.raises(StoreCorrupt, match=match) as caught:
        store.get("bad.com")
    assert caught.value.site == "bad.com" and "\n" not in str(caught.value)
    with pytest.raises(StoreCorrupt):
        store.get_many(["ok.com", "bad.com"])
    store.close()


def test_corrupt_version_blocks_put(redis_url: str) -> None:
    raw = redis.Redis.from_url(redis_url)
    raw.hset("fce:tpl:{bad.com}", mapping={"payload": "x", "version": "two", "updated_at": "1"})
    raw.close()
    with open_store(redis_url) as store, pytest.raises(StoreCorrupt, match="bad.com"):
        store.put("bad.com", "y")


def test_server_down_then_back(stoppable_redis: RedisServer) -> None:
    store = open_store(f"{stoppable_redis.url}?{FAST}")
    store.put("example.com", "before")
    stoppable_redis.stop()
    calls = (store.ping, store.sites, lambda: store.get("example.com"), lambda: store.put("example.com", "x"),
             lambda: store.get_many(["a.com", "b.com"]), lambda: store.delete("example.com"))
    for call in calls:
        started = time.monotonic()
        with pytest.raises(StoreUnavailable) as caught:
            call()
        assert time.monotonic() - started < 3  # bounded by timeouts and retries, not hanging
        message = str(caught.value)
        assert "\n" not in message and store.url in message and "unreachable" in message
        assert isinstance(caught.value, ConnectionError)
    stoppable_redis.start()  # same port, empty (no persistence)
    store.ping()
    assert store.get("example.com") is None
    assert store.put("example.com", "after") == 1
    assert store.sites() == ["example.com"]
    store.close()


def test_unreachable_host_fails_within_the_timeouts() -> None:
    # 192.0.2.0/24 is TEST-NET-1 (RFC 5737): never routed, so connecting hangs until the timeout
    # (or fails at once where the network refuses it); either way it must be StoreUnavailable.
    store = open_store("redis://192.0.2.1:6379/0?socket_timeout=0.2&socket_connect_timeout=0.2&retries=1")
    started = time.monotonic()
    with pytest.raises(StoreUnavailable):
        store.get("example.com")
    assert time.monotonic() - started < 5


def test_password_works_and_never_shows(make_redis_server) -> None:
    server = make_redis_server("--requirepass", PASSWORD)
    url = f"redis://:{PASSWORD}@127.0.0.1:{server.port}/0?{FAST}"
    store = open_store(url)
    assert PASSWORD not in store.url and PASSWORD not in repr(store)
    assert store.put("example.com", "x") == 1
    server.stop()
    with pytest.raises(StoreUnavailable) as caught:
        store.get("example.com")
    assert PASSWORD not in _everything_printed(caught.value)
    assert ":***@" in str(caught.value)
    server.start()
    assert store.put("example.com", "y") == 1
    store.close()


@pytest.mark.parametrize("credentials", ["wrong-password", None])
def test_bad_credentials_are_a_clear_store_error(make_redis_server, credentials: str | None) -> None:
    server = make_redis_server("--requirepass", PASSWORD)
    userinfo = "" if credentials is None else f":{credentials}@"
    store = open_store(f"redis://{userinfo}127.0.0.1:{server.port}/0?{FAST}")
    started = time.monotonic()
    with pytest.raises(StoreConfigError) as caught:
        store.put("example.com", "x")
    assert time.monotonic() - started < 3
    assert isinstance(caught.value, StoreError)
    message = str(caught.value)
    assert "authentication failed" in message and "\n" not in message
    printed = _everything_printed(caught.value)
    assert PASSWORD not in printed and "wrong-password" not in printed
    store.close()


def test_pickled_store_works_in_a_child_process(redis_url: str) -> None:
    store = open_store(redis_url + "?prefix=child")
    store.put("parent.com", "p")  # the parent's client must not travel
    data = pickle.dumps(store)
    assert b"Redis<" not in data and b"ConnectionPool" not in data
    with multiprocessing.get_context("spawn").Pool(2) as pool:
        versions = pool.starmap(_put_in_child, [(store, "child.com", "c")] * 4)
    assert sorted(versions) == [1, 2, 3, 4]
    assert store.sites() == ["child.com", "parent.com"]
    assert stored(store, "child.com").payload == "c"
    store.close()


def test_client_is_lazy_and_rebuilt_after_close(redis_url: str) -> None:
    store = cast(RedisStore, open_store(redis_url))
    store.put("example.com", "x")
    first = store._client()
    store.close()
    assert store._client() is not first
    assert stored(store, "example.com").payload == "x"
    copy = pickle.loads(pickle.dumps(store))
    assert copy._redis is None  # made on first use in the receiving process
    assert copy.get("example.com").payload == "x"
    copy.close()
    store.close()
