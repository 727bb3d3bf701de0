"""The vocabulary of page furniture: words in id/class names that mark comments, sidebars, bylines and the like,
and words that mark content. Learning (:mod:`fce.learn`) and the ``mainblock`` scoring (:mod:`fce.methods.mainblock`)
read the same lists, so they live below both.
"""

from __future__ import annotations

import re

__all__ = ["ASIDE_NAME_PARTS", "COMMENT_NAME_PARTS", "CONTENT_NAME_TOKENS", "NOISE_NAME_PARTS", "NOISE_NAME_TOKENS",
           "PRINT_NEGATIONS", "aside_named", "furniture_item", "name_words", "noise_named"]

#: Words in the id/class names of readers' comments, matched anywhere inside a name (``postcomments``). Comments
#: are named in the site's language too: Polish ``opinie``/``opinia`` (wiadomosci.wp.pl's ``#opOpinie``, one
#: ``div.opOpinia`` per comment) and ``komentarz``, Croatian ``komentaren``; English ``opinions`` ("top opinions",
#: ``mod_comments opinions``) but not ``opinion``, the op-ed section whose pages are articles. Every element of
#: ``../shared/data`` so named with 20 words or more keeps at most 0.28 of them in the gold. Measured, beside
#: ``comment`` and ``disqus``: with templates, daniel-small site-macro word F1 +0.0075 (wiadomosci.wp.pl 0.39 →
#: 0.79); ``mainblock`` (step 14), daniel-small page mean +0.0012; the other sets ±0.
COMMENT_NAME_PARTS = ("comment", "disqus", "opinions", "opinie", "opinia", "koment")
#: Words in the id/class names of a qualified path that mark page furniture, not content. A block on such a path is
#: never content while learning: comments, author boxes and "related" lists are unique per page, so repetition
#: alone (ContentExtractor) calls them content. The same kind of name list readability and boilerpipe use.
#: These match anywhere inside a name (``trb_embed_related``, ``datestamp``)…
NOISE_NAME_PARTS = COMMENT_NAME_PARTS + (
    "sidebar", "footer", "sponsor", "related", "promo", "breadcrumb", "newsletter",
    "outbrain", "taboola", "stamp", "byline", "dateline", "signup", "subscribe", "trending", "popular", "advert",
    "social", "sharing", "toolbar", "masthead", "cookie", "recirc", "recommend",
)  # fmt: skip
#: …these only as a whole name token (``ad`` must not match ``header`` or ``lead``).
#: ``print`` names a page's copy for printing (``#print-layer``: wprost.pl holds the article twice; daniel-small
#: site-macro word F1 +0.005 with templates and without, the other sets ±0)…
NOISE_NAME_TOKENS = frozenset({"ad", "ads", "wm", "tags", "share", "menu", "nav", "navbar", "navigation", "print"})
#: …except in the names of what is left out of print (``hide-on-print``, ``no-print``, ``d-print-none``): those are
#: shown on the screen.
PRINT_NEGATIONS = frozenset({"hide", "hidden", "no", "none", "not", "non"})

#: …unless the same element's names also hold one of these (``content-sidebar-wrap`` wraps the article too).
CONTENT_NAME_TOKENS = frozenset({"content", "article", "main", "body", "entry", "post", "story", "hentry"})

#: :data:`NOISE_NAME_PARTS` as one pattern (one C call where a generator over the parts made ~26 Python steps).
_FURNITURE_PART = re.compile("|".join(map(re.escape, NOISE_NAME_PARTS)))
_NAME_SPLIT = re.compile(r"[\s#.\-_:]+")
#: Class names prefixed ``js-`` (or ``js_``) are hooks for scripts, by a common convention, not a description of
#: the element: cnn.com's ``<main class="container js-social-anchor-start">`` wraps the article and marks where a
#: share bar starts, and read as a name its "social" made every article path furniture, so a template learned
#: from cnn.com's pages masked its money pages' articles. Measured: ``bench.layouts_bench`` on msv-big9, one
#: template per site 0.970 → 0.978 site-macro word F1 (cnn.com 0.899 → 0.969), relearned from 2017 pages 0.942 →
#: 0.973 (cnn.com 0.661 → 0.942); wcxb-dev page mean +0.0021 (two pages up, none down); the other sets ±0.
_SCRIPT_HOOK = re.compile(r"(?:^|(?<=\s))\.js[-_]\S*")
#: One step of a path: its tag, and its qualifier (without brackets; empty where it has none).
_STEP = re.compile(r"([A-Z][A-Z0-9]*)(?:\[([^\]]*)\])?")


