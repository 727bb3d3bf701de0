"""How a store names itself: its URL with the password hidden (what a store shows, logs and puts in its errors),
and with the query options it was opened with. Below the backends and :mod:`templates_store.url`, which opens
them, so that neither imports the other.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from urllib.parse import urlencode

__all__ = ["redact_url", "with_query"]

_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*)://")
_QUERY_SECRET = re.compile(r"([?&]password=)[^&#]*", re.IGNORECASE)  # redis-py reads ?password= too
_MASK = "***"


def redact_url(url: str) -> str:
    """``url`` with its password (in the user info or a ``password`` query option) replaced by ``***``.

    Works on the text rather than through ``urlsplit``: everything else stays exactly as written,
    and a password with an unescaped ``@`` or ``/``, which would fool a parser, is still masked.
    """
    match = _SCHEME.match(url)
    if match is None:  # a plain path: nothing to hide
        return url
    rest = url[match.end():]
    head = re.split(r"[?#]", rest, maxsplit=1)[0]  # authority and path
    if "@" in head and not head.startswith("/"):  # user info: up to the last "@" before any query
        userinfo, _, after = head.rpartition("@")
        user, colon, _password = userinfo.partition(":")
        if colon:
            rest = f"{user}:{_MASK}@{after}{rest[len(head):]}"
    return url[:match.end()] + _QUERY_SECRET.sub(rf"\g<1>{_MASK}", rest)


def with_query(url: str, options: Mapping[str, object]) -> str:
    """``url`` with ``options`` appended to its query string (floats written compactly)."""
    if not options:
        return url
    extra = urlencode({key: f"{value:g}" if isinstance(value, float) else value
                       for key, value in options.items()})
    return f"{url}{'&' if '?' in url else '?'}{extra}"
