"""Redis backend on a real 3-node Redis Cluster: URLs, sites over every node, one round trip per node,
and the index's races (run on a standalone server too, since the code is the same).

The TemplateStore contract itself runs on the cluster in test_store_contract.py; that it passes there
also shows that every command touches one slot: redis-py's cluster client refuses a command or
script whose keys span slots (RedisClusterException), and the nodes would answer CROSSSLOT.
"""

from __future__ import annotations

import pickle
import time
from typing import cast

import pytest
import redis
from redis.cluster import ClusterPipeline, NodeCommands
from redis.cluster import RedisCluster as ClusterClient

from templates_store import RedisStore, StoreConfigError, StoreUnavailable, open_store
from tests._redis_cluster import NODES, RedisCluster, cluster_fixture, cluster_url_fixture  # noqa: F401 (fixtures, used by name)
from tests._serving import free_port
from tests._store import stored

pytestmark = pytest.mark.redis

MANY = 300  # sites: with 3 nodes owning a third of the slots each, every node gets ~100


@pytest.fixture(params=["redis", "redis-cluster"])
def any_redis_url(request: pytest.FixtureRequest) -> str:
    """A standalone server's URL, then the cluster's: the index protocol is the same on both."""
    return request.getfixturevalue("redis_url" if request.param == "redis" else "redis_cluster_url")


def _keys_per_node(cluster: RedisCluster) -> dict[int, list[str]]:
    found = {}
    for port in cluster.ports:
        with redis.Redis(port=port, decode_responses=True) as node:
            found[port] = sorted(node.keys("*"))
    return found


def test_cluster_url_makes_a_cluster_client(redis_cluster_url: str) -> None:
    store = open_store(f"{redis_cluster_url}?prefix=p1&retries=2")
    assert isinstance(store, RedisStore) and store.cluster
    assert store.url.startswith("redis+cluster://127.0.0.1:") and "prefix=p1" in store.url
    assert store.put("example.com", "x") == 1
    assert isinstance(store._client(), ClusterClient)
    copy = pickle.loads(pickle.dumps(store))
    assert copy.cluster and copy.get("example.com").payload == "x"
    copy.close()
    store.close()


def test_opening_does_no_io_and_a_dead_cluster_is_unavailable() -> None:
    url = f"redis+cluster://127.0.0.1:{free_port()}?socket_timeout=0.5&socket_connect_timeout=0.5&retries=1"
    store = open_store(url)  # nothing listens there: opening must not notice
    started = time.monotonic()
    with pytest.raises(StoreUnavailable) as caught:
        store.get("example.com")
    assert time.monotonic() - started < 5
    message = str(caught.value)
    assert "\n" not in message and store.url in message and "example.com" in message


@pytest.mark.parametrize(
    ("url", "match"),
    [
        ("redis+cluster://127.0.0.1:7000/3", "only database 0"),
        ("redis+cluster://127.0.0.1:7000?no_such_option=1", "invalid Redis URL"),
        ("rediss+cluster://:hunter2@127.0.0.1:notaport", "invalid Redis URL"),
    ],
)
def test_bad_cluster_urls_fail_at_open(url: str, match: str) -> None:
    with pytest.raises(StoreConfigError, match=match) as caught:
        open_store(url)
    assert "hunter2" not in str(caught.value) and "\n" not in str(caught.value)


