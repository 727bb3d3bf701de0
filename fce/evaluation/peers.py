"""Other extractors as comparators for ``fce eval --peer NAME``: each an adapter from page bytes to text.

Peers are optional (``pip install 'fastcontentextractor[peers]'``); each package is imported only when its peer
runs, and a missing one raises :class:`PeerUnavailableError` naming the extra. Every adapter is called with the
page's raw bytes (and the charset declared outside the page, if any — e.g. CleanEval's wrapper) and returns plain
text.
Each peer runs with its library defaults; what the adapter adds is said in its entry of :data:`PEERS`:

* ``trafilatura`` — ``trafilatura.extract(bytes)``, plain-text output; decodes the bytes itself.
* ``trafilatura-precision`` — the same with ``favor_precision=True``, the setting trafilatura's documentation
  gives for "less text but correct extraction".
* ``readability`` — readability-lxml's ``Document(bytes).summary(html_partial=True)`` (decodes the bytes
  itself); the summary is HTML, turned into text by fce's ``plain`` method (all visible text, a line per
  block).
* ``justext`` — ``justext.justext(bytes, stoplist)``, the paragraphs not classified as boilerplate, one per
  line. jusText needs a language's stop words; the pages are in many languages, so the stop list is the union
  of all of jusText's languages (as trafilatura's own jusText fallback does).
* ``boilerpy3`` — ``ArticleExtractor().get_content(text)``; it takes text, decoded by
  :func:`fce.parse.decode_html`. A page its HTML parser cannot read raises (its default), and the harness
  records the page as failed.
* ``resiliparse`` — ``extract_plain_text(text, main_content=True)``; it takes text, decoded by
  :func:`fce.parse.decode_html`.

The time the harness measures for a peer is this whole adapter: decoding and parsing included, as for fce's
own methods (whose time includes :func:`fce.parse_page`).
"""

from __future__ import annotations

import functools
import importlib
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from fce.errors import MissingExtraError, UnknownMethodError
from fce.extras import install_hint

__all__ = [
    "PEERS",
    "PEERS_EXTRA",
    "Peer",
    "PeerUnavailableError",
    "get_peer",
    "peer_names",
    "run_peer",
]

#: The optional extra that installs every peer.
PEERS_EXTRA = "peers"

PeerFunc = Callable[[bytes, "str | None"], str]


class PeerUnavailableError(MissingExtraError, UnknownMethodError):
    """A peer whose package is missing: a :class:`fce.errors.MissingExtraError` (an ``ImportError``, exit code
    17), and a ``LookupError`` like an unknown method."""

    exit_code = MissingExtraError.exit_code


@dataclass(frozen=True)
class Peer:
    """A comparator: its name, the module that must be importable, the PyPI package, the adapter."""

    name: str
    module: str
    package: str
    func: PeerFunc
    description: str

    def require(self) -> None:
        """Import the peer's package now; :class:`PeerUnavailableError` when it is missing."""
        try:
            importlib.import_module(self.module)
        except ImportError as exc:
            raise PeerUnavailableError(
                f"peer {self.name!r} needs the package {self.package!r} ({exc}); "
                f"install the peers with: {install_hint(PEERS_EXTRA)}", extra=PEERS_EXTRA
            ) from None

    def __call__(self, html: bytes, declared_charset: str | None = None) -> str:
        return self.func(html, declared_charset)


def _decode(html: bytes, declared_charset: str | None) -> str:
    from fce.parse import decode_html

    return decode_html(html, declared_charset)[0]


def _trafilatura(html: bytes, declared_charset: str | None) -> str:
    import trafilatura

    return trafilatura.extract(html) or ""


def _trafilatura_precision(html: bytes, declared_charset: str | None) -> str:
    import trafilatura

    return trafilatura.extract(html, favor_precision=True) or ""


def _readability(html: bytes, declared_charset: str | None) -> str:
    from readability import Document

    from fce.errors import InputError

    # readability-lxml logs a traceback for every page it cannot read (then raises): the failure is the row's
    # status, and the console stays one line per problem
    logging.getLogger("readability").setLevel(logging.CRITICAL)
    from fce.methods import get_method
    from fce.parse import parse_page

    summary = Document(html).summary(html_partial=True)
    try:
        return get_method("plain")(parse_page(summary)).text
    except InputError:  # an empty summary: readability found nothing
        return ""


@functools.cache
def _justext_stoplist() -> frozenset[str]:
    import justext

    words: set[str] = set()
    for language in sorted(justext.get_stoplists()):
        words.update(justext.get_stoplist(language))
    return frozenset(words)


def _justext(html: bytes, declared_charset: str | None) -> str:
    import justext

    paragraphs = justext.justext(html, _justext_stoplist(), encoding=declared_charset)
    return "\n".join(p.text for p in paragraphs if not p.is_boilerplate)


def _boilerpy3(html: bytes, declared_charset: str | None) -> str:
    from boilerpy3 import extractors

    return extractors.ArticleExtractor().get_content(_decode(html, declared_charset)) or ""


def _resiliparse(html: bytes, declared_charset: str | None) -> str:
    from resiliparse.extract.html2text import extract_plain_text

    return extract_plain_text(_decode(html, declared_charset), main_content=True)


#: The peers by name.
PEERS: dict[str, Peer] = {
    p.name: p
    for p in (
        Peer("trafilatura", "trafilatura", "trafilatura", _trafilatura, "trafilatura.extract, defaults"),
        Peer("trafilatura-precision", "trafilatura", "trafilatura", _trafilatura_precision,
             "trafilatura.extract(favor_precision=True)"),
        Peer("readability", "readability", "readability-lxml", _readability, "readability-lxml summary"),
        Peer("justext", "justext", "jusText", _justext, "jusText, stop words of all its languages"),
        Peer("boilerpy3", "boilerpy3", "boilerpy3", _boilerpy3, "boilerpipe's ArticleExtractor"),
        Peer("resiliparse", "resiliparse.extract.html2text", "resiliparse", _resiliparse,
             "Resiliparse extract_plain_text(main_content=True)"),
    )
}  # fmt: skip


def peer_names() -> list[str]:
    """The known peer names, sorted."""
    return sorted(PEERS)


def get_peer(name: str) -> Peer:
    """The peer ``name``, its package imported; :class:`fce.errors.UnknownMethodError` for an unknown name,
    :class:`PeerUnavailableError` when its package is missing."""
    try:
        peer = PEERS[name]
    except KeyError:
        raise UnknownMethodError(f"unknown peer {name!r}; known: {', '.join(peer_names())}") from None
    peer.require()
    return peer


def run_peer(name: str, html: bytes, declared_charset: str | None = None, **_: Any) -> str:
    """Run peer ``name`` on one page's bytes; its extracted text."""
    return get_peer(name)(html, declared_charset)
