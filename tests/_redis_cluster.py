"""A real 3-node Redis Cluster for the tests: ``redis_cluster`` (module) and ``redis_cluster_url`` (function).

Three ``redis-server --cluster-enabled yes`` processes on free loopback ports, joined with
``redis-cli --cluster create ... --cluster-replicas 0``; each node is a primary serving a third of
the 16384 slots. Import both fixtures (``cluster_fixture``, ``cluster_url_fixture``) into a test module to use them by
those names; the cluster is torn down after
that module. Skips like the other Redis fixtures (fails under ``$CI``) without the binaries.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests._serving import free_port
from tests.conftest import REDIS_SERVER, STARTUP_TIMEOUT, RedisServer, start_on_free_port

__all__ = ["NODES", "RedisCluster", "cluster_fixture", "cluster_url_fixture", "start_cluster"]

REDIS_CLI = "redis-cli"
NODES = 3  # the fewest primaries redis-cli --cluster create accepts
# Seconds for the nodes to agree on the slot map after ``--cluster create``; it takes ~1-2 s.
JOIN_TIMEOUT = 20.0


class RedisCluster:
    """Running cluster nodes: ``.ports``, ``.url`` (``redis+cluster://`` to the first node), ``.flush()``."""

    def __init__(self, nodes: list[RedisServer]) -> None:
        self.nodes = nodes
        self.ports = [node.port for node in nodes]
        self.url = f"redis+cluster://127.0.0.1:{self.ports[0]}"

    def flush(self) -> None:
        import redis

        for port in self.ports:
            with redis.Redis(port=port) as client:
                client.flushall()

    def stop(self) -> None:
        for node in self.nodes:
            node.stop()


def _binaries() -> tuple[str, str]:
    found = [shutil.which(REDIS_SERVER), shutil.which(REDIS_CLI)]
    if None in found:
        message = f"{REDIS_SERVER} or {REDIS_CLI} not on PATH; install redis-server to run Redis Cluster tests"
        if os.environ.get("CI"):
            pytest.fail(message + " -- CI is set, so this is an error, not a skip")
        pytest.skip(message)
    return found[0], found[1]  # type: ignore[return-value]


def _cluster_ok(port: int) -> bool:
    info = subprocess.run([REDIS_CLI, "-p", str(port), "cluster", "info"], capture_output=True, timeout=5)
    return b"cluster_state:ok" in info.stdout


def _node_args(port: int, workdir: Path) -> tuple[str, ...]:
    """A cluster node's options: the cluster bus on its own free port (the default, port + 10000, may be taken or
    above 65535), never the node's."""
    bus = free_port()
    while bus == port:
        bus = free_port()
    return ("--cluster-enabled", "yes", "--cluster-port", str(bus),
            "--cluster-config-file", str(workdir / f"nodes-{port}.conf"))


def start_cluster(workdir: Path) -> RedisCluster:
    server, cli = _binaries()
    nodes: list[RedisServer] = []
    try:
        for _ in range(NODES):
            nodes.append(start_on_free_port(server, workdir, lambda port: _node_args(port, workdir)))
        cluster = RedisCluster(nodes)
        create = subprocess.run(
            [cli, "--cluster", "create", *(f"127.0.0.1:{port}" for port in cluster.ports),
             "--cluster-replicas", "0", "--cluster-yes"],
            capture_output=True, text=True, timeout=STARTUP_TIMEOUT + JOIN_TIMEOUT,
        )
        if create.returncode != 0:
            raise RuntimeError(f"redis-cli --cluster create failed:\n{create.stdout[-2000:]}{create.stderr[-2000:]}")
        deadline = time.monotonic() + JOIN_TIMEOUT
        while not all(_cluster_ok(port) for port in cluster.ports):
            if time.monotonic() > deadline:
                raise RuntimeError(f"Redis Cluster on ports {cluster.ports} not ok after {JOIN_TIMEOUT} s")
            time.sleep(0.05)
    except BaseException:
        for node in nodes:
            node.stop()
        raise
    return cluster


@pytest.fixture(scope="module", name="redis_cluster")
def cluster_fixture(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RedisCluster]:
    """A 3-primary Redis Cluster for the module."""
    cluster = start_cluster(tmp_path_factory.mktemp("redis-cluster"))
    yield cluster
    cluster.stop()


@pytest.fixture(name="redis_cluster_url")
def cluster_url_fixture(redis_cluster: RedisCluster) -> str:
    """The cluster's ``redis+cluster://`` URL, every node emptied (FLUSHALL)."""
    redis_cluster.flush()
    return redis_cluster.url
