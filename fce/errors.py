"""The exceptions fce raises, one hierarchy with one base class.

Every class is also a builtin exception (as httpx and attrs do), so callers can catch ``ValueError`` or
``LookupError`` without importing fce. Each carries the process exit code the CLI maps it to; the mapping lives
here, in one table (:data:`EXIT_CODES`), and is documented in the README.

    FceError
    ├── InputError (ValueError)            a page we cannot use
    │   ├── EmptyPageError                 no bytes, or no markup at all
    │   ├── NotHTMLError                   binary data (image, PDF, archive) or text that is not HTML
    │   └── PageTooLargeError              larger than the size cap
    ├── SourceError (OSError)              an input we cannot read (missing file, unreadable directory)
    ├── FetchError (ConnectionError)       a URL that cannot be fetched (DNS, refused, timeout, HTTP error)
    ├── PageTimeoutError (TimeoutError)    a method ran past the per-page time limit
    ├── LearnError (ValueError)            too few usable pages to learn a template
    ├── TemplateNotFoundError (LookupError) no template for the site (only where no fallback is allowed)
    ├── TemplateError (ValueError)         a stored template that is corrupt, of another schema, or of another site
    ├── UnknownMethodError (LookupError)   ``--method`` names no registered method
    ├── StoreFailure (ConnectionError)     the template store failed (wraps templates_store.StoreError)
    ├── EngineError (ConnectionError)      the batch engine cannot run: its scheduler is unreachable
    ├── BrowserError (OSError)             ``fce show --png``: no headless browser installed, or it failed
    └── MissingExtraError (ImportError)    an optional part is not installed (the message says which extra)
"""

from __future__ import annotations

__all__ = [
    "EXIT_CODES",
    "BrowserError",
    "EmptyPageError",
    "EngineError",
    "FceError",
    "FetchError",
    "InputError",
    "LearnError",
    "MissingExtraError",
    "NotHTMLError",
    "PageTimeoutError",
    "PageTooLargeError",
    "SourceError",
    "StoreFailure",
    "TemplateError",
    "TemplateNotFoundError",
    "UnknownMethodError",
]


class FceError(Exception):
    """Base class of every error fce raises on purpose. ``exit_code`` is the CLI's exit status for it."""

    exit_code: int = 1

    def __init__(self, message: str, *, source: str | None = None) -> None:
        self.source = source
        super().__init__(f"{source}: {message}" if source else message)


class InputError(FceError, ValueError):
    """A page that cannot be used as HTML (base class; its subclasses say why)."""

    exit_code = 14


class EmptyPageError(InputError):
    """The page has no bytes, or no markup and no text."""

    exit_code = 4


class NotHTMLError(InputError):
    """Binary data (image, PDF, archive, random bytes) or text that is not HTML (JSON, CSS, plain text)."""

    exit_code = 5


class PageTooLargeError(InputError):
    """The page is larger than the size cap (``--max-bytes``)."""

    exit_code = 6


class SourceError(FceError, OSError):
    """An input that cannot be read: missing file, unreadable directory, empty URL list."""

    exit_code = 3


class FetchError(FceError, ConnectionError):
    """A URL that could not be fetched: unreachable host, timeout, HTTP error status, size cap exceeded."""

    exit_code = 7


class PageTimeoutError(FceError, TimeoutError):
    """Processing one page took longer than the per-page time limit."""

    exit_code = 8


class LearnError(FceError, ValueError):
    """Too few usable pages to learn a template (see ``fce.learn.MIN_PAGES``)."""

    exit_code = 9


class TemplateNotFoundError(FceError, LookupError):
    """No template is stored for the site, and the caller did not allow a fallback."""

    exit_code = 10


class TemplateError(FceError, ValueError):
    """A template that cannot be used: corrupt JSON, another schema version, or learned for another site."""

    exit_code = 11


class UnknownMethodError(FceError, LookupError):
    """``--method`` names no registered extraction method."""

    exit_code = 12


class StoreFailure(FceError, ConnectionError):
    """The template store failed: unreachable server, locked or read-only file, bad store URL."""

    exit_code = 13


class EngineError(FceError, ConnectionError):
    """``fce ingest --engine dask`` cannot run: the scheduler is unreachable."""

    exit_code = 15


class BrowserError(FceError, OSError):
    """``fce show --png``: no headless browser (Chromium) is installed, or it failed to take the screenshot."""

    exit_code = 16


class MissingExtraError(FceError, ImportError):
    """An optional part of fce is not installed (the message names the extra and how to install it:
    :func:`fce.extras.install_hint`); ``extra`` is its name."""

    exit_code = 17

    def __init__(self, message: str, *, extra: str, source: str | None = None) -> None:
        self.extra = extra
        super().__init__(message, source=source)


#: Exit status of the CLI per error class; 0 is success, 1 an unexpected internal error, 2 a usage error
#: (Typer's own). The most specific class wins.
EXIT_CODES: dict[type[FceError], int] = {
    cls: cls.exit_code
    for cls in (
        FceError,
        InputError,
        EmptyPageError,
        NotHTMLError,
        PageTooLargeError,
        SourceError,
        FetchError,
        PageTimeoutError,
        LearnError,
        TemplateNotFoundError,
        TemplateError,
        UnknownMethodError,
        StoreFailure,
        EngineError,
        BrowserError,
        MissingExtraError,
    )
}
