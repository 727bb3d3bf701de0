"""Tests of :mod:`fce.names`: the furniture vocabulary of class and id names."""

import pytest

from fce.names import aside_named, furniture_item, name_words, noise_named


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
        ("HTML.BODY.DIV[#stgOpinie].DIV[#opOpinie .opOpinie].DIV[.opOpinia].DIV[.opTresc].P", True),  # Polish
        ("HTML.BODY.DIV[.tb_najczesciej_komentowane].UL.LI", True),  # "most commented", Polish
        ("HTML.BODY.DIV[.section-opinion].DIV.P", False),  # the op-ed section: articles
        ("HTML.BODY.MAIN[.container .js-social-anchor-start].DIV[#storytext].P", False),  # a script's hook
        ("HTML.BODY.DIV[.social-share .js-share].P", True),  # the hook says nothing; the other name does
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


@pytest.mark.parametrize(
    ("names", "furniture"),
    [
        ("#print-layer .disabled", True),  # a copy of the article for printing
        (".hide-on-print", False),  # left out of print: shown on the screen
        (".d-print-none .col-auto", False),
        (".no-print", False),
        (".blueprint", False),  # a whole token only
        (".print .nav", True),  # furniture for another word as well
    ],
)
def test_print_copies_are_furniture_what_print_leaves_out_is_not(names, furniture):
    assert name_words(names)[1] is furniture


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("HTML.BODY.UL[.child].LI[#opinion .comment].SECTION.ARTICLE[.content]", True),  # one reader comment
        ("HTML.BODY.DIV[.related].UL.LI[.item].DIV[.teaser]", False),  # the item's own names are telling
        ("HTML.BODY.UL.LI[.related-link].P", True),
        ("HTML.BODY.UL.LI[.related-story].P", False),  # "story": a content word
        ("HTML.BODY.UL.LI[.post .comment].P", False),  # a content word beside it: a forum's post
        ("HTML.BODY.DIV[.comment].P", False),  # not a list item
        ("HTML.BODY.UL.LI.P", False),
    ],
)
def test_furniture_item(path, expected):
    assert furniture_item(path) is expected
