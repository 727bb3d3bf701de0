"""Measures of fce.evaluation.measures on hand-computed examples, the papers' own examples, and edge cases."""

from __future__ import annotations

import math
import random
import time

import pytest

from fce.evaluation.measures import (
    BAG,
    CHAR,
    LCSEQUENCE,
    LCSTRING,
    PRF,
    SET,
    TEXT_MEASURES,
    WORD,
    all_measures,
    bag_of_words_f,
    block_f,
    char_f,
    collapse_whitespace,
    lcs_length,
    lcsequence_f,
    lcstring_f,
    longest_common_substring_length,
    mean,
    mean_prf,
    remove_whitespace,
    site_macro_mean,
    std,
    word_f,
    word_set_f,
    words,
)


def approx_prf(p: float, r: float, f: float) -> PRF:
    return PRF(pytest.approx(p), pytest.approx(r), pytest.approx(f))  # type: ignore[arg-type]


# --- tokenisation -------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Hello, World!", ["hello", "world"]),
        ("Don't stop", ["don", "t", "stop"]),
        ("U.S. 3.5%", ["u", "s", "3", "5"]),
        ("snake_case word", ["snake_case", "word"]),
        ("\ufb01ne \uff21\uff22\uff23", ["fine", "abc"]),  # ligature fi, full-width ABC (NFKC)
        ("Straße STRASSE", ["strasse", "strasse"]),  # case folding
        ("Tiếng Việt", ["tiếng", "việt"]),
        ("a\u00a0b\nc\td", ["a", "b", "c", "d"]),
        ("", []),
        ("  -- !! ", []),
    ],
)
def test_words(text: str, expected: list[str]) -> None:
    assert words(text) == expected


def test_whitespace_normalisation() -> None:
    assert collapse_whitespace("  a \n\n b\t c  ") == "a b c"
    assert remove_whitespace("  a \n\n b\t c\u00a0d ") == "abcd"
    # NFC: "e" + combining acute equals the precomposed character
    assert collapse_whitespace("e\u0301") == "\u00e9"


# --- PRF ----------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("counts", "expected"),
    [
        ((3, 4, 6), (0.75, 0.5, 0.6)),  # F1 = 2 * 0.375 / 1.25
        ((2, 2, 2), (1.0, 1.0, 1.0)),
        ((0, 0, 0), (1.0, 1.0, 1.0)),  # both empty: perfect
        ((0, 0, 5), (0.0, 0.0, 0.0)),  # nothing extracted
        ((0, 5, 0), (0.0, 0.0, 0.0)),  # gold empty, something extracted
        ((0, 3, 5), (0.0, 0.0, 0.0)),  # nothing in common
    ],
)
def test_prf_from_counts(counts: tuple[int, int, int], expected: tuple[float, float, float]) -> None:
    assert PRF.from_counts(*counts) == approx_prf(*expected)


@pytest.mark.parametrize("counts", [(4, 3, 6), (4, 6, 3), (-1, 2, 2), (1, 0, 0)])
def test_prf_from_counts_rejects_impossible_counts(counts: tuple[int, int, int]) -> None:
    with pytest.raises(ValueError):
        PRF.from_counts(*counts)


def test_prf_is_frozen() -> None:
    prf = PRF(1.0, 1.0, 1.0)
    with pytest.raises(AttributeError):
        prf.f1 = 0.0  # type: ignore[misc]


# --- word measures ------------------------------------------------------------------------------------------


def test_word_f_is_lcs_over_words() -> None:
    # LCS of [a b c d] and [a c e] is [a c]: P = 2/4, R = 2/3, F1 = 2 * (1/3) / (7/6) = 4/7
    assert word_f("a b c d", "a c e") == approx_prf(0.5, 2 / 3, 4 / 7)


def test_word_f_respects_order_bag_does_not() -> None:
    # [c a] vs [a c]: the LCS has one word, the bags are equal
    assert word_f("c a", "a c") == approx_prf(0.5, 0.5, 0.5)
    assert bag_of_words_f("c a", "a c") == PRF(1.0, 1.0, 1.0)
    assert word_set_f("c a", "a c") == PRF(1.0, 1.0, 1.0)


