"""The storage interface: :class:`StoredTemplate` and the abstract :class:`TemplateStore`.

A store keeps one opaque text payload (the JSON that fce produces) per site. It knows nothing of
what the payload means; it only guarantees that a ``put`` replaces a site's template atomically and
that each replacement gets the next version number.

Versions count from 1 since the site's template was (re)created: after ``delete`` or expiry a site
has no template (version 0 for compare-and-set) and the next ``put`` stores version 1 again.

Each site's template also has **counters** of how it fared (:class:`SiteCounters`): how many detections used
it (fits), how many fell back, and how many it fitted but lost to the check of its result (overruled), in total
and over the last :data:`RECENT_WINDOW` detections. They belong to
the stored version: every ``put`` starts them afresh, ``delete`` and expiry drop them, and ``record`` for
another version than the stored one is ignored (counts of a replaced template must not judge its successor).
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from collections.abc import Iterable
from dataclasses import dataclass
from types import TracebackType
from typing import Self

__all__ = ["FALLBACK", "FIT", "OVERRULED", "RECENT_WINDOW", "SiteCounters", "StoredTemplate", "TemplateStore"]

#: Outcomes of the last this-many detections of a site are kept ("recent", a sliding window). A window of 100
#: reacts within one day of a redesign for a site with ≥ 100 pages a day, yet a few odd pages (<= 10 %) barely
#: move its fit rate; it costs 100 bytes per site.
RECENT_WINDOW = 100

#: The outcome characters of ``TemplateStore.record``: the template was used, the fallback ran (no layout fitted,
#: or the template extracted nothing), the template fitted but the check of its result chose the fallback's.
FIT, FALLBACK, OVERRULED = "1", "0", "2"


@dataclass(frozen=True, slots=True)
class StoredTemplate:
    """One site's template as stored."""

    site: str
    payload: str  # opaque JSON text
    version: int  # 1, 2, 3, ... per site
    updated_at: float  # unix time of the put that stored it


@dataclass(frozen=True, slots=True)
class SiteCounters:
    """How one stored template fared: ``fits``, ``fallbacks`` and ``overruled`` since it was stored (version
    ``version``), and ``recent``, the outcomes of its last :data:`RECENT_WINDOW` detections, oldest first (``"1"`` a
    fit, ``"0"`` a fallback, ``"2"`` overruled)."""

    site: str
    version: int
    fits: int = 0
    fallbacks: int = 0
    recent: str = ""
    overruled: int = 0

    @property
    def recent_count(self) -> int:
        return len(self.recent)

    @property
    def recent_fits(self) -> int:
        return self.recent.count(FIT)

    @property
    def recent_overruled(self) -> int:
        return self.recent.count(OVERRULED)

    @property
    def recent_fit_rate(self) -> float | None:
        """Share of fits among the recent detections (``None`` before any)."""
        return self.recent_fits / len(self.recent) if self.recent else None


class TemplateStore(ABC):
    """Storage of one opaque text payload per site.

    Backends: :class:`~templates_store.sqlite.SQLiteStore` (embedded, the default),
    :class:`~templates_store.redis.RedisStore` (shared), :class:`~templates_store.memory.MemoryStore`
    (in-process, for tests). Build one with :func:`templates_store.open_store`.

    ``url`` is the store's redacted URL (password replaced by ``***``), safe to print or log.
    ``default_ttl`` (seconds or ``None``) applies to a ``put`` that passes no ``ttl``.

    A store is a context manager; ``close`` is idempotent and a closed store reopens lazily when
    used again. Stores are picklable: the connection is dropped and rebuilt in the receiving
    process, so one store object can be shipped to worker processes.
    """

    url: str
    default_ttl: float | None

    @abstractmethod
    def get(self, site: str) -> StoredTemplate | None:
        """The site's template, or ``None`` when it has none (never stored, deleted or expired)."""

    @abstractmethod
    def get_many(self, sites: Iterable[str]) -> dict[str, StoredTemplate]:
        """Templates of the given sites that have one, keyed by site (one round trip on a server)."""

    @abstractmethod
    def put(self, site: str, payload: str, *, expected_version: int | None = None,
            ttl: float | None = None) -> int:
        """Atomically replace the site's template and return its new version.

        ``expected_version=None`` replaces unconditionally. ``expected_version=N`` is a
        compare-and-set: the put happens only if the current version is ``N`` (``0``: the site must
        have no template), otherwise :class:`~templates_store.errors.VersionConflict` is raised.
        ``ttl`` (seconds) makes the template expire; ``None`` uses ``default_ttl``.
        """

    @abstractmethod
    def delete(self, site: str) -> bool:
        """Remove the site's template; ``True`` if it had one."""

    @abstractmethod
    def sites(self) -> list[str]:
        """Sites that have a template, sorted."""

    @abstractmethod
    def record(self, site: str, outcomes: str, *, version: int | None = None) -> bool:
        """Count detections of the site's template, atomically: ``outcomes`` is one character per detection,
        ``"1"`` (a fit), ``"0"`` (a fallback) or ``"2"`` (overruled), oldest first. ``version`` (when given) must be
        the stored version, otherwise nothing is counted. Returns whether the outcomes were counted (``False``: the
        site has no template, another version, or the store is opened read-only)."""

    @abstractmethod
    def counters(self, sites: Iterable[str]) -> dict[str, SiteCounters]:
        """Counters of the given sites that have a template, keyed by site (a site never counted has zeros)."""

    @abstractmethod
    def ping(self) -> None:
        """Raise :class:`~templates_store.errors.StoreUnavailable` if the store cannot be used."""

    @abstractmethod
    def close(self) -> None:
        """Release connections. Idempotent."""

    def __enter__(self) -> Self:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.url!r})"

    # Argument checks shared by the backends. Misuse is a programming error, hence plain
    # TypeError / ValueError rather than StoreError.
    def _effective_ttl(self, ttl: float | None) -> float | None:
        ttl = self.default_ttl if ttl is None else ttl
        if ttl is not None:
            ttl = check_seconds(ttl, "ttl")
        return ttl


