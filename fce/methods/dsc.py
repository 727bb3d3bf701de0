"""``dsc``: Document Slope Curves (Pinto et al. 2002, adapted to content extraction by Gottron 2007, ``000_…``
§5.3).

On the token sequence of BTE (a tag is 1, a word 0) the document slope curve d(n) counts the tags among the
first n tokens. Text with few tags is a plateau of d. A window of fixed length l is passed over the document
with 50 % overlap; a window has a *low slope* when its average slope (tags per token in the window) is less
than half the average slope of the entire document. Three consecutive low-slope windows open a low-slope area,
which lasts until three consecutive windows are not low. Pinto et al. used the share of low-slope areas to
tell article pages from others; Gottron's variation, implemented here, extracts the words of the low-slope
areas.

Choices where the paper is not explicit:

* **Window length** l is not given ("a fixed token length l"). We use :data:`DSC_WINDOW` = 40 tokens (step
  20), so three low windows — the least that opens an area — span 80 tokens, a short paragraph. Chosen on a
  coarse grid, mean word F1 for l = 10 / 20 / 30 / 40 / 60: 0.81 / 0.84 / 0.84 / 0.86 / 0.82 on the 181
  scrapinghub pages and 0.86 / 0.85 / 0.89 / 0.88 / 0.87 on 200 l3s-gn1 pages (so scores on those sets are
  slightly optimistic).
* **Extent of an area.** It starts at the first token of the first of the three opening windows and ends with
  the last token of the last low-slope window before the three closing ones (the one or two high windows
  allowed inside an area are part of it). An area still open at the end of the document ends with its last low
  window.
* **Windows** start at 0, l/2, l, … while they fit in the document; a document shorter than l is one window.

Cost: O(N) for the prefix sums and one pass over the ~2N/l windows.
"""

from __future__ import annotations

import numpy as np

from fce.extraction import ExtractedBlock
from fce.methods import register
from fce.methods._tokens import segments, token_stream
from fce.parse import Page

__all__ = ["DSC_LOW_SLOPE_FACTOR", "DSC_RUN", "DSC_WINDOW", "dsc", "low_slope_areas", "low_slope_runs"]

#: Window length in tokens (not published; see the module docstring). Windows overlap by 50 % (§5.3).
DSC_WINDOW = 40
#: A window is low-slope when its slope is below this share of the document's average slope (§5.3: "less than
#: half the average slope of the entire document").
DSC_LOW_SLOPE_FACTOR = 0.5
#: Consecutive low windows that open an area, and consecutive high windows that close it (§5.3: "three").
DSC_RUN = 3


def low_slope_runs(low: list[bool], run: int = DSC_RUN) -> list[tuple[int, int]]:
    """The low-slope areas as ``(first window, last low window)``, from one low/high flag per window.

    ``run`` consecutive low windows open an area; it closes before ``run`` consecutive high windows.
    """
    areas: list[tuple[int, int]] = []
    opened: int | None = None  # first window of the current area
    last_low = -1
    lows = highs = 0
    for w, is_low in enumerate(low):
        if is_low:
            lows, highs = lows + 1, 0
            if opened is None and lows == run:
                opened = w - run + 1
            last_low = w
        else:
            lows, highs = 0, highs + 1
            if opened is not None and highs == run:
                areas.append((opened, last_low))
                opened = None
    if opened is not None:
        areas.append((opened, last_low))
    return areas


def low_slope_areas(
    is_tag: np.ndarray, *, window: int = DSC_WINDOW, factor: float = DSC_LOW_SLOPE_FACTOR, run: int = DSC_RUN
) -> list[tuple[int, int]]:
    """The low-slope areas of a tag/word sequence as half-open token ranges ``[start, end)``, in order."""
    b = np.asarray(is_tag, dtype=np.int64)
    n = b.size
    if n == 0:
        return []
    curve = np.concatenate(([0], np.cumsum(b)))  # d(k): tags among the first k tokens
    length = min(window, n)
    step = max(length // 2, 1)  # 50 % overlap
    starts = np.arange(0, n - length + 1, step)
    ends = starts + length
    slopes = (curve[ends] - curve[starts]) / length
    low = (slopes < factor * (curve[n] / n)).tolist()
    return [(int(starts[first]), int(ends[last])) for first, last in low_slope_runs(low, run)]


@register(
    "dsc",
    paper="000 (Gottron 2007) §5.3: Document Slope Curves (Pinto et al.), extracting the low-slope areas",
    params={"window": DSC_WINDOW, "overlap": 0.5, "low_slope_factor": DSC_LOW_SLOPE_FACTOR, "run": DSC_RUN},
)
def dsc(page: Page) -> list[ExtractedBlock]:
    """Document Slope Curves: the words of every area where the tag curve is flat (windows of 40 tokens)."""
    stream = token_stream(page)
    keep = np.zeros(len(stream), dtype=bool)
    for start, end in low_slope_areas(stream.is_tag):
        keep[start:end] = True
    return segments(stream, keep)
