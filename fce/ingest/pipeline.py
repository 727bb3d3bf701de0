"""``fce ingest``: learn and apply site templates over crawl files, per registered domain.

The whole job, :func:`ingest`::

    inputs ─► sample    one task per input: the bottom-k URL hashes per domain     (fce.ingest.sample)
           ─► merge     in the driver; domains with >= min_pages sampled pages and no fresh template
           ─► learn     tasks of up to LEARN_BATCH domains: read the sampled pages again, learn, put with CAS
           ─► detect    one task per input: every record → one JSON line in OUT/<input>.<hash>.jsonl

Tasks are submitted largest input first (and learn batches made small enough for every worker to get several),
so that the run does not end with one worker busy on a big input while the others wait.

``learn_only`` stops after learning; ``detect_only`` skips straight to detection with the templates in the store.
Only pages with a URL, HTML, within the size cap and a 2xx (or no) HTTP status are sampled; a page without a
URL (a folder without ``.json`` metadata) takes its domain from its canonical link or ``og:url`` when detected.

**Rows.** Exactly one per record (see :mod:`fce.ingest.readers` for what a record is), in input order, with the
keys of :data:`ROW_KEYS`. ``status`` is one of :data:`STATUSES`:

=====================  ========================================================================================
``ok``                 extracted with the domain's template (with ``method``: that method ran)
``fallback``           no template, or it did not fit (``fallback_reason``): extracted by the fallback method
``skipped_non_html``   not HTML by its content type (images, PDFs, CSS, JSON, ...)
``too_large``          over the size cap (``max_bytes``); the body is not read
``timeout``            parsing, or extracting, took longer than the per-record limit (``timeout``)
``decode_error``       the body cannot be decoded (bad Content-Encoding, truncated record, bad JSON line)
``not_html``           declared HTML, but binary data or text without markup
``empty``              no content at all
``store_error``        the domain's stored template is unusable (corrupt, other schema, other site) and was
                       not relearned (``detect_only``)
``error``              anything else that went wrong with this record (the message is in ``error``)
=====================  ========================================================================================

**Store faults are never rows.** When the template store cannot be reached the task fails with
:class:`~fce.errors.StoreFailure` (the engine retries it), no record of that input is written as a silent
``fallback``, and the run ends with an error naming the store. Outputs of completed inputs stay, and each input
has a manifest (``OUT/<input>.<hash>.manifest.json``, written atomically after its output) saying it is done,
so a rerun of the same command skips them and completes the job.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import time
import uuid
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from fce.errors import (
    EmptyPageError,
    FceError,
    InputError,
    LearnError,
    NotHTMLError,
    PageTimeoutError,
    PageTooLargeError,
    SourceError,
    StoreFailure,
    TemplateError,
)
from fce.ingest.domains import registered_domain
from fce.ingest.engine import (
    Engine,
    open_engine,
    prepare_worker,
    process_id,
    worker_extractor,
    worker_store,
)
from fce.ingest.readers import InputSource, RawRecord, expand_inputs, open_input
from fce.ingest.sample import Sample, Sampler, merge_samples
from fce.learn import RECOMMENDED_PAGES
from fce.limits import DEFAULT_PAGE_TIMEOUT, run_limited
from fce.parse import MAX_PAGE_BYTES, Page, parse_page
from fce.pipeline import DEFAULT_FALLBACK, TEMPLATE_CACHE_SIZE, extract, learn_template
from fce.sites import site_of
from fce.template import Template

if TYPE_CHECKING:
    from fce.detect import Detector
    from fce.pipeline import Extractor
    from templates_store import StoredTemplate, TemplateStore

__all__ = [
    "DEFAULT_K",
    "DEFAULT_MIN_PAGES",
    "DEFAULT_RECORD_TIMEOUT",
    "ROW_KEYS",
    "STATUSES",
    "IngestSummary",
    "InputFailure",
    "ingest",
]

STATUSES = ("ok", "fallback", "skipped_non_html", "too_large", "timeout", "decode_error", "not_html", "empty",
            "store_error", "error")
ROW_KEYS = ("record", "url", "domain", "status", "method", "fit", "fallback_reason", "http_status", "bytes",
            "error", "text")

#: Pages sampled per domain. The paper learns from "between 20 to 30 web pages" (Nguyen et al., §IV).
DEFAULT_K = 30
#: Sampled pages a domain needs before a template is learned for it (the paper's lower bound, §IV).
DEFAULT_MIN_PAGES = RECOMMENDED_PAGES
#: Seconds per record for parsing, and again for extracting (fce's per-page limit, :mod:`fce.limits`).
DEFAULT_RECORD_TIMEOUT = DEFAULT_PAGE_TIMEOUT
#: Further attempts of a task that failed because the store was unreachable.
DEFAULT_RETRIES = 2

#: Domains per learn task at most: enough to amortise a task's start-up (reopening inputs, ~1 ms) against
#: learning a domain (~0.6 s for 30 pages of the benchmark), few enough to spread over the workers.
LEARN_BATCH = 8
#: Learn tasks per worker at least, when there are enough domains: a worker that draws the last task idles for
#: at most about 1/LEARN_TASKS_PER_WORKER of a worker's share (13 domains on 2 workers went 8 + 5 before).
LEARN_TASKS_PER_WORKER = 4
#: Domains per ``get_many`` when the driver checks which templates are fresh.
FRESHNESS_BATCH = 500
#: Records read ahead and whose domains' templates are fetched in one round trip. At most the Extractor's LRU
#: size, so that a batch's templates are still cached when its records are processed.
PREFETCH_RECORDS = min(200, TEMPLATE_CACHE_SIZE)
#: ... and at most this many bytes of page bodies held at once (memory stays bounded whatever the input size).
PREFETCH_BYTES = 32 * 1024 * 1024

#: Where a detect task's time goes, measured per input (``stage_seconds`` of its manifest, summed in
#: :attr:`IngestSummary.stage_seconds`): ``read`` the records off the input (decompression, WARC and HTTP
#: headers, body) and their registered domains; ``store`` fetching templates; ``parse`` and ``extract`` (each
#: with its time limit; ``extract`` is the template, or the fallback method); ``release`` freeing the parsed
#: page and building the row; ``write`` encoding the row as JSON and writing it.
STAGES = ("read", "store", "parse", "extract", "release", "write")


# --- what tasks receive and return --------------------------------------------------------------------------


@dataclass(frozen=True)
class Settings:
    """The run's parameters, shipped with every task (a store is pickled without its connection)."""

    run_id: str
    owner: tuple[str, int]  # the driver process; tasks run there use its store object directly
    store: TemplateStore | None
    max_bytes: int
    timeout: float | None
    min_pages: int
    fallback: str | None
    method: str | None
    ttl: float | None


