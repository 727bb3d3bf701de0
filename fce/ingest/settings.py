"""What every task of ``fce ingest`` receives (:class:`Settings`), and parsing a record within its limits."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from fce.ingest.readers import RawRecord
from fce.limits import run_limited
from fce.parse import Page, parse_page

if TYPE_CHECKING:
    from templates_store import TemplateStore

__all__ = ["Settings", "parse_record"]


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


def parse_record(record: RawRecord, settings: Settings) -> Page:
    """Parse a record's body, within the time limit."""
    data = record.data
    assert data is not None
    return run_limited(settings.timeout, lambda: parse_page(data, url=record.url, declared_charset=record.charset,
                                                            source=record.url, max_bytes=settings.max_bytes),
                       source=record.url)
