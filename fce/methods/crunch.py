"""``crunch``: a heuristic noise filter in the spirit of Crunch (Gupta et al.; Gottron 2007, ``000_…`` §5.1).

Crunch "uses a collection of heuristics to filter the content, e.g. by discovery of link lists, text lists,
blocks with a too high link ratio, commercial banners, etc." and keeps everything else. This is a
re-implementation of that idea, not of Crunch 2.0 itself, whose code and settings Gottron ran as a proxy
("with standard settings") and which the paper does not describe. It walks the DOM once, bottom-up, and
removes an element (with its subtree) when it is

1. **ad-like by name** — its ``id`` or ``class`` contains a word such as ``ad``, ``advert``, ``banner``,
   ``sponsor`` (:data:`AD_WORDS`) and it holds at most :data:`CRUNCH_AD_MAX_WORDS` words (so a page-wide
   wrapper named ``has-ads`` is not mistaken for an ad);
2. **the frame of an ad image** — the smallest block-level element around an ``<img>``/``<iframe>`` of a
   standard banner size (:data:`BANNER_SIZES`, IAB formats) or from an ad server (:data:`AD_SOURCE`), when it
   holds at most :data:`CRUNCH_AD_CAPTION_WORDS` words (the "Advertisement" label);
3. **a link list** — a list (``ul``, ``ol``, ``dl``, ``menu``) of at least :data:`CRUNCH_MIN_LIST_ITEMS` items
   of which at least :data:`CRUNCH_LINK_LIST_ITEM_SHARE` contain a link;
4. **a text list** — a list of at least :data:`CRUNCH_MIN_LIST_ITEMS` items, none longer than
   :data:`CRUNCH_TEXT_LIST_MAX_WORDS` words (menus and tag lists without links);
5. **a block with too high a link ratio** — a block-level element (:data:`fce.blocks.BLOCK_TAGS` except
   ``html``/``body``) more than :data:`CRUNCH_LINK_RATIO` of whose text is link text;
6. **a small form** — a ``<form>`` (search box, login, newsletter) of at most :data:`CRUNCH_FORM_MAX_WORDS`
   words.

Statistics are taken after the removals inside an element (a container is judged on what is left of it).

Where this departs from the original: Crunch works on a proxy's DOM for display on small screens and screen
readers, has many more switches (image and script removal, empty tables, ad-server blacklists, link-list
ratios per table cell, …) and its thresholds are user settings; the thresholds here are ours, chosen to be
conservative (a filter should keep the content), and are named constants. Text is counted in non-whitespace
characters and whitespace-separated words.
"""

from __future__ import annotations

import re
from typing import Any

from lxml import etree

from fce.blocks import BLOCK_TAGS, SKIPPED_TAGS
from fce.extraction import ExtractedBlock
from fce.methods import register
from fce.methods._tokens import element_lines, local_tag
from fce.parse import Page

__all__ = [
    "AD_SOURCE",
    "AD_WORDS",
    "BANNER_SIZES",
    "CRUNCH_AD_CAPTION_WORDS",
    "CRUNCH_AD_MAX_WORDS",
    "CRUNCH_FORM_MAX_WORDS",
    "CRUNCH_LINK_LIST_ITEM_SHARE",
    "CRUNCH_LINK_RATIO",
    "CRUNCH_MIN_LIST_ITEMS",
    "CRUNCH_TEXT_LIST_MAX_WORDS",
    "crunch",
    "crunch_removals",
]

#: A block-level element is removed when more than this share of its text is link text (ours; LQF's middle
#: threshold, Gottron 2007 §5.4).
CRUNCH_LINK_RATIO = 0.5
#: Lists need this many items to count as link or text lists (ours: two items are a pair, not a list).
CRUNCH_MIN_LIST_ITEMS = 3
#: A link list: at least this share of its items contain a link (ours).
CRUNCH_LINK_LIST_ITEM_SHARE = 0.75
#: A text list: no item longer than this many words (ours: menu entries, tags, share buttons).
CRUNCH_TEXT_LIST_MAX_WORDS = 3
#: An element named like an ad is removed only when it holds at most this many words (ours).
CRUNCH_AD_MAX_WORDS = 50
#: The frame of an ad image is removed when it holds at most this many words (ours: "Advertisement").
CRUNCH_AD_CAPTION_WORDS = 10
#: A form is removed when it holds at most this many words (ours; ASP.NET wraps whole pages in a form).
CRUNCH_FORM_MAX_WORDS = 30

#: Words in ``id``/``class`` that mark advertising (ours, after the usual ad-blocker element-hiding names).
AD_WORDS = frozenset(
    {"ad", "ads", "adv", "advert", "adverts", "advertisement", "advertising", "adsense", "banner", "banners",
     "sponsor", "sponsored", "sponsors", "promo", "promotion", "commercial", "dfp", "doubleclick"}
)  # fmt: skip
#: Standard banner sizes (width, height) of the IAB ad unit guidelines.
BANNER_SIZES = frozenset(
    {(468, 60), (234, 60), (728, 90), (970, 90), (970, 250), (300, 250), (336, 280), (250, 250), (200, 200),
     (120, 600), (160, 600), (300, 600), (120, 240), (125, 125), (180, 150), (88, 31), (320, 50), (300, 50)}
)  # fmt: skip
#: Image or frame sources served by ad networks.
AD_SOURCE = re.compile(r"doubleclick|googlesyndication|adservice|adserver|/ads?/|[./]ads?\.|banner", re.I)

