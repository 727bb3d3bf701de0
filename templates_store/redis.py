"""Shared template store on Redis (redis-py).

Layout, with ``prefix`` (default ``fce``):

* ``{prefix}:tpl:{<site>}`` -- a HASH per site with fields ``payload``, ``version``, ``updated_at``
  (and ``token``, the id of the put that wrote it, see below), and the template's counters ``fits``,
  ``fallbacks`` and ``recent`` (``record`` is one Lua script on this one key: a version check,
  ``HINCRBY`` twice, the recent window appended and trimmed; ``put`` drops them; they expire with it).
  The site sits in a hash tag, so on
  Redis Cluster each site's key lands in its own slot.
* ``{prefix}:sites`` -- a SET of the sites, for :meth:`RedisStore.sites`. Members whose hash has
  expired are removed lazily by ``sites()``.

``put`` is one Lua script: compare-and-set on ``version``, ``HSET``, ``PEXPIRE`` or ``PERSIST``,
``SADD``, atomically. ``delete`` is ``DEL`` + ``SREM`` in ``MULTI``. Both touch the site's key *and*
the sites set, which are in different slots: this backend runs on standalone Redis (or a Sentinel
primary, or a Cluster proxy that allows cross-slot scripts) but not on a bare Redis Cluster, where
the script fails with CROSSSLOT. Moving the sites index would be the only change needed there.

Connections: one client per process, created on first use and dropped when the store is pickled,
so a store object can be shipped to worker processes. Commands are retried on connection errors
and timeouts (``retries`` times, exponential backoff); what still fails raises
:class:`~templates_store.errors.StoreUnavailable` -- there is no silent fallback. A retried ``put``
is idempotent: the script recognises its own ``token`` and returns the version it already wrote.
"""

from __future__ import annotations

import os
import threading
import time
import uuid
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Any, cast
from urllib.parse import parse_qsl, unquote, urlsplit

import redis
from redis.backoff import ExponentialBackoff
from redis.commands.core import Script
from redis.retry import Retry

from templates_store.base import (
    RECENT_WINDOW,
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
)
from templates_store.errors import (
    StoreConfigError,
    StoreCorrupt,
    StoreError,
    StoreUnavailable,
    VersionConflict,
)
from templates_store.url import redact_url, with_query

__all__ = [
    "DEFAULT_PREFIX",
    "DEFAULT_RETRIES",
    "DEFAULT_SOCKET_CONNECT_TIMEOUT",
    "DEFAULT_SOCKET_TIMEOUT",
    "RedisStore",
]

DEFAULT_PREFIX = "fce"
# Two seconds is ample on a LAN for commands that move at most a few MB; a dead server is then
# reported within seconds rather than redis-py's 5 s per attempt.
DEFAULT_SOCKET_TIMEOUT = 2.0
DEFAULT_SOCKET_CONNECT_TIMEOUT = 2.0
DEFAULT_RETRIES = 3
# Waits of 40, 80, 160 ms between attempts (cap 0.5 s): rides out a failover or restart blip
# without making a dead server slow to report.
_BACKOFF_BASE = 0.02
_BACKOFF_CAP = 0.5