def test_many_sites_over_every_node(redis_cluster: RedisCluster, redis_cluster_url: str,
                                    monkeypatch: pytest.MonkeyPatch) -> None:
    store = open_store(redis_cluster_url)
    sites = [f"site{i}.example" for i in range(MANY)]
    for i, site in enumerate(sites):
        assert store.put(site, str(i)) == 1
    for site in sites[::3]:
        assert store.record(site, "10", version=1)

    keys = _keys_per_node(redis_cluster)
    template_keys = {port: [key for key in found if key.startswith("fce:tpl:")] for port, found in keys.items()}
    assert all(len(found) > MANY // NODES // 2 for found in template_keys.values())  # every node holds sites
    assert sum(len(found) for found in template_keys.values()) == MANY
    assert sum("fce:sites" in found for found in keys.values()) == 1  # the index lives on one node

    executes: list[int] = []
    writes: list[tuple[int, int]] = []  # (node port, commands sent in one write) per round trip
    real_execute, real_write = ClusterPipeline.execute, NodeCommands.write

    def counting_execute(pipe, *args, **kwargs):
        executes.append(1)
        return real_execute(pipe, *args, **kwargs)

    def counting_write(node_commands):
        writes.append((node_commands.connection.port, len(node_commands.commands)))
        return real_write(node_commands)

    monkeypatch.setattr(ClusterPipeline, "execute", counting_execute)
    monkeypatch.setattr(NodeCommands, "write", counting_write)
    found = store.get_many([*sites, "absent.example"])
    assert executes == [1]  # one pipeline ...
    assert sorted(port for port, _ in writes) == sorted(redis_cluster.ports)  # ... one round trip per node
    assert sum(count for _, count in writes) == MANY + 1
    assert {site: template.payload for site, template in found.items()} == {site: str(i) for i, site in
                                                                           enumerate(sites)}
    counters = store.counters(sites)
    assert len(counters) == MANY and sum(c.fits for c in counters.values()) == len(sites[::3])
    monkeypatch.undo()

    assert store.sites() == sorted(sites)
    for site in sites[:10]:
        assert store.delete(site)
    assert store.sites() == sorted(sites[10:])
    store.close()


def test_expired_and_deleted_sites_leave_the_index(any_redis_url: str) -> None:
    store = cast(RedisStore, open_store(any_redis_url))
    store.put("short.com", "x", ttl=0.05)
    store.put("long.com", "y")
    store.put("gone.com", "z")
    store.delete("gone.com")
    time.sleep(0.15)
    assert store.sites() == ["long.com"]
    members = cast(set[bytes], store._client().smembers("fce:sites"))  # the store's client does not decode
    assert [raw.decode() for raw in members] == ["long.com"]
    store.close()


def test_a_refused_put_leaves_only_a_stale_entry(any_redis_url: str) -> None:
    store = cast(RedisStore, open_store(any_redis_url))
    with pytest.raises(Exception, match="expected version 3"):
        store.put("never.com", "x", expected_version=3)
    assert store.sites() == []  # listed before the script refused, then pruned as stale
    assert store._client().smembers("fce:sites") == set()
    store.close()


def test_unlisting_spares_a_site_put_between_its_steps(any_redis_url: str,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    # sites() sees short.com expired; another client puts it again (all three steps) just before
    # sites() removes it from the index: the EXISTS that follows the SREM must put it back.
    store, other = cast(RedisStore, open_store(any_redis_url)), open_store(any_redis_url)
    store.put("short.com", "x", ttl=0.05)
    time.sleep(0.15)
    client = store._client()
    real_srem = client.srem

    def racing_srem(*args):
        other.put("short.com", "back")
        return real_srem(*args)

    monkeypatch.setattr(client, "srem", racing_srem)
    assert store.sites() == []  # as seen before the concurrent put
    monkeypatch.undo()
    assert store.sites() == ["short.com"]  # still listed
    store.close()
    other.close()


def test_a_put_that_dies_after_its_script_is_listed(any_redis_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    # The writer's connection fails after the script stored the site, before its second SADD.
    store = cast(RedisStore, open_store(any_redis_url))
    client = store._client()
    real_sadd = client.sadd
    calls: list[str] = []

    def failing_second_sadd(*args):
        calls.append("sadd")
        if len(calls) == 2:
            raise redis.ConnectionError("simulated: connection lost")
        return real_sadd(*args)

    monkeypatch.setattr(client, "sadd", failing_second_sadd)
    with pytest.raises(StoreUnavailable):
        store.put("died.com", "x")
    monkeypatch.undo()
    assert stored(store, "died.com").payload == "x"
    assert store.sites() == ["died.com"]  # listed by the first SADD
    store.close()


@pytest.mark.parametrize("unlist", ["sites", "delete"])
def test_a_put_spanning_an_unlisting_stays_listed(any_redis_url: str, monkeypatch: pytest.MonkeyPatch,
                                                  unlist: str) -> None:
    # The put lists the site, then an unlisting (sites() pruning the not-yet-written site, or a
    # delete of it) runs to the end, then the put's script writes it: its second SADD relists it.
    store, other = open_store(any_redis_url), cast(RedisStore, open_store(any_redis_url))
    other._client()
    real_script = other._put_script
    seen: list[list[str]] = []

    def late_script(*args, **kwargs):
        seen.append(store.sites() if unlist == "sites" else [str(store.delete("late.com"))])
        return real_script(*args, **kwargs)

    monkeypatch.setattr(other, "_put_script", late_script)
    assert other.put("late.com", "x") == 1
    monkeypatch.undo()
    assert seen == [[]] if unlist == "sites" else seen == [["False"]]
    assert store.sites() == ["late.com"]
    store.close()
    other.close()
