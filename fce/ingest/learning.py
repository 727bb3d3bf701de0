"""The learn side of ``fce ingest``: the sample task (map side of the bottom-k sample, one per input) and the learn
task (a batch of domains: read their sampled pages again, parse, learn, store with compare-and-set).

Both run in worker processes (see :mod:`fce.ingest.engine`); the orchestrator, :func:`fce.ingest.pipeline.ingest`,
merges the samples and decides which domains to learn.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from fce.errors import InputError, LearnError, PageTimeoutError, StoreFailure
from fce.ingest.domains import registered_domain
from fce.ingest.engine import prepare_worker, worker_store
from fce.ingest.readers import InputSource, RawRecord, open_input
from fce.ingest.sample import Sample, Sampler
from fce.ingest.settings import Settings, parse_record
from fce.parse import Page
from fce.pipeline import learn_site

if TYPE_CHECKING:
    from templates_store import TemplateStore

__all__ = ["LearnJob", "LearnOutcome", "LearnTask", "SampleTask", "learn_batch_size", "learn_domains",
           "sample_input"]

#: Domains per learn task at most: enough to amortise a task's start-up (shipping the run's list of inputs,
#: reopening them) against learning a domain (~0.6 s for 30 pages of the benchmark, measured in one process),
#: few enough to spread over the workers.
LEARN_BATCH = 8
#: Learn tasks per worker at least, when there are enough domains: a worker that draws the last task idles for
#: at most about 1/LEARN_TASKS_PER_WORKER of a worker's share (13 domains on 2 workers went 8 + 5 before). The
#: price: in a small run more workers learn, and each pays importing scikit-learn once (0.97 s of CPU, measured).
LEARN_TASKS_PER_WORKER = 4


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
                pages[(index, record.ref)] = parse_record(record, settings, learning=True)
            except (InputError, PageTimeoutError):
                continue  # a sampled page that is not usable: learn from the others
    usable = [pages[key] for key in job.pages if key in pages]  # in sample order: independent of file order
    if len(usable) < settings.min_pages:
        return LearnOutcome(job.domain, "too_few",
                            message=f"{len(usable)} usable of {len(job.pages)} sampled pages")
    try:  # at most ``timeout`` seconds per page
        template = learn_site(usable, job.domain, timeout=settings.timeout)  # its layouts (fce.layouts)
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


def learn_batch_size(jobs: int, workers: int) -> int:
    """Domains per learn task: :data:`LEARN_BATCH`, or fewer so that each worker gets
    :data:`LEARN_TASKS_PER_WORKER` tasks."""
    return max(1, min(LEARN_BATCH, -(-jobs // (LEARN_TASKS_PER_WORKER * max(workers, 1)))))
