"""The TemplateStore contract, run against every backend (memory, SQLite, a real Redis server, a real
3-node Redis Cluster)."""

from __future__ import annotations

import pickle
import sys
import threading
import time

import pytest

from templates_store import (
    RECENT_WINDOW,
    SiteCounters,
    StoreConfigError,
    StoreCorrupt,
    StoredTemplate,
    StoreError,
    StoreUnavailable,
    TemplateStore,
    VersionConflict,
    open_store,
)
from tests._redis_cluster import cluster_fixture, cluster_url_fixture  # noqa: F401 (fixtures, used by name)
from tests._store import stored

TTL = 0.2  # seconds; short enough to keep the suite fast, long enough to read the value back first
AFTER_TTL = 0.4  # sleep that outlasts TTL on a loaded machine

ODD_SITES = [
    "例え.jp",
    "ünïcödé.de",
    "emoji-🦊.example",
    "with space.org",
    "a:b:c",
    "brace}site",
    "{braced}",
    "x" * 1000,
]


@pytest.fixture(params=["memory", "sqlite", pytest.param("redis", marks=pytest.mark.redis),
                        pytest.param("redis-cluster", marks=pytest.mark.redis)])
def store_url(request: pytest.FixtureRequest, tmp_path) -> str:
    if request.param == "memory":
        return "memory://"
    if request.param == "sqlite":
        return f"sqlite://{tmp_path}/templates.sqlite3"
    if request.param == "redis-cluster":
        return request.getfixturevalue("redis_cluster_url")
    return request.getfixturevalue("redis_url")


@pytest.fixture
def store(store_url: str):
    with open_store(store_url) as store:
        yield store


@pytest.fixture
def eager_thread_switching():
    """Switch threads every microsecond, so that unguarded read-modify-write sequences interleave."""
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    yield
    sys.setswitchinterval(interval)


def test_empty_store(store: TemplateStore) -> None:
    store.ping()
    assert store.get("example.com") is None
    assert store.get_many(["example.com", "other.org"]) == {}
    assert store.sites() == []
    assert store.delete("example.com") is False


def test_put_then_get(store: TemplateStore) -> None:
    before = time.time()
    assert store.put("example.com", '{"xpath": "//main"}') == 1
    got = store.get("example.com")
    assert isinstance(got, StoredTemplate)
    assert (got.site, got.payload, got.version) == ("example.com", '{"xpath": "//main"}', 1)
    assert before - 1 <= got.updated_at <= time.time() + 1


def test_put_replaces_and_increments_version(store: TemplateStore) -> None:
    versions = [store.put("example.com", f"payload {i}") for i in range(5)]
    assert versions == [1, 2, 3, 4, 5]
    assert store.get("example.com") == StoredTemplate(
        "example.com", "payload 4", 5, stored(store, "example.com").updated_at)
    assert store.put("other.org", "x") == 1  # versions are per site


def test_delete(store: TemplateStore) -> None:
    store.put("example.com", "a")
    store.put("example.com", "b")
    assert store.delete("example.com") is True
    assert store.get("example.com") is None
    assert store.sites() == []
    assert store.delete("example.com") is False
    assert store.put("example.com", "c") == 1  # a deleted site starts over


def test_sites_are_sorted(store: TemplateStore) -> None:
    for site in ["b.org", "a.com", "c.net", "A.com"]:
        store.put(site, "{}")
    assert store.sites() == ["A.com", "a.com", "b.org", "c.net"]


def test_get_many(store: TemplateStore) -> None:
    store.put("a.com", "A")
    store.put("b.com", "B1")
    store.put("b.com", "B2")
    found = store.get_many(iter(["b.com", "missing.org", "a.com", "b.com"]))
    assert list(found) == ["b.com", "a.com"]
    assert {site: (t.payload, t.version) for site, t in found.items()} == {
        "b.com": ("B2", 2), "a.com": ("A", 1)}
    assert store.get_many([]) == {}