@dataclass(frozen=True)
class SampleTask:
    index: int
    source: InputSource
    k: int
    settings: Settings


@dataclass(frozen=True)
class LearnJob:
    domain: str
    pages: tuple[tuple[int, int | str], ...]  # (input index, ref), in sample (hash) order
    expected_version: int  # the version read by the driver (0: none): compare-and-set


@dataclass(frozen=True)
class LearnTask:
    jobs: tuple[LearnJob, ...]
    sources: tuple[InputSource, ...]
    settings: Settings


@dataclass(frozen=True)
class LearnOutcome:
    """``status``: ``learned``, ``conflict`` (a newer template was stored meanwhile: kept), ``too_few`` (not
    enough usable pages), ``timeout`` or ``failed``."""

    domain: str
    status: str
    version: int | None = None
    message: str | None = None


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


# --- sample ------------------------------------------------------------------------------------------------


def _samplable(record: RawRecord) -> bool:
    """Pages worth learning from: readable HTML with a URL, and not an error page or a redirect."""
    return record.status is None and bool(record.url) and (record.http_status is None
                                                           or 200 <= record.http_status < 300)


def sample_input(task: SampleTask) -> Sample:
    """Map side of the sample: the bottom-k of every domain of one input (bodies are not read)."""
    sampler = Sampler(task.k)
    reader = open_input(task.source, max_bytes=task.settings.max_bytes)
    for record in reader.records(payload=False):
        if _samplable(record):
            domain = registered_domain(record.url)
            if domain is not None:
                sampler.add(domain, record.url, task.index, record.ref)  # type: ignore[arg-type]
    return sampler.result()


# --- learn -------------------------------------------------------------------------------------------------


def learn_domains(task: LearnTask) -> list[LearnOutcome]:
    """Learn and store the templates of a batch of domains. Raises StoreFailure when the store is unreachable."""
    prepare_worker(task.settings.owner)
    store = worker_store(task.settings.store, owner=task.settings.owner)  # type: ignore[arg-type]
    return [_learn_one(job, task.sources, store, task.settings) for job in task.jobs]


