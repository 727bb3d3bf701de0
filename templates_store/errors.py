"""The exception hierarchy of :mod:`templates_store`.

Every error is a :class:`StoreError`; each subclass is also the builtin a caller would reach for
(``ConnectionError`` for an unreachable store, ``ValueError`` for a bad URL or an unreadable record),
as httpx and attrs do. Messages are one line, name the store by its *redacted* URL (the password
is replaced by ``***``) and, where there is one, the site.
"""

from __future__ import annotations

__all__ = [
    "StoreConfigError",
    "StoreCorrupt",
    "StoreError",
    "StoreUnavailable",
    "VersionConflict",
]


class StoreError(Exception):
    """Base class of every error raised by a template store.

    ``url`` is the redacted store URL (safe to print), ``site`` the site concerned or ``None``.
    """

    def __init__(self, message: str, *, url: str | None = None, site: str | None = None) -> None:
        super().__init__(message)
        self.url = url
        self.site = site


class StoreUnavailable(StoreError, ConnectionError):
    """The store cannot be reached or written: server down, timeouts after retries, a file or
    directory that is not writable, a database locked past the busy timeout."""


class StoreConfigError(StoreError, ValueError):
    """The store URL or one of its options is invalid (unknown scheme, bad option, wrong credentials)."""


class StoreCorrupt(StoreError, ValueError):
    """A stored record, or the store file itself, cannot be read as a template store."""


class VersionConflict(StoreError):
    """A compare-and-set ``put`` found another version than the one expected.

    ``expected`` is the version the caller passed, ``actual`` the version found (0: no template).
    """

    def __init__(self, message: str, *, url: str, site: str, expected: int, actual: int) -> None:
        super().__init__(message, url=url, site=site)
        self.expected = expected
        self.actual = actual

    def __reduce__(self):  # keyword-only __init__: make the error survive pickling (multiprocessing)
        return (_rebuild_conflict, (str(self), self.url, self.site, self.expected, self.actual))


def _rebuild_conflict(message: str, url: str, site: str, expected: int, actual: int) -> VersionConflict:
    return VersionConflict(message, url=url, site=site, expected=expected, actual=actual)
