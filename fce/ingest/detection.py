"""The detect task of ``fce ingest``: every record of one input → one row in its JSON lines file, then its manifest.

**Rows.** Exactly one per record (see :mod:`fce.ingest.readers` for what a record is), in input order, with the
keys of :data:`ROW_KEYS`; ``status`` is one of :data:`STATUSES` (described in :mod:`fce.ingest.pipeline`). Records
are read in batches whose domains' templates are fetched in one round trip (:data:`PREFETCH_RECORDS`); the time
of each stage is measured (:data:`STAGES`) and goes to the manifest.
"""

from __future__ import annotations

import json
import os
import time
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from fce.errors import (
    EmptyPageError,
    InputError,
    NotHTMLError,
    PageTimeoutError,
    PageTooLargeError,
    StoreFailure,
    TemplateError,
)
from fce.ingest.domains import registered_domain
from fce.ingest.engine import prepare_worker, worker_extractor
from fce.ingest.outputs import write_manifest
from fce.ingest.readers import InputSource, RawRecord, open_input
from fce.ingest.settings import Settings, parse_record
from fce.kinds import FallbackReason
from fce.limits import run_limited
from fce.pipeline import TEMPLATE_CACHE_SIZE, extract, with_outputs
from fce.sites import site_of

if TYPE_CHECKING:
    from fce.layouts import SiteDetector
    from fce.pipeline import Extractor

__all__ = ["PREFETCH_BYTES", "PREFETCH_RECORDS", "ROW_KEYS", "STAGES", "STATUSES", "DetectTask", "InputResult",
           "detect_input"]

STATUSES = ("ok", "fallback", "skipped_non_html", "too_large", "timeout", "decode_error", "not_html", "empty",
            "store_error", "error")
ROW_KEYS = ("record", "url", "domain", "warc_record_id", "warc_date", "status", "method", "fit", "fallback_reason",
            "page_type", "http_status", "bytes", "error", "metadata", "fingerprint", "text", "comments")

#: Records read ahead and whose domains' templates are fetched in one round trip. At most the Extractor's LRU
#: size, so that a batch's templates are still cached when its records are processed.
PREFETCH_RECORDS = min(200, TEMPLATE_CACHE_SIZE)
#: ... and at most this many bytes of page bodies held at once (memory stays bounded whatever the input size).
PREFETCH_BYTES = 32 * 1024 * 1024

#: Where a detect task's time goes, measured per input: wall-clock (``stage_seconds`` of its manifest, summed in
#: :attr:`fce.ingest.pipeline.IngestSummary.stage_seconds`) and CPU time of the task's thread
#: (``stage_cpu_seconds``, which other processes on a busy machine do not inflate). ``read`` the records off the
#: input (decompression, WARC and HTTP headers, body) and their registered domains; ``store`` fetching templates;
#: ``parse`` and ``extract`` (each with its time limit; ``extract`` is the template, or the fallback method);
#: ``release`` freeing the parsed page and building the row (the text's fingerprint too); ``write`` encoding the
#: row as JSON and writing it. A record that fails is charged to the stage it failed in.
STAGES = ("read", "store", "parse", "extract", "release", "write")


@dataclass(frozen=True)
class DetectTask:
    source: InputSource
    output: str
    manifest: str
    settings: Settings


@dataclass(frozen=True)
class InputResult:
    """What one detect task wrote (also the manifest's content)."""

    input: str
    output: str
    rows: int
    counts: dict[str, int]
    other_records: dict[str, int]
    domains: int
    seconds: float
    stage_seconds: dict[str, float] = field(default_factory=dict)  # see STAGES
    stage_cpu_seconds: dict[str, float] = field(default_factory=dict)
    #: the fit/fallback counts of this input's records the store did not take after retries, and why
    outcomes_lost: int = 0
    outcomes_error: str | None = None


