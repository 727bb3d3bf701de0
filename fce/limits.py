"""The per-page time limit: bounds any stage of fce — parsing, a method, learning — to a number of seconds.

    from fce.limits import run_limited, time_limit

    extraction = run_limited(30, lambda: fce.run_method("lqf", page), source="page.html")  # or PageTimeoutError
    with time_limit(30, source="page.html"):
        extraction = fce.run_method("lqf", page)

:func:`fce.pipeline.extract`, :class:`fce.pipeline.Extractor` and :func:`fce.pipeline.learn_template` take
``timeout=`` and apply it themselves (learning gets ``timeout`` × the number of pages); the batch functions of
:mod:`fce.service` and the CLI (``--page-timeout``) default to :data:`DEFAULT_PAGE_TIMEOUT`.

How the limited code is interrupted:

* **main thread** (the CLI, a script): a ``SIGALRM`` interval timer (``signal.setitimer``). The handler raises
  between two Python bytecodes, and also ends a blocking system call such as a socket read or a sleep.
* **other threads** (a web server's request threads, Dask worker threads): signals are only delivered to the
  main thread, so a per-process watchdog thread raises in the limited thread with CPython's
  ``PyThreadState_SetAsyncExc``. The exception arrives when a blocking call returns.
* **neither available** (a non-main thread of an interpreter without ``ctypes.pythonapi``, such as PyPy): the
  limit is cooperative: :func:`check_deadline`, which fce calls between stages (before the fallback method runs),
  raises once the deadline has passed; one long stage is not cut short there.

Either interrupt lands between bytecodes: a single long C call — libxml2 parsing a huge document, one regular
expression over 64 MiB — finishes first. The size cap (:data:`fce.parse.MAX_PAGE_BYTES`) and the parse guards
(:data:`fce.parse.MAX_ATTRIBUTES`) bound those.

The interruption is :class:`Expired`, a ``BaseException`` like ``KeyboardInterrupt``, so that an ``except
Exception`` in the limited code cannot swallow it; it repeats every :data:`REFIRE_INTERVAL` seconds until the block
has ended, and leaves the block as :class:`~fce.errors.PageTimeoutError`. It is never raised inside this module's
own code nor inside a garbage-collector callback, where Python would drop it (both interrupters look at the frames
being run and fire again later), so a limit is always released. Limits nest: an inner limit never extends an outer
one, and the error names the limit that ran out. A ``SIGALRM`` handler and timer set before (another library's
alarm) are restored, with the time they had left, when the outermost limit ends.

One race remains in threads other than the main thread: when the time runs out at the very instant the block
ends, the interruption can land as the ``with`` statement calls ``__exit__``, and leave it as :class:`Expired`.
:func:`run_limited` catches that case too, which is why fce calls it rather than ``with time_limit``.
"""

from __future__ import annotations

import ctypes
import gc
import heapq
import itertools
import math
import os
import signal
import sys
import threading
import time
from collections.abc import Callable
from types import FrameType, TracebackType
from typing import Any, TypeVar

from fce.errors import PageTimeoutError

__all__ = ["DEFAULT_PAGE_TIMEOUT", "REFIRE_INTERVAL", "Expired", "check_deadline", "run_limited", "time_limit"]

R = TypeVar("R")

#: Seconds of processing one page may take (parsing, template matching, a method), and per page while learning.
#: Typical pages take 1–20 ms; the slowest realistic input we built, a 50 MB page of 3,600 articles, takes 2 s to
#: parse and 20 s to extract with the default method on a 2-core machine; 1,000,000 sibling paragraphs (16 MB)
#: take 1–45 s depending on the method. 30 s lets such pages through with the default method and stops a
#: pathological one before it holds up a batch (``fce detect --page-timeout``; 0 turns the limit off).
DEFAULT_PAGE_TIMEOUT = 30.0

