"""``bte``: Body Text Extraction (Finn, Kushmerick and Smyth 2001; Gottron 2007, ``000_…`` §5.2).

The document is a sequence of N tokens B_0 … B_{N−1}, each tag a 1 and each word a 0. BTE extracts the tokens
i … j (i ≤ j) that maximise

    T(i, j) = Σ_{n<i} B_n + Σ_{i≤n≤j} (1 − B_n) + Σ_{n>j} B_n,

the tags outside plus the words inside: "a single continuous block of text containing few or no HTML tags".

**Linear time.** Gottron found BTE the slowest method of his comparison ("finding the solution to the
optimisation problem turns out to be expensive", §5.6): scanning all (i, j) is O(N²) even with prefix sums.
With P_k = Σ_{n<k} B_n and f(k) = 2·P_k − k the objective is

    T(i, j) = P_N + f(i) − f(j + 1),

so the best j for every i needs only the running maximum of f over the positions before j + 1: one O(N) scan
(:func:`best_span`), a few numpy passes. No token cap or downsampling is needed for any page size.

Ties (several (i, j) with the same T) go to the smallest j, then the smallest i; the paper does not say.
"""

from __future__ import annotations

import numpy as np

from fce.extraction import ExtractedBlock
from fce.methods import register
from fce.methods._tokens import segments, token_stream
from fce.parse import Page

__all__ = ["best_span", "bte", "objective"]


def objective(is_tag: np.ndarray, i: int, j: int) -> int:
    """T(i, j): the tag tokens before i and after j plus the word tokens in i … j (inclusive)."""
    b = np.asarray(is_tag, dtype=np.int64)
    return int(b[:i].sum() + (1 - b[i : j + 1]).sum() + b[j + 1 :].sum())


def best_span(is_tag: np.ndarray) -> tuple[int, int] | None:
    """The (i, j) maximising T(i, j) over 0 ≤ i ≤ j < N in O(N); None for an empty sequence.

    Ties go to the smallest j, then the smallest i.
    """
    b = np.asarray(is_tag, dtype=np.int64)
    n = b.size
    if n == 0:
        return None
    prefix = np.concatenate(([0], np.cumsum(b)))  # P_0 … P_N
    f = 2 * prefix - np.arange(n + 1)  # f(k) = 2·P_k − k; T(i, j) = P_N + f(i) − f(j + 1)
    best_before = np.maximum.accumulate(f[:-1])  # best_before[k] = max f(0 … k): the best i for any j ≥ k
    gain = best_before - f[1:]  # gain[j] = max over i ≤ j of f(i) − f(j + 1)
    j = int(np.argmax(gain))  # first maximum: the smallest j
    i = int(np.argmax(f[: j + 1] == best_before[j]))  # first position reaching the maximum: the smallest i
    return i, j


@register("bte", paper="000 (Gottron 2007) §5.2: Body Text Extraction (Finn et al.)", params={})
def bte(page: Page) -> list[ExtractedBlock]:
    """Body Text Extraction: the one span of the page with the most words inside and the most tags outside."""
    stream = token_stream(page)
    span = best_span(stream.is_tag)
    if span is None:
        return []
    i, j = span
    keep = np.zeros(len(stream), dtype=bool)
    keep[i : j + 1] = True
    return segments(stream, keep)
