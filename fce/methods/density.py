"""``density``: the text-density method of Arias, Moens et al. (``003_…`` §4), the default single-page fallback.

Structural tags split the page into a linear list of strings L = s1…sn (text inside non-structural tags such as
``<b>`` or ``<a>`` runs on in the current string). With maxL the length of the longest string smax and
cutoffL = maxL·c1, the region R starts as {smax} and grows by every string si with length(si) > cutoffL that lies
within distance c2 of a string already in R (|i − j| < c2), until nothing more can be added. The result is every
string from the leftmost to the rightmost member of R, inclusive.

Reading of the paper where it is not explicit: the opening tag of a structural element starts a new string, the
closing tag does not (see :data:`DENSITY_SPLIT_ON_CLOSE` for the measurement behind this); string length counts
characters after collapsing whitespace.
"""

from __future__ import annotations

import re

from lxml import etree

from fce.blocks import SKIPPED_TAGS
from fce.extraction import ExtractedBlock
from fce.methods import register
from fce.parse import Page

__all__ = [
    "DENSITY_C1",
    "DENSITY_C2",
    "DENSITY_SPLIT_ON_CLOSE",
    "STRUCTURAL_TAGS",
    "densest_region",
    "density",
    "density_strings",
]

#: cutoffL = maxL · c1 (Arias et al. §4: "c1 = 0.333").
DENSITY_C1 = 0.333
#: A string joins R when it is within c2 positions of a member, |i − j| < c2 (Arias et al. §4: "c2 = 4").
DENSITY_C2 = 4

#: Tags that "modify the structure of the Web page" (§4: "include, but are not limited to <p>, <table>, <BR>,
#: <div>, <h1>, <h2>, .. and <li>", with a pointer to the XHTML 1.0 block elements, which are added here).
STRUCTURAL_TAGS = frozenset(
    {
        "p", "table", "br", "div", "h1", "h2", "h3", "h4", "h5", "h6", "li",
        "ul", "ol", "dl", "dt", "dd", "tr", "td", "th", "thead", "tbody", "tfoot", "caption", "hr", "pre",
        "blockquote", "address", "form", "fieldset", "center", "noframes", "body", "html",
        "article", "section", "main", "header", "footer", "nav", "aside", "figure", "figcaption", "iframe",
    }
)  # fmt: skip

#: Whether a closing structural tag also starts a new string. The paper says only that L grows by one empty string
#: whenever a structural "markup-tag" is encountered. Splitting at opening tags only is the reading that works:
#: with closing tags too, every ``</p></div><div><p>`` boundary becomes a gap of four strings, which c2 = 4 never
#: bridges (scrapinghub, first 100 pages: word F1 0.50 opening-only against 0.34 with closing tags).
DENSITY_SPLIT_ON_CLOSE = False

_WS = re.compile(r"\s+")


def density_strings(page: Page) -> list[str]:
    """The list L of §4: text strings split at every structural tag, in document order."""
    strings: list[list[str]] = [[]]
    walker = etree.iterwalk(page.root, events=("start", "end"))
    for event, el in walker:
        tag = el.tag
        if not isinstance(tag, str):
            if event == "end" and el.tail:
                strings[-1].append(el.tail)
            elif event == "start":
                walker.skip_subtree()
            continue
        tag = tag.lower().rsplit("}", 1)[-1]
        if event == "start":
            if tag in SKIPPED_TAGS:
                walker.skip_subtree()
                continue
            if tag in STRUCTURAL_TAGS:
                strings.append([])
            if el.text:
                strings[-1].append(el.text)
        else:
            if DENSITY_SPLIT_ON_CLOSE and tag in STRUCTURAL_TAGS and tag not in SKIPPED_TAGS:
                strings.append([])
            if el.tail:
                strings[-1].append(el.tail)
    return [_WS.sub(" ", "".join(s)).strip() for s in strings]


def densest_region(lengths: list[int], c1: float = DENSITY_C1, c2: int = DENSITY_C2) -> tuple[int, int] | None:
    """(l, r) of the region R grown around the longest string, or None when every string is empty."""
    if not lengths or max(lengths) == 0:
        return None
    imax = max(range(len(lengths)), key=lengths.__getitem__)  # first longest string
    cutoff = lengths[imax] * c1
    long_ = [i for i, n in enumerate(lengths) if n > cutoff]
    pos = long_.index(imax)
    left = right = pos
    # R is a chain of long strings with gaps < c2 around smax: any long string within c2 of a member joins.
    while left > 0 and long_[left] - long_[left - 1] < c2:
        left -= 1
    while right < len(long_) - 1 and long_[right + 1] - long_[right] < c2:
        right += 1
    return long_[left], long_[right]


@register(
    "density",
    paper="003 (Arias, Moens et al.): text density, §4",
    params={"c1": DENSITY_C1, "c2": DENSITY_C2},
)
def density(page: Page) -> list[ExtractedBlock]:
    """Text density: the densest region of strings around the longest one (c1 = 0.333, c2 = 4)."""
    strings = density_strings(page)
    region = densest_region([len(s) for s in strings])
    if region is None:
        return []
    lo, hi = region
    return [ExtractedBlock(path="", text=s, index=i) for i, s in enumerate(strings[lo:hi + 1], lo) if s]