#: Seconds between repeated interruptions once the time is up: an exception raised while the thread runs a
#: ``__del__`` method or a weakref callback is printed and dropped by Python, so it is raised again until the
#: limited block has ended (garbage-collector callbacks, where the same happens, are waited out instead:
#: :func:`_must_wait`). Each refire is another chance to land in such a callback, so not more often than this.
REFIRE_INTERVAL = 0.1

#: Slack when deciding whether a deadline has passed: the interval timer and ``time.monotonic`` may disagree by
#: a clock tick.
_SLACK = 0.001

#: How many of the innermost frames are looked at to tell whether the thread is inside this module.
_GUARD_DEPTH = 8

#: Seconds before trying again when the time ran out while the thread was inside this module (arming, releasing).
_GUARD_RETRY = 0.001


class Expired(BaseException):  # noqa: N818 -- an interrupt like KeyboardInterrupt, not an error
    """Raised inside a limited block when a deadline has passed; leaves the block as PageTimeoutError."""


class time_limit:  # noqa: N801 -- used like a function: ``with time_limit(30, source=...)``
    """Context manager: :class:`~fce.errors.PageTimeoutError` once the block has run ``seconds``.

    ``seconds`` ``None`` or ``0`` means no limit. ``source`` names the page (or site) in the message; ``what``
    says what took too long (``"processing"``, ``"learning from 30 pages"``).
    """

    def __init__(self, seconds: float | None, source: str | None = None, *, what: str = "processing") -> None:
        if seconds is not None and (isinstance(seconds, bool) or not seconds >= 0 or math.isinf(seconds)):
            raise ValueError(f"time limit must be a finite number of seconds >= 0 or None, not {seconds!r}")
        self.seconds = seconds or None
        self.source = source
        self.what = what
        self.deadline = math.inf
        self._limiter: _Limiter | None = None
        self._token = -1

    def __enter__(self) -> time_limit:
        if self.seconds is None:
            return self
        self.deadline = time.monotonic() + self.seconds
        self._token = next(_tokens)
        self._limiter = _limiter()
        _active().append(self)
        self._limiter.arm(self._token, self.deadline, sys._getframe(1))
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.release()
        if exc_type is not None and issubclass(exc_type, Expired) and self.expired():
            raise PageTimeoutError(self.message(), source=self.source) from None
        # otherwise any exception goes on: an outer limit's interruption becomes that limit's error

    def release(self) -> None:
        """Disarm (idempotent). After it returns, no interruption comes for this limit."""
        if self._limiter is None:
            return
        self._limiter.release(self._token)
        self._limiter = None
        active = _active()
        if self in active:
            active.remove(self)

    def expired(self) -> bool:
        return time.monotonic() >= self.deadline - _SLACK

    def check(self) -> None:
        """Raise PageTimeoutError if this limit's deadline has passed (the cooperative check)."""
        if time.monotonic() >= self.deadline:
            raise PageTimeoutError(self.message(), source=self.source)

    def message(self) -> str:
        return f"{self.what} took longer than the {self.seconds:g} s time limit"


def run_limited(seconds: float | None, fn: Callable[[], R], *, source: str | None = None,
                what: str = "processing") -> R:
    """``fn()`` under :class:`time_limit` (``source`` and ``what`` as there). Unlike a bare ``with time_limit``,
    also turns an interruption that lands while the ``with`` statement enters or leaves the limit into
    PageTimeoutError (module docstring)."""
    limit = time_limit(seconds, source, what=what)
    try:
        with limit:
            return fn()
    except Expired:
        limit.release()
        if not limit.expired():
            raise  # an outer limit's
        raise PageTimeoutError(limit.message(), source=source) from None


_local = threading.local()


def _active() -> list[time_limit]:
    """This thread's armed limits, outermost first (for :func:`check_deadline`)."""
    limits = getattr(_local, "limits", None)
    if limits is None:
        limits = _local.limits = []
    return limits


