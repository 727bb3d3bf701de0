"""A real ``fce serve`` in its own process on a free loopback port, for the tests and the serve benchmarks
(``bench/serve_bench.py``, ``bench/serve_hardening.py``): started as a user starts it, ready once ``GET /healthz``
answers, terminated when the block ends."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
#: Seconds ``fce serve`` may take to answer /healthz after it starts (imports take ~3 s on a shared 2-core machine).
STARTUP_TIMEOUT = 60.0
#: Seconds it may take to end once terminated before it is killed.
STOP_TIMEOUT = 10.0


def free_port() -> int:
    """A TCP port free on the loopback interface now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class Served:
    """A running ``fce serve`` process: its base URL, process and log file."""

    def __init__(self, base: str, process: subprocess.Popen[bytes], log: Path) -> None:
        self.base, self.process, self.log = base, process, log

    def peak_rss(self) -> int:
        """The process's peak resident memory (bytes), from the kernel's high-water mark."""
        for line in Path(f"/proc/{self.process.pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
        raise AssertionError("no VmHWM")


@contextmanager
def running_serve(workdir: Path, *args: str, store: str | None = None, env: dict[str, str] | None = None,
                  drop_env: tuple[str, ...] = ()) -> Iterator[Served]:
    """``fce --store STORE serve --port P *args`` (``python -m fce`` of this checkout; default store: a SQLite file
    in ``workdir``, where the log goes too) until the block ends. ``env`` is added to this process's environment
    without the variables of ``drop_env``."""
    port = free_port()
    log_path = workdir / "serve.log"
    environment = {k: v for k, v in os.environ.items() if k not in drop_env}
    with log_path.open("wb") as log:
        process = subprocess.Popen(
            [sys.executable, "-m", "fce", "--store", store or f"sqlite:///{workdir}/t.db", "serve",
             "--port", str(port), *args],
            cwd=ROOT, env={**environment, "PYTHONPATH": str(ROOT), **(env or {})}, stdout=log,
            stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + STARTUP_TIMEOUT
    try:
        while True:
            try:
                if httpx.get(f"{base}/healthz", timeout=1).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"fce serve did not start:\n{log_path.read_text()[-3000:]}")
            time.sleep(0.1)
        yield Served(base, process, log_path)
    finally:
        process.terminate()
        try:
            process.wait(timeout=STOP_TIMEOUT)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
