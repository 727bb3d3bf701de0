"""Body Text Extraction (``fce/methods/bte.py``): the linear optimum against brute force, and on pages."""

from __future__ import annotations

import time

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fce.methods import get_method
from fce.methods.bte import best_span, objective
from fce.parse import parse_page


def brute_force(is_tag: list[bool]) -> tuple[int, int]:
    """The paper's definition scanned literally, O(N³): the first best (i, j) with j outer, i inner."""
    best, span = -1, (0, 0)
    for j in range(len(is_tag)):
        for i in range(j + 1):
            t = sum(is_tag[:i]) + sum(1 - x for x in is_tag[i:j + 1]) + sum(is_tag[j + 1:])
            if t > best:
                best, span = t, (i, j)
    return span


@settings(max_examples=300, deadline=None)
@given(st.lists(st.booleans(), min_size=1, max_size=40))
def test_linear_scan_agrees_with_brute_force(is_tag: list[bool]) -> None:
    span = best_span(np.array(is_tag))
    assert span == brute_force(is_tag)
    assert objective(np.array(is_tag), *span) == objective(np.array(is_tag), *brute_force(is_tag))


@pytest.mark.parametrize(
    ("tokens", "span"),
    [
        ("TTWWWTT", (2, 4)),  # the text between the tags
        ("WWW", (0, 2)),  # no tag at all: everything
        ("TTT", (0, 0)),  # no word: the first smallest span (one tag inside costs one)
        ("TWTTWWWWTWT", (4, 7)),  # a lone word is not worth the two tags that separate it
        ("TWWTWWT", (1, 5)),  # one tag inside is worth the two words it joins
        ("W", (0, 0)),
    ],
)
def test_known_optima(tokens: str, span: tuple[int, int]) -> None:
    assert best_span(np.array([c == "T" for c in tokens])) == span


def test_empty_sequence() -> None:
    assert best_span(np.array([], dtype=bool)) is None


def test_page_with_one_text_block_amid_navigation() -> None:
    body = " ".join(f"word{i}" for i in range(60))
    menu = "".join(f'<li><a href="/{i}">Item {i}</a></li>' for i in range(10))
    html = f"<html><body><div><ul>{menu}</ul></div><p>{body}</p><div><ul>{menu}</ul></div></body></html>"
    blocks = get_method("bte").func(parse_page(html.encode()))
    assert [b.text for b in blocks] == [body]


def test_linear_time_on_a_million_tokens() -> None:
    rng = np.random.default_rng(0)
    tokens = rng.random(1_000_000) < 0.5
    start = time.process_time()
    best_span(tokens)
    assert time.process_time() - start < 2.0