def check_deadline() -> None:
    """Raise :class:`~fce.errors.PageTimeoutError` if a limit of this thread has run out. Cheap; fce calls it
    between stages, which is what bounds a page where no interrupt can be delivered (module docstring)."""
    for limit in getattr(_local, "limits", ()):
        limit.check()


def _must_wait(frame: FrameType | None) -> bool:
    """Whether an interruption now would be lost or would break a limit: the thread is inside this module (arming,
    releasing) or inside a garbage-collector callback (Python prints and drops an exception raised there;
    hypothesis and dask.distributed install such callbacks). Then the interrupter tries again soon."""
    return _in_this_module(frame) or _in_gc_callback(frame)


def _in_gc_callback(frame: FrameType | None) -> bool:
    """True when one of the innermost frames runs the code of a function in ``gc.callbacks``."""
    if not gc.callbacks:
        return False
    codes = {getattr(getattr(cb, "__func__", cb), "__code__", None) for cb in gc.callbacks}
    for _ in range(_GUARD_DEPTH):
        if frame is None:
            return False
        if frame.f_code in codes:
            return True
        frame = frame.f_back
    return False


def _in_this_module(frame: FrameType | None) -> bool:
    """True when one of the innermost frames runs code of this module (arming, releasing, entering, leaving)."""
    for _ in range(_GUARD_DEPTH):
        if frame is None:
            return False
        if frame.f_globals is _GLOBALS and frame.f_code is not _RUN_LIMITED:  # run_limited runs the limited code
            return True
        frame = frame.f_back
    return False


# --- the interrupters ---------------------------------------------------------------------------------------


class _Limiter:
    """Arms and releases deadlines: for the main thread (the alarm) or for all other threads (the watchdog)."""

    def arm(self, token: int, deadline: float, owner: FrameType) -> None:
        raise NotImplementedError

    def release(self, token: int) -> None:
        raise NotImplementedError


class _Alarm(_Limiter):
    """The ``SIGALRM`` interval timer of the main thread, set for the earliest armed deadline. Our handler is
    installed while a limit is armed; the one it replaced (and that one's timer) is restored afterwards."""

    def __init__(self) -> None:
        self._deadlines: dict[int, float] = {}
        self._previous: Any = None  # the handler before ours
        self._foreign: tuple[float, float] | None = None  # the timer before ours: (deadline, interval)

    def arm(self, token: int, deadline: float, owner: FrameType) -> None:
        first = not self._deadlines
        self._deadlines[token] = deadline
        if first:  # everything the handler reads is in place before it is installed
            delay, interval = signal.getitimer(signal.ITIMER_REAL)
            self._foreign = (time.monotonic() + delay, interval) if delay > 0 else None
            self._previous = signal.getsignal(signal.SIGALRM)
            signal.signal(signal.SIGALRM, self._on_alarm)
        self._schedule()

    def release(self, token: int) -> None:
        if self._deadlines.pop(token, None) is None:
            return
        if self._deadlines:
            self._schedule()
            return
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, self._previous if self._previous is not None else signal.SIG_DFL)
        if self._foreign is not None:  # give the other alarm the time it had left (at least a tick)
            foreign_deadline, interval = self._foreign
            signal.setitimer(signal.ITIMER_REAL, max(foreign_deadline - time.monotonic(), 1e-6), interval)
        self._previous = self._foreign = None

    def _schedule(self) -> None:
        due = min(self._deadlines.values())
        if self._foreign is not None:
            due = min(due, self._foreign[0])
        signal.setitimer(signal.ITIMER_REAL, max(due - time.monotonic(), 1e-6), REFIRE_INTERVAL)

    def _on_alarm(self, signum: int, frame: FrameType | None) -> None:
        now = time.monotonic()
        if any(deadline <= now + _SLACK for deadline in self._deadlines.values()):
            if not _must_wait(frame):
                raise Expired
            # arming or releasing, or in a GC callback: soon again
            signal.setitimer(signal.ITIMER_REAL, _GUARD_RETRY, REFIRE_INTERVAL)
            return
        if self._foreign is not None and self._foreign[0] <= now + _SLACK:
            _, interval = self._foreign
            self._foreign = (now + interval, interval) if interval > 0 else None
            if callable(self._previous):
                self._previous(signum, frame)
        if self._deadlines:
            self._schedule()


