"""Evaluation measures: precision, recall and F1 of an extracted text against a gold text.

Pure functions over ``(extracted, gold)`` pairs; the harness does the I/O (STYLE.md, practice 12).

Text measures (keys of :func:`all_measures`):

* ``char`` — characters, whitespace runs collapsed to one space; intersection = LCS.
  Gottron 2007 §3 "characters" (his "Str f1").
* ``word`` — word tokens as a sequence; intersection = LCS. Gottron's "word sequence" ("Seq f1") and FastCE's
  WF (Nguyen et al., §IV.B.2).
* ``bag`` — word tokens as a multiset; a word counts min(count in extracted, count in gold) times. Gottron's
  "bag of words" ("Vec f1").
* ``set`` — distinct word tokens; set intersection. Gottron's "set of words" ("Set f1").
* ``lcstring`` — characters with all whitespace removed; intersection = longest common *substring*.
  Arias et al. 2009 §5.2 (LCString).
* ``lcsequence`` — characters with all whitespace removed; intersection = LCS. Arias et al. §5.2 (LCSequence).

plus :func:`block_f`, FastCE's block-level BF over sets of block identifiers (§IV.B.1).

For every measure, with ``m`` the size of the intersection, ``precision = m / |extracted|``,
``recall = m / |gold|`` and ``F1 = 2PR / (P + R)``. Conventions for empty inputs (:meth:`PRF.from_counts`):
both empty → ``(1, 1, 1)`` (nothing to find, nothing returned: perfect); exactly one empty → ``(0, 0, 0)``.

**FastCE's WF is Gottron's word-sequence measure.** The paper defines Wrecall as "the number of words in
extracted primary content" over the gold word count and Wprecision as the same count over all extracted words;
it does not say how a word is decided to be "primary content". We count it as the words of the extraction that
can be aligned, in order, with the gold words — the longest common subsequence over word tokens — which is
exactly Gottron's "words as a sequence". :func:`word_f` therefore serves both (no separate ``wf`` key).

Complexity: all LCS lengths come from rapidfuzz's bit-parallel LCS, O(⌈n/64⌉·m) machine words — about 0.2 s
for two unrelated 100k-character texts and 0.4 s for two unrelated 50k-word texts, far less when they share
long stretches (the common prefix and suffix are stripped first); the longest common substring uses a suffix
automaton, O(n + m).
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections import Counter
from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass

from rapidfuzz.distance import LCSseq

__all__ = [
    "BAG",
    "BLOCK",
    "CHAR",
    "LCSEQUENCE",
    "LCSTRING",
    "PRF",
    "SET",
    "TEXT_MEASURES",
    "WORD",
    "all_measures",
    "bag_of_words_f",
    "block_f",
    "char_f",
    "collapse_whitespace",
    "lcs_length",
    "lcsequence_f",
    "lcstring_f",
    "longest_common_substring_length",
    "mean",
    "mean_prf",
    "remove_whitespace",
    "site_macro_mean",
    "std",
    "word_f",
    "word_set_f",
    "words",
]

CHAR = "char"
WORD = "word"
BAG = "bag"
SET = "set"
LCSTRING = "lcstring"
LCSEQUENCE = "lcsequence"
BLOCK = "block"

#: The keys of :func:`all_measures`, in report order (Gottron's four, then Arias et al.'s two).
TEXT_MEASURES: tuple[str, ...] = (CHAR, WORD, BAG, SET, LCSTRING, LCSEQUENCE)


@dataclass(frozen=True, slots=True)
class PRF:
    """Precision, recall and F1 of one extraction under one measure, each in ``[0, 1]``."""

    precision: float
    recall: float
    f1: float

    @classmethod
    def from_counts(cls, matched: int, n_extracted: int, n_gold: int) -> PRF:
        """Scores from the intersection size and the two item counts.

        Both counts zero → ``PRF(1, 1, 1)``: the gold says there is no main content and the extractor returned
        none. Exactly one zero → ``PRF(0, 0, 0)``: everything returned is wrong, or everything wanted is
        missing (precision of an empty extraction is 0/0; we score it 0 rather than leaving it undefined).
        """
        if not 0 <= matched <= min(n_extracted, n_gold):
            raise ValueError(f"matched={matched} must lie in [0, min({n_extracted}, {n_gold})]")
        if n_extracted == 0 and n_gold == 0:
            return cls(1.0, 1.0, 1.0)
        if n_extracted == 0 or n_gold == 0 or matched == 0:
            return cls(0.0, 0.0, 0.0)
        precision = matched / n_extracted
        recall = matched / n_gold
        return cls(precision, recall, 2 * precision * recall / (precision + recall))


# ------------------------------------------------------------------------------------------------------------
# Tokenisation and normalisation
# ------------------------------------------------------------------------------------------------------------

_WORD = re.compile(r"\w+")


def words(text: str) -> list[str]:
    """The word tokens of ``text``: maximal runs of Unicode word characters, after NFKC and case folding.

    * ``\\w`` (Python's Unicode definition: letters, digits, underscore) — punctuation and whitespace separate
      words and are not items, so "don't" is two tokens ``don``, ``t`` and "U.S." is ``u``, ``s``; both sides
      are tokenised the same way, so this costs nothing in agreement.
    * NFKC folds compatibility forms (ligatures, full-width letters, non-breaking spaces) that differ between
      an extractor's output and a gold file typed or copied by an annotator.
    * Case folding: gold texts were copied from the *rendered* page, where CSS ``text-transform`` may have
      changed the case of headings; a word that differs only in case is the same word of content. Gottron does
      not say; this is our choice.

    Known weakness: scripts written without spaces (Chinese, Japanese, Thai) give one token per run of text,
    and combining marks that Python's ``\\w`` does not match (some Indic vowel signs) split a word.
    """
    return _WORD.findall(unicodedata.normalize("NFKC", text).casefold())


def collapse_whitespace(text: str) -> str:
    """NFC text with every run of Unicode whitespace replaced by one space, stripped at both ends.

    Gottron's framework reduces "superfluous whitespace" before the character measure (§4.2): layout
    whitespace is not content.
    """
    return " ".join(unicodedata.normalize("NFC", text).split())


def remove_whitespace(text: str) -> str:
    """NFC text without any whitespace (Arias et al. §5.3: "all results reported ignore any spaces")."""
    return "".join(unicodedata.normalize("NFC", text).split())


# ------------------------------------------------------------------------------------------------------------
# Sequence primitives
# ------------------------------------------------------------------------------------------------------------


def lcs_length(a: Sequence[Hashable] | str, b: Sequence[Hashable] | str) -> int:
    """Length of the longest common subsequence of two strings or two sequences of hashables.

    rapidfuzz's bit-parallel algorithm (Hyyrö), O(⌈n/64⌉·m) time; common prefix and suffix are stripped first.
    """
    if not a or not b:
        return 0
    return int(LCSseq.similarity(a, b))


def _word_ids(a: Sequence[str], b: Sequence[str]) -> tuple[list[int], list[int]]:
    """Map two word lists onto integer ids of one shared vocabulary (exact, unlike hashing the strings)."""
    vocab: dict[str, int] = {}
    ids_a = [vocab.setdefault(w, len(vocab)) for w in a]
    ids_b = [vocab.setdefault(w, len(vocab)) for w in b]
    return ids_a, ids_b


def longest_common_substring_length(a: str, b: str) -> int:
    """Length of the longest common substring (contiguous) of ``a`` and ``b``.

    Suffix automaton of the shorter string (Blumer et al. 1985), then one left-to-right walk of the longer
    one, keeping the length of the longest suffix of the prefix read so far that is a substring of the shorter
    string. O(n + m) time and O(min(n, m)) states, each with a small dict of transitions: about 0.25 s in
    CPython for two 100k-character texts.
    """
    if not a or not b:
        return 0
    if len(a) > len(b):
        a, b = b, a
    # Build the automaton of `a`: state 0 is the root; `length` is the longest string of a state, `link` its
    # suffix link, `trans` its transitions.
    length = [0]
    link = [-1]
    trans: list[dict[str, int]] = [{}]
    last = 0
    for ch in a:
        cur = len(length)
        length.append(length[last] + 1)
        link.append(0)
        trans.append({})
        p = last
        while p != -1 and ch not in trans[p]:
            trans[p][ch] = cur
            p = link[p]
        if p != -1:
            q = trans[p][ch]
            if length[p] + 1 == length[q]:
                link[cur] = q
            else:
                clone = len(length)
                length.append(length[p] + 1)
                link.append(link[q])
                trans.append(dict(trans[q]))
                while p != -1 and trans[p].get(ch) == q:
                    trans[p][ch] = clone
                    p = link[p]
                link[q] = clone
                link[cur] = clone
        last = cur
    # Walk `b`.
    state = 0
    current = 0
    best = 0
    for ch in b:
        while state and ch not in trans[state]:
            state = link[state]
            current = length[state]
        nxt = trans[state].get(ch)
        if nxt is None:  # only at the root: no substring of `a` ends here
            current = 0
        else:
            state = nxt
            current += 1
            if current > best:
                best = current
    return best


# ------------------------------------------------------------------------------------------------------------
# The measures
# ------------------------------------------------------------------------------------------------------------


def _sequence_prf(extracted: Sequence[str], gold: Sequence[str]) -> PRF:
    ids_e, ids_g = _word_ids(extracted, gold)
    return PRF.from_counts(lcs_length(ids_e, ids_g), len(ids_e), len(ids_g))


def _bag_prf(extracted: Sequence[str], gold: Sequence[str]) -> PRF:
    matched = sum((Counter(extracted) & Counter(gold)).values())
    return PRF.from_counts(matched, len(extracted), len(gold))


def _set_prf(extracted: Sequence[str], gold: Sequence[str]) -> PRF:
    set_e, set_g = set(extracted), set(gold)
    return PRF.from_counts(len(set_e & set_g), len(set_e), len(set_g))


def _lcs_chars_prf(extracted: str, gold: str) -> PRF:
    return PRF.from_counts(lcs_length(extracted, gold), len(extracted), len(gold))


def _lcstring_prf(extracted: str, gold: str) -> PRF:
    return PRF.from_counts(longest_common_substring_length(extracted, gold), len(extracted), len(gold))


def word_f(extracted: str, gold: str) -> PRF:
    """FastCE's WF = Gottron's word-sequence measure: matched words = LCS length over :func:`words` tokens."""
    return _sequence_prf(words(extracted), words(gold))


def char_f(extracted: str, gold: str) -> PRF:
    """Gottron's character measure: LCS over characters after :func:`collapse_whitespace`."""
    return _lcs_chars_prf(collapse_whitespace(extracted), collapse_whitespace(gold))


def bag_of_words_f(extracted: str, gold: str) -> PRF:
    """Gottron's bag of words: a word counts ``min(count in extracted, count in gold)`` times."""
    return _bag_prf(words(extracted), words(gold))


def word_set_f(extracted: str, gold: str) -> PRF:
    """Gottron's set of words: items are the distinct tokens; intersection of the two sets."""
    return _set_prf(words(extracted), words(gold))


def lcstring_f(extracted: str, gold: str) -> PRF:
    """Arias et al.'s LCString: longest common substring of the two texts with all whitespace removed."""
    return _lcstring_prf(remove_whitespace(extracted), remove_whitespace(gold))


def lcsequence_f(extracted: str, gold: str) -> PRF:
    """Arias et al.'s LCSequence: longest common subsequence of the characters, all whitespace removed.

    Differs from :func:`char_f` only in whitespace: Gottron keeps one space between words, Arias et al. drop
    them.
    """
    return _lcs_chars_prf(remove_whitespace(extracted), remove_whitespace(gold))


def block_f(extracted_ids: Iterable[Hashable], gold_ids: Iterable[Hashable]) -> PRF:
    """FastCE's BF (§IV.B.1, after Debnath et al.): precision and recall over sets of block identifiers.

    Bprecision = |extracted ∩ gold| / |extracted|, Brecall = |extracted ∩ gold| / |gold|. Identifiers are
    compared as a set, so a block listed twice counts once.
    """
    set_e, set_g = set(extracted_ids), set(gold_ids)
    return PRF.from_counts(len(set_e & set_g), len(set_e), len(set_g))


def all_measures(extracted: str, gold: str) -> dict[str, PRF]:
    """Every text measure of :data:`TEXT_MEASURES`, each text normalised and tokenised once."""
    words_e, words_g = words(extracted), words(gold)
    nows_e, nows_g = remove_whitespace(extracted), remove_whitespace(gold)
    return {
        CHAR: _lcs_chars_prf(collapse_whitespace(extracted), collapse_whitespace(gold)),
        WORD: _sequence_prf(words_e, words_g),
        BAG: _bag_prf(words_e, words_g),
        SET: _set_prf(words_e, words_g),
        LCSTRING: _lcstring_prf(nows_e, nows_g),
        LCSEQUENCE: _lcs_chars_prf(nows_e, nows_g),
    }


# ------------------------------------------------------------------------------------------------------------
# Aggregates
# ------------------------------------------------------------------------------------------------------------


def mean(values: Iterable[float]) -> float:
    """Arithmetic mean (``math.fsum``); ``nan`` for no values."""
    vals = list(values)
    return math.fsum(vals) / len(vals) if vals else math.nan


def std(values: Iterable[float], *, ddof: int = 1) -> float:
    """Standard deviation; by default the *sample* (``n - 1``) estimate.

    Gottron (§3) reports "the estimated standard deviation of F1 over a sample of documents": the pages of a
    test package are a sample of the site's pages, so we divide by ``n - 1`` (``ddof=0`` gives the population
    value). ``nan`` when there are not more than ``ddof`` values (one page has no estimated spread).
    """
    vals = list(values)
    n = len(vals)
    if n <= ddof:
        return math.nan
    mu = math.fsum(vals) / n
    return math.sqrt(math.fsum((v - mu) ** 2 for v in vals) / (n - ddof))


def site_macro_mean(values: Iterable[tuple[Hashable, float]]) -> float:
    """Mean over sites of the per-site mean: every site weighs the same, however many pages it has.

    ``values`` are ``(site, value)`` pairs, one per page. ``nan`` for no pages.
    """
    by_site: dict[Hashable, list[float]] = {}
    for site, value in values:
        by_site.setdefault(site, []).append(value)
    return mean(mean(vs) for vs in by_site.values())


def mean_prf(prfs: Iterable[PRF]) -> PRF:
    """Component-wise mean: mean precision, mean recall and mean *page* F1 (not the F1 of the two means).

    This is how Gottron's Figures 1–2 average over a package. ``nan`` components for no values.
    """
    items = list(prfs)
    return PRF(mean(p.precision for p in items), mean(p.recall for p in items), mean(p.f1 for p in items))
