"""The gold-block rule of fce.evaluation.gold_blocks on constructed block lists."""

from __future__ import annotations

import random

import pytest

from fce.evaluation.gold_blocks import (
    GOLD_BLOCK_MIN_ALIGNED,
    aligned_fractions,
    aligned_word_mask,
    label_gold_blocks,
)
from fce.evaluation.measures import lcs_length


def test_default_threshold_is_a_majority() -> None:
    assert GOLD_BLOCK_MIN_ALIGNED == 0.5


def test_article_between_boilerplate() -> None:
    blocks = ["Home News Sport", "The cat sat on the mat.", "It was happy.", "Copyright 2024 Example Ltd"]
    gold = "The cat sat on the mat.\nIt was happy."
    assert label_gold_blocks(blocks, gold) == [False, True, True, False]
    assert aligned_fractions(blocks, gold) == [0.0, 1.0, 1.0, 0.0]


def test_gold_matching_is_case_and_punctuation_blind() -> None:
    assert label_gold_blocks(["THE CAT", "menu"], "the cat.") == [True, False]


def test_stray_leading_match_slides_to_the_content_block() -> None:
    # rapidfuzz pairs the gold "the" with the first page "the"; the slide moves it next to "cat"
    blocks = ["the nav", "the cat"]
    assert aligned_fractions(blocks, "the cat") == [0.0, 1.0]
    assert label_gold_blocks(blocks, "the cat") == [False, True]


def test_stray_run_of_several_words_slides() -> None:
    # page: the day | sidebar | the day story | footer; gold: "the day story". The earliest alignment puts
    # "the day" in block 0 (all of it aligned) and only "story" in block 2 (1 of 3); after the slide,
    # block 0 has nothing aligned and block 2 everything.
    blocks = ["the day", "sidebar", "the day story", "footer"]
    assert aligned_fractions(blocks, "the day story") == [0.0, 0.0, 1.0, 0.0]
    assert label_gold_blocks(blocks, "the day story") == [False, False, True, False]


def test_runs_slide_repeatedly() -> None:
    # "the" then "the day" then "the day story": each stray copy slides on until it joins "story"
    blocks = ["the", "menu", "the day", "menu", "the day story", "footer"]
    assert aligned_fractions(blocks, "the day story") == [0.0, 0.0, 0.0, 0.0, 1.0, 0.0]


def test_no_slide_when_the_gap_does_not_end_with_the_run() -> None:
    # "intro" is only in block 0: it must stay aligned there
    blocks = ["intro words", "menu", "body text"]
    assert aligned_fractions(blocks, "intro body text") == pytest.approx([0.5, 0.0, 1.0])


@pytest.mark.parametrize(
    ("gold", "min_aligned", "expected"),
    [
        ("alpha beta", 0.5, [True]),  # 2 of 4 aligned: exactly the threshold (inclusive)
        ("alpha beta", 0.6, [False]),
        ("alpha", 0.5, [False]),  # 1 of 4
        ("alpha beta gamma", 0.75, [True]),  # 3 of 4
        ("alpha beta gamma delta", 1.0, [True]),
    ],
)
def test_threshold(gold: str, min_aligned: float, expected: list[bool]) -> None:
    assert label_gold_blocks(["alpha beta gamma delta"], gold, min_aligned=min_aligned) == expected


def test_trimmed_paragraph_stays_content() -> None:
    block = "one two three four five six seven eight nine ten"
    assert label_gold_blocks([block], "three four five six seven eight nine ten") == [True]


def test_blocks_without_words_are_never_content() -> None:
    blocks = ["", "  ", "— | —", "real content"]
    assert aligned_fractions(blocks, "real content") == [0.0, 0.0, 0.0, 1.0]
    assert label_gold_blocks(blocks, "real content", min_aligned=1.0) == [False, False, False, True]


def test_empty_gold_and_no_blocks() -> None:
    assert label_gold_blocks(["some text", "more"], "") == [False, False]
    assert label_gold_blocks(["some text"], "  \n ") == [False]
    assert label_gold_blocks([], "gold text") == []


def test_duplicate_content_is_aligned_once() -> None:
    # the gold paragraph appears twice on the page (a teaser and the article): one copy is aligned
    blocks = ["big news today", "big news today"]
    labels = label_gold_blocks(blocks, "big news today")
    assert labels.count(True) == 1


@pytest.mark.parametrize("min_aligned", [0.0, -0.1, 1.5])
def test_invalid_threshold(min_aligned: float) -> None:
    with pytest.raises(ValueError):
        label_gold_blocks(["a"], "a", min_aligned=min_aligned)


def _is_subsequence(sub: list[str], seq: list[str]) -> bool:
    it = iter(seq)
    return all(w in it for w in sub)


def test_mask_is_always_a_longest_common_subsequence() -> None:
    # whatever the sliding does, the aligned page words must still form an LCS with the gold
    rng = random.Random(3)
    for _ in range(300):
        vocab = ["the", "a", "cat", "nav", "of", "x"][: rng.randint(2, 6)]
        page = [rng.choice(vocab) for _ in range(rng.randint(0, 30))]
        gold = [rng.choice(vocab) for _ in range(rng.randint(0, 20))]
        mask = aligned_word_mask(page, gold)
        assert len(mask) == len(page)
        aligned = [w for w, m in zip(page, mask, strict=True) if m]
        assert len(aligned) == lcs_length(page, gold), (page, gold)
        assert _is_subsequence(aligned, gold), (page, gold)