def _learn_one(job: LearnJob, sources: Sequence[InputSource], store: TemplateStore,
               settings: Settings) -> LearnOutcome:
    from templates_store import StoreCorrupt, StoreError, VersionConflict

    pages: dict[tuple[int, int | str], Page] = {}
    by_input: dict[int, list[int | str]] = {}
    for index, ref in job.pages:
        by_input.setdefault(index, []).append(ref)
    for index, refs in sorted(by_input.items()):
        for record in open_input(sources[index], max_bytes=settings.max_bytes).read_refs(refs):
            if record.status is not None:
                continue
            try:
                pages[(index, record.ref)] = _parse(record, settings)
            except (InputError, PageTimeoutError):
                continue  # a sampled page that is not usable: learn from the others
    usable = [pages[key] for key in job.pages if key in pages]  # in sample order: independent of file order
    if len(usable) < settings.min_pages:
        return LearnOutcome(job.domain, "too_few",
                            message=f"{len(usable)} usable of {len(job.pages)} sampled pages")
    try:  # at most ``timeout`` seconds per page
        template = learn_template(usable, job.domain, timeout=settings.timeout)
    except LearnError as exc:
        return LearnOutcome(job.domain, "too_few", message=str(exc))
    except PageTimeoutError as exc:
        return LearnOutcome(job.domain, "timeout", message=str(exc))
    except Exception as exc:  # noqa: BLE001 -- hostile pages must cost their domain's template, not the run
        return LearnOutcome(job.domain, "failed", message=f"{type(exc).__name__}: {exc}"[:1000])
    try:
        version = store.put(job.domain, template.to_json(), expected_version=job.expected_version,
                            ttl=settings.ttl)
    except VersionConflict as exc:
        return LearnOutcome(job.domain, "conflict", version=exc.actual, message=str(exc))
    except StoreCorrupt as exc:
        return LearnOutcome(job.domain, "failed", message=str(exc))
    except StoreError as exc:
        raise StoreFailure(str(exc)) from None
    return LearnOutcome(job.domain, "learned", version=version)


def _parse(record: RawRecord, settings: Settings) -> Page:
    """Parse a record's body, within the time limit."""
    data = record.data
    assert data is not None
    return run_limited(settings.timeout, lambda: parse_page(data, url=record.url, declared_charset=record.charset,
                                                            source=record.url, max_bytes=settings.max_bytes),
                       source=record.url)


# --- detect ------------------------------------------------------------------------------------------------


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
    os.replace(part, task.output)
    result = InputResult(
        input=task.source.path,
        output=task.output,
        rows=sum(counts.values()),
        counts=dict(sorted(counts.items())),
        other_records=dict(sorted(reader.other_records.items())),
        domains=len(domains),
        seconds=round(time.perf_counter() - started, 3),
        stage_seconds=clock.rounded(),
    )
    _write_manifest(task, result)
    return result


class _Stopwatch:
    """Wall-clock seconds per stage: ``lap(stage)`` charges the time since the previous lap to ``stage``
    (about 0.1 us a lap: a few per record)."""

    def __init__(self) -> None:
        self.seconds = dict.fromkeys(STAGES, 0.0)
        self._last = time.perf_counter()

    def lap(self, stage: str) -> None:
        now = time.perf_counter()
        self.seconds[stage] += now - self._last
        self._last = now

    def rounded(self) -> dict[str, float]:
        return {stage: round(seconds, 4) for stage, seconds in self.seconds.items()}


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