def test_bag_of_words_counts_minimum_occurrences() -> None:
    # extracted {a:3, b:1}, gold {a:2, c:1}: min counts a=2 → P = 2/4, R = 2/3, F1 = 4/7
    assert bag_of_words_f("a a a b", "a a c") == approx_prf(0.5, 2 / 3, 4 / 7)


def test_word_set_counts_distinct_words() -> None:
    # sets {a, b} and {a, c}: one in common → P = R = F1 = 1/2
    assert word_set_f("a a a b", "a a c") == approx_prf(0.5, 0.5, 0.5)


def test_word_measures_ignore_case_and_punctuation() -> None:
    assert word_f("The Cat, sat.", "the cat sat") == PRF(1.0, 1.0, 1.0)


# --- character measures -------------------------------------------------------------------------------------


def test_char_f_collapses_whitespace() -> None:
    # "ab  c" → "ab c" (4 chars) vs "abc" (3): LCS 3 → P = 3/4, R = 1, F1 = 6/7
    assert char_f("ab  c", "abc") == approx_prf(0.75, 1.0, 6 / 7)
    assert char_f("a\n\n  b", " a b ") == PRF(1.0, 1.0, 1.0)


def test_char_f_is_case_sensitive() -> None:
    # "Ab" vs "ab": LCS 1 of 2 characters each
    assert char_f("Ab", "ab") == approx_prf(0.5, 0.5, 0.5)


def test_lcs_length_textbook_example() -> None:
    assert lcs_length("ABCBDAB", "BDCABA") == 4  # Cormen et al., §15.4
    assert lcs_length("", "abc") == 0
    assert lcs_length([1, 2, 3], [3, 2, 1]) == 1


# Arias et al. §5.2 use these two strings for both metrics.
ARIAS_A = "the dog jumps over the brown fox"
ARIAS_B = "the fox jumps over the brown dog"


def _is_subsequence(sub: str, text: str) -> bool:
    it = iter(text)
    return all(ch in it for ch in sub)


def test_arias_example_strings_with_spaces() -> None:
    # The paper's LCString " jumps over the brown " (it says "of length 20": 20 is the length without the two
    # spaces around it; with them it is 22, and nothing longer is common).
    assert " jumps over the brown " in ARIAS_A and " jumps over the brown " in ARIAS_B
    assert longest_common_substring_length(ARIAS_A, ARIAS_B) == 22
    # The paper's LCSequence "the jumps over the brown " (25 characters; the paper says 23) is a common
    # subsequence but not the longest: "the " + "o" + " jumps over the brown " + "o" has 4 + 1 + 22 + 1 = 28.
    assert _is_subsequence("the jumps over the brown ", ARIAS_A)
    assert _is_subsequence("the jumps over the brown ", ARIAS_B)
    assert _is_subsequence("the o jumps over the brown o", ARIAS_A)
    assert _is_subsequence("the o jumps over the brown o", ARIAS_B)
    assert lcs_length(ARIAS_A, ARIAS_B) == 28


def test_arias_example_metrics_ignore_spaces() -> None:
    # Without spaces both strings have 26 characters. LCString: "jumpsoverthebrown" (17); LCSequence:
    # "the" + "o" + "jumpsoverthebrown" + "o" (22).
    assert len(remove_whitespace(ARIAS_A)) == 26
    assert lcstring_f(ARIAS_A, ARIAS_B) == approx_prf(17 / 26, 17 / 26, 17 / 26)
    assert lcsequence_f(ARIAS_A, ARIAS_B) == approx_prf(22 / 26, 22 / 26, 22 / 26)
    # "LCString is always a substring of LCSequence": never longer
    assert lcstring_f(ARIAS_A, ARIAS_B).f1 <= lcsequence_f(ARIAS_A, ARIAS_B).f1


