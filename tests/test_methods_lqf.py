"""Link Quota Filter (``fce/methods/lqf.py``): blocks just above and just below each threshold."""

from __future__ import annotations

import pytest

from fce.blocks import blocks_of
from fce.methods import get_method
from fce.methods.lqf import LQF_DEFAULT_THRESHOLD, LQF_THRESHOLDS, own_text_runs
from fce.parse import parse_page


def paragraph(link_chars: int, total: int = 100, mark: str = "y") -> str:
    """A <p> whose own text is ``total`` characters, the first ``link_chars`` of them in a link."""
    return f'<p><a href="/x">{"x" * link_chars}</a> {mark * (total - link_chars - 1)}</p>'


def extract(name: str, body: str) -> str:
    return get_method(name)(parse_page(f"<html><body>{body}</body></html>".encode())).text


def test_registered_thresholds() -> None:
    assert LQF_THRESHOLDS == (0.25, 0.5, 0.75)
    for t in LQF_THRESHOLDS:
        assert get_method(f"lqf-{t:g}").params == {"threshold": t}
    assert get_method("lqf").params == {"threshold": LQF_DEFAULT_THRESHOLD}


def test_link_characters_are_counted_as_the_paper_says() -> None:
    block = [b for b in blocks_of(parse_page(f"<html><body>{paragraph(25)}</body></html>".encode()))
             if b.tag == "p"][0]  # fmt: skip
    assert (block.link_chars, len(block.text)) == (25, 100)


@pytest.mark.parametrize("threshold", LQF_THRESHOLDS)
@pytest.mark.parametrize(
    ("offset", "kept"),
    [(-1, True), (0, True), (1, False)],  # just below, exactly at (not above: kept), just above
)
def test_block_just_above_and_below_each_threshold(threshold: float, offset: int, kept: bool) -> None:
    link_chars = round(100 * threshold) + offset
    text = extract(f"lqf-{threshold:g}", paragraph(link_chars, mark="y") + "<p>plain text here</p>")
    assert ("y" in text) is kept
    assert "plain text here" in text


def test_default_is_the_middle_threshold() -> None:
    body = paragraph(51, mark="a") + paragraph(49, mark="b")
    assert extract("lqf", body) == extract("lqf-0.5", body)
    assert "bbbb" in extract("lqf", body) and "aaaa" not in extract("lqf", body)


def test_nested_blocks_are_judged_on_their_own() -> None:
    # The div's own text is one link (ratio 1): it goes, the paragraph inside it stays.
    body = '<div><a href="/">Home</a><p>An article paragraph with no link at all.</p></div>'
    assert extract("lqf-0.25", body) == "An article paragraph with no link at all."


def test_own_text_keeps_document_order_around_nested_blocks() -> None:
    page = parse_page(b"<html><body><div>before <p>inside</p> after</div></body></html>")
    assert [(b.tag, text) for b, text in own_text_runs(blocks_of(page))] == [
        ("div", "before"), ("p", "inside"), ("div", "after")
    ]
    lines = extract("lqf", "<div>before <p>inside</p> after</div>").split("\n")
    assert lines == ["before", "inside", "after"]