def test_get_many_many_sites(store: TemplateStore) -> None:
    for i in range(0, 1200, 2):
        store.put(f"site{i}.com", str(i))
    found = store.get_many(f"site{i}.com" for i in range(1200))  # SQLite chunks the IN (...) lists
    assert len(found) == 600
    assert found["site1198.com"].payload == "1198"


def test_compare_and_set(store: TemplateStore) -> None:
    assert store.put("example.com", "v1", expected_version=0) == 1
    assert store.put("example.com", "v2", expected_version=1) == 2
    with pytest.raises(VersionConflict) as caught:
        store.put("example.com", "stale", expected_version=1)
    conflict = caught.value
    assert (conflict.site, conflict.expected, conflict.actual) == ("example.com", 1, 2)
    assert "example.com" in str(conflict) and store.url in str(conflict)
    assert isinstance(conflict, StoreError)
    assert stored(store, "example.com").payload == "v2"  # nothing written


def test_expected_version_zero_means_create_only(store: TemplateStore) -> None:
    store.put("example.com", "first", expected_version=0)
    with pytest.raises(VersionConflict) as caught:
        store.put("example.com", "second", expected_version=0)
    assert (caught.value.expected, caught.value.actual) == (0, 1)
    with pytest.raises(VersionConflict) as caught:
        store.put("new.org", "x", expected_version=3)
    assert caught.value.actual == 0
    assert store.get("new.org") is None


def test_ttl_expiry(store: TemplateStore) -> None:
    store.put("short.com", "gone soon", ttl=TTL)
    store.put("long.com", "stays")
    assert stored(store, "short.com").payload == "gone soon"
    time.sleep(AFTER_TTL)
    assert store.get("short.com") is None
    assert store.sites() == ["long.com"]
    assert list(store.get_many(["short.com", "long.com"])) == ["long.com"]
    assert store.delete("short.com") is False
    assert store.put("short.com", "again", expected_version=0) == 1  # expired means absent


def test_replacing_without_ttl_clears_the_expiry(store: TemplateStore) -> None:
    store.put("example.com", "temporary", ttl=TTL)
    store.put("example.com", "permanent")
    time.sleep(AFTER_TTL)
    assert stored(store, "example.com").payload == "permanent"


def test_default_ttl_from_url(store_url: str) -> None:
    with open_store(f"{store_url}?ttl={TTL}") as store:
        assert store.default_ttl == TTL
        store.put("example.com", "x")
        store.put("other.com", "y", ttl=60)
        time.sleep(AFTER_TTL)
        assert store.sites() == ["other.com"]


@pytest.mark.parametrize("site", ODD_SITES)
def test_unicode_and_odd_sites(store: TemplateStore, site: str) -> None:
    payload = f'{{"site": "{site}", "text": "naïve – 日本語 – 🦊"}}'
    assert store.put(site, payload) == 1
    assert stored(store, site).payload == payload
    assert store.sites() == [site]
    assert store.get_many([site])[site].payload == payload
    assert store.delete(site) is True