def _detector(extractor: Extractor, domain: str | None, unusable: dict[str, str]) -> Detector | None:
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
    row.update(record=record.index, url=record.url, domain=domain, http_status=record.http_status,
               bytes=record.size, text="")
    if record.status is not None:
        row.update(status=record.status, error=record.error)
        return row
    stage = "parse"  # where the time of a record that fails goes
    try:
        page = _parse(record, settings)  # parsing and extracting each get the time limit, as in fce detect
        clock.lap("parse")
        stage = "extract"
        if domain is None:  # no URL: the page may name its site (canonical link, og:url)
            domain = row["domain"] = registered_domain(site_of(page))
        if settings.method is not None:
            from fce.methods import get_method

            method = get_method(settings.method)
            extraction = run_limited(settings.timeout, lambda: method(page), source=record.url)
        else:
            assert extractor is not None
            detector = _detector(extractor, domain, unusable)  # outside the limit: it may wait for the store
            clock.lap("store")
            if domain is not None and domain in unusable:
                row.update(status="store_error", error=unusable[domain])
                return row
            extraction = extract(page, detector, site=domain, fallback=extractor.fallback,
                                 min_fit=extractor.min_fit, timeout=settings.timeout)
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
    except Exception as exc:  # noqa: BLE001 -- one hostile page must cost one row, not the input (issue #7)
        clock.lap(stage)
        row.update(status="error", error=f"{type(exc).__name__}: {exc}"[:1000])
        return row
    template_used = extraction.method == "template" or settings.method is not None
    row.update(status="ok" if template_used else "fallback", method=extraction.method,
               fit=None if extraction.fit is None else round(extraction.fit, 4),
               fallback_reason=extraction.fallback_reason, text=extraction.text)
    return row


# --- outputs and manifests ----------------------------------------------------------------------------------


def output_paths(out_dir: Path, source: InputSource) -> tuple[Path, Path]:
    """``(rows file, manifest)`` of an input: its name plus a hash of its full path (two inputs named
    ``part-0.warc.gz`` in different directories do not collide; the names do not depend on the other inputs)."""
    digest = hashlib.sha1(source.path.encode("utf-8", "surrogatepass")).hexdigest()[:8]
    base = f"{source.name}.{digest}"
    return out_dir / f"{base}.jsonl", out_dir / f"{base}.manifest.json"


def input_size(source: InputSource) -> int:
    """Bytes of an input file, to submit the largest first (a folder, not walked here: 0; a file gone: 0, its
    task reports it)."""
    if source.kind == "html-dir":
        return 0
    try:
        return os.path.getsize(source.path)
    except OSError:
        return 0


def _input_stamp(source: InputSource) -> dict[str, int]:
    """Size and modification time of an input file (a folder: only its own mtime)."""
    stat = os.stat(source.path)
    return {"input_bytes": stat.st_size if source.kind != "html-dir" else 0, "input_mtime_ns": stat.st_mtime_ns}


def _write_manifest(task: DetectTask, result: InputResult) -> None:
    from fce import __version__

    manifest = {
        "done": True,
        "input": result.input,
        "kind": task.source.kind,
        **_input_stamp(task.source),
        "output": os.path.basename(result.output),
        "output_bytes": os.path.getsize(result.output),
        "rows": result.rows,
        "counts": result.counts,
        "other_records": result.other_records,
        "domains": result.domains,
        "seconds": result.seconds,
        "stage_seconds": result.stage_seconds,
        "finished_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "fce_version": __version__,
        "options": {"max_bytes": task.settings.max_bytes, "timeout": task.settings.timeout,
                    "fallback": task.settings.fallback, "method": task.settings.method},
    }
    tmp = f"{task.manifest}.{os.getpid()}.tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(manifest, f, indent=2, sort_keys=True)
        f.write("\n")
    os.replace(tmp, task.manifest)


def completed_manifest(source: InputSource, output: Path, manifest: Path) -> dict[str, Any] | None:
    """The manifest of an input completed by an earlier run, or None when it must be (re)done: no manifest, not
    done, the input changed since (size, mtime), or the output is missing or not the size the manifest says."""
    try:
        data = json.loads(manifest.read_text(encoding="utf-8"))
        stamp = _input_stamp(source)
        complete = (isinstance(data, dict) and data.get("done") is True
                    and all(data.get(key) == value for key, value in stamp.items())
                    and output.stat().st_size == data.get("output_bytes"))
    except (OSError, ValueError):
        return None
    return data if complete else None


# --- the summary --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class InputFailure:
    """An input (or a batch of domains, in the learn phase) whose task failed after its retries."""

    input: str
    phase: str  # "sample", "learn" or "detect"
    error: BaseException