def detect_input(task: DetectTask) -> InputResult:
    """Extract every record of one input into its JSON lines file, then write its manifest.

    Raises :class:`~fce.errors.StoreFailure` when the store cannot be reached; the output is then left as a
    ``.part`` file and no manifest is written, so a rerun does the input again.
    """
    settings = task.settings
    prepare_worker(settings.owner)
    extractor = None
    if settings.method is None:
        extractor = worker_extractor(settings.store, owner=settings.owner,  # type: ignore[arg-type]
                                     run_id=settings.run_id, fallback=settings.fallback)
    reader = open_input(task.source, max_bytes=settings.max_bytes)
    counts: Counter[str] = Counter()
    domains: set[str] = set()
    unusable: dict[str, str] = {}  # domain -> why its stored template cannot be used
    started = time.perf_counter()
    clock = _Stopwatch()
    part = f"{task.output}.part"
    # backslashreplace: a lone surrogate (possible in a JSON lines URL) is written as the JSON escape \udXXX.
    with open(part, "w", encoding="utf-8", errors="backslashreplace") as out:
        for batch in _batches(reader.records()):
            clock.lap("read")
            if extractor is not None:
                _prefetch(extractor, {domain for _, domain in batch if domain}, unusable)
                clock.lap("store")
            for record, domain in batch:
                row = _detect_record(record, domain, extractor, unusable, settings, clock)
                clock.lap("release")
                out.write(json.dumps(row, ensure_ascii=False) + "\n")
                counts[row["status"]] += 1
                if row["domain"]:
                    domains.add(row["domain"])
                clock.lap("write")
    lost = 0
    if extractor is not None:
        before = extractor.dropped_outcomes
        extractor.flush()  # this input's fit/fallback counts, retried; a store that refuses them costs the counts
        lost = extractor.dropped_outcomes - before
    os.replace(part, task.output)
    result = InputResult(
        input=task.source.path,
        output=task.output,
        rows=sum(counts.values()),
        counts=dict(sorted(counts.items())),
        other_records=dict(sorted(reader.other_records.items())),
        domains=len(domains),
        seconds=round(time.perf_counter() - started, 3),
        stage_seconds=clock.rounded(clock.seconds),
        stage_cpu_seconds=clock.rounded(clock.cpu_seconds),
        outcomes_lost=lost,
        outcomes_error=None if not lost or extractor is None or extractor.record_error is None
        else str(extractor.record_error),
    )
    write_manifest(task.source, task.manifest, result, task.settings)
    return result


class _Stopwatch:
    """Seconds per stage, wall-clock and CPU of this thread: ``lap(stage)`` charges the time since the previous
    lap to ``stage``. About 1.5 us a lap (``thread_time`` is a system call), six laps a record: under 0.1 % of a
    record's time."""

    def __init__(self) -> None:
        self.seconds = dict.fromkeys(STAGES, 0.0)
        self.cpu_seconds = dict.fromkeys(STAGES, 0.0)
        self._last = time.perf_counter()
        self._last_cpu = time.thread_time()

    def lap(self, stage: str) -> None:
        now, cpu = time.perf_counter(), time.thread_time()
        self.seconds[stage] += now - self._last
        self.cpu_seconds[stage] += cpu - self._last_cpu
        self._last, self._last_cpu = now, cpu

    @staticmethod
    def rounded(seconds: dict[str, float]) -> dict[str, float]:
        return {stage: round(value, 4) for stage, value in seconds.items()}


def _batches(records: Iterable[RawRecord]) -> Iterator[list[tuple[RawRecord, str | None]]]:
    batch: list[tuple[RawRecord, str | None]] = []
    size = 0
    for record in records:
        batch.append((record, registered_domain(record.url)))
        size += len(record.data) if record.data is not None else 0
        if len(batch) >= PREFETCH_RECORDS or size >= PREFETCH_BYTES:
            yield batch
            batch, size = [], 0
    if batch:
        yield batch


def _is_corrupt(exc: StoreFailure) -> bool:
    """A StoreFailure from an unreadable record of one site (not an unreachable store)."""
    from templates_store import StoreCorrupt

    return isinstance(exc.__cause__ or exc.__context__, StoreCorrupt)


