"""In-process template store: a dict behind a lock, with the same semantics as the other backends.

For unit tests and documentation examples. Nothing is shared between processes: a pickled
``MemoryStore`` arrives as an independent copy of its templates.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Any

from templates_store.base import (
    SiteCounters,
    StoredTemplate,
    TemplateStore,
    check_expected_version,
    check_outcomes,
    check_payload,
    check_seconds,
    check_site,
    conflict_message,
    unique_sites,
    updated_counters,
)
from templates_store.errors import VersionConflict
from templates_store.naming import with_query

__all__ = ["MemoryStore"]


@dataclass(frozen=True, slots=True)
class _Record:
    template: StoredTemplate
    expires_at: float | None
    counters: SiteCounters


class MemoryStore(TemplateStore):
    """Templates in a dict of this process. ``default_ttl``: expiry (seconds) of a ``put`` without ``ttl``."""

    def __init__(self, *, default_ttl: float | None = None) -> None:
        self.default_ttl = None if default_ttl is None else check_seconds(default_ttl, "default_ttl")
        self.url = with_query("memory://", {} if self.default_ttl is None else {"ttl": self.default_ttl})
        self._records: dict[str, _Record] = {}
        self._lock = threading.Lock()

    def get(self, site: str) -> StoredTemplate | None:
        check_site(site)
        with self._lock:
            return self._live(site, time.time())

    def get_many(self, sites: Iterable[str]) -> dict[str, StoredTemplate]:
        wanted = unique_sites(sites)
        now = time.time()
        with self._lock:
            found = {site: self._live(site, now) for site in wanted}
        return {site: template for site, template in found.items() if template is not None}

    def put(self, site: str, payload: str, *, expected_version: int | None = None,
            ttl: float | None = None) -> int:
        check_site(site)
        check_payload(payload)
        expected_version = check_expected_version(expected_version)
        ttl = self._effective_ttl(ttl)
        with self._lock:
            now = time.time()
            current = self._live(site, now)
            actual = 0 if current is None else current.version
            if expected_version is not None and expected_version != actual:
                raise VersionConflict(conflict_message(self.url, site, expected_version, actual),
                                      url=self.url, site=site, expected=expected_version, actual=actual)
            template = StoredTemplate(site=site, payload=payload, version=actual + 1, updated_at=now)
            self._records[site] = _Record(template, None if ttl is None else now + ttl,
                                          SiteCounters(site, template.version))
            return template.version

    def delete(self, site: str) -> bool:
        check_site(site)
        with self._lock:
            live = self._live(site, time.time()) is not None
            self._records.pop(site, None)
            return live

    def sites(self) -> list[str]:
        now = time.time()
        with self._lock:
            return sorted(site for site in list(self._records) if self._live(site, now) is not None)

    def record(self, site: str, outcomes: str, *, version: int | None = None) -> bool:
        check_site(site)
        check_outcomes(outcomes)
        version = check_expected_version(version)
        with self._lock:
            if self._live(site, time.time()) is None:
                return False
            current = self._records[site]
            if version is not None and version != current.template.version:
                return False
            self._records[site] = replace(current, counters=updated_counters(current.counters, outcomes))
            return True

    def counters(self, sites: Iterable[str]) -> dict[str, SiteCounters]:
        wanted = unique_sites(sites)
        now = time.time()
        with self._lock:
            return {site: self._records[site].counters for site in wanted if self._live(site, now) is not None}

    def ping(self) -> None:
        return None

    def close(self) -> None:
        return None

    def _live(self, site: str, now: float) -> StoredTemplate | None:
        """The site's unexpired template; drops an expired one. Call with the lock held."""
        record = self._records.get(site)
        if record is None:
            return None
        if record.expires_at is not None and record.expires_at <= now:
            del self._records[site]
            return None
        return record.template

    def __getstate__(self) -> dict[str, Any]:
        with self._lock:
            state = self.__dict__.copy()
            state["_records"] = dict(self._records)
        del state["_lock"]
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._lock = threading.Lock()