# KEYS: template hash, sites set. ARGV: site, payload, updated_at, expected version ('' = any),
# ttl in ms ('' = none), token. Returns {1, version} on success, {0, current version} on conflict.
_PUT_SCRIPT = """
local current = redis.call('HMGET', KEYS[1], 'version', 'token')
local version = 0
if current[1] then
  version = tonumber(current[1])
  if not version then return redis.error_reply('FCECORRUPT version field is not a number') end
end
if current[2] == ARGV[6] then return {1, version} end
if ARGV[4] ~= '' and tonumber(ARGV[4]) ~= version then return {0, version} end
version = version + 1
redis.call('HSET', KEYS[1], 'payload', ARGV[2], 'version', version, 'updated_at', ARGV[3], 'token', ARGV[6])
redis.call('HDEL', KEYS[1], 'fits', 'fallbacks', 'recent')
if ARGV[5] ~= '' then redis.call('PEXPIRE', KEYS[1], ARGV[5]) else redis.call('PERSIST', KEYS[1]) end
redis.call('SADD', KEYS[2], ARGV[1])
return {1, version}
"""
# KEYS: sites set, then template hashes; ARGV: their sites. Removes the sites whose hash is gone,
# re-checked here so that a concurrent put of the same site is never unlisted.
_PRUNE_SCRIPT = """
for i = 2, #KEYS do
  if redis.call('EXISTS', KEYS[i]) == 0 then redis.call('SREM', KEYS[1], ARGV[i - 1]) end
end
return 0
"""
# KEYS: template hash. ARGV: expected version ('' = any), outcomes ('1' fit, '0' fallback), window.
# Returns 1 when counted, 0 when the site has no template or another version.
_RECORD_SCRIPT = """
local version = redis.call('HGET', KEYS[1], 'version')
if not version then return 0 end
if ARGV[1] ~= '' and tonumber(ARGV[1]) ~= tonumber(version) then return 0 end
local fits = 0
for i = 1, #ARGV[2] do
  if string.byte(ARGV[2], i) == 49 then fits = fits + 1 end
end
redis.call('HINCRBY', KEYS[1], 'fits', fits)
redis.call('HINCRBY', KEYS[1], 'fallbacks', #ARGV[2] - fits)
local recent = (redis.call('HGET', KEYS[1], 'recent') or '') .. ARGV[2]
local window = tonumber(ARGV[3])
if #recent > window then recent = string.sub(recent, #recent - window + 1) end
redis.call('HSET', KEYS[1], 'recent', recent)
return 1
"""
_FIELDS = (b"payload", b"version", b"updated_at")
_COUNTER_FIELDS = (b"version", b"fits", b"fallbacks", b"recent")