def _prefetch(extractor: Extractor, domains: set[str], unusable: dict[str, str]) -> None:
    """Fetch the templates of a batch's domains in one round trip; a domain whose template is unusable is put in
    ``unusable`` (its records become store_error rows). StoreFailure for an unreachable store propagates."""
    wanted = sorted(d for d in domains if d not in unusable)
    try:
        extractor.prefetch(wanted)
        return
    except TemplateError:
        pass
    except StoreFailure as exc:
        if not _is_corrupt(exc):
            raise
    for domain in wanted:  # rare: find the culprit(s) one by one
        _detector(extractor, domain, unusable)


def _detector(extractor: Extractor, domain: str | None, unusable: dict[str, str]) -> SiteDetector | None:
    if domain is None or domain in unusable:
        return None
    try:
        return extractor.detector(domain)
    except TemplateError as exc:
        unusable[domain] = str(exc)
    except StoreFailure as exc:
        if not _is_corrupt(exc):
            raise
        unusable[domain] = str(exc)
    return None


_INPUT_STATUS: tuple[tuple[type[InputError], str], ...] = (
    (EmptyPageError, "empty"),
    (NotHTMLError, "not_html"),
    (PageTooLargeError, "too_large"),
    (InputError, "decode_error"),
)


def _detect_record(record: RawRecord, domain: str | None, extractor: Extractor | None,
                   unusable: dict[str, str], settings: Settings, clock: _Stopwatch) -> dict[str, Any]:
    row: dict[str, Any] = dict.fromkeys(ROW_KEYS)
    row.update(record=record.index, url=record.url, domain=domain, warc_record_id=record.record_id,
               warc_date=record.date, http_status=record.http_status, bytes=record.size, text="")
    if record.status is not None:
        row.update(status=record.status, error=record.error)
        return row
    stage = "parse"  # where the time of a record that fails goes
    try:
        page = parse_record(record, settings)  # parsing and extracting each get the time limit, as in fce detect
        clock.lap("parse")
        stage = "extract"
        if domain is None:  # no URL: the page may name its site (canonical link, og:url)
            domain = row["domain"] = site_of(page)
        if settings.method is not None:
            from fce.methods import get_method

            method = get_method(settings.method)
            extraction = run_limited(settings.timeout, lambda: with_outputs(
                page, method(page), metadata=True, comments=settings.comments), source=record.url)
        else:
            assert extractor is not None
            detector = _detector(extractor, domain, unusable)  # outside the limit: it may wait for the store
            clock.lap("store")
            problem = unusable.get(domain) if domain is not None else None
            if problem is not None and extractor.fallback is None:
                row.update(status="store_error", error=problem)
                return row
            extraction = extract(page, detector, site=domain, fallback=extractor.fallback,
                                 min_fit=extractor.min_fit, timeout=settings.timeout, metadata=True,
                                 comments=settings.comments)
            if problem is not None:  # its stored template cannot be read: the fallback's, and the row says why
                extraction = replace(extraction, fallback_reason=FallbackReason.TEMPLATE_ERROR)
                row["error"] = problem
            else:
                extractor.count(domain, extraction)  # the drift counters of the domain's template (fce sites)
        clock.lap("extract")
    except PageTimeoutError as exc:
        clock.lap(stage)
        row.update(status="timeout", error=str(exc))
        return row
    except InputError as exc:
        clock.lap(stage)
        status = next(name for cls, name in _INPUT_STATUS if isinstance(exc, cls))
        row.update(status=status, error=str(exc))
        return row
    except (StoreFailure, KeyboardInterrupt):
        raise
    except Exception as exc:  # noqa: BLE001 -- one hostile page must cost one row, not the input
        clock.lap(stage)
        row.update(status="error", error=f"{type(exc).__name__}: {exc}"[:1000])
        return row
    template_used = extraction.method == "template" or settings.method is not None
    row.update(status="ok" if template_used else "fallback", method=extraction.method,
               fit=None if extraction.fit is None else round(extraction.fit, 4),
               fallback_reason=extraction.fallback_reason, page_type=extraction.page_type, text=extraction.text,
               comments=extraction.comments if settings.comments else None,
               metadata=None if extraction.metadata is None else extraction.metadata.to_dict(),
               fingerprint=extraction.fingerprint)
    return row