def test_arias_metrics_ignore_superfluous_spaces() -> None:
    # the reason Arias et al. drop spaces: extra spaces in the gold must not lower the score
    assert lcstring_f("main content here", "main  con tent\nhere ") == PRF(1.0, 1.0, 1.0)
    assert lcsequence_f("main content here", "maincontenthere") == PRF(1.0, 1.0, 1.0)


def test_lcstring_penalises_a_gap_lcsequence_does_not() -> None:
    # extracted "abcdef" (6), gold "abcXdef" (7): LCString "abc" (3), LCSequence "abcdef" (6)
    # LCString: P = 1/2, R = 3/7, F1 = 2 * (3/14) / (13/14) = 6/13
    assert lcstring_f("abc def", "abcX def") == approx_prf(0.5, 3 / 7, 6 / 13)
    assert lcsequence_f("abc def", "abcX def") == approx_prf(1.0, 6 / 7, 12 / 13)


@pytest.mark.parametrize(
    ("a", "b", "expected"),
    [
        ("", "", 0),
        ("abc", "", 0),
        ("abc", "abc", 3),
        ("abcXdef", "abcYdefg", 3),
        ("xabcdy", "abcd", 4),
        ("aaaa", "aa", 2),
        ("abab", "baba", 3),
        ("ab", "cd", 0),
        ("über straße", "strasse über", 4),  # "über" and "stra"; no case or ß folding for characters
    ],
)
def test_longest_common_substring_examples(a: str, b: str, expected: int) -> None:
    assert longest_common_substring_length(a, b) == expected
    assert longest_common_substring_length(b, a) == expected


def _brute_longest_common_substring(a: str, b: str) -> int:
    best = 0
    prev = [0] * (len(b) + 1)
    for i in range(1, len(a) + 1):
        cur = [0] * (len(b) + 1)
        for j in range(1, len(b) + 1):
            if a[i - 1] == b[j - 1]:
                cur[j] = prev[j - 1] + 1
                best = max(best, cur[j])
        prev = cur
    return best


def test_longest_common_substring_matches_brute_force() -> None:
    rng = random.Random(7)
    for _ in range(300):
        alphabet = rng.choice(["ab", "abc", "abcdefgh"])
        a = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 40)))
        b = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 40)))
        assert longest_common_substring_length(a, b) == _brute_longest_common_substring(a, b), (a, b)


# --- edge cases over all measures ---------------------------------------------------------------------------


def test_all_measures_identical_texts_are_perfect() -> None:
    text = "A title\n\nFirst paragraph, with words. Second one!"
    assert all_measures(text, text) == {m: PRF(1.0, 1.0, 1.0) for m in TEXT_MEASURES}


def test_all_measures_both_empty_are_perfect() -> None:
    assert all_measures("", "  \n") == {m: PRF(1.0, 1.0, 1.0) for m in TEXT_MEASURES}


@pytest.mark.parametrize(("extracted", "gold"), [("", "some gold text"), ("some output", ""), ("  ", "x")])
def test_all_measures_one_side_empty_are_zero(extracted: str, gold: str) -> None:
    assert all_measures(extracted, gold) == {m: PRF(0.0, 0.0, 0.0) for m in TEXT_MEASURES}


def test_punctuation_only_extraction() -> None:
    # no words on either side → word measures perfect; but the characters "!!!" are all wrong
    scores = all_measures("!!!", "")
    assert scores[WORD] == scores[BAG] == scores[SET] == PRF(1.0, 1.0, 1.0)
    assert scores[CHAR] == scores[LCSTRING] == scores[LCSEQUENCE] == PRF(0.0, 0.0, 0.0)


