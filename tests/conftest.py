"""Shared fixtures: real redis-server processes for the tests marked ``redis``.

``redis_server`` (session) is one server for the whole run; ``redis_url`` (function) hands a test
that server's URL after ``FLUSHALL``. Tests that stop or reconfigure a server take their own:
``stoppable_redis`` (function), or ``make_redis_server(*extra_args)`` for e.g. ``--requirepass``.

Without a ``redis-server`` binary on PATH these fixtures skip, except when ``$CI`` is set, where
they fail: CI must not pass by silently skipping the Redis tests.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests._serving import free_port

REDIS_SERVER = "redis-server"
STARTUP_TIMEOUT = 10.0  # seconds for redis-server to answer PING; it usually takes ~10 ms
#: Fresh ports tried per server: a port found free may be taken before redis-server binds it (seen: a cluster
#: node's bus port, picked right after the node's own, in use when the node started).
START_ATTEMPTS = 3


class RedisServer:
    """A redis-server child process on a fixed loopback port that can be stopped and restarted."""

    def __init__(self, binary: str, port: int, workdir: Path, extra_args: tuple[str, ...] = ()) -> None:
        self.binary = binary
        self.port = port
        self.workdir = workdir
        self.extra_args = extra_args
        self.url = f"redis://127.0.0.1:{port}/0"
        self._process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        if self._process is not None:
            return
        log = self.workdir / f"redis-{self.port}.log"
        with log.open("ab") as out:
            self._process = subprocess.Popen(
                [self.binary, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
                 "--appendonly", "no", "--dir", str(self.workdir), *self.extra_args],
                stdout=out, stderr=subprocess.STDOUT,
            )
        deadline = time.monotonic() + STARTUP_TIMEOUT
        while not _answers_ping(self.port):
            if self._process.poll() is not None or time.monotonic() > deadline:
                self.stop()
                tail = log.read_text()[-2000:]
                raise RuntimeError(f"redis-server on port {self.port} did not start:\n{tail}")
            time.sleep(0.01)

    def stop(self) -> None:
        if self._process is None:
            return
        self._process.terminate()
        try:
            self._process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait()
        self._process = None

    @property
    def running(self) -> bool:
        return self._process is not None


def start_on_free_port(binary: str, workdir: Path,
                       extra_args: Callable[[int], tuple[str, ...]] = lambda port: ()) -> RedisServer:
    """A started redis-server on a free loopback port, ``extra_args(port)`` on its command line; tried again on
    fresh ports (:data:`START_ATTEMPTS`) where it did not start."""
    attempts = 1
    while True:
        port = free_port()
        server = RedisServer(binary, port, workdir, extra_args(port))
        try:
            server.start()
            return server
        except RuntimeError:
            if attempts == START_ATTEMPTS:
                raise
            attempts += 1


def _answers_ping(port: int) -> bool:
    """True once the server replies to PING (a NOAUTH error is a reply too)."""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5) as conn:
            conn.sendall(b"PING\r\n")
            return conn.recv(64)[:1] in (b"+", b"-")
    except OSError:
        return False


def _redis_binary() -> str:
    binary = shutil.which(REDIS_SERVER)
    if binary is None:
        message = f"{REDIS_SERVER} not on PATH; install it (apt-get install redis-server) to run Redis tests"
        if os.environ.get("CI"):
            pytest.fail(message + " -- CI is set, so this is an error, not a skip")
        pytest.skip(message)
    return binary


@pytest.fixture(scope="session")
def redis_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RedisServer]:
    """One redis-server for the session (``.url``, ``.port``, ``.stop()``, ``.start()``)."""
    server = start_on_free_port(_redis_binary(), tmp_path_factory.mktemp("redis"))
    yield server
    server.stop()


@pytest.fixture
def redis_url(redis_server: RedisServer) -> str:
    """The session server's URL, emptied (FLUSHALL) and running."""
    import redis  # here, not at the top: most test modules never need it

    redis_server.start()  # in case a test stopped it
    with redis.Redis(port=redis_server.port) as client:
        client.flushall()
    return redis_server.url


@pytest.fixture
def make_redis_server(tmp_path: Path) -> Iterator[Callable[..., RedisServer]]:
    """Factory of private servers, ``make_redis_server("--requirepass", "x")``; all stopped afterwards."""
    binary = _redis_binary()
    servers: list[RedisServer] = []

    def make(*extra_args: str) -> RedisServer:
        server = start_on_free_port(binary, tmp_path, lambda port: tuple(extra_args))
        servers.append(server)
        return server

    yield make
    for server in servers:
        server.stop()


@pytest.fixture
def stoppable_redis(make_redis_server: Callable[..., RedisServer]) -> RedisServer:
    """A private server for fault tests, which may stop and restart it on the same port."""
    return make_redis_server()
