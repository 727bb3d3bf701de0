"""Batch ingestion of crawl files per registered domain: ``fce ingest`` and :func:`ingest`.

    >>> from fce.ingest import ingest
    >>> summary = ingest(["crawl-00000.warc.gz"], out_dir="out", store="redis://localhost:6379/0")
    >>> print(summary.to_text())

Stages, one module each: :mod:`~fce.ingest.readers` (files → records), :mod:`~fce.ingest.domains` (URL →
registered domain), :mod:`~fce.ingest.sample` (bottom-k sample per domain), :mod:`~fce.ingest.learning` (the
sample and learn tasks), :mod:`~fce.ingest.detection` (the detect task: records → rows),
:mod:`~fce.ingest.outputs` (rows files and manifests), :mod:`~fce.ingest.settings` (what every task receives),
:mod:`~fce.ingest.engine` (local processes or Dask; per-worker state; time limits) and
:mod:`~fce.ingest.pipeline` (the orchestrator, :func:`ingest`). The Typer command is
:func:`fce.ingest.command.ingest_command`.
"""

from fce.ingest.domains import registered_domain
from fce.ingest.pipeline import (
    DEFAULT_K,
    DEFAULT_MIN_PAGES,
    DEFAULT_RECORD_TIMEOUT,
    ROW_KEYS,
    STATUSES,
    IngestSummary,
    InputFailure,
    ingest,
)
from fce.ingest.readers import InputSource, WarcPage, expand_inputs, write_warc
from fce.ingest.sample import url_hash

__all__ = [
    "DEFAULT_K",
    "DEFAULT_MIN_PAGES",
    "DEFAULT_RECORD_TIMEOUT",
    "ROW_KEYS",
    "STATUSES",
    "IngestSummary",
    "InputFailure",
    "InputSource",
    "WarcPage",
    "expand_inputs",
    "ingest",
    "registered_domain",
    "url_hash",
    "write_warc",
]
