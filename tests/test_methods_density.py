"""Text density (``fce/methods/density.py``, Arias et al. §4): the cutoff, the c2 gap, and pages."""

from __future__ import annotations

import pytest

from fce.methods import get_method
from fce.methods.density import DENSITY_C1, DENSITY_C2, densest_region, density_strings
from fce.parse import parse_page


def test_published_parameters() -> None:
    assert (DENSITY_C1, DENSITY_C2) == (0.333, 4)
    assert get_method("density").params == {"c1": 0.333, "c2": 4}


@pytest.mark.parametrize(
    ("lengths", "region"),
    [
        # c2: a long string joins R when |i − j| < c2 = 4.
        ([100, 0, 0, 50], (0, 3)),  # gap 3: joins
        ([100, 0, 0, 0, 50], (0, 0)),  # gap 4: does not
        ([50, 0, 0, 100], (0, 3)),  # the same to the left
        ([50, 0, 0, 0, 100], (4, 4)),
        # cutoffL = maxL · c1 = 333.0: a string must be strictly longer.
        ([1000, 333], (0, 0)),
        ([1000, 334], (0, 1)),
        # short strings in between neither join nor break the chain
        ([40, 5, 5, 100, 5, 5, 40], (0, 6)),
        # R grows link by link: 6 joins through 3, 10 is 4 away from 6
        ([100, 0, 0, 40, 0, 0, 40, 0, 0, 0, 40], (0, 6)),
        # the first longest string is smax
        ([0, 0, 0, 0, 0, 80, 0, 80], (5, 7)),
        ([], None),
        ([0, 0], None),
    ],
)
def test_densest_region(lengths: list[int], region: tuple[int, int] | None) -> None:
    assert densest_region(lengths) == region


def page(body: str) -> str:
    return f"<html><head><title>t</title></head><body>{body}</body></html>"


def test_obvious_region_of_long_paragraphs() -> None:
    nav = "".join(f'<li><a href="/{i}">Link {i}</a></li>' for i in range(12))
    paras = [f"Paragraph {k} " + "text " * (60 + 10 * k) for k in range(4)]
    html = page(f"<ul>{nav}</ul><div>{''.join(f'<p>{p}</p>' for p in paras)}</div><p>Copyright 2024</p>"
                f"<ul>{nav}</ul>")  # fmt: skip
    text = get_method("density")(parse_page(html.encode())).text
    assert text.split("\n") == [" ".join(p.split()) for p in paras]


@pytest.mark.parametrize("breaks", [1, 2, 3, 4, 5])
def test_gap_on_a_page_follows_the_string_positions(breaks: int) -> None:
    # Two long strings separated by <br> tags; however the strings are split, the second one is extracted
    # exactly when its distance in L from the first is below c2.
    first, second = "alpha " * 60, "omega " * 40
    parsed = parse_page(page(f"<div>{first}{'<br>' * breaks}{second}</div>").encode())
    strings = density_strings(parsed)
    gap = next(i for i, s in enumerate(strings) if s.startswith("omega")) - strings.index(first.strip())
    assert gap >= breaks
    text = get_method("density")(parsed).text
    assert text.startswith("alpha")
    assert ("omega" in text) is (gap < DENSITY_C2)


def test_empty_page() -> None:
    assert get_method("density").func(parse_page(b"<html><body></body></html>")) == []