class _Watchdog(_Limiter):
    """A daemon thread that raises :class:`Expired` in threads whose deadline passed (one per process)."""

    def __init__(self) -> None:
        self._cond = threading.Condition(threading.Lock())
        self._heap: list[tuple[float, int]] = []  # (when to fire, token)
        self._armed: dict[int, tuple[int, FrameType]] = {}  # token -> (thread ident, frame of the with statement)
        self._fired: set[int] = set()
        self.pid = os.getpid()  # threads do not survive a fork: a child process starts its own watchdog
        threading.Thread(target=self._loop, name="fce-time-limit", daemon=True).start()

    def arm(self, token: int, deadline: float, owner: FrameType) -> None:
        with self._cond:
            self._armed[token] = (threading.get_ident(), owner)
            heapq.heappush(self._heap, (deadline, token))
            self._cond.notify()

    def release(self, token: int) -> None:
        """Disarm; when the deadline fired, also drop an interruption not delivered yet. Idempotent."""
        with self._cond:
            ident, _ = self._armed.pop(token, (0, None))
            if token in self._fired:
                self._fired.discard(token)
                _async_raise(ident, None)

    def _loop(self) -> None:
        with self._cond:
            while True:
                while self._heap and self._heap[0][1] not in self._armed:
                    heapq.heappop(self._heap)  # released in time
                if not self._heap:
                    self._cond.wait()
                    continue
                when, token = self._heap[0]
                now = time.monotonic()
                if when > now:
                    self._cond.wait(when - now)
                    continue
                ident, owner = self._armed[token]
                frame = sys._current_frames().get(ident)
                if frame is None:  # the thread has ended
                    heapq.heappop(self._heap)
                    del self._armed[token]
                    self._fired.discard(token)
                elif _must_wait(frame):  # arming or releasing, or in a GC callback: soon again
                    heapq.heapreplace(self._heap, (now + _GUARD_RETRY, token))
                elif not _on_stack(owner, frame):  # out of the block (a suspended generator): later
                    heapq.heapreplace(self._heap, (now + REFIRE_INTERVAL, token))
                else:
                    heapq.heapreplace(self._heap, (now + REFIRE_INTERVAL, token))
                    self._fired.add(token)
                    _async_raise(ident, Expired)


def _on_stack(owner: FrameType, frame: FrameType | None) -> bool:
    while frame is not None:
        if frame is owner:
            return True
        frame = frame.f_back
    return False


class _Cooperative(_Limiter):
    """No interrupt: only :func:`check_deadline` ends the block (module docstring)."""

    def arm(self, token: int, deadline: float, owner: FrameType) -> None:
        return None

    def release(self, token: int) -> None:
        return None


def _async_raise(ident: int, exc: type[BaseException] | None) -> None:
    ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(ident), None if exc is None else ctypes.py_object(exc))


_GLOBALS = globals()
_RUN_LIMITED = run_limited.__code__
_tokens = itertools.count()  # next() on it is atomic in CPython
_alarm = _Alarm()
_watchdog: _Watchdog | None = None
_watchdog_lock = threading.Lock()


def _limiter() -> _Limiter:
    global _watchdog
    if hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread():
        return _alarm
    if not hasattr(ctypes, "pythonapi"):
        return _Cooperative()
    with _watchdog_lock:
        if _watchdog is None or _watchdog.pid != os.getpid():
            _watchdog = _Watchdog()
        return _watchdog
