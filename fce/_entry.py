"""The ``fce`` command's entry point (``python -m fce`` too): settings of the process, then :func:`fce.cli.main`.

numpy and scipy each load an OpenBLAS whose threads, one per core, spin for a while after the library loads and
after each call, on the cores the command's own work runs on. fce makes no call that threads speed up (its vectors
are sparse and small), so the command's processes — and the ingest and serve workers they start, which inherit the
environment — run OpenBLAS on one thread, unless the environment says otherwise. Measured: ``fce learn`` on the
example site 0.83 s of CPU against 1.05 (``fce detect`` of one page 0.57 against 0.63), the same wall time;
``python -m bench.ingest_bench``, two workers, 1,972 pages: 4–5 % more pages per second learning and detecting,
5–7 % more per CPU-second. A program that imports fce as a library is
left as it is: the setting is made here, before the command imports numpy, not on ``import fce``.
"""

from __future__ import annotations

import os

#: Environment variables set for the command's processes where they are not set already.
PROCESS_ENVIRONMENT = {"OPENBLAS_NUM_THREADS": "1"}


def main() -> None:
    for name, value in PROCESS_ENVIRONMENT.items():
        os.environ.setdefault(name, value)
    from fce.cli import main as cli_main  # (after the settings: it imports numpy)

    cli_main()
