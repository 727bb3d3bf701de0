"""Gold *blocks* from gold *text*: which blocks of a page hold the main content.

The datasets give the main content as text, but FastCE's block-level measure BF (§IV.B.1) and template
learning need to know which blocks are content. We recover it by aligning words:

1. tokenise every block's text with :func:`fce.evaluation.measures.words` and concatenate the blocks in
   document order — the page's word sequence;
2. align it with the gold words by a longest common subsequence (rapidfuzz's ``LCSseq.opcodes``); a page word
   is *aligned* when the LCS pairs it with a gold word;
3. a block is content when at least :data:`GOLD_BLOCK_MIN_ALIGNED` of its words are aligned. A block with no
   words is never content.

An LCS is not unique, and rapidfuzz's pairs each gold word with the *earliest* page word it can. A gold text
"the cat" on a page "the nav | the cat" is aligned with the first "the", leaving the block "the nav" half
aligned. :func:`aligned_word_mask` therefore slides such stray runs right: when an aligned run ``A`` is
followed by an unaligned gap that ends with the same words as ``A``, and then by another aligned run, the
alignment of ``A`` moves to the copy at the end of the gap, where it joins the next run. The result is still a
longest common subsequence (the gold positions and the page order are unchanged), only a less fragmented one.
"""

from __future__ import annotations

from collections.abc import Sequence

from rapidfuzz.distance import LCSseq

from fce.evaluation.measures import words

__all__ = [
    "GOLD_BLOCK_MIN_ALIGNED",
    "aligned_fractions",
    "aligned_word_mask",
    "label_gold_blocks",
]

#: A block is content when at least this fraction of its words is aligned with the gold text. A majority rule,
#: not tuned: it keeps a paragraph that the annotator trimmed by a few words and drops a navigation block that
#: shares a few common words with the article. Inclusive (>=), so a two-word block with one aligned word is
#: content.
GOLD_BLOCK_MIN_ALIGNED = 0.5


def aligned_word_mask(page_words: Sequence[str], gold_words: Sequence[str]) -> list[bool]:
    """For each page word, whether a longest common subsequence with ``gold_words`` pairs it with a gold word.

    Stray leading matches are slid right to join the next aligned run (module docstring). Memory: rapidfuzz
    keeps an ⌈n/64⌉·m bit matrix for the alignment (about 25 MB for 20k page words × 10k gold words).
    """
    vocab: dict[str, int] = {}
    page = [vocab.setdefault(w, len(vocab)) for w in page_words]
    gold = [vocab.setdefault(w, len(vocab)) for w in gold_words]
    mask = [False] * len(page)
    if not page or not gold:
        return mask
    for op in LCSseq.opcodes(page, gold):
        if op.tag == "equal":
            mask[op.src_start : op.src_end] = [True] * (op.src_end - op.src_start)
    _slide_stray_runs(page, mask)
    return mask


def _slide_stray_runs(page: list[int], mask: list[bool]) -> None:
    """Move aligned runs right onto a copy of them that ends just before the next aligned run (in place)."""
    # Runs of equal mask values as [aligned, start, end]; a stack, so a run can slide several times.
    runs: list[list] = []
    start = 0
    for i in range(1, len(mask) + 1):
        if i == len(mask) or mask[i] != mask[start]:
            run = [mask[start], start, i]
            start = i
            runs.append(run)
            while len(runs) >= 3 and runs[-1][0] and not runs[-2][0] and runs[-3][0]:
                _, a0, a1 = runs[-3]
                _, g0, g1 = runs[-2]
                _, c0, c1 = runs[-1]
                n = a1 - a0
                if g1 - g0 < n or page[c0 - n : c0] != page[a0:a1]:
                    break
                mask[a0:a1] = [False] * n
                mask[c0 - n : c0] = [True] * n
                runs[-3:] = [[False, a0, c0 - n], [True, c0 - n, c1]]
                if len(runs) >= 3 and not runs[-3][0]:  # merge with the unaligned run before A
                    runs[-3:-1] = [[False, runs[-3][1], c0 - n]]


def aligned_fractions(block_texts: Sequence[str], gold_text: str) -> list[float]:
    """For each block, the fraction of its words aligned with the gold (0.0 for a block without words)."""
    block_words = [words(text) for text in block_texts]
    page_words = [w for ws in block_words for w in ws]
    mask = aligned_word_mask(page_words, words(gold_text))
    fractions = []
    offset = 0
    for ws in block_words:
        n = len(ws)
        fractions.append(sum(mask[offset : offset + n]) / n if n else 0.0)
        offset += n
    return fractions


def label_gold_blocks(
    block_texts: Sequence[str], gold_text: str, *, min_aligned: float = GOLD_BLOCK_MIN_ALIGNED
) -> list[bool]:
    """Which blocks are content: those with at least ``min_aligned`` of their words aligned with the gold.

    ``block_texts`` are the blocks' own texts in document order (each page word belongs to exactly one block).
    Blocks without words are never content; an empty gold text makes every block non-content.
    """
    if not 0.0 < min_aligned <= 1.0:
        raise ValueError(f"min_aligned must lie in (0, 1], got {min_aligned}")
    return [
        fraction > 0.0 and fraction >= min_aligned for fraction in aligned_fractions(block_texts, gold_text)
    ]