def test_all_measures_agree_with_single_measures() -> None:
    extracted = "Menu Home\nThe quick brown fox jumps over the lazy dog. The dog sleeps.\nCopyright"
    gold = "The quick brown fox jumps over the lazy dog.\n\nThe  dog sleeps."
    scores = all_measures(extracted, gold)
    assert list(scores) == list(TEXT_MEASURES)
    assert scores[CHAR] == char_f(extracted, gold)
    assert scores[WORD] == word_f(extracted, gold)
    assert scores[BAG] == bag_of_words_f(extracted, gold)
    assert scores[SET] == word_set_f(extracted, gold)
    assert scores[LCSTRING] == lcstring_f(extracted, gold)
    assert scores[LCSEQUENCE] == lcsequence_f(extracted, gold)
    # the gold is one stretch of the extraction once whitespace is normalised or dropped: recall 1 everywhere
    assert all(scores[m].recall == 1.0 for m in TEXT_MEASURES)
    # 15 extracted words, 3 of them extra (menu, home, copyright): P = 12/15, F1 = 2 * 0.8 / 1.8 = 8/9
    assert scores[WORD] == approx_prf(0.8, 1.0, 8 / 9)


# --- block measure ------------------------------------------------------------------------------------------


def test_block_f() -> None:
    # {1,2,3} vs {2,3,4,5}: 2 in common → P = 2/3, R = 2/4, F1 = 4/7
    assert block_f([1, 2, 3], [2, 3, 4, 5]) == approx_prf(2 / 3, 0.5, 4 / 7)
    assert block_f(["a", "a", "b"], {"a", "b"}) == PRF(1.0, 1.0, 1.0)  # identifiers are a set
    assert block_f([], []) == PRF(1.0, 1.0, 1.0)
    assert block_f([], ["x"]) == PRF(0.0, 0.0, 0.0)
    assert block_f(["x"], []) == PRF(0.0, 0.0, 0.0)


# --- aggregates ---------------------------------------------------------------------------------------------


def test_mean_and_std() -> None:
    assert mean([1.0, 2.0, 3.0]) == 2.0
    assert math.isnan(mean([]))
    values = [2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0]  # mean 5, sum of squared deviations 32
    assert std(values) == pytest.approx(math.sqrt(32 / 7))  # sample (n - 1)
    assert std(values, ddof=0) == pytest.approx(2.0)  # population
    assert math.isnan(std([0.7]))
    assert std([0.7], ddof=0) == 0.0


def test_site_macro_mean_weighs_sites_equally() -> None:
    pages = [("a", 1.0), ("a", 0.0), ("a", 0.5), ("b", 1.0)]
    assert mean(v for _, v in pages) == pytest.approx(0.625)  # micro: pages
    assert site_macro_mean(pages) == pytest.approx(0.75)  # macro: (0.5 + 1.0) / 2
    assert math.isnan(site_macro_mean([]))


def test_mean_prf_averages_components() -> None:
    prfs = [PRF(1.0, 0.5, 2 / 3), PRF(0.5, 1.0, 2 / 3), PRF(0.0, 0.0, 0.0)]
    assert mean_prf(prfs) == approx_prf(0.5, 0.5, 4 / 9)  # mean page F1, not F1 of the means (0.5)


# --- performance --------------------------------------------------------------------------------------------


def _random_words(rng: random.Random, n: int) -> list[str]:
    vocab = [
        "".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rng.randint(2, 9)))
        for _ in range(5000)
    ]
    return [rng.choice(vocab) for _ in range(n)]


def test_word_lcs_on_50k_words_is_fast() -> None:
    # guards against a quadratic LCS (minutes at this size); CPU time of this process, so that other jobs on a
    # loaded machine do not fail it
    rng = random.Random(1)
    page = _random_words(rng, 50_000)
    gold = [w if rng.random() > 0.05 else "changed" for w in page[10_000:40_000]]
    start = time.process_time()
    scores = word_f(" ".join(page), " ".join(gold))
    elapsed = time.process_time() - start
    assert scores.recall > 0.9
    assert elapsed < 1.5, f"word LCS over 50k words took {elapsed:.2f} s"


def test_character_measures_on_100k_characters_are_fast() -> None:
    rng = random.Random(2)
    page = " ".join(_random_words(rng, 20_000))[:100_000]
    gold = page[30_000:80_000].replace("e", "E")
    start = time.process_time()
    lcstring_f(page, gold)
    lcsequence_f(page, gold)
    char_f(page, gold)
    elapsed = time.process_time() - start
    assert elapsed < 2.0, f"three character measures over 100k characters took {elapsed:.2f} s"
