"""Content code blurring (``fce/methods/ccb.py``): the blurring, the CCR of words, and the three variants."""

from __future__ import annotations

import numpy as np
import pytest

from fce.methods import get_method
from fce.methods._tokens import token_stream
from fce.methods.ccb import (
    CCB_CHAR_RANGE,
    CCB_SETTLE_EPSILON,
    CCB_SIGMA_PER_RANGE,
    CCB_THRESHOLD,
    CCB_TOKEN_RANGE,
    _kernel,
    blur,
    content_code_ratio,
)
from fce.parse import parse_page

WORDS = [f"w{i}" for i in range(300)]


def nav(name: str, n: int = 15) -> str:
    return "<ul>" + "".join(f'<li><a href="/{name}/{i}">{name} {i}</a></li>' for i in range(n)) + "</ul>"


def page_with(paragraph: str) -> str:
    return f"<html><body>{nav('Menu')}<p>{paragraph}</p>{nav('Footer')}</body></html>"


PLAIN = " ".join(WORDS)
#: Every third word is a link with a long href: little text between many (long) tags.
LINKED = " ".join(f'<a href="/wiki/Some_long_article_name_{i}">{w}</a>' if i % 3 == 0 else w
                  for i, w in enumerate(WORDS))  # fmt: skip
#: Every twelfth word wrapped in a span with 150+ characters of attributes: few tags, but long ones.
LONG_TAGS = " ".join(f'<span class="tracking" data-tracking="{"x" * 150}">{w}</span>' if i % 12 == 0 else w
                     for i, w in enumerate(WORDS))  # fmt: skip


def kept(method: str, html: str) -> tuple[int, int]:
    """(paragraph words kept, navigation words kept) by ``method``."""
    words = get_method(method)(parse_page(html.encode())).text.split()
    return sum(w.startswith("w") for w in words), sum(w in ("Menu", "Footer") for w in words)


def test_published_parameters() -> None:
    assert (CCB_CHAR_RANGE, CCB_TOKEN_RANGE, CCB_THRESHOLD) == (40, 25, 0.75)
    for name, range_ in (("ccb", 40), ("accb", 40), ("tccb", 25)):
        info = get_method(name)
        assert info.params["range"] == range_ and info.params["t"] == 0.75
        assert "004" in info.paper


@pytest.mark.parametrize("value", [0.0, 1.0])
def test_blurring_a_uniform_vector_changes_nothing(value: float) -> None:
    assert np.allclose(blur(np.full(500, value), 40), value)


def test_one_iteration_is_a_gaussian_weighted_local_average() -> None:
    rng = np.random.default_rng(0)
    ccv = (rng.random(200) < 0.5).astype(float)
    weights = _kernel(10, 10 * CCB_SIGMA_PER_RANGE)
    expected = []
    for i in range(ccv.size):  # weighted average over the neighbours that exist (renormalised at the ends)
        lo, hi = max(0, i - 10), min(ccv.size, i + 11)
        w = weights[lo - i + 10:hi - i + 10]
        expected.append(float(np.dot(w, ccv[lo:hi]) / w.sum()))
    assert np.allclose(blur(ccv, 10, max_iterations=1), expected, atol=1e-5)


def test_blurring_stops_once_the_values_settle() -> None:
    rng = np.random.default_rng(1)
    ccv = (rng.random(3000) < 0.6).astype(float)
    settled = blur(ccv, 40)
    assert 0.0 <= settled.min() and settled.max() <= 1.0
    # One more iteration moves no value by more than ε: the changes shrink from one iteration to the next.
    assert np.max(np.abs(blur(settled, 40, max_iterations=1) - settled)) <= CCB_SETTLE_EPSILON
    # …and the iteration cap bounds the loop: with ε = 0 it runs exactly max_iterations times.
    three_passes = ccv
    for _ in range(3):
        three_passes = blur(three_passes, 40, max_iterations=1)
    assert np.allclose(blur(ccv, 40, epsilon=0.0, max_iterations=3), three_passes, atol=1e-5)


def test_a_word_is_taken_whole_from_its_best_character() -> None:
    page = parse_page(page_with(PLAIN).encode())
    stream = token_stream(page)
    ccr = content_code_ratio(stream, tokens=False, ignore_anchors=False, range_=40)
    chars = blur(np.repeat(stream.is_word.astype(float), stream.chars), 40)
    start = np.concatenate(([0], np.cumsum(stream.chars)))
    for k in np.flatnonzero(stream.is_word):
        assert ccr[k] == pytest.approx(chars[start[k]:start[k + 1]].max(), abs=1e-6)


def test_anchor_tags_are_left_out_of_the_accb_vector() -> None:
    stream = token_stream(parse_page(page_with(LINKED).encode()))
    ccr = content_code_ratio(stream, tokens=True, ignore_anchors=True, range_=25)
    anchors = np.array([t in ("a", "/a") for t in stream.tag])
    assert np.isnan(ccr[anchors]).all() and not np.isnan(ccr[~anchors]).any()


@pytest.mark.parametrize("method", ["ccb", "accb", "tccb"])
def test_long_paragraph_is_kept_and_link_lists_dropped(method: str) -> None:
    paragraph, navigation = kept(method, page_with(PLAIN))
    assert paragraph >= 0.9 * len(WORDS)  # only the few words nearest the lists are dimmed below t
    assert navigation == 0


@pytest.mark.parametrize(
    ("paragraph", "method", "keeps"),
    [
        # ACCB ignores anchors: text full of in-text links stays one homogeneous region (§3.3); CCB and TCCB
        # see tags everywhere and drop it.
        (LINKED, "accb", True),
        (LINKED, "ccb", False),
        (LINKED, "tccb", False),
        # TCCB counts a tag as one token whatever its length; CCB counts the characters of long attributes.
        (LONG_TAGS, "tccb", True),
        (LONG_TAGS, "ccb", False),
        (LONG_TAGS, "accb", False),
    ],
)
def test_the_variants_differ_where_they_should(paragraph: str, method: str, keeps: bool) -> None:
    words, navigation = kept(method, page_with(paragraph))
    assert navigation == 0
    if keeps:
        assert words >= 0.85 * len(WORDS)
    else:
        assert words <= 0.1 * len(WORDS)


def test_extracted_text_is_contiguous_runs_in_document_order() -> None:
    blocks = get_method("ccb").func(parse_page(page_with(PLAIN).encode()))
    assert [b.index for b in blocks] == sorted(b.index for b in blocks)
    text = " ".join(b.text for b in blocks).split()
    first = WORDS.index(text[0])
    assert text == WORDS[first:first + len(text)]  # the dimmed words are at the paragraph's ends only
