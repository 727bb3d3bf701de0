"""``fce ingest``: learn and apply site templates over crawl files, per registered domain.

The whole job, :func:`ingest` (the tasks are in :mod:`~fce.ingest.learning` and :mod:`~fce.ingest.detection`,
what they write in :mod:`~fce.ingest.outputs`)::

    inputs ─► sample    one task per input: the bottom-k URL hashes per domain     (learning.sample_input)
           ─► merge     in the driver; domains with >= min_pages sampled pages and no fresh template (none, too
                        old, unreadable, or stale: its recent fit rate fell, fce.layouts.is_stale)
           ─► learn     tasks of up to LEARN_BATCH domains: read the sampled pages again, learn, put with CAS
           ─► detect    one task per input: every record → one JSON line in OUT/<input>.<hash>.jsonl

Tasks are submitted largest input first (and learn batches made small enough for every worker to get several),
so that the run does not end with one worker busy on a big input while the others wait.

``learn_only`` stops after learning; ``detect_only`` skips straight to detection with the templates in the store.
Only pages with a URL, HTML, within the size cap and a 2xx (or no) HTTP status are sampled; a page without a
URL (a folder without ``.json`` metadata) takes its domain from its canonical link or ``og:url`` when detected.

**Rows.** Exactly one per record (see :mod:`fce.ingest.readers` for what a record is), in input order, with the
keys of :data:`~fce.ingest.detection.ROW_KEYS`. ``status`` is one of :data:`~fce.ingest.detection.STATUSES`:

=====================  ========================================================================================
``ok``                 extracted with the domain's template (with ``method``: that method ran)
``fallback``           no template, or it did not fit (``fallback_reason``): extracted by the fallback method
``skipped_non_html``   not HTML by its content type (images, PDFs, CSS, JSON, ...)
``too_large``          over the size cap (``max_bytes``); the body is not read
``timeout``            parsing, or extracting, took longer than the per-record limit (``timeout``)
``decode_error``       the body cannot be decoded (bad Content-Encoding, truncated record, bad JSON line)
``not_html``           declared HTML, but binary data or text without markup
``empty``              no content at all
``store_error``        the domain's stored template is unusable (corrupt, other schema, other site), was not
                       relearned, and there is no fallback (``fallback=None``); with one, such records are
                       ``fallback`` rows with ``fallback_reason`` ``template-error``
``error``              anything else that went wrong with this record (the message is in ``error``)
=====================  ========================================================================================

**Store faults are never rows.** When the template store cannot be reached the task fails with
:class:`~fce.errors.StoreFailure` (the engine retries it), no record of that input is written as a silent
``fallback``, and the run ends with an error naming the store. Outputs of completed inputs stay, and each input
has a manifest (``OUT/<input>.<hash>.manifest.json``, written atomically after its output) saying it is done,
so a rerun of the same command skips them and completes the job.
"""

from __future__ import annotations

import os
import sys
import time
import uuid
from collections import Counter
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from fce.errors import FceError, SourceError, StoreFailure, TemplateError
from fce.ingest.detection import ROW_KEYS, STAGES, STATUSES, DetectTask, InputResult, detect_input
from fce.ingest.domains import registered_domain
from fce.ingest.engine import Engine, open_engine, process_id
from fce.ingest.learning import LearnJob, LearnTask, SampleTask, learn_batch_size, learn_domains, sample_input
from fce.ingest.outputs import completed_manifest, input_size, output_paths
from fce.ingest.readers import InputSource, expand_inputs
from fce.ingest.sample import Sample, merge_samples
from fce.ingest.settings import Settings
from fce.layouts import is_stale
from fce.limits import DEFAULT_PAGE_TIMEOUT
from fce.parse import MAX_PAGE_BYTES
from fce.pipeline import DEFAULT_FALLBACK
from fce.template import SiteTemplates

if TYPE_CHECKING:
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


