"""Tests of :mod:`fce.names`: the furniture vocabulary of class and id names."""

import pytest

from fce.names import aside_named, noise_named


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


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("HTML.BODY.DIV[.wrap].DIV[.standfirst]", False),
        ("HTML.BODY.DIV[.wrap].DIV[.video].DIV[.player].P[.embedded-caption]", False),  # a video's summary
        ("HTML.BODY.DIV[.wrap].DIV[#featured-image-wrapper].DIV[.wp-caption-text]", True),
        ("HTML.BODY.DIV[.story].DIV[.thumbnail].DIV[.holder].TABLE.TR.TD.P[.small]", True),  # third named element
        ("HTML.BODY.DIV[.story].UL.LI[.item].DIV[.summary].P", True),  # an item of a list
        ("HTML.BODY.UL.LI.DIV.DIV.P", False),  # the list item is four elements up
        ("HTML.BODY.DIV[.author-box].P", True),
        ("HTML.BODY.DIV[.article].DIV[.related].P", True),  # furniture (noise_named)
        ("HTML.BODY.DIV.P", False),
    ],
)
def test_aside_named(path, expected):
    assert aside_named(path) is expected