_LISTS = frozenset({"ul", "ol", "dl", "menu"})
_ITEMS = frozenset({"li", "dt", "dd"})
_NOT_JUDGED = frozenset({"html", "body"})
_NAME_WORDS = re.compile(r"[a-z]+")


class _Frame:
    """Text statistics of one open element (its subtree, minus removed descendants)."""

    __slots__ = ("chars", "link_chars", "links", "words", "ad_media", "items")

    def __init__(self) -> None:
        self.chars = self.link_chars = self.links = self.words = 0
        self.ad_media = False
        self.items: list[tuple[int, int]] = []  # (words, links) of each list item child

    def add_text(self, text: str | None) -> None:
        if text:
            words = text.split()
            self.words += len(words)
            self.chars += sum(map(len, words))

    def absorb(self, child: _Frame) -> None:
        self.chars += child.chars
        self.link_chars += child.link_chars
        self.links += child.links
        self.words += child.words
        self.ad_media = self.ad_media or child.ad_media


def _ad_named(el: Any) -> bool:
    names = f"{el.get('id', '')} {el.get('class', '')}".lower()
    return any(word in AD_WORDS for word in _NAME_WORDS.findall(names))


def _ad_media(el: Any) -> bool:
    try:
        size = (int(el.get("width", "")), int(el.get("height", "")))
    except ValueError:
        size = (0, 0)
    return size in BANNER_SIZES or bool(AD_SOURCE.search(el.get("src", "")))


def _removed(name: str, el: Any, frame: _Frame) -> bool:
    if name in _NOT_JUDGED:
        return False
    if frame.words <= CRUNCH_AD_MAX_WORDS and _ad_named(el):
        return True
    if name == "form" and frame.words <= CRUNCH_FORM_MAX_WORDS:
        return True
    if name not in BLOCK_TAGS:
        return False
    if frame.ad_media and frame.words <= CRUNCH_AD_CAPTION_WORDS:
        return True
    if name in _LISTS and len(frame.items) >= CRUNCH_MIN_LIST_ITEMS:
        with_links = sum(1 for _, links in frame.items if links)
        if with_links >= CRUNCH_LINK_LIST_ITEM_SHARE * len(frame.items):
            return True
        if all(words <= CRUNCH_TEXT_LIST_MAX_WORDS for words, _ in frame.items):
            return True
    return frame.chars > 0 and frame.link_chars > CRUNCH_LINK_RATIO * frame.chars


def crunch_removals(page: Page) -> set[Any]:
    """The elements Crunch's heuristics remove (outermost and inner ones alike), in one bottom-up walk."""
    removed: set[Any] = set()
    stack: list[_Frame] = []
    walker = etree.iterwalk(page.body, events=("start", "end"))
    for event, el in walker:
        name = local_tag(el.tag) if isinstance(el.tag, str) else ""
        if event == "start":
            frame = _Frame()
            stack.append(frame)
            if not name or name in SKIPPED_TAGS:
                walker.skip_subtree()
                continue
            if name in ("img", "iframe") and _ad_media(el):
                frame.ad_media = True
            frame.add_text(el.text)
            continue
        frame = stack.pop()
        if name == "a":
            frame.link_chars = frame.chars
            frame.links += 1
        drop = bool(name) and name not in SKIPPED_TAGS and _removed(name, el, frame)
        if drop:
            removed.add(el)
        if not stack:
            break
        parent = stack[-1]
        if not drop:
            if frame.ad_media and name in BLOCK_TAGS and frame.words > CRUNCH_AD_CAPTION_WORDS:
                frame.ad_media = False  # the ad's frame is this block with real text: no removal further up
            parent.absorb(frame)
            if name in _ITEMS:
                parent.items.append((frame.words, frame.links))
        parent.add_text(el.tail)
    return removed


_PARAMS = {
    "link_ratio": CRUNCH_LINK_RATIO, "min_list_items": CRUNCH_MIN_LIST_ITEMS,
    "link_list_item_share": CRUNCH_LINK_LIST_ITEM_SHARE, "text_list_max_words": CRUNCH_TEXT_LIST_MAX_WORDS,
    "ad_max_words": CRUNCH_AD_MAX_WORDS, "ad_caption_words": CRUNCH_AD_CAPTION_WORDS,
    "form_max_words": CRUNCH_FORM_MAX_WORDS,
}  # fmt: skip


@register("crunch", paper="000 (Gottron 2007) §5.1: Crunch (Gupta et al.), its heuristics re-implemented",
          params=_PARAMS)  # fmt: skip
def crunch(page: Page) -> list[ExtractedBlock]:
    """Crunch-style filter: the page minus link lists, text lists, link-heavy blocks, ads and small forms."""
    removed = crunch_removals(page)
    return [ExtractedBlock("", line, position) for position, line in element_lines(page.body, removed)]
