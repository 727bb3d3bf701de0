"""The result of extracting one page: a frozen value, whatever method produced it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = ["ExtractedBlock", "Extraction"]


@dataclass(frozen=True, slots=True)
class ExtractedBlock:
    """One extracted block: its traversal path (``HTML.BODY.DIV.P``), its text, its position in document order."""

    path: str
    text: str
    index: int = -1

    def to_dict(self) -> dict[str, Any]:
        return {"path": self.path, "text": self.text, "index": self.index}


@dataclass(frozen=True, slots=True)
class Extraction:
    """Main content of one page, blocks in document order.

    ``method`` is what produced it (``"template"``, or a single-page method such as ``"density"``); ``fit`` is the
    template's fit score in [0, 1] (``None`` when no template was tried); ``fallback_reason`` says why the
    template path was not used (``"no-template"``, ``"low-fit"``, ``"empty"``) or is ``None``.
    """

    text: str
    blocks: tuple[ExtractedBlock, ...] = ()
    method: str = "template"
    site: str | None = None
    fit: float | None = None
    fallback_reason: str | None = None
    info: dict[str, Any] = field(default_factory=dict)

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
        }
