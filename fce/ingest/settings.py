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
    comments: bool = False  # each row also gives the page's reader comments (fce.pipeline.with_comments)


def parse_record(record: RawRecord, settings: Settings, *, learning: bool = False) -> Page:
    """Parse a record's body, within the time limit; its block tree made while parsing where that is what learning,
    the method, or the template and fallback read (``fce.parse.parse_page``'s ``blocks``)."""
    from fce.blocks import DEFAULT_PATH_STYLE
    from fce.methods import get_method
    from fce.pipeline import parse_blocks

    data = record.data
    assert data is not None
    blocks = (DEFAULT_PATH_STYLE if learning else get_method(settings.method).blocks if settings.method is not None
              else parse_blocks(settings.fallback))
    return run_limited(settings.timeout, lambda: parse_page(data, url=record.url, declared_charset=record.charset,
                                                            source=record.url, max_bytes=settings.max_bytes,
                                                            blocks=blocks),
                       source=record.url)
