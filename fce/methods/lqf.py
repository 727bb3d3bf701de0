"""``lqf``, ``lqf-0.25``, ``lqf-0.5``, ``lqf-0.75``: the Link Quota Filter (Gottron 2007, ``000_…`` §5.4).

"Each block level element of the DOM tree is analysed for the ratio of text used as link anchors (i.e. in a
elements) to overall text. Nested block level elements are not considered. If this ratio is above a certain
threshold the entire block is discarded." The blocks are fce's (:mod:`fce.blocks`); a block's text without its
nested blocks is its *own* text, and ``link_chars`` the part of it inside ``<a>``.

Choices where the paper is not explicit:

* **What "the entire block" loses.** Only its own text: nested blocks are judged on their own, so a ``<div>``
  whose own text is a "Home" link keeps the article paragraphs nested in it. (Discarding the nested blocks as
  well would let one link-only line beside an article remove the article.)
* **Ratio** = link characters / characters of the whitespace-collapsed own text; a block is discarded when the
  ratio is strictly above the threshold. Blocks without text have nothing to discard.
* **The default** ``lqf`` uses 0.5: §5.4 evaluates 0.25, 0.5 and 0.75 ("the results … vary surprisingly
  little") and Gottron 2008 (``004_…``, Table 2) reports a single LQF column without saying which; we take the
  middle one.

Output: one block per line of kept own text, in document order (a block's own text is cut by its nested blocks
into runs; each run is emitted where it stands), with the block's path and index.
"""

from __future__ import annotations

from collections.abc import Iterator

from fce.blocks import Block, BlockTree, blocks_of, join_pieces
from fce.extraction import ExtractedBlock
from fce.methods import register
from fce.parse import Page

__all__ = ["LQF_DEFAULT_THRESHOLD", "LQF_THRESHOLDS", "link_quota_filter", "own_text_runs", "too_many_links"]

#: The thresholds of §5.4: "As threshold we used ratios of 0.25, 0.5 and 0.75."
LQF_THRESHOLDS = (0.25, 0.5, 0.75)
#: ``lqf`` without a threshold in its name (our choice of the three; see the module docstring).
LQF_DEFAULT_THRESHOLD = 0.5


def too_many_links(block: Block, threshold: float) -> bool:
    """True when more than ``threshold`` of the block's own text is link text."""
    return bool(block.text) and block.link_chars > threshold * len(block.text)


def own_text_runs(tree: BlockTree) -> Iterator[tuple[Block, str]]:
    """Every run of a block's own text between its nested blocks, in document order (iteratively)."""
    blocks = tree.blocks
    if not blocks:
        return
    stack: list[tuple[int, int]] = [(0, 0)]  # (block index, next part)
    run: list[str] = []
    while stack:
        index, position = stack.pop()
        parts = blocks[index].parts
        while position < len(parts) and isinstance(parts[position], str):
            run.append(parts[position])  # type: ignore[arg-type]
            position += 1
        if run:
            yield blocks[index], join_pieces(run)
            run = []
        if position < len(parts):
            child = parts[position]
            stack.append((index, position + 1))
            stack.append((child, 0))  # type: ignore[arg-type]


def link_quota_filter(page: Page, threshold: float = LQF_DEFAULT_THRESHOLD) -> list[ExtractedBlock]:
    """The page without the blocks whose own text is more than ``threshold`` link text."""
    out: list[ExtractedBlock] = []
    for block, text in own_text_runs(blocks_of(page)):
        if text and not too_many_links(block, threshold):
            out.extend(ExtractedBlock(block.path, line, block.index) for line in text.split("\n"))
    return out


def _register(name: str, threshold: float) -> None:
    @register(
        name,
        paper="000 (Gottron 2007) §5.4: Link Quota Filter",
        params={"threshold": threshold},
        description=f"Link Quota Filter: drop each block whose own text is over {threshold:g} link text.",
    )
    def lqf(page: Page) -> list[ExtractedBlock]:
        return link_quota_filter(page, threshold)


for _threshold in LQF_THRESHOLDS:
    _register(f"lqf-{_threshold:g}", _threshold)
_register("lqf", LQF_DEFAULT_THRESHOLD)