#: Words in the id/class names near a block that mark what sits beside an article's text rather than in it: a
#: picture's or gallery's caption, an author's biography. Guided detection does not take such a block for the
#: article's lead (:func:`fce.detect.put_lead`); the articles' own containers are never named so. Matched anywhere
#: inside a name (``featured-image-wrapper``, ``slide-caption``, ``author-dropdown``).
ASIDE_NAME_PARTS = ("author", "bio", "image", "img", "photo", "gallery", "slide", "thumbnail", "figure", "media")
#: How many elements of a path, from the block up, :func:`aside_named` reads (of those with names: how many of
#: them): the block's own neighbourhood (a caption's box and the picture's wrapper around it), not the page's
#: columns.
ASIDE_NAME_STEPS = 3
_ASIDE_PART = re.compile("|".join(map(re.escape, ASIDE_NAME_PARTS)))


def name_words(qualifier: str) -> tuple[bool, bool]:
    """For one element's id/class names (``#main .story``): whether they hold a content word
    (:data:`CONTENT_NAME_TOKENS`) and whether they hold a furniture word (:data:`NOISE_NAME_PARTS`,
    :data:`NOISE_NAME_TOKENS`). Class names that hook scripts (:data:`_SCRIPT_HOOK`) say nothing."""
    names = qualifier.lower()
    if "js" in names:
        names = _SCRIPT_HOOK.sub(" ", names)
    tokens = set(_NAME_SPLIT.split(names))
    found = tokens & NOISE_NAME_TOKENS
    if found == {"print"} and tokens & PRINT_NEGATIONS:
        found = set()
    furniture = bool(found) or _FURNITURE_PART.search(names) is not None
    return bool(tokens & CONTENT_NAME_TOKENS), furniture


def noise_named(path: str) -> bool:
    """True when the nearest element on ``path`` (from the block up, ``HTML`` and ``BODY`` excluded) whose id/class
    names are telling holds a furniture word (:data:`NOISE_NAME_PARTS`, :data:`NOISE_NAME_TOKENS`) rather than a
    content word (:data:`CONTENT_NAME_TOKENS`). The nearest telling name wins: comments inside ``#article`` are
    furniture, an article inside ``#content-sidebar-wrap`` or ``<body class="ad-column">`` is not."""
    for tag, qualifier in reversed(_STEP.findall(path)):
        if not qualifier or tag in ("HTML", "BODY"):
            continue
        content, furniture = name_words(qualifier)
        if content:
            return False
        if furniture:
            return True
    return False


def aside_named(path: str) -> bool:
    """True when ``path`` is furniture by its names (:func:`noise_named`), or one of its last
    :data:`ASIDE_NAME_STEPS` elements is a list item (an item of a list, a carousel, a gallery), or one of its last
    :data:`ASIDE_NAME_STEPS` elements with id/class names has one holding an :data:`ASIDE_NAME_PARTS` word."""
    if noise_named(path):
        return True
    steps = _STEP.findall(path)
    if any(tag == "LI" for tag, _ in steps[-ASIDE_NAME_STEPS:]):
        return True
    named = [qualifier for _, qualifier in steps if qualifier][-ASIDE_NAME_STEPS:]
    return any(_ASIDE_PART.search(qualifier.lower()) for qualifier in named)


def furniture_item(path: str) -> bool:
    """True when an item of a list on ``path`` (an ``LI`` step) has id/class names holding a furniture word and no
    content word (:func:`name_words`): one reader comment of a thread (``li.comment``), one entry of a "related"
    list, whatever its own container is called inside (``article.content``)."""
    for tag, qualifier in _STEP.findall(path):
        if tag == "LI" and qualifier:
            content, furniture = name_words(qualifier)
            if furniture and not content:
                return True
    return False
