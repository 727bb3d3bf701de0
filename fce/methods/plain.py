"""``plain``: all visible text of the page — the baseline every method must beat (Gottron, ``000_…`` §5: "Plain")."""

from __future__ import annotations

from fce.blocks import DEFAULT_PATH_STYLE, blocks_of
from fce.extraction import ExtractedBlock
from fce.methods import register
from fce.parse import Page


@register("plain", paper="000 (Gottron, evaluation framework) §5: Plain", params={}, blocks=DEFAULT_PATH_STYLE)
def plain(page: Page) -> list[ExtractedBlock]:
    """All visible text in document order (head, scripts, styles removed)."""
    tree = blocks_of(page)
    text = tree.render(0)
    return [ExtractedBlock(tree[0].path, text, 0)] if text else []