@dataclass(frozen=True)
class IngestSummary:
    """What :func:`ingest` did. ``counts`` are rows per status written by this run."""

    inputs: int
    completed: tuple[str, ...] = ()
    skipped: tuple[str, ...] = ()
    failures: tuple[InputFailure, ...] = ()
    counts: dict[str, int] = field(default_factory=dict)
    other_records: dict[str, int] = field(default_factory=dict)
    domains: int = 0  # domains in the sample
    learned: tuple[str, ...] = ()
    fresh: int = 0  # domains that already had a fresh template
    conflicts: int = 0  # domains whose put lost a compare-and-set: a newer template was kept
    not_learned: dict[str, int] = field(default_factory=dict)  # reason -> domains
    seconds: float = 0.0
    phase_seconds: dict[str, float] = field(default_factory=dict)
    stage_seconds: dict[str, float] = field(default_factory=dict)  # detect tasks' time per stage (STAGES), summed
    workers: int = 1
    out_dir: str = ""
    store: str | None = None
    learn_only: bool = False

    @property
    def rows(self) -> int:
        return sum(self.counts.values())

    @property
    def pages_per_second(self) -> float:
        return self.rows / self.seconds if self.seconds > 0 else 0.0

    @property
    def incomplete(self) -> int:
        """Inputs without a complete output after this run."""
        return 0 if self.learn_only else self.inputs - len(self.completed) - len(self.skipped)

    def raise_for_failures(self) -> None:
        """Raise the run's error when a task failed: StoreFailure (naming the store) first, as it is the one a
        rerun fixes; otherwise the first failure's class."""
        if not self.failures:
            return
        from templates_store import StoreError

        store_failures = [f for f in self.failures if isinstance(f.error, StoreFailure | StoreError)]
        first = (store_failures or list(self.failures))[0]
        left = (f"{self.incomplete} of {self.inputs} inputs not completed" if not self.learn_only
                else "learning not completed")
        if store_failures:
            raise StoreFailure(f"{_one_line(first.error)}; {left}; outputs of completed inputs are kept: "
                               "rerun the same command once the store is reachable (completed inputs are skipped)")
        error = first.error
        cls = type(error) if isinstance(error, FceError) else FceError
        detail = _one_line(error) if isinstance(error, FceError) else f"{type(error).__name__}: {_one_line(error)}"
        raise cls(f"{first.phase} of {first.input} failed: {detail}; {left}")

    def to_text(self) -> str:
        """The summary the CLI prints."""
        order = [s for s in STATUSES if self.counts.get(s)] + sorted(set(self.counts) - set(STATUSES))
        statuses = " · ".join(f"{s} {self.counts[s]}" for s in order)
        per_core = self.pages_per_second / max(self.workers, 1)
        lines = [
            f"inputs:    {self.inputs} ({len(self.completed)} done, {len(self.skipped)} already complete, "
            f"{self.incomplete if not self.learn_only else 0} not completed)",
        ]
        if not self.learn_only:
            lines.append(f"records:   {self.rows} in {self.seconds:.2f} s: {self.pages_per_second:.0f} pages/s "
                         f"({per_core:.0f} per core, {self.workers} worker{'s' * (self.workers != 1)})")
            lines.append(f"status:    {statuses or '-'}")
            if self.other_records:
                lines.append("not pages: " + " · ".join(f"{k} {v}" for k, v in sorted(self.other_records.items()))
                             + " (WARC records without a row)")
        not_learned = ", ".join(f"{n} {reason}" for reason, n in sorted(self.not_learned.items()))
        lines.append(f"domains:   {self.domains} sampled, {len(self.learned)} learned, {self.fresh} already fresh, "
                     f"{self.conflicts} kept a newer template" + (f", not learned: {not_learned}" if not_learned
                                                                   else ""))
        if self.phase_seconds:
            lines.append("phases:    " + ", ".join(f"{k} {v:.2f} s" for k, v in self.phase_seconds.items()))
        if self.rows and any(self.stage_seconds.values()):
            lines.append("per page:  " + " · ".join(f"{k} {1000 * v / self.rows:.2f}"
                                                    for k, v in self.stage_seconds.items())
                         + " ms (in the workers)")
        lines.append(f"out:       {self.out_dir}")
        if self.store:
            lines.append(f"store:     {self.store}")
        for failure in self.failures[:5]:
            lines.append(f"failed:    {failure.phase} {failure.input}: {_one_line(failure.error)}")
        if len(self.failures) > 5:
            lines.append(f"failed:    ... and {len(self.failures) - 5} more")
        return "\n".join(lines)


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split()) or type(exc).__name__


# --- the orchestrator ---------------------------------------------------------------------------------------