#: Pages sampled per domain. The paper learns from "between 20 to 30 web pages" (Nguyen et al., §IV).
DEFAULT_K = 30
#: Sampled pages a domain needs before a template is learned for it. Most domains of a crawl have 5–10 pages, and
#: from 5 pages up learning pays (measured k-fold on daniel-small and dragnet-small, sites of 5–19 and 5–9 pages,
#: 4–8 of them learned from: site-macro word F1 +0.043 and +0.045 over fce without a template, no page more than
#: 0.3 below it). The paper learns from 20–30 (§IV); learning refuses fewer than 3 distinct pages.
DEFAULT_MIN_PAGES = 5
#: Seconds per record for parsing, and again for extracting (fce's per-page limit, :mod:`fce.limits`).
DEFAULT_RECORD_TIMEOUT = DEFAULT_PAGE_TIMEOUT
#: Further attempts of a task that failed because the store was unreachable.
DEFAULT_RETRIES = 2

#: Domains per ``get_many`` when the driver checks which templates are fresh.
FRESHNESS_BATCH = 500


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
    stale: int = 0  # domains whose stored template was stale (fce.layouts.is_stale) and was learned again
    conflicts: int = 0  # domains whose put lost a compare-and-set: a newer template was kept
    not_learned: dict[str, int] = field(default_factory=dict)  # reason -> domains
    seconds: float = 0.0
    phase_seconds: dict[str, float] = field(default_factory=dict)
    stage_seconds: dict[str, float] = field(default_factory=dict)  # detect tasks' time per stage (STAGES), summed
    stage_cpu_seconds: dict[str, float] = field(default_factory=dict)  # the same, CPU time of the tasks
    workers: int = 1
    out_dir: str = ""
    store: str | None = None
    learn_only: bool = False
    outcomes_lost: int = 0  # fit/fallback counts the store did not take, after retries (their rows are written)
    outcomes_error: str | None = None  # why, the first store error

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
        lines.append(f"domains:   {self.domains} sampled, {len(self.learned)} learned ({self.stale} of them stale), "
                     f"{self.fresh} already fresh, {self.conflicts} kept a newer template"
                     + (f", not learned: {not_learned}" if not_learned else ""))
        if self.phase_seconds:
            lines.append("phases:    " + ", ".join(f"{k} {v:.2f} s" for k, v in self.phase_seconds.items()))
        for label, stages, what in (("cpu/page:  ", self.stage_cpu_seconds, "CPU"),
                                    ("wall/page: ", self.stage_seconds, "wall-clock")):
            if self.rows and any(stages.values()):
                lines.append(label + " · ".join(f"{k} {1000 * v / self.rows:.2f}" for k, v in stages.items())
                             + f" ms ({what}, in the workers)")
        if self.outcomes_lost:
            lines.append(f"counts:    {self.outcomes_lost} fit/fallback counts not stored ({self.outcomes_error}); "
                         "the rows are written, the sites' drift counters miss them")
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
    relearn_stale: bool = True,
    ttl: float | None = None,
    fallback: str | None = DEFAULT_FALLBACK,
    method: str | None = None,
    comments: bool = False,
    raise_on_failure: bool = True,
) -> IngestSummary:
    """Learn templates per registered domain from ``inputs`` and extract every record into ``out_dir``.

    ``inputs``: WARC / WARC.gz files, JSON lines files, folders (see :func:`fce.ingest.readers.expand_inputs`).
    ``store``: a template store or its URL (``None``: ``$FCE_STORE`` or the default SQLite file); an in-process
    ``memory://`` store runs every task in this process. ``engine``: ``"local"`` (``workers`` processes,
    default one per CPU; 0 = this process) or ``"dask"`` (the cluster at ``scheduler``, else a LocalCluster of
    ``workers`` processes). ``k`` pages are sampled per domain; domains with at least ``min_pages`` of them
    and no template in the store — or one older than ``refresh_after`` seconds, or unreadable, or (with
    ``relearn_stale``) stale by its drift counters (:func:`fce.layouts.is_stale`: the recent detections of the
    site mostly fell back, as after a redesign) — are learned from this run's pages and stored
    with compare-and-set (``ttl``: their expiry in seconds). ``max_bytes`` caps a record's size; ``timeout``
    (seconds, ``None``: none) bounds its parsing and, again, its extraction, and learning to that much per page
    (:mod:`fce.limits`). ``method`` runs that single-page method on every
    record instead of templates (no store, no learning: a baseline for benchmarks). ``comments``: every row also
    gives the page's reader comments, which its text leaves out (:func:`fce.pipeline.with_comments`). ``retries``:
    further attempts of a task that failed on the store.

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
        min_pages=min_pages, fallback=fallback, method=method, ttl=ttl, comments=comments,
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
                                         failures, retries, relearn_stale=relearn_stale)
        if not learn_only and pending and not _store_failed(failures):
            with timer("detect"):
                results = _detect_phase(runner, pending, settings, progress, failures, retries)
        n_workers = max(runner.workers, 1)
    counts: Counter[str] = Counter()
    other: Counter[str] = Counter()
    stages = dict.fromkeys(STAGES, 0.0)
    stages_cpu = dict.fromkeys(STAGES, 0.0)
    lost, lost_error = 0, None
    for result in results:
        counts.update(result.counts)
        other.update(result.other_records)
        lost += result.outcomes_lost
        lost_error = lost_error or result.outcomes_error
        for stage in STAGES:
            stages[stage] += result.stage_seconds.get(stage, 0.0)
            stages_cpu[stage] += result.stage_cpu_seconds.get(stage, 0.0)
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
        stale=learn.stale,
        conflicts=learn.conflicts,
        not_learned=dict(learn.not_learned),
        seconds=time.perf_counter() - started,
        phase_seconds=timer.seconds,
        stage_seconds={stage: round(seconds, 3) for stage, seconds in stages.items()},
        stage_cpu_seconds={stage: round(seconds, 3) for stage, seconds in stages_cpu.items()},
        workers=n_workers,
        out_dir=str(out),
        store=None if the_store is None else the_store.url,
        learn_only=learn_only,
        outcomes_lost=lost,
        outcomes_error=lost_error,
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
    stale: int = 0
    conflicts: int = 0
    not_learned: Counter[str] = field(default_factory=Counter)


def _learn_phase(runner: Engine, store: TemplateStore, sample: Sample, sources: Sequence[InputSource],
                 settings: Settings, refresh_after: float | None, progress: bool,
                 failures: list[InputFailure], retries: int, *, relearn_stale: bool = True) -> LearnReport:
    report = LearnReport(domains=len(sample.entries))
    candidates = sample.domains_with(settings.min_pages)
    report.not_learned["too_few_pages"] = len(sample.entries) - len(candidates)
    existing, unreadable = _stored(store, candidates)
    report.not_learned["store_error"] = len(unreadable)  # a record the store cannot read: no version to CAS on
    stale = _stale(store, existing) if relearn_stale else set()
    jobs = []
    for domain in candidates:
        record = existing.get(domain)
        if domain in unreadable:
            continue
        if record is not None and domain not in stale and _fresh(record, domain, refresh_after):
            report.fresh += 1
            continue
        report.stale += domain in stale
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


def _stale(store: TemplateStore, records: dict[str, StoredTemplate]) -> set[str]:
    """The domains whose stored record is stale by its drift counters (:func:`fce.layouts.is_stale`), counted
    for the version stored now."""
    from templates_store import StoreError

    domains = sorted(records)
    stale: set[str] = set()
    try:
        for i in range(0, len(domains), FRESHNESS_BATCH):
            for domain, count in store.counters(domains[i:i + FRESHNESS_BATCH]).items():
                if count.version == records[domain].version and is_stale(count):
                    stale.add(domain)
    except StoreError as exc:
        raise StoreFailure(str(exc)) from None
    return stale


def _fresh(record: StoredTemplate, domain: str, refresh_after: float | None) -> bool:
    """A stored template that can be used and is young enough: it is kept, not learned again."""
    if refresh_after is not None and time.time() - record.updated_at > refresh_after:
        return False
    try:
        SiteTemplates.from_json(record.payload, site=domain)
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
