"""Storage of fce templates: one opaque JSON text per site, behind a small interface.

>>> from templates_store import open_store
>>> with open_store("memory://") as store:
...     store.put("example.com", '{"xpath": "//article"}')
...     store.get("example.com").version
1
1

``open_store()`` without a URL reads ``$FCE_STORE`` and otherwise opens the embedded SQLite file.
Backends know nothing of the algorithm; fce never sees a Redis client or a file path.
"""

from typing import TYPE_CHECKING, Any

from templates_store.base import FALLBACK, FIT, OVERRULED, RECENT_WINDOW, SiteCounters, StoredTemplate, TemplateStore
from templates_store.errors import (
    StoreConfigError,
    StoreCorrupt,
    StoreError,
    StoreUnavailable,
    VersionConflict,
)
from templates_store.memory import MemoryStore
from templates_store.sqlite import SQLiteStore
from templates_store.url import default_store_path, open_store, redact_url

if TYPE_CHECKING:
    from templates_store.redis import RedisStore


def __getattr__(name: str) -> Any:
    """``RedisStore`` on first use: importing redis-py took 70 ms, a tenth of an ``fce detect`` of one page that
    reads the embedded SQLite store (``open_store`` imports it only for a redis URL)."""
    if name == "RedisStore":
        from templates_store.redis import RedisStore

        return RedisStore
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

__all__ = [
    "FALLBACK",
    "FIT",
    "OVERRULED",
    "RECENT_WINDOW",
    "MemoryStore",
    "RedisStore",
    "SQLiteStore",
    "SiteCounters",
    "StoreConfigError",
    "StoreCorrupt",
    "StoreError",
    "StoreUnavailable",
    "StoredTemplate",
    "TemplateStore",
    "VersionConflict",
    "default_store_path",
    "open_store",
    "redact_url",
]
