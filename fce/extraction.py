"""The result of extracting one page: a frozen value, whatever method produced it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from fce.fingerprint import fingerprint

if TYPE_CHECKING:
    from fce.metadata import Metadata

__all__ = ["Check", "ExtractedBlock", "Extraction"]


@dataclass(frozen=True, slots=True)
class ExtractedBlock:
    """One extracted block: its traversal path (``HTML.BODY.DIV.P``), its text, its position in document order."""

    path: str
    text: str
    index: int = -1

    def to_dict(self) -> dict[str, Any]:
        return {"path": self.path, "text": self.text, "index": self.index}


@dataclass(frozen=True, slots=True)
class Check:
    """How a template's extraction of a page compared with what the site model expects of it and with what the
    fallback method extracts (:func:`fce.pipeline.extract`): the characters each kept — ``expected_chars`` is the
    page's own text on the paths the template keeps, ``fallback_chars`` None where the fallback was not run — which
    won (``"template"`` or ``"fallback"``) and the rule that decided (``fce.pipeline.CHECK_RULES``)."""

    template_chars: int
    expected_chars: int
    fallback_chars: int | None
    winner: str
    rule: str

    def to_dict(self) -> dict[str, Any]:
        return {"template_chars": self.template_chars, "expected_chars": self.expected_chars,
                "fallback_chars": self.fallback_chars, "winner": self.winner, "rule": self.rule}


@dataclass(frozen=True, slots=True)
class Extraction:
    """Main content of one page, blocks in document order.

    ``method`` is what produced it (``"template"``, or a single-page method such as ``"density"``); ``fit`` is the
    template's fit score in [0, 1] (``None`` when no template was tried); ``fallback_reason`` says why the
    template path was not used (``"no-template"``, ``"low-fit"``, ``"empty"``, ``"check"``) or is ``None``;
    ``check`` says how the template's extraction compared with the site model's expectation and the fallback
    (:class:`Check`; None where no template was applied); ``metadata`` is the page's
    (:class:`fce.metadata.Metadata`), where it was asked for (``fce.pipeline.extract(..., metadata=True)``);
    ``markdown`` and ``html`` are the content with its structure (:mod:`fce.render`), where asked for
    (``extract(..., output="markdown")``, ``"html"``; :func:`fce.extract_html` gives both); ``comments`` is the
    text of the page's reader comments, which the content leaves out, where asked for (``extract(...,
    comments=True)``; empty: the page has none). ``page_type`` and ``page_type_reason`` are what kind of page the
    single-page method took it for and why (:func:`fce.methods.mainblock.select_page`; None for a template's
    extraction and for methods that do not tell). ``fingerprint`` is the text's simhash (:mod:`fce.fingerprint`):
    two pages whose fingerprints are at most :data:`fce.fingerprint.NEAR_DUPLICATE_BITS` bits apart hold the same
    content.
    """

    text: str
    blocks: tuple[ExtractedBlock, ...] = ()
    method: str = "template"
    site: str | None = None
    fit: float | None = None
    fallback_reason: str | None = None
    info: dict[str, Any] = field(default_factory=dict)
    check: Check | None = None
    metadata: Metadata | None = None
    markdown: str | None = None
    html: str | None = None
    comments: str | None = None

    @property
    def page_type(self) -> str | None:
        return self.info.get("page_type")

    @property
    def page_type_reason(self) -> str | None:
        return self.info.get("page_type_reason")

    @property
    def fingerprint(self) -> str | None:
        """The text's fingerprint, 16 hexadecimal digits (:func:`fce.fingerprint.fingerprint`; None: no word in
        it), made when asked for (about 13 µs per KB of text compiled)."""
        return fingerprint(self.text)

    def with_content(self, *, markdown: str | None = None, html: str | None = None) -> Extraction:
        """This extraction with its content as ``markdown`` or ``html`` (given: not None) too: what
        ``dataclasses.replace`` makes, in half its time (1.2 µs against 2.7: a structured output's whole cost is
        about 100 µs on a median page, ``bench/output_bench.py``). Every field in order: a field added to the class
        is added here too (``tests/test_pipeline.py`` checks)."""
        return Extraction(self.text, self.blocks, self.method, self.site, self.fit, self.fallback_reason, self.info,
                          self.check, self.metadata, self.markdown if markdown is None else markdown,
                          self.html if html is None else html, self.comments)

    @classmethod
    def from_blocks(cls, blocks: tuple[ExtractedBlock, ...], **kwargs: Any) -> Extraction:
        return cls(text="\n".join(b.text for b in blocks if b.text), blocks=blocks, **kwargs)

    def to_dict(self) -> dict[str, Any]:
        return {
            "text": self.text,
            "blocks": [b.to_dict() for b in self.blocks],
            "method": self.method,
            "site": self.site,
            "fit": None if self.fit is None else round(self.fit, 4),
            "fallback_reason": self.fallback_reason,
            "check": None if self.check is None else self.check.to_dict(),
            "metadata": None if self.metadata is None else self.metadata.to_dict(),
            "page_type": self.page_type,
            "page_type_reason": self.page_type_reason,
            "fingerprint": self.fingerprint,
            **({"comments": self.comments} if self.comments is not None else {}),
            **({"markdown": self.markdown} if self.markdown is not None else {}),
            **({"html": self.html} if self.html is not None else {}),
        }