class RedisStore(TemplateStore):
    """Templates in the Redis server at ``redis_url`` (``redis://``, ``rediss://`` or ``unix://``).

    ``prefix`` starts every key; ``default_ttl`` is the expiry (seconds) of a ``put`` without
    ``ttl``; ``socket_timeout`` / ``socket_connect_timeout`` bound each attempt and ``retries`` the
    number of further attempts after a connection error or timeout.
    """

    _redis: redis.Redis | None  # this process's client, made on first use
    _put_script: Script  # registered on _redis
    _prune_script: Script
    _record_script: Script
    _lock: threading.Lock
    _pid: int  # the process that _redis belongs to

    def __init__(self, redis_url: str, *, prefix: str = DEFAULT_PREFIX, default_ttl: float | None = None,
                 socket_timeout: float = DEFAULT_SOCKET_TIMEOUT,
                 socket_connect_timeout: float = DEFAULT_SOCKET_CONNECT_TIMEOUT,
                 retries: int = DEFAULT_RETRIES) -> None:
        options = {"prefix": (prefix, DEFAULT_PREFIX), "ttl": (default_ttl, None),
                   "socket_timeout": (socket_timeout, DEFAULT_SOCKET_TIMEOUT),
                   "socket_connect_timeout": (socket_connect_timeout, DEFAULT_SOCKET_CONNECT_TIMEOUT),
                   "retries": (retries, DEFAULT_RETRIES)}
        self.url = with_query(redact_url(redis_url),
                               {key: value for key, (value, default) in options.items() if value != default})
        if not prefix or any(char.isspace() or char in "{}" for char in prefix):
            raise StoreConfigError(f"template store {self.url}: prefix {prefix!r} must be non-empty, "
                                   "without spaces or braces", url=self.url)
        if isinstance(retries, bool) or not isinstance(retries, int) or retries < 0:
            raise StoreConfigError(f"template store {self.url}: retries must be an int >= 0", url=self.url)
        self.prefix = prefix
        self.default_ttl = None if default_ttl is None else check_seconds(default_ttl, "default_ttl")
        self.socket_timeout = check_seconds(socket_timeout, "socket_timeout")
        self.socket_connect_timeout = check_seconds(socket_connect_timeout, "socket_connect_timeout")
        self.retries = retries
        self._redis_url = redis_url  # with its password: needed to reconnect, never shown
        self._secrets = _secrets(redis_url)
        self._sites_key = f"{prefix}:sites"
        self._init_process_state()
        self._client()  # builds the client (no I/O) so that a malformed URL fails here, not at first use

    def key(self, site: str) -> str:
        """The name of the site's hash; the site is a hash tag, so Redis Cluster shards by site."""
        return f"{self.prefix}:tpl:{{{check_site(site)}}}"

    # --- TemplateStore ---------------------------------------------------------------------------

    def get(self, site: str) -> StoredTemplate | None:
        key = self.key(site)
        with self._errors(site):
            values = cast(list[bytes | None], self._client().hmget(key, _FIELDS))
        return self._template(site, values)

    def get_many(self, sites: Iterable[str]) -> dict[str, StoredTemplate]:
        wanted = unique_sites(sites)
        if not wanted:
            return {}
        with self._errors():
            pipe = self._client().pipeline(transaction=False)
            for site in wanted:
                pipe.hmget(self.key(site), _FIELDS)
            replies = pipe.execute(raise_on_error=False)
        found = {}
        for site, reply in zip(wanted, replies, strict=True):
            if isinstance(reply, Exception):
                raise self._error(reply, site) from reply
            template = self._template(site, reply)
            if template is not None:
                found[site] = template
        return found

    def put(self, site: str, payload: str, *, expected_version: int | None = None,
            ttl: float | None = None) -> int:
        key = self.key(site)
        check_payload(payload)
        expected_version = check_expected_version(expected_version)
        ttl = self._effective_ttl(ttl)
        args = [site, payload, repr(time.time()), "" if expected_version is None else str(expected_version),
                "" if ttl is None else str(max(1, round(ttl * 1000))), uuid.uuid4().hex]
        with self._errors(site):
            client = self._client()  # first: it also (re)makes the scripts
            applied, version = self._put_script(keys=[key, self._sites_key], args=args, client=client)
        if not applied:
            assert expected_version is not None  # the script only refuses a compare-and-set
            raise VersionConflict(conflict_message(self.url, site, expected_version, version),
                                  url=self.url, site=site, expected=expected_version, actual=version)
        return int(version)

    def delete(self, site: str) -> bool:
        key = self.key(site)
        with self._errors(site):
            pipe = self._client().pipeline(transaction=True)
            pipe.delete(key)
            pipe.srem(self._sites_key, site)
            deleted, _ = pipe.execute()
        return deleted > 0

    def sites(self) -> list[str]:
        with self._errors():
            client = self._client()
            raw_members = cast(set[bytes], client.smembers(self._sites_key))
            members = sorted(self._decode(raw, "site", None) for raw in raw_members)
            if not members:
                return []
            pipe = client.pipeline(transaction=False)
            for site in members:
                pipe.exists(self.key(site))
            exists = pipe.execute()
            gone = [site for site, present in zip(members, exists, strict=True) if not present]
            if gone:
                self._prune_script(keys=[self._sites_key, *map(self.key, gone)], args=gone, client=client)
        return [site for site, present in zip(members, exists, strict=True) if present]

    def record(self, site: str, outcomes: str, *, version: int | None = None) -> bool:
        key = self.key(site)
        check_outcomes(outcomes)
        version = check_expected_version(version)
        args = ["" if version is None else str(version), outcomes, str(RECENT_WINDOW)]
        with self._errors(site):
            client = self._client()
            counted = self._record_script(keys=[key], args=args, client=client)
        return bool(counted)

    def counters(self, sites: Iterable[str]) -> dict[str, SiteCounters]:
        wanted = unique_sites(sites)
        if not wanted:
            return {}
        with self._errors():
            pipe = self._client().pipeline(transaction=False)
            for site in wanted:
                pipe.hmget(self.key(site), _COUNTER_FIELDS)
            replies = pipe.execute(raise_on_error=False)
        found = {}
        for site, reply in zip(wanted, replies, strict=True):
            if isinstance(reply, Exception):
                raise self._error(reply, site) from reply
            version, fits, fallbacks, recent = reply
            if version is None:
                continue
            try:
                found[site] = SiteCounters(site, int(version), int(fits or 0), int(fallbacks or 0),
                                           (recent or b"").decode("ascii"))
            except ValueError as exc:
                raise StoreCorrupt(f"template store {self.url}: unreadable counters for site {site!r}: {exc}",
                                   url=self.url, site=site) from None
        return found

    def ping(self) -> None:
        with self._errors():
            self._client().ping()

    def close(self) -> None:
        with self._lock:
            if self._redis is not None and self._pid == os.getpid():
                self._redis.close()
            self._redis = None

    # --- pickling: each process makes its own client ---------------------------------------------

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        for name in ("_redis", "_put_script", "_prune_script", "_record_script", "_lock", "_pid"):
            state.pop(name, None)  # absent until first use in this process
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._init_process_state()

    # --- internals -------------------------------------------------------------------------------

    def _init_process_state(self) -> None:
        self._redis = None
        self._lock = threading.Lock()
        self._pid = os.getpid()

    def _client(self) -> redis.Redis:
        if self._redis is not None and self._pid == os.getpid():
            return self._redis
        with self._lock:
            if self._redis is None or self._pid != os.getpid():
                try:
                    client = redis.Redis.from_url(
                        self._redis_url,
                        socket_timeout=self.socket_timeout,
                        socket_connect_timeout=self.socket_connect_timeout,
                        retry=Retry(ExponentialBackoff(cap=_BACKOFF_CAP, base=_BACKOFF_BASE), self.retries),
                    )
                    pool = client.connection_pool  # building a connection does no I/O, but makes
                    pool.connection_class(**pool.connection_kwargs)  # redis-py reject unknown options now
                except (ValueError, TypeError) as exc:  # redis-py's verdict on the URL and its options
                    raise StoreConfigError(
                        f"template store {self.url}: invalid Redis URL: {self._scrub(exc)}", url=self.url
                    ) from None
                self._put_script = client.register_script(_PUT_SCRIPT)
                self._prune_script = client.register_script(_PRUNE_SCRIPT)
                self._record_script = client.register_script(_RECORD_SCRIPT)
                self._redis, self._pid = client, os.getpid()
        return self._redis

    @contextmanager
    def _errors(self, site: str | None = None) -> Iterator[None]:
        try:
            yield
        except redis.RedisError as exc:
            raise self._error(exc, site) from exc

    def _error(self, exc: Exception, site: str | None) -> StoreError:
        """The StoreError for a redis-py error: one line, redacted, naming the store and site."""
        reason = self._scrub(exc)
        about = "" if site is None else f" (site {site!r})"
        head = f"template store {self.url}{about}"
        if isinstance(exc, redis.AuthenticationError):
            return StoreConfigError(f"{head}: authentication failed, check the user and password in the "
                                    f"store URL: {reason}", url=self.url, site=site)
        if isinstance(exc, redis.ConnectionError | redis.TimeoutError):
            return StoreUnavailable(f"{head}: Redis unreachable after {self.retries} retries: {reason}",
                                    url=self.url, site=site)
        if isinstance(exc, redis.ResponseError):
            code = str(exc).split(" ", 1)[0]
            if code in ("WRONGTYPE", "FCECORRUPT"):
                return StoreCorrupt(f"{head}: unreadable record: {reason}", url=self.url, site=site)
            if code in ("READONLY", "MASTERDOWN", "LOADING", "BUSY", "OOM", "MISCONF"):
                return StoreUnavailable(f"{head}: Redis refused the command: {reason}",
                                        url=self.url, site=site)
            if code in ("NOPERM", "NOAUTH"):
                return StoreConfigError(f"{head}: not permitted, check the user in the store URL: {reason}",
                                        url=self.url, site=site)
        return StoreError(f"{head}: {type(exc).__name__}: {reason}", url=self.url, site=site)

    def _scrub(self, exc: BaseException) -> str:
        """The error text on one line, with any password from the URL masked (in case a server echoes it)."""
        text = " ".join(str(exc).split()) or type(exc).__name__
        for secret in self._secrets:
            text = text.replace(secret, "***")
        return text

    def _template(self, site: str, values: list[bytes | None]) -> StoredTemplate | None:
        payload, version, updated_at = values
        if payload is None and version is None and updated_at is None:
            return None
        try:
            if payload is None or version is None or updated_at is None:
                raise ValueError("a field is missing")
            return StoredTemplate(site=site, payload=payload.decode("utf-8"), version=int(version),
                                  updated_at=float(updated_at))
        except ValueError as exc:  # UnicodeDecodeError is a ValueError too
            raise StoreCorrupt(f"template store {self.url}: unreadable record for site {site!r}: {exc}",
                               url=self.url, site=site) from None

    def _decode(self, raw: bytes, what: str, site: str | None) -> str:
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError:
            raise StoreCorrupt(f"template store {self.url}: {what} {raw!r} in {self._sites_key} is not UTF-8",
                               url=self.url, site=site) from None


def _secrets(url: str) -> list[str]:
    """Passwords in a Redis URL, as written and percent-decoded, to scrub from error texts."""
    parts = urlsplit(url)
    found = [value for key, value in parse_qsl(parts.query) if key.lower() == "password"]
    userinfo = parts.netloc.rpartition("@")[0]
    if ":" in userinfo:
        found.append(userinfo.partition(":")[2])
    return [text for secret in found for text in {secret, unquote(secret)} if text]


