"""Shared template store on Redis (redis-py): a standalone server, or a Redis Cluster.

Layout, with ``prefix`` (default ``fce``):

* ``{prefix}:tpl:{<site>}`` -- a HASH per site with fields ``payload``, ``version``, ``updated_at``
  (and ``token``, the id of the put that wrote it, see below), and the template's counters ``fits``,
  ``fallbacks``, ``overruled`` and ``recent`` (``record`` is one Lua script on this one key: a version check,
  ``HINCRBY`` per counter, the recent window appended and trimmed; ``put`` drops them; they expire with it).
  The site sits in a hash tag, so on Redis Cluster each site's key lands in its own slot.
* ``{prefix}:sites`` -- a SET indexing the sites, for :meth:`RedisStore.sites`. It may hold stale
  members (expired, deleted, or a put that refused or died); ``sites()`` checks every member's key
  and unlists the ones that are gone.

Every command and script touches one key, so one slot: the same code runs on a standalone server,
a Sentinel primary and a Redis Cluster (``redis+cluster://host:port``, any node as the seed).

* ``put`` is ``SADD`` to the index, then one Lua script on the site's key (compare-and-set on
  ``version``, ``HSET``, ``PEXPIRE`` or ``PERSIST``, atomically), then ``SADD`` again. The first
  ``SADD`` lists the site before it exists, so a writer that dies after its script leaves no stored
  site unlisted; the second re-lists it if a concurrent ``sites()``/``delete`` unlisted it between
  the first ``SADD`` and the script (see below). Puts are rare (one per learned site), so the two
  extra round trips are a small price.
* Unlisting (``delete``, and ``sites()`` pruning) is ``SREM``, then ``EXISTS`` on the key, then
  ``SADD`` back if the key exists. With the put's order this never unlists a stored site: a put
  whose script ran before the ``EXISTS`` is seen by it; one whose script ran after it runs ``SADD``
  after the ``SREM``. It can leave a stale member behind, which the next ``sites()`` removes.
* ``get_many`` and ``counters`` are one non-transactional pipeline: on a cluster redis-py's
  ``ClusterPipeline`` splits it by node, one round trip per node.

Why an index and not ``SCAN`` of ``{prefix}:tpl:*`` on every primary: ``SCAN`` walks the whole
keyspace of each node (the store usually shares Redis with other data), costs a round trip per
``COUNT`` keys and may return a key twice; the index costs ``SMEMBERS`` plus one pipelined
``EXISTS`` per site, whatever else the servers hold. Its one price is that the index set lives in one
slot, so on one node.

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
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any, TypeVar, cast
from urllib.parse import parse_qsl, unquote, urlsplit

import redis
from redis.backoff import ExponentialBackoff
from redis.cluster import RedisCluster
from redis.commands.core import Script
from redis.connection import Connection, parse_url
from redis.exceptions import RedisClusterException
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
from templates_store.naming import redact_url, with_query

__all__ = [
    "DEFAULT_PREFIX",
    "DEFAULT_RETRIES",
    "DEFAULT_SOCKET_CONNECT_TIMEOUT",
    "DEFAULT_SOCKET_TIMEOUT",
    "CLUSTER_SCHEMES",
    "RedisStore",
]

DEFAULT_PREFIX = "fce"
# URL schemes of a Redis Cluster: the seed node's redis:// or rediss:// URL with "+cluster".
CLUSTER_SCHEMES = {"redis+cluster": "redis", "rediss+cluster": "rediss"}
# Two seconds is ample on a LAN for commands that move at most a few MB; a dead server is then
# reported within seconds rather than redis-py's 5 s per attempt.
DEFAULT_SOCKET_TIMEOUT = 2.0
DEFAULT_SOCKET_CONNECT_TIMEOUT = 2.0
DEFAULT_RETRIES = 3
# Waits of 40, 80, 160 ms between attempts (cap 0.5 s): rides out a failover or restart blip
# without making a dead server slow to report.
_BACKOFF_BASE = 0.02
_BACKOFF_CAP = 0.5

# KEYS: template hash. ARGV: payload, updated_at, expected version ('' = any), ttl in ms ('' = none),
# token. Returns {1, version} on success, {0, current version} on conflict.
_PUT_SCRIPT = """
local current = redis.call('HMGET', KEYS[1], 'version', 'token')
local version = 0
if current[1] then
  version = tonumber(current[1])
  if not version then return redis.error_reply('FCECORRUPT version field is not a number') end