def test_large_payload(store: TemplateStore) -> None:
    payload = '{"blob": "' + ("0123456789abcdef" * (5 * 1024 * 1024 // 16)) + 'é"}'
    assert len(payload) > 5 * 1024 * 1024
    store.put("big.com", payload)
    assert stored(store, "big.com").payload == payload


@pytest.mark.usefixtures("eager_thread_switching")
def test_threads_do_not_lose_updates(store: TemplateStore) -> None:
    threads, rounds = 8, 40

    def increment() -> None:
        for _ in range(rounds):
            while True:
                current = store.get("counter.com")
                version = 0 if current is None else current.version
                count = 0 if current is None else int(current.payload)
                try:
                    store.put("counter.com", str(count + 1), expected_version=version)
                    break
                except VersionConflict:
                    continue

    workers = [threading.Thread(target=increment) for _ in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    final = stored(store, "counter.com")
    assert (final.payload, final.version) == (str(threads * rounds), threads * rounds)


@pytest.mark.usefixtures("eager_thread_switching")
def test_unconditional_puts_from_threads_get_distinct_versions(store: TemplateStore) -> None:
    results: list[int] = []
    lock = threading.Lock()

    def put_many() -> None:
        for _ in range(50):
            version = store.put("example.com", "x")
            with lock:
                results.append(version)

    workers = [threading.Thread(target=put_many) for _ in range(8)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    assert sorted(results) == list(range(1, 401))


# --- counters of fits and fallbacks ----------------------------------------------------------------


def test_counters_start_at_zero_and_count(store: TemplateStore) -> None:
    assert store.counters(["example.com"]) == {}
    store.put("example.com", "t")
    assert store.counters(["example.com", "missing.org"]) == {"example.com": SiteCounters("example.com", 1)}
    assert store.record("example.com", "110") is True
    assert store.record("example.com", "0", version=1) is True
    assert store.record("example.com", "") is True  # nothing to count is fine
    got = store.counters(["example.com"])["example.com"]
    assert got == SiteCounters("example.com", 1, fits=2, fallbacks=2, recent="1100")
    assert (got.recent_count, got.recent_fits, got.recent_fit_rate) == (4, 2, 0.5)
    assert SiteCounters("x", 1).recent_fit_rate is None


def test_recent_is_a_sliding_window(store: TemplateStore) -> None:
    store.put("example.com", "t")
    store.record("example.com", "0" * (RECENT_WINDOW - 3))
    store.record("example.com", "1" * 5)  # the 2 oldest fallbacks slide out
    got = store.counters(["example.com"])["example.com"]
    assert got.recent == "0" * (RECENT_WINDOW - 5) + "1" * 5
    assert (got.fits, got.fallbacks) == (5, RECENT_WINDOW - 3)  # totals keep everything
    store.record("example.com", "1" * (3 * RECENT_WINDOW))  # one call longer than the window
    assert store.counters(["example.com"])["example.com"].recent == "1" * RECENT_WINDOW


def test_overruled_detections_are_counted_apart(store: TemplateStore) -> None:
    store.put("example.com", "t")
    assert store.record("example.com", "1201", version=1) is True
    assert store.record("example.com", "22") is True
    got = store.counters(["example.com"])["example.com"]
    assert (got.fits, got.fallbacks, got.overruled, got.recent) == (2, 1, 3, "120122")
    assert got.recent_overruled == 3 and got.recent_fit_rate == 2 / 6
    store.put("example.com", "t2")  # a new template starts afresh
    assert store.counters(["example.com"])["example.com"].overruled == 0


def test_counters_belong_to_the_stored_version(store: TemplateStore) -> None:
    assert store.record("example.com", "1") is False  # no template: nothing counted
    store.put("example.com", "v1")
    store.record("example.com", "000")
    assert store.record("example.com", "1", version=2) is False  # outcomes of another version
    store.put("example.com", "v2")  # a new template starts afresh
    assert store.counters(["example.com"])["example.com"] == SiteCounters("example.com", 2)
    assert store.record("example.com", "1", version=1) is False  # the old template's late outcomes
    assert store.record("example.com", "1", version=2) is True
    assert store.counters(["example.com"])["example.com"].fits == 1
    store.delete("example.com")
    assert store.counters(["example.com"]) == {}
    store.put("example.com", "v1 again")
    assert store.counters(["example.com"])["example.com"] == SiteCounters("example.com", 1)


def test_counters_expire_with_the_template(store: TemplateStore) -> None:
    store.put("short.com", "x", ttl=TTL)
    store.record("short.com", "10")
    time.sleep(AFTER_TTL)
    assert store.record("short.com", "1") is False
    assert store.counters(["short.com"]) == {}


@pytest.mark.parametrize(("outcomes", "error"), [("1x0", ValueError), ("yes", ValueError), ("13", ValueError),
                                                  (b"10", TypeError), (1, TypeError)])
def test_bad_outcomes_are_refused(store: TemplateStore, outcomes, error) -> None:
    store.put("example.com", "t")
    with pytest.raises(error):
        store.record("example.com", outcomes)
    with pytest.raises(ValueError):
        store.record("example.com", "1", version=-1)
    assert store.counters(["example.com"])["example.com"] == SiteCounters("example.com", 1)


@pytest.mark.usefixtures("eager_thread_switching")
def test_records_from_threads_are_atomic(store: TemplateStore) -> None:
    store.put("example.com", "t")
    threads, rounds = 8, 25

    def count() -> None:
        for _ in range(rounds):
            assert store.record("example.com", "10", version=1)

    workers = [threading.Thread(target=count) for _ in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    got = store.counters(["example.com"])["example.com"]
    assert (got.fits, got.fallbacks) == (threads * rounds, threads * rounds)
    assert got.recent == "10" * (RECENT_WINDOW // 2)


def test_close_is_idempotent_and_store_reopens(store: TemplateStore) -> None:
    store.put("example.com", "x")
    store.close()
    store.close()
    if store.url != "memory://":  # a memory store's data lives in the object
        assert stored(store, "example.com").payload == "x"
    with store as same:
        assert same is store


def test_pickled_store_sees_the_same_data(store: TemplateStore) -> None:
    store.put("example.com", "x")
    copy = pickle.loads(pickle.dumps(store))
    assert copy.url == store.url
    assert copy.get("example.com").payload == "x"
    assert copy.put("example.com", "y") == 2  # every operation works on a fresh copy
    assert copy.sites() == ["example.com"]
    copy.close()
    fresh = pickle.loads(pickle.dumps(pickle.loads(pickle.dumps(store))))  # shipped on before any use
    assert fresh.put("other.com", "z") == 1  # and a write as the very first call
    fresh.close()


@pytest.mark.parametrize(
    ("call", "error"),
    [
        (lambda s: s.get(""), ValueError),
        (lambda s: s.get(b"bytes.com"), TypeError),
        (lambda s: s.put("a.com", b"{}"), TypeError),
        (lambda s: s.put("a.com", "{}", expected_version=-1), ValueError),
        (lambda s: s.put("a.com", "{}", expected_version="1"), TypeError),
        (lambda s: s.put("a.com", "{}", ttl=0), ValueError),
        (lambda s: s.put("a.com", "{}", ttl=float("inf")), ValueError),
        (lambda s: s.put("a.com", "bad \udc80 surrogate"), ValueError),
        (lambda s: s.put("\ud800.com", "{}"), ValueError),
        (lambda s: s.get_many("a.com"), TypeError),
        (lambda s: s.get_many(["a.com", ""]), ValueError),
    ],
)
def test_misuse_is_refused_before_touching_the_store(store: TemplateStore, call, error) -> None:
    with pytest.raises(error):
        call(store)
    assert store.sites() == []


def test_repr_names_the_backend_and_url(store: TemplateStore) -> None:
    assert store.url in repr(store)
    assert type(store).__name__ in repr(store)


# --- the error hierarchy ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("error", "builtin"),
    [(StoreUnavailable, ConnectionError), (StoreConfigError, ValueError), (StoreCorrupt, ValueError),
     (VersionConflict, Exception)],
)
def test_every_error_is_a_store_error_and_a_builtin(error: type[StoreError], builtin: type) -> None:
    assert issubclass(error, StoreError)
    assert issubclass(error, builtin)


def test_errors_survive_pickling() -> None:
    conflict = VersionConflict("m", url="memory://", site="a.com", expected=1, actual=2)
    copy = pickle.loads(pickle.dumps(conflict))
    assert (str(copy), copy.url, copy.site, copy.expected, copy.actual) == ("m", "memory://", "a.com", 1, 2)
    unavailable = pickle.loads(pickle.dumps(StoreUnavailable("down", url="redis://h", site="s")))
    assert (str(unavailable), unavailable.url, unavailable.site) == ("down", "redis://h", "s")