def ingest(
    inputs: Sequence[str | os.PathLike[str]],
    *,
    out_dir: str | os.PathLike[str],
    store: TemplateStore | str | None = None,
    engine: str = "local",
    scheduler: str | None = None,
    k: int = DEFAULT_K,
    min_pages: int = DEFAULT_MIN_PAGES,
    learn_only: bool = False,
    detect_only: bool = False,
    max_bytes: int = MAX_PAGE_BYTES,
    timeout: float | None = DEFAULT_RECORD_TIMEOUT,
    workers: int | None = None,
    progress: bool = True,
    retries: int = DEFAULT_RETRIES,
    refresh_after: float | None = None,
    ttl: float | None = None,
    fallback: str | None = DEFAULT_FALLBACK,
    method: str | None = None,
    raise_on_failure: bool = True,
) -> IngestSummary:
    """Learn templates per registered domain from ``inputs`` and extract every record into ``out_dir``.

    ``inputs``: WARC / WARC.gz files, JSON lines files, folders (see :func:`fce.ingest.readers.expand_inputs`).
    ``store``: a template store or its URL (``None``: ``$FCE_STORE`` or the default SQLite file); an in-process
    ``memory://`` store runs every task in this process. ``engine``: ``"local"`` (``workers`` processes,
    default one per CPU; 0 = this process) or ``"dask"`` (the cluster at ``scheduler``, else a LocalCluster of
    ``workers`` processes). ``k`` pages are sampled per domain; domains with at least ``min_pages`` of them
    and no template in the store — or one older than ``refresh_after`` seconds, or unreadable — are learned
    and stored with compare-and-set (``ttl``: their expiry in seconds). ``max_bytes`` caps a record's size;
    ``timeout`` (seconds, ``None``: none) bounds its parsing and, again, its extraction, and learning to that much
    per page (:mod:`fce.limits`). ``method`` runs that single-page method on every
    record instead of templates (no store, no learning: a baseline for benchmarks). ``retries``: further
    attempts of a task that failed on the store.

    Returns an :class:`IngestSummary`. When a task failed (after retries) the other inputs are still completed
    (after a store failure, inputs not yet started are not), and :meth:`IngestSummary.raise_for_failures`
    raises — here, unless ``raise_on_failure=False``. Raises :class:`~fce.errors.SourceError` for a missing
    input and :class:`~fce.errors.StoreFailure` when the store cannot be reached at the start.
    """
    if learn_only and detect_only:
        raise ValueError("learn_only and detect_only exclude each other")
    if k < 1 or min_pages < 1:
        raise ValueError("k and min_pages must be >= 1")
    if min_pages > k:
        raise ValueError(f"min_pages ({min_pages}) cannot exceed k ({k}): no domain could be learned")
    from fce.methods import get_method

    # UnknownMethodError now, not in every task. This also imports every method module (and tldextract's list,
    # below) here, before worker processes fork from this one: they inherit them instead of each paying ~1 s.
    get_method(method or fallback or DEFAULT_FALLBACK)
    registered_domain("http://example.com/")
    if method is not None:
        if learn_only:
            raise ValueError("method runs no templates: it cannot be combined with learn_only")
        detect_only = True
    started = time.perf_counter()
    sources = expand_inputs(inputs)
    out = _output_dir(out_dir)
    the_store = _open_store(store) if method is None else None
    if the_store is not None:
        _ping(the_store)
        if the_store.url.startswith("memory:"):
            if engine != "local":
                raise ValueError("a memory:// store lives in this process: use a redis:// or file store with Dask")
            workers = 0
    settings = Settings(
        run_id=uuid.uuid4().hex, owner=process_id(), store=the_store, max_bytes=max_bytes, timeout=timeout,
        min_pages=min_pages, fallback=fallback, method=method, ttl=ttl,
    )
    plans = [(source, *output_paths(out, source)) for source in sources]
    pending = [p for p in plans if completed_manifest(*p) is None]
    skipped = tuple(p[0].path for p in plans if p not in pending)
    learn = LearnReport()
    failures: list[InputFailure] = []
    results: list[InputResult] = []
    timer = _PhaseTimer()
    with open_engine(engine, scheduler=scheduler, workers=workers) as runner:
        if the_store is not None and not detect_only and (learn_only or pending):
            with timer("sample"):
                sample = _sample_phase(runner, sources, settings, k, progress, failures)
            if sample is not None:
                with timer("learn"):
                    learn = _learn_phase(runner, the_store, sample, sources, settings, refresh_after, progress,
                                         failures, retries)
        if not learn_only and pending and not _store_failed(failures):
            with timer("detect"):
                results = _detect_phase(runner, pending, settings, progress, failures, retries)
        n_workers = max(runner.workers, 1)
    counts: Counter[str] = Counter()
    other: Counter[str] = Counter()
    stages = dict.fromkeys(STAGES, 0.0)
    for result in results:
        counts.update(result.counts)
        other.update(result.other_records)
        for stage, seconds in result.stage_seconds.items():
            stages[stage] = stages.get(stage, 0.0) + seconds
    summary = IngestSummary(
        inputs=len(sources),
        completed=tuple(r.input for r in results),
        skipped=skipped,
        failures=tuple(failures),
        counts=dict(counts),
        other_records=dict(other),
        domains=learn.domains,
        learned=tuple(learn.learned),
        fresh=learn.fresh,
        conflicts=learn.conflicts,
        not_learned=dict(learn.not_learned),
        seconds=time.perf_counter() - started,
        phase_seconds=timer.seconds,
        stage_seconds={stage: round(seconds, 3) for stage, seconds in stages.items()},
        workers=n_workers,
        out_dir=str(out),
        store=None if the_store is None else the_store.url,
        learn_only=learn_only,
    )
    if raise_on_failure:
        summary.raise_for_failures()
    return summary