end
if current[2] == ARGV[5] then return {1, version} end
if ARGV[3] ~= '' and tonumber(ARGV[3]) ~= version then return {0, version} end
version = version + 1
redis.call('HSET', KEYS[1], 'payload', ARGV[1], 'version', version, 'updated_at', ARGV[2], 'token', ARGV[5])
redis.call('HDEL', KEYS[1], 'fits', 'fallbacks', 'recent', 'overruled')
if ARGV[4] ~= '' then redis.call('PEXPIRE', KEYS[1], ARGV[4]) else redis.call('PERSIST', KEYS[1]) end
return {1, version}
"""
# KEYS: template hash. ARGV: expected version ('' = any), outcomes ('1' fit, '0' fallback, '2' overruled), window.
# Returns 1 when counted, 0 when the site has no template or another version.
_RECORD_SCRIPT = """
local version = redis.call('HGET', KEYS[1], 'version')
if not version then return 0 end
if ARGV[1] ~= '' and tonumber(ARGV[1]) ~= tonumber(version) then return 0 end
local fits = 0
local overruled = 0
for i = 1, #ARGV[2] do
  local c = string.byte(ARGV[2], i)
  if c == 49 then fits = fits + 1 elseif c == 50 then overruled = overruled + 1 end
end
redis.call('HINCRBY', KEYS[1], 'fits', fits)
redis.call('HINCRBY', KEYS[1], 'fallbacks', #ARGV[2] - fits - overruled)
redis.call('HINCRBY', KEYS[1], 'overruled', overruled)
local recent = (redis.call('HGET', KEYS[1], 'recent') or '') .. ARGV[2]
local window = tonumber(ARGV[3])
if #recent > window then recent = string.sub(recent, #recent - window + 1) end
redis.call('HSET', KEYS[1], 'recent', recent)
return 1
"""
_T = TypeVar("_T")
_FIELDS = (b"payload", b"version", b"updated_at")
_COUNTER_FIELDS = (b"version", b"fits", b"fallbacks", b"recent", b"overruled")


class RedisStore(TemplateStore):
    """Templates in the Redis server at ``redis_url`` (``redis://``, ``rediss://`` or ``unix://``), or
    in the Redis Cluster that the node at ``redis+cluster://`` (``rediss+cluster://``) belongs to.

    ``prefix`` starts every key; ``default_ttl`` is the expiry (seconds) of a ``put`` without
    ``ttl``; ``socket_timeout`` / ``socket_connect_timeout`` bound each attempt and ``retries`` the
    number of further attempts after a connection error or timeout.
    """

    _redis: redis.Redis | RedisCluster | None  # this process's client, made on first use
    _put_script: Script  # registered on _redis
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
        scheme, sep, rest = redis_url.partition("://")
        self.cluster = scheme.lower() in CLUSTER_SCHEMES
        # with its password: needed to reconnect, never shown; the scheme as redis-py knows it
        self._redis_url = f"{CLUSTER_SCHEMES[scheme.lower()]}{sep}{rest}" if self.cluster else redis_url
        self._secrets = _secrets(redis_url)
        self._sites_key = f"{prefix}:sites"
        self._init_process_state()
        # a malformed URL fails here, not at first use: the standalone client is built (no I/O); a
        # cluster client would connect to the seed node, so its URL is only checked
        if self.cluster:
            self._config_errors(self._check_cluster_url)
        else:
            self._client()

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
        return {site: template for site, reply in zip(wanted, self._hmget_many(wanted, _FIELDS), strict=True)
                if (template := self._template(site, reply)) is not None}

    def put(self, site: str, payload: str, *, expected_version: int | None = None,
            ttl: float | None = None) -> int:
        key = self.key(site)
        check_payload(payload)
        expected_version = check_expected_version(expected_version)
        ttl = self._effective_ttl(ttl)
        args = [payload, repr(time.time()), "" if expected_version is None else str(expected_version),
                "" if ttl is None else str(max(1, round(ttl * 1000))), uuid.uuid4().hex]
        with self._errors(site):
            client = self._client()  # first: it also (re)makes the scripts
            client.sadd(self._sites_key, site)  # listed before it exists: a crash leaves no unlisted site
            applied, version = self._put_script(keys=[key], args=args, client=client)
            if applied:  # again, in case a concurrent unlisting removed it before the script ran
                client.sadd(self._sites_key, site)
        if not applied:
            assert expected_version is not None  # the script only refuses a compare-and-set
            raise VersionConflict(conflict_message(self.url, site, expected_version, version),
                                  url=self.url, site=site, expected=expected_version, actual=version)
        return int(version)

    def delete(self, site: str) -> bool:
        key = self.key(site)
        with self._errors(site):
            client = self._client()
            deleted = client.delete(key)
            self._unlist(client, [site])
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
                self._unlist(client, gone)
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

    def _hmget_many(self, sites: Sequence[str], fields: Sequence[bytes]) -> list[list[bytes | None]]:
        """``HMGET fields`` of every site's key in one non-transactional pipeline (one round trip per node on a
        cluster); a site whose reply is an error raises it, naming the site."""
        with self._errors():
            pipe = self._client().pipeline(transaction=False)
            for site in sites:
                pipe.hmget(self.key(site), fields)
            replies = pipe.execute(raise_on_error=False)
        for site, reply in zip(sites, replies, strict=True):
            if isinstance(reply, Exception):
                raise self._error(reply, site) from reply
        return replies

    def counters(self, sites: Iterable[str]) -> dict[str, SiteCounters]:
        wanted = unique_sites(sites)
        if not wanted:
            return {}
        found = {}
        for site, reply in zip(wanted, self._hmget_many(wanted, _COUNTER_FIELDS), strict=True):
            version, fits, fallbacks, recent, overruled = reply
            if version is None:
                continue
            try:
                found[site] = SiteCounters(site, int(version), int(fits or 0), int(fallbacks or 0),
                                           (recent or b"").decode("ascii"), int(overruled or 0))
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
        for name in ("_redis", "_put_script", "_record_script", "_lock", "_pid"):
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

    def _unlist(self, client: redis.Redis | RedisCluster, sites: list[str]) -> None:
        """Remove ``sites`` from the index, then re-add those whose key exists after all.

        ``SREM`` first and ``EXISTS`` after: together with ``put``'s ``SADD`` after its script, a
        site stored concurrently is never left unlisted (see the module docstring). Three single-slot
        steps, since the index and the sites' keys lie in different slots of a cluster.
        """
        client.srem(self._sites_key, *sites)
        pipe = client.pipeline(transaction=False)
        for site in sites:
            pipe.exists(self.key(site))
        back = [site for site, present in zip(sites, pipe.execute(), strict=True) if present]
        if back:
            client.sadd(self._sites_key, *back)

    def _client(self) -> redis.Redis | RedisCluster:
        if self._redis is not None and self._pid == os.getpid():
            return self._redis
        with self._lock:
            if self._redis is None or self._pid != os.getpid():
                options: dict[str, Any] = {
                    "socket_timeout": self.socket_timeout,
                    "socket_connect_timeout": self.socket_connect_timeout,
                    "retry": Retry(ExponentialBackoff(cap=_BACKOFF_CAP, base=_BACKOFF_BASE), self.retries),
                }
                client = self._config_errors(lambda: self._new_client(options))
                self._put_script = client.register_script(_PUT_SCRIPT)
                self._record_script = client.register_script(_RECORD_SCRIPT)
                self._redis, self._pid = client, os.getpid()
        return self._redis

    def _new_client(self, options: dict[str, Any]) -> redis.Redis | RedisCluster:
        if self.cluster:
            self._check_cluster_url()
            return RedisCluster.from_url(self._redis_url, **options)  # connects to the seed node
        client = redis.Redis.from_url(self._redis_url, **options)
        pool = client.connection_pool  # building a connection does no I/O, but makes
        pool.connection_class(**pool.connection_kwargs)  # redis-py reject unknown options now
        return client

    def _config_errors(self, build: Callable[[], _T]) -> _T:
        try:
            return build()
        except (ValueError, TypeError) as exc:  # redis-py's verdict on the URL and its options
            raise StoreConfigError(
                f"template store {self.url}: invalid Redis URL: {self._scrub(exc)}", url=self.url
            ) from None

    def _check_cluster_url(self) -> None:
        """Reject a malformed cluster URL without I/O (building a RedisCluster connects to the seed)."""
        kwargs = parse_url(self._redis_url)
        if int(kwargs.pop("db", 0) or 0) != 0:
            raise ValueError("a Redis Cluster has only database 0")
        connection_class = kwargs.pop("connection_class", Connection)
        connection_class(**kwargs, socket_timeout=self.socket_timeout)

    @contextmanager
    def _errors(self, site: str | None = None) -> Iterator[None]:
        try:
            yield
        except (redis.RedisError, RedisClusterException) as exc:
            raise self._error(exc, site) from exc

    def _error(self, exc: Exception, site: str | None) -> StoreError:
        """The StoreError for a redis-py error: one line, redacted, naming the store and site."""
        reason = self._scrub(exc)
        about = "" if site is None else f" (site {site!r})"
        head = f"template store {self.url}{about}"
        if isinstance(exc, RedisClusterException) and "key slot" not in str(exc):
            # no reachable node, or a slot no node serves (redis-py raises these outside RedisError)
            return StoreUnavailable(f"{head}: Redis Cluster unavailable: {reason}", url=self.url, site=site)
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
            if code in ("READONLY", "MASTERDOWN", "LOADING", "BUSY", "OOM", "MISCONF", "CLUSTERDOWN", "TRYAGAIN"):
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