def check_site(site: object) -> str:
    if not isinstance(site, str):
        raise TypeError(f"site must be a str, not {type(site).__name__}")
    if not site:
        raise ValueError("site must not be empty")
    _check_utf8(site, "site")
    return site


def check_payload(payload: object) -> str:
    if not isinstance(payload, str):
        raise TypeError(f"payload must be a str (JSON text), not {type(payload).__name__}")
    _check_utf8(payload, "payload")
    return payload


def _check_utf8(text: str, what: str) -> None:
    """Refuse lone surrogates, which no backend can store (all of them keep UTF-8)."""
    if not text.isascii():
        try:
            text.encode("utf-8")
        except UnicodeEncodeError as exc:
            raise ValueError(f"{what} is not valid Unicode: {exc.reason} at index {exc.start}") from None


def check_outcomes(outcomes: object) -> str:
    if not isinstance(outcomes, str):
        raise TypeError(f"outcomes must be a str of '1', '0' and '2', not {type(outcomes).__name__}")
    if outcomes.strip(FIT + FALLBACK + OVERRULED):
        raise ValueError(f"outcomes must hold only {FIT!r} (fit), {FALLBACK!r} (fallback) and {OVERRULED!r} "
                         "(overruled)")
    return outcomes


def updated_counters(current: SiteCounters, outcomes: str) -> SiteCounters:
    """``current`` after ``outcomes`` (the reference semantics every backend implements)."""
    fits, overruled = outcomes.count(FIT), outcomes.count(OVERRULED)
    return SiteCounters(current.site, current.version, current.fits + fits,
                        current.fallbacks + len(outcomes) - fits - overruled,
                        (current.recent + outcomes)[-RECENT_WINDOW:], current.overruled + overruled)


def check_expected_version(expected_version: object) -> int | None:
    if expected_version is None:
        return None
    if isinstance(expected_version, bool) or not isinstance(expected_version, int):
        raise TypeError(f"expected_version must be an int or None, not {type(expected_version).__name__}")
    if expected_version < 0:
        raise ValueError(f"expected_version must be >= 0, not {expected_version}")
    return expected_version


def check_seconds(value: object, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise TypeError(f"{name} must be a number of seconds, not {type(value).__name__}")
    if not (value > 0 and math.isfinite(value)):
        raise ValueError(f"{name} must be a positive finite number of seconds, not {value}")
    return float(value)


def unique_sites(sites: Iterable[str]) -> list[str]:
    """Checked sites without duplicates, in first-seen order (a bare str is refused: it is iterable)."""
    if isinstance(sites, str):
        raise TypeError("get_many takes an iterable of sites, not a single str")
    return list(dict.fromkeys(check_site(site) for site in sites))


def conflict_message(url: str, site: str, expected: int, actual: int) -> str:
    found = "no template" if actual == 0 else f"version {actual}"
    wanted = "no template" if expected == 0 else f"version {expected}"
    return f"template store {url}: site {site!r} has {found}, expected {wanted}"