def _store_failed(failures: Sequence[InputFailure]) -> bool:
    """A task failed on the store: detecting now would fail the same way (other failures stay per input)."""
    return any(isinstance(f.error, StoreFailure) for f in failures)


def _output_dir(out_dir: str | os.PathLike[str]) -> Path:
    """The output directory, created; SourceError when it cannot be written (before any work is done)."""
    out = Path(out_dir).expanduser().resolve()
    try:
        out.mkdir(parents=True, exist_ok=True)
        probe = out / f".fce-write-test-{os.getpid()}"
        probe.write_bytes(b"")
        probe.unlink()
    except OSError as exc:
        raise SourceError(f"cannot write to the output directory ({exc.strerror or exc})", source=str(out)) from None
    return out


class _PhaseTimer:
    """``with timer("learn"): ...`` records the phase's wall-clock seconds in ``timer.seconds``."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = {}

    @contextmanager
    def __call__(self, phase: str) -> Iterator[None]:
        started = time.perf_counter()
        try:
            yield
        finally:
            self.seconds[phase] = round(time.perf_counter() - started, 3)


def _open_store(store: TemplateStore | str | None) -> TemplateStore:
    from templates_store import StoreError, TemplateStore, open_store

    if isinstance(store, TemplateStore):
        return store
    try:
        return open_store(store)
    except StoreError as exc:
        raise StoreFailure(str(exc)) from None


def _ping(store: TemplateStore) -> None:
    from templates_store import StoreError

    try:
        store.ping()
    except StoreError as exc:
        raise StoreFailure(str(exc)) from None


def _bar(total: int, label: str, progress: bool) -> Any:
    from tqdm import tqdm

    return tqdm(total=total, desc=label, unit=" input", file=sys.stderr, disable=None if progress else True,
                leave=False, dynamic_ncols=True)


def _sample_phase(runner: Engine, sources: Sequence[InputSource], settings: Settings, k: int, progress: bool,
                  failures: list[InputFailure]) -> Sample | None:
    tasks = sorted((SampleTask(i, source, k, settings) for i, source in enumerate(sources)),
                   key=lambda task: -input_size(task.source))
    samples: list[Sample] = []
    with _bar(len(tasks), "sampling", progress) as bar:
        for index, outcome in runner.run(sample_input, tasks, label="sample"):
            bar.update()
            if isinstance(outcome, BaseException):
                failures.append(InputFailure(tasks[index].source.path, "sample", outcome))
            else:
                samples.append(outcome)
    if failures:  # the sample must see every input, or it would depend on which tasks failed
        return None
    return merge_samples(samples, k)


@dataclass
class LearnReport:
    domains: int = 0
    learned: list[str] = field(default_factory=list)
    fresh: int = 0
    conflicts: int = 0
    not_learned: Counter[str] = field(default_factory=Counter)


def _learn_phase(runner: Engine, store: TemplateStore, sample: Sample, sources: Sequence[InputSource],
                 settings: Settings, refresh_after: float | None, progress: bool,
                 failures: list[InputFailure], retries: int) -> LearnReport:
    report = LearnReport(domains=len(sample.entries))
    candidates = sample.domains_with(settings.min_pages)
    report.not_learned["too_few_pages"] = len(sample.entries) - len(candidates)
    existing, unreadable = _stored(store, candidates)
    report.not_learned["store_error"] = len(unreadable)  # a record the store cannot read: no version to CAS on
    jobs = []
    for domain in candidates:
        record = existing.get(domain)
        if domain in unreadable:
            continue
        if record is not None and _fresh(record, domain, refresh_after):
            report.fresh += 1
            continue
        pages = tuple((e.input, e.ref) for e in sample.entries[domain])
        jobs.append(LearnJob(domain, pages, expected_version=0 if record is None else record.version))
    batch = learn_batch_size(len(jobs), runner.workers)
    tasks = [LearnTask(tuple(jobs[i:i + batch]), tuple(sources), settings) for i in range(0, len(jobs), batch)]
    with _bar(len(tasks), "learning", progress) as bar:
        for index, outcome in runner.run(learn_domains, tasks, retries=retries, label="learn"):
            bar.update()
            if isinstance(outcome, BaseException):
                names = ", ".join(job.domain for job in tasks[index].jobs)
                failures.append(InputFailure(f"domains {names}", "learn", outcome))
                if isinstance(outcome, StoreFailure):
                    runner.cancel()
                continue
            for result in outcome:
                if result.status == "learned":
                    report.learned.append(result.domain)
                elif result.status == "conflict":
                    report.conflicts += 1
                else:
                    report.not_learned[result.status] += 1
    report.learned.sort()
    report.not_learned = Counter({k: v for k, v in report.not_learned.items() if v})
    return report


def learn_batch_size(jobs: int, workers: int) -> int:
    """Domains per learn task: :data:`LEARN_BATCH`, or fewer so that each worker gets
    :data:`LEARN_TASKS_PER_WORKER` tasks."""
    return max(1, min(LEARN_BATCH, -(-jobs // (LEARN_TASKS_PER_WORKER * max(workers, 1)))))


def _stored(store: TemplateStore, domains: Sequence[str]) -> tuple[dict[str, StoredTemplate], set[str]]:
    """``(templates found, domains whose record the store cannot read)``, by batched ``get_many``."""
    from templates_store import StoreCorrupt, StoreError

    found: dict[str, StoredTemplate] = {}
    unreadable: set[str] = set()
    try:
        for i in range(0, len(domains), FRESHNESS_BATCH):
            chunk = domains[i:i + FRESHNESS_BATCH]
            try:
                found.update(store.get_many(chunk))
            except StoreCorrupt:
                for domain in chunk:  # rare: find the unreadable records one by one
                    try:
                        record = store.get(domain)
                    except StoreCorrupt:
                        unreadable.add(domain)
                        continue
                    if record is not None:
                        found[domain] = record
    except StoreError as exc:
        raise StoreFailure(str(exc)) from None
    return found, unreadable


def _fresh(record: StoredTemplate, domain: str, refresh_after: float | None) -> bool:
    """A stored template that can be used and is young enough: it is kept, not learned again."""
    if refresh_after is not None and time.time() - record.updated_at > refresh_after:
        return False
    try:
        Template.from_json(record.payload, site=domain)
    except TemplateError:
        return False  # corrupt, another schema, another site: learn it again (CAS on its version)
    return True


def _detect_phase(runner: Engine, pending: Sequence[tuple[InputSource, Path, Path]], settings: Settings,
                  progress: bool, failures: list[InputFailure], retries: int) -> list[InputResult]:
    tasks = [DetectTask(source, str(output), str(manifest), settings)
             for source, output, manifest in sorted(pending, key=lambda p: -input_size(p[0]))]
    results: list[InputResult] = []
    rows = 0
    started = time.perf_counter()
    with _bar(len(tasks), "extracting", progress) as bar:
        for index, outcome in runner.run(detect_input, tasks, retries=retries, label="detect"):
            bar.update()
            if isinstance(outcome, BaseException):
                failures.append(InputFailure(tasks[index].source.path, "detect", outcome))
                if isinstance(outcome, StoreFailure):
                    runner.cancel()  # the store is gone: do not start the remaining inputs
                continue
            results.append(outcome)
            rows += outcome.rows
            bar.set_postfix_str(f"{rows} pages, {rows / max(time.perf_counter() - started, 1e-9):.0f}/s")
    return results
