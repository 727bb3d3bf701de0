"""Tests of :mod:`fce.names`: the furniture vocabulary of class and id names."""

import pytest

from fce.names import noise_named


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("HTML.BODY.DIV[#comments].P", True),
        ("HTML.BODY.DIV[.postcomments].P", True),
        ("HTML.BODY.DIV[.trb_embed_related].SPAN", True),
        ("HTML.BODY.DIV[#content-sidebar-wrap].DIV[.entry-content].P", False),  # nearest telling name: content
        ("HTML.BODY[.ad-column].DIV[#article].P", False),  # BODY's names are ignored
        ("HTML.BODY.DIV[#article].DIV[.comments].P", True),  # nearest telling name: comments
        ("HTML.BODY.DIV[.header].P", False),  # "ad" is matched as a whole token only
        ("HTML.BODY.DIV.P", False),
        ("HTML.BODY.DIV[.article].P[.comment-text]", True),
    ],
)
def test_noise_named(path, expected):
    assert noise_named(path) is expected
