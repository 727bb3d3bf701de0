"""Document Slope Curves (``fce/methods/dsc.py``): windows, the three-in-a-row rule, and a page."""

from __future__ import annotations

import numpy as np
import pytest

from fce.methods import get_method
from fce.methods.dsc import DSC_LOW_SLOPE_FACTOR, DSC_RUN, DSC_WINDOW, low_slope_areas, low_slope_runs
from fce.parse import parse_page


def test_published_parameters() -> None:
    assert DSC_LOW_SLOPE_FACTOR == 0.5 and DSC_RUN == 3
    assert get_method("dsc").params["overlap"] == 0.5


@pytest.mark.parametrize(
    ("windows", "areas"),
    [
        ("LL", []),  # two low windows do not open an area
        ("LLL", [(0, 2)]),  # three do; still open at the end: up to the last low window
        ("HLLLHHH", [(1, 3)]),  # three high windows close it, after the last low one
        ("LLLHHLHHH", [(0, 5)]),  # two high windows inside an area do not close it
        ("LLLHHHLLLL", [(0, 2), (6, 9)]),
        ("LHLHLHLH", []),
        ("", []),
    ],
)
def test_three_low_windows_open_and_three_high_ones_close(windows: str, areas: list[tuple[int, int]]) -> None:
    assert low_slope_runs([w == "L" for w in windows]) == areas


def test_one_long_low_slope_region() -> None:
    noisy = [True, True, True, False] * 50  # 200 tokens, 3 tags in 4: slope 0.75
    # 200 noisy, 400 words, 200 noisy tokens: document slope 0.375, low windows below 0.1875. A window
    # reaching 20 tokens into the noise already has slope 15/40 = 0.375, so the area is exactly the text.
    tokens = np.array(noisy + [False] * 400 + noisy)
    assert low_slope_areas(tokens, window=40) == [(200, 600)]


def test_short_document_is_one_window() -> None:
    assert low_slope_areas(np.array([True, False, False]), window=40) == []
    assert low_slope_areas(np.array([], dtype=bool)) == []


def test_page_with_one_long_text_region_amid_link_lists() -> None:
    words = [f"word{i}" for i in range(400)]
    menu = "".join(f'<li><a href="/{i}">Item {i}</a></li>' for i in range(40))
    paragraphs = "".join(f"<p>{' '.join(words[k:k + 100])}</p>" for k in range(0, 400, 100))
    html = f"<html><body><ul>{menu}</ul><div>{paragraphs}</div><ul>{menu}</ul></body></html>"
    text = get_method("dsc")(parse_page(html.encode())).text.split()
    assert [w for w in text if w.startswith("word")] == words  # all of the text region…
    # …and of the lists at most the tail of a window that reaches a few tokens into them while still low.
    assert len(text) - len(words) <= 4 and text.count("Item") <= 1
    assert DSC_WINDOW < 100  # (paragraphs longer than a window: each <p> boundary is one tag per window)
