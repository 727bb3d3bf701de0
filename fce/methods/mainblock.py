# cython: infer_types=False
"""``mainblock``: fce's own single-page method — score the block tree, keep the best-scoring container, or the
page's main region where the page is not one article.

Not from the seed papers: the paper methods (density, CCB, BTE, DSC, LQF) stay below readability's word F1 on
modern pages (README, "Choosing the fallback"), so the default fallback is this method, built on the same block
tree the template path uses (parse once, segment once). It follows the scoring of Arc90's readability (as kept in
readability-lxml and Mozilla's Readability.js), restated here over blocks:

1. every non-inline block with at least :data:`MIN_PARAGRAPH_CHARS` characters of text (its own text plus its
   inline sub-blocks) is a paragraph; its score is 1 + its commas + one point per :data:`CHARS_PER_POINT`
   characters (at most :data:`MAX_LENGTH_POINTS`);
2. a paragraph's score is added to its parent block and half of it to its grandparent; the loose text of a
   ``<div>`` beside its sub-blocks counts as a paragraph inside the ``<div>`` (:data:`LOOSE_TEXT_TAGS`);
3. a container's score starts from its tag (:data:`TAG_WEIGHTS`) and its id/class names (content words +25,
   furniture words −25: the name lists of :mod:`fce.names`), and is scaled by 1 − its link density;
4. the best container is moved up the tree as Readability.js does: to the nearest ancestor holding at least
   :data:`MIN_ALTERNATIVES` of the :data:`TOP_CANDIDATES` best containers when they score at least
   :data:`ALTERNATIVE_SHARE` of the best (content split into several boxes; only when the best scores at least
   :data:`SIBLING_MIN_SCORE`: below, in guided mode, the "alternatives" are leftovers of masked boilerplate), then
   to a scored ancestor that scores higher than the container below it, climbing while ancestors keep at least
   1/:data:`PARENT_SCORE_DIVISOR` of the score;
5. extracted are the container and those of its siblings that score at least :data:`SIBLING_SHARE` of it or are
   plain paragraphs (a ``<p>``, or a block with no block inside) of more than :data:`SIBLING_MIN_CHARS` characters
   at most :data:`SIBLING_MAX_LINK_DENSITY` link density; when the container's parent has siblings with the same
   id/class names (or the one's within the other's: :func:`_same_kind`) holding a container that scores at least
   :data:`SIBLING_MIN_SCORE`, within :data:`CHUNK_LEVELS` levels, those come too (an article cut into chunks by ad
   rails or rules), and so do containers anywhere on the page whose path ends as the container's
   (:data:`REPEAT_STEPS`) scoring as much as an accepted sibling (chunks cut apart higher up, the posts of a page
   of posts); a sibling or chunk that step 6 would prune inside the container is left out;
6. inside, sub-blocks are left out when they are ``<iframe>`` fallback text (never shown, :data:`UNRENDERED_TAGS`;
   it does not score either), link lists (link density above :data:`MAX_LINK_DENSITY`), named
   as furniture (but a ``<p>``, or a block holding :data:`DOMINANT_SHARE` of the container's text as prose),
   short boxes (a ``div``/``table``/``ul``/… with fewer than
   :data:`MIN_PARAGRAPH_CHARS` characters), named as bylines, dates or captions (:data:`META_NAME_PARTS`, at most
   :data:`META_MAX_CHARS` characters) or as photo galleries (:data:`GALLERY_NAME_PARTS`);
7. the page's ``<h1>`` is put in front when it sits just outside the container (:data:`HEADLINE_LEVELS`);
8. when all that yields fewer than :data:`RETRY_MIN_CHARS` characters, the page is scored again without name
   weights and nothing is pruned (Readability.js's retry); the longer result is kept;
9. when the chosen container's output is empty (all of it pruned in step 6), the best container outside it is
   chosen instead (:data:`EMPTY_RETRIES`);
10. when the chosen container lies in page chrome (a ``<nav>``, ``<footer>`` or ``<aside>``, a block named as a
    menu, cookie dialog, modal, gallery or customer reviews: :data:`CHROME_TAGS`, :data:`CHROME_NAME_ENDS`,
    :data:`REVIEW_NAME_PARTS`), the scoring is run
    again without that chrome (single pages only: in guided mode the site's template says what is boilerplate);
    likewise, in both modes, when it lies in one list item named as furniture (one reader comment, ``li.comment``,
    :func:`fce.names.furniture_item`) and the output holds no other such item: a thread of them is a discussion
    page's content, one alone is not the article (wiadomosci.gazeta.pl's 800-comment pages: k-fold site-macro word
    F1 daniel-small +0.0027, dragnet-small −0.0001, the other sets ±0).

Steps 1–10 are the article scoring (:func:`select_main`, which guided detection also runs). A page that is not one
article — a list of cards, a forum thread, a product beside its specification table, a documentation page of
sections and code — spreads its content over several containers, of which the scoring keeps one. So
:func:`select_page` (what the registered method runs) reads the page a second way and chooses:

11. the page's main region: its largest ``<main>`` (:data:`MAIN_MIN_SHARE`), else ``<body>``, less its chrome —
    ``<nav>``, ``<aside>``, ``<footer>``, small forms, the site's ``<header>``, blocks named as furniture (but
    long prose: :data:`FURNITURE_MAX_CHARS`) or with a :data:`REGION_CHROME_WORDS` word — but never a block holding
    most of the region's text (:data:`DOMINANT_SHARE`: a thread of posts named ``comments`` is a forum's content),
    unless it is a gallery or customer reviews;
12. the article is the page's content unless the page says otherwise: the article's container lies outside the
    page's ``<main>``; it holds less than :data:`REGION_RATIO` of the region's text and less than
    :data:`SMALL_PROSE_SHARE` of its prose (or no prose); it holds less than :data:`PROSE_SHARE` of the region's
    prose (paragraphs as readability's sibling test reads them, headings and the teasers of lists left out:
    :data:`CARD_MIN_REPEATS`); or the region holds :data:`DATA_SHARE` times its text as plain text outside it
    (specification tables, feature lists, short sections). Then the region is the content;
13. an article with :data:`CODE_BLOCKS_MIN` code blocks is documentation, whose content is the region too;
14. reader comments are left out of the content (as most golds leave them out), except where they are most of
    it; they can be asked for as a separate text (``comments=True``: ``info["comments"]``).

The extraction's ``info`` says which kind of page was taken and why (``page_type``, ``page_type_reason``:
:func:`select_page`). A page that shows next to nothing without scripts is read from its ``<noscript>``, or
from the block its scripts would unhide (:data:`NOSCRIPT_MAX_CHARS`).

Steps 2 (loose text), 4, 5 (the chunks, repeats and non-``<p>`` paragraphs), 6 (bylines, captions, short boxes),
8, 9 and 10–14 are measured additions (README, "Choosing the fallback"); every constant says where its value comes
from and what it measured (page-mean word F1 on the single-page sets, per page type on wcxb-dev).

Guided detection runs this scoring on every page, so the module is written in Cython's pure Python mode: ``setup.py``
compiles it where the install has a C compiler (:data:`COMPILED` says which runs). It stays plain Python; the C
types of hot local variables are annotations (``i: cython.Py_ssize_t``) that Python never evaluates, and the
directive comment at the top (``infer_types=False``: no other variable gets a C type) keeps the compiled module's
arithmetic that of Python. ``tests/test_methods_mainblock.py`` runs the source against the compiled module.
"""

from __future__ import annotations

import re
from array import array
from bisect import bisect_left
from collections.abc import Callable, Sequence
from functools import lru_cache
from typing import Any

from lxml import etree

try:
    import cython
except ModuleNotFoundError:  # Cython is a build requirement only: plain Python then (see the module docstring)
    from fce import _cython_shim as cython

from fce.blocks import (
    DEFAULT_PATH_STYLE,
    INLINE_BLOCK_TAGS,
    SKIPPED_TAGS,
    BlockTree,
    Columns,
    blocks_of,
    disjoint_subtrees,
    is_hidden,
    segment_element,
    subtree_sums,
)
from fce.extraction import ExtractedBlock
from fce.methods import register
from fce.names import COMMENT_NAME_PARTS, furniture_item, name_words
from fce.parse import Page

__all__ = ["COMPILED", "PageBlocks", "extract_page", "mainblock", "page_comments", "select_main", "select_page"]

#: Whether this module runs compiled (``setup.py``; ``fce methods`` reports it).
COMPILED: bool = cython.compiled

#: A block with fewer characters is not a paragraph (readability uses 25). Also readability-lxml's
#: ``min_text_length``: a box with less text and no paragraph is dropped from the output ("too short content").
MIN_PARAGRAPH_CHARS = 25
#: One point per this many characters of paragraph text…
CHARS_PER_POINT = 100
#: …up to this many points (readability: 3).
MAX_LENGTH_POINTS = 3
#: Share of a paragraph's score passed to its grandparent (readability: one half).
GRANDPARENT_SHARE = 0.5
#: Siblings of the best container scoring at least this share of it are extracted too (readability: 0.2)…
SIBLING_SHARE = 0.2
#: …and at least this score (readability: 10).
SIBLING_MIN_SCORE = 10.0
#: A sibling paragraph with more text than this at most this link density is extracted too (readability: 80, 0.25).
SIBLING_MIN_CHARS = 80
SIBLING_MAX_LINK_DENSITY = 0.25
#: Sub-blocks of the extracted container whose text is mostly link text are link lists, left out.
MAX_LINK_DENSITY = 0.5
#: Score for telling id/class names (readability: 25).
NAME_WEIGHT = 25.0
#: How many levels above the chosen container an ``<h1>`` title is looked for.
HEADLINE_LEVELS = 3
#: Readability.js (``DEFAULT_N_TOP_CANDIDATES``, the 0.75 ratio, ``MINIMUM_TOPCANDIDATES``): when at least 3 of
#: the 5 best containers score 0.75 of the best, their nearest common ancestor with the best holds the article.
TOP_CANDIDATES = 5
ALTERNATIVE_SHARE = 0.75
MIN_ALTERNATIVES = 3
#: Readability.js: climbing from the best container, stop at an ancestor scoring below a third of the last one.
PARENT_SCORE_DIVISOR = 3
#: How many levels above the container's parent siblings with the same names are looked for (measured: 2; the
#: chunked articles of the five sets split one or two levels above their paragraphs' container).
CHUNK_LEVELS = 2
#: Containers elsewhere on the page are the article's other parts when the last this many steps of their paths
#: (tags and id/class names) are the container's, and name something (:func:`_repeats`): a page template may put
#: the lead part under another wrapper than the rest (quantamagazine.org's first ``.post__content`` below
#: ``.post__wrapper``, the others below ``.acf-content``). Measured (page-mean word F1, against the whole path):
#: 4: readability +0.0014, scrapinghub +0.0008, wcxb-dev +0.0011 (forum +0.007), cleaneval and l3s-gn1 ±0; 3:
#: cleaneval −0.0002, wcxb-dev service −0.0024; 5: wcxb-dev +0.0007 only. Path ends without names (``TR.TD``) and
#: boxes inside or around the container are left out: with them cleaneval −0.0010 (tables nested in tables).
REPEAT_STEPS = 4
#: Readability.js ``DEFAULT_CHAR_THRESHOLD``: a result with fewer characters is retried with fewer rules.
RETRY_MIN_CHARS = 500
#: When the best container's output is empty (everything in it pruned: a list of reader comments outscoring the
#: article, all of it furniture-named), the next best container outside it is tried, up to this many times (step
#: 9). An empty result is never the page's content. Measured (page-mean word F1): dragnet-small +0.008, readability
#: +0.008, l3s-gn1 +0.003, cleaneval −0.0005, the others ±0; with a template (guided detection, k-fold site-macro)
#: dragnet-small +0.010, daniel-small +0.0005. Three: no page of the nine sets needed more than two.
EMPTY_RETRIES = 3
#: Parts of id/class names that mark an article's furniture inside the container: bylines, datelines, captions and
#: photo credits (readability's negative names ``byline``, ``meta``; Readability.js's byline test ``byline``,
#: ``author``, ``dateline``), and print-only copies of the URL, logo or title (``print-header``, ``print-footer``:
#: hidden on screen by the page's print style sheet; the Hearst sites of scrapinghub, measured: scrapinghub
#: +0.0009, the others ±0). Only short blocks: a wrapper named ``article-meta`` may hold more.
META_NAME_PARTS = ("author", "byline", "dateline", "date", "time", "caption", "credit", "meta", "published",
                   "updated", "timestamp", "kicker", "eyebrow", "print")  # fmt: skip
#: A block named by :data:`META_NAME_PARTS` is left out when it has at most this many characters (measured: the
#: bylines and dates of the five sets are shorter; 200 keeps ``.article-meta`` wrappers of whole stories).
META_MAX_CHARS = 200
#: A paragraph of these tags that is loose text beside sub-blocks (``<div>text<div>…</div>more text</div>``)
#: scores to the block itself, not to its parent: Readability.js wraps a DIV's phrasing content into ``<p>``s
#: inside it (``_grabArticle``), readability-lxml a div's text and tails likewise
#: (``transform_misused_divs_into_paragraphs``); a block of text and inline spans only is itself the ``<p>``.
#: Not inside furniture (a block or ancestor whose names are furniture words only, :func:`fce.names.name_words`):
#: readability strips those subtrees before scoring (``unlikelyCandidates``: ``comment`` …), which fce does not
#: do (CleanEval's gold keeps comments), and there long comments would outscore the article. Measured: scrapinghub
#: +0.0045, l3s-gn1 +0.0023, the others ±0.0002 (without the furniture exception scrapinghub −0.0046).
LOOSE_TEXT_TAGS = frozenset({"div"})
#: Blocks whose text a browser never shows: an ``<iframe>`` displays the framed document, and the text between its
#: tags is fallback for browsers without frames (HTML: the element's content is raw text, not rendered). Pages of
#: the 2000s put ad markup there (doubleclick links in guardian.co.uk, forbes.com, latimes.com pages). They
#: neither score nor appear (measured: scrapinghub +0.0001, l3s-gn1 +0.0008, cleaneval +0.0003, msv-big9 +0.0013).
UNRENDERED_TAGS = frozenset({"iframe"})
#: Parts of id/class names of photo galleries inside an article: slides of pictures whose text is captions, credits
#: and controls ("1 of 12", "Next"), long enough to pass :data:`META_MAX_CHARS`; left out at any length. Measured
#: on the five sets (scrapinghub +0.0032: the Hearst sites' ``hst-resgallery``, phys.org's ``lightgallery``;
#: msv-big9 +0.0026: cnn.com; l3s-gn1 +0.0001; cleaneval and cleanportaleval ±0; no page lost).
GALLERY_NAME_PARTS = ("gallery",)
#: A container chosen inside page chrome is not the page's content: the scoring is run again without the outermost
#: chrome block around it (step 10; Readability.js drops such "unlikely candidates" before scoring, which fce does
#: not do, see :data:`LOOSE_TEXT_TAGS`). Chrome is a block of these tags (Resiliparse's "global navigation", "global
#: aside", "global footer")…
CHROME_TAGS = frozenset({"nav", "footer", "aside"})
#: …a block with an id/class name that is one of these words or ends with one after a ``-`` or ``_`` (``site-nav``,
#: ``main-menu``, ``cookie-consent``, ``modal``: Resiliparse's ``nav_cls_regex`` and ``modal_cls_regex`` read names
#: the same way, so that ``nav-open`` or ``bg-navbar-bg`` on a page's wrapper do not count)…
CHROME_NAME_ENDS = ("nav", "navbar", "navigation", "menu", "megamenu", "footer", "cookie", "cookies", "consent",
                    "gdpr", "modal", "popup", "dialog", "offcanvas", "drawer", "dropdown", "breadcrumb",
                    "breadcrumbs")  # fmt: skip
#: …or starts with one of these (``modal-privacy-policy``, ``cookie-banner``: words no content wrapper starts with),
#: or holds a :data:`GALLERY_NAME_PARTS` part anywhere (the slides of a gallery outscoring the story beside it).
#: A named block holding at least :data:`DOMINANT_SHARE` of the page's text is never chrome by its name (an
#: article inside a wrapper named ``…-nav``). Measured (page-mean word F1, against no step 10): wcxb-dev +0.005
#: (collection +0.026, listing +0.010, product +0.004: pages where the scoring had taken a cookie dialog, a
#: mega-menu or a privacy-policy modal), daniel-small +0.010, msv-big9 −0.0003, the other sets ±0. Not in guided
#: mode: there msv-big9 lost 0.0003 (site-macro) and the template's boilerplate mask already says what is chrome.
CHROME_NAME_STARTS = ("modal", "popup", "dialog", "cookie", "cookies", "consent")
#: The reasons :func:`select_page` gives for the kind it took a page for (``info["page_type_reason"]``): the page has
#: no article (nothing scored as a paragraph); the article's container lies outside the page's ``<main>``; it holds
#: less than :data:`REGION_RATIO` of the region's text; less than :data:`PROSE_SHARE` of its prose; it holds most of
#: less than 1/:data:`DATA_SHARE` of its plain text; it holds most of the page's prose (an article); and holds code
#: blocks (documentation).
REASONS = ("no-article", "outside-main", "small-article", "prose-elsewhere", "data-elsewhere", "article-prose",
           "code-blocks")

#: Step 11, the page's main region: the largest ``<main>`` holding more than this share of the text of ``<body>`` (an
#: empty or hidden ``<main>`` is a template's stub), else ``<body>``. Resiliparse reads ``<main>`` as main content
#: whatever it is called; trafilatura looks for it among its first candidates. Measured (wcxb-dev page mean): 0.1:
#: 0.768; 0.2: 0.764; 0.05: 0.766 (article −0.012: a small ``<main>`` inside the story's page); ``<body>`` always,
#: and no test of step 12 for an article outside ``<main>``: 0.757 (listing −0.05, product −0.025), scrapinghub
#: −0.003; the other sets ±0. That test reads every ``<main>`` holding text (against those above this share:
#: product +0.010, article −0.001, the other sets ±0).
MAIN_MIN_SHARE = 0.1
#: What the region leaves out: blocks of these tags (Resiliparse's global navigation, aside and footer; ``menu``
#: the HTML element)…
REGION_CHROME_TAGS = frozenset({"nav", "aside", "footer", "menu"})
#: …forms with fewer characters than this (search boxes, sign-up and log-in forms; ASP.NET pages wrap the whole
#: page in one ``<form>``, XenForo a thread's posts). Measured: every form left out: wcxb-dev −0.002 (collection
#: −0.017, product −0.006, service +0.006), cleaneval −0.0016; none left out: cleaneval +0.0005, the others ±0.0003.
FORM_MAX_CHARS = 200
#: …``<header>`` blocks outside an ``<article>`` or ``<main>`` (the site's header; an article's own header holds its
#: title), blocks named as furniture (:func:`fce.names.name_words`: a furniture word and no content word) and
#: blocks with one of these words in their names (Resiliparse's modals, skip links, search and social boxes;
#: trafilatura's pagination and signatures of forum posts). Measured, these words beside fce's furniture names:
#: wcxb-dev +0.004 (collection +0.018, listing +0.011, forum +0.004), dragnet-small +0.001, the others ±0.0006.
REGION_CHROME_WORDS = frozenset({"modal", "popup", "dialog", "lightbox", "dropdown", "pagination", "pager",
                                 "signature", "tooltip", "overlay", "drawer", "offcanvas", "breadcrumbs", "skip",
                                 "minicart", "login", "signin"})  # fmt: skip
#: A block holding at least this share of the region's text, with a link density below
#: :data:`DOMINANT_MAX_LINK_DENSITY`, is never left out for its name or tag: a forum's thread named ``comments``, a
#: page wrapped in ``.maincontainer_nosidebar``; what holds most of a page is not its furniture. Measured, against
#: no such exception: wcxb-dev +0.005 (service +0.016, forum +0.010, article +0.005), cleaneval +0.0026, l3s-gn1
#: −0.001, daniel-small −0.0013.
DOMINANT_SHARE = 0.5
#: A navigation holding most of the page's text is still navigation (docs.github.com's sidebar). Measured, against
#: no link limit: dragnet-small +0.009 (its regions of pages whose menus outweigh a short story), the others ±0.
DOMINANT_MAX_LINK_DENSITY = 0.5
#: Step 12: the region is the page's content when the article holds less than this share of the region's text
#: (a list of cards or posts, where the article scoring took one of them; a page of several sections). Measured
#: (page-mean word F1, wcxb-dev / daniel-small / msv-big9 / cleaneval): 0.1: 0.767 / 0.876 / 0.976 / 0.925;
#: 0.05: 0.765 / 0.876 / 0.976 / 0.920; 0.15: 0.768 / 0.876 / 0.974 / 0.925; 0.2: 0.768 / 0.872 / 0.974 / 0.925…
REGION_RATIO = 0.1
#: …unless the article holds at least this share of the region's prose (below), and some: a short news story among
#: menus and teasers is still the page's content. Measured against no exception: daniel-small +0.013,
#: dragnet-small +0.002, cleaneval −0.001, wcxb-dev −0.007 (listing −0.04, article −0.01: lists whose intro the
#: article scoring took); with a minimum of 150 characters of prose instead of some, daniel-small −0.009 (Chinese
#: stories of 80–150 characters).
SMALL_PROSE_SHARE = 0.9
#: …or less than this share of the region's prose: paragraphs of more than :data:`SIBLING_MIN_CHARS` characters at
#: most :data:`SIBLING_MAX_LINK_DENSITY` link density (readability's test of a paragraph beside the article: the
#: link text of the block's whole subtree, that of its inline spans too — an Archive of Our Own "kudos" line of
#: user names, all links inside a ``<span>``, was prose otherwise; measured: readability +0.0025, l3s-gn1 +0.0001,
#: cleaneval −0.0003, the others ±0; no headings: :data:`_NOT_PROSE`), not counting those in the cards of a list
#: (:data:`CARD_MIN_REPEATS`: the teasers of "more stories" under a news article are not prose of the page).
#: Measured: 0.3: wcxb-dev −0.010, readability −0.013, l3s-gn1 +0.003,
#: cleanportaleval +0.006; 0.7: wcxb-dev +0.002, l3s-gn1 −0.013, daniel-small −0.015, dragnet-small −0.008,
#: scrapinghub −0.007.
PROSE_SHARE = 0.5
#: A card of a list: a block with link text, at most :data:`CARD_MAX_CHARS` characters, whose path is shared by at
#: least this many blocks of the page (boilerpipe's "related links" are the same idea). Measured, against counting
#: teasers as prose: daniel-small +0.014, dragnet-small +0.022, readability +0.009, l3s-gn1 +0.003, wcxb-dev
#: −0.006 (listing −0.05: lists of title-and-teaser cards), cleanportaleval −0.006, cleaneval −0.003.
CARD_MIN_REPEATS = 3
CARD_MAX_CHARS = 600
#: …or when the region holds this many times the article's text as plain text outside it (text that is not prose,
#: not in cards and at most :data:`SIBLING_MAX_LINK_DENSITY` link text: a product's specification table and lists
#: of features beside its description, a service page's short sections). Measured: wcxb-dev +0.006 (product
#: +0.017, service +0.008, collection +0.013), the other sets ±0; 1.5: daniel-small −0.002, collection −0.008; 3:
#: the same as without the test.
DATA_SHARE = 2.0
#: Step 13: an article holding at least this many ``<pre>`` blocks is documentation, whose content is the region:
#: its sections, tables and link lists ("see also") are content there, which the article scoring prunes or leaves
#: beside it. Measured: wcxb-dev documentation +0.013 (0.917 → 0.931), the other sets ±0.0002; 1: article −0.003.
CODE_BLOCKS_MIN = 2
#: A page whose block tree has fewer characters than this is read from its largest ``<noscript>`` when that holds
#: more (Discourse forums serve their crawler view there, and nothing else without scripts). Measured: wcxb-dev
#: +0.012 (forum +0.096: 6 pages), cleaneval +0.0012; no page of the other sets is read so. Or from its largest
#: block hidden by its attributes, when that holds more (:func:`_hidden_wrappers`: geeksforgeeks.org hides its whole
#: page until its scripts run). Measured: wcxb-dev documentation +0.019 (one page), the other sets ±0.
NOSCRIPT_MAX_CHARS = 200
#: A page read from a ``<noscript>`` or hidden block of text alone, with no element in it, is that text where it
#: has at least this many characters (a paragraph, as :data:`SIBLING_MIN_CHARS`): a shorter one is a notice such
#: as "enable JavaScript", not the page.
ONE_BLOCK_MIN_CHARS = SIBLING_MIN_CHARS
#: Parts of the id/class names of customer reviews (``product-reviews``, ``pipf-seo-reviews``): a product page's
#: readers' comments, many paragraphs with commas that outscore a short description, which no gold of a product
#: page keeps. Furniture for the scoring (−:data:`NAME_WEIGHT`), page chrome at any share of the page (step 10,
#: as :data:`GALLERY_NAME_PARTS`) and left out of the region at any share (step 11). The plural only: a review
#: of a product is an article (``review-body``; with ``review``: wcxb-dev product +0.015 but article −0.013,
#: readability −0.0015). Measured: wcxb-dev +0.0024 (product +0.014, collection +0.005), the other sets ±0.
#: Testimonials are not reviews: with ``testimonial`` too, wcxb-dev service −0.003, collection −0.009.
REVIEW_NAME_PARTS = ("reviews",)
#: Comments shorter than this are a count or a "be the first to comment" box, not comments.
COMMENT_MIN_CHARS = 80
#: Parts of the id/class names of the posts of a thread (Discourse's ``topic-post``, XenForo's ``message``, phpBB's
#: ``post``, Stack Exchange's ``answer``, reader ``comment``s), for ``info["page_type"]`` only: repeated boxes of
#: prose without such names are an article's or a page's sections (measured on wcxb-dev: "forum" given to 24 of
#: 45 forum pages and 17 of 80 articles without the names, 18 of 45 and 1 of 80 with them).
POST_NAME_PARTS = ("post", "message", "reply", "comment", "answer", "thread", "topic")
#: A block named as furniture (:func:`fce.names.name_words`) with at least this many characters at most
#: :data:`SIBLING_MAX_LINK_DENSITY` link text is prose, not a share bar or a sidebar, and stays in the region
#: (step 11; not one named as comments or reviews): documentation sections carry ids made from their headings
#: (mercurial's ``#sharing-with-a-single-developer``, postgresql's ``#sql-for-update-share``). Measured: 2000:
#: readability +0.0024, wcxb-dev +0.0002 (service +0.002, documentation −0.0007), the other sets ±0; 1000: wcxb-dev
#: −0.0002 (article −0.0024, product −0.003); 4000: wcxb-dev −0.0001.
FURNITURE_MAX_CHARS = 2000
#: Starting score of a container by tag (readability's initial scores).
TAG_WEIGHTS = {
    "div": 5.0, "article": 5.0, "main": 5.0, "section": 3.0, "pre": 3.0, "td": 3.0, "blockquote": 3.0,
    "address": -3.0, "ol": -3.0, "ul": -3.0, "dl": -3.0, "dd": -3.0, "dt": -3.0, "li": -3.0, "form": -3.0,
    "h1": -5.0, "h2": -5.0, "h3": -5.0, "h4": -5.0, "h5": -5.0, "h6": -5.0, "th": -5.0,
    "nav": -25.0, "aside": -25.0, "footer": -25.0, "header": -10.0,
}  # fmt: skip
#: The boxes readability-lxml cleans conditionally (``sanitize``): dropped from the output when too short.
BOX_TAGS = frozenset({"table", "ul", "div", "aside", "header", "footer", "section"})

_INLINE = INLINE_BLOCK_TAGS
#: What a browser never shows, with scripts or without: the segmentation's skipped elements but ``<noscript>``
#: (shown without scripts). A ``<noscript>`` or a hidden block inside one (a ``<template>``'s) is not the page's.
_NEVER_SHOWN = SKIPPED_TAGS - {"noscript"}
#: Blocks that are never prose (step 12): inline spans (part of their block's paragraph) and headings. A banner's long
#: ``<h2>`` tagline was all the prose of a blog page whose story is short lines of Chinese (no paragraph over
#: :data:`SIBLING_MIN_CHARS`): prose-elsewhere took its region. Measured: readability +0.0057, cleaneval +0.0003,
#: the other sets ±0.
_NOT_PROSE = INLINE_BLOCK_TAGS | {"h1", "h2", "h3", "h4", "h5", "h6"}
_ROOTS = frozenset({"html", "body"})
_LAST_QUALIFIER = re.compile(r"\[([^\]]*)\]$")
_NAME_SPLIT = re.compile(r"[\s#.]+")
_CHROME_ENDS = frozenset(CHROME_NAME_ENDS)
_ALWAYS_CHROME = GALLERY_NAME_PARTS + REVIEW_NAME_PARTS  # (chrome however much of the page they hold)
_CHROME_ENDINGS = tuple(f"{sep}{word}" for word in CHROME_NAME_ENDS for sep in "-_")
_CHROME_STARTINGS = tuple(f"{word}{sep}" for word in CHROME_NAME_STARTS for sep in "-_")


@lru_cache(maxsize=65536)
def _names(path: str) -> str:
    match = _LAST_QUALIFIER.search(path)
    return match.group(1) if match else ""


@lru_cache(maxsize=65536)
def _name_weight(path: str) -> float:
    names = _names(path)
    if not names:
        return 0.0
    content, furniture = name_words(names)
    if not furniture and any(part in names for part in REVIEW_NAME_PARTS):
        furniture = True
    return NAME_WEIGHT * (content - furniture)


def _named(path: str, parts: tuple[str, ...]) -> bool:
    """Whether a block path's last id/class names contain one of ``parts``."""
    names = _names(path).lower()
    return bool(names) and any(part in names for part in parts)


@lru_cache(maxsize=65536)
def _in_furniture_item(path: str) -> bool:
    """:func:`fce.names.furniture_item`, cached per path."""
    return furniture_item(path)


def _lone_item(tree: BlockTree, i: int, out: Sequence[ExtractedBlock]) -> int:
    """The outermost furniture list item around container ``i`` (:func:`fce.names.furniture_item`: one reader
    comment), when ``out`` holds no other block inside one: a comment alone is not the article, a thread of
    them may be (a discussion page's content); -1 otherwise."""
    cols = tree.columns
    paths: list = cols.paths
    if not _in_furniture_item(paths[i]) or sum(_in_furniture_item(b.path) for b in out) > 1:
        return -1
    tags: list = cols.tags
    parents: cython.long[:] = cols.parents
    found = -1
    k: cython.Py_ssize_t = i
    while k > 0:
        if tags[k] == "li" and _in_furniture_item(paths[k]):
            found = k
        k = parents[k]
    return found


@lru_cache(maxsize=65536)
def _post_named(path: str) -> bool:
    """Whether a block path's last id/class names are those of a post (:data:`POST_NAME_PARTS`; cached per path)."""
    return _named(path, POST_NAME_PARTS)


@lru_cache(maxsize=65536)
def _path_traits(path: str) -> tuple[bool, bool, bool]:
    """What step 6 reads from a block's path, in one cached call per block: named as a byline/caption
    (:data:`META_NAME_PARTS`), as a gallery (:data:`GALLERY_NAME_PARTS`), and not as furniture."""
    return _named(path, META_NAME_PARTS), _named(path, GALLERY_NAME_PARTS), _name_weight(path) >= 0


@lru_cache(maxsize=65536)
def _chrome_named(path: str) -> bool:
    """Whether a block path's last id/class names mark page chrome (:data:`CHROME_NAME_ENDS`,
    :data:`CHROME_NAME_STARTS`, :data:`GALLERY_NAME_PARTS`; cached per path, one call per block)."""
    names = _names(path)  # (lower-cased by the segmentation: fce.blocks' qualified steps)
    return bool(names) and _chrome_names(names)


@lru_cache(maxsize=16384)
def _chrome_names(names: str) -> bool:
    """:func:`_chrome_named` for one element's id/class names (cached per names: pages have far fewer distinct names
    than paths)."""
    if any(part in names for part in _ALWAYS_CHROME):
        return True
    for name in _NAME_SPLIT.split(names):
        if name.startswith(_CHROME_STARTINGS) or name in _CHROME_ENDS or name.endswith(_CHROME_ENDINGS):
            return True
    return False


def _chrome_around(tree: BlockTree, chars: Sequence[int], i: int) -> int:
    """The outermost block around block ``i`` (itself included, ``<html>`` and ``<body>`` not) that is page chrome
    (step 10), or -1."""
    cols = tree.columns
    tags: list = cols.tags
    paths: list = cols.paths
    parents: cython.long[:] = cols.parents
    sizes: cython.long[:] = chars  # type: ignore[assignment]
    dominant: cython.double = DOMINANT_SHARE * sizes[0]
    found = -1
    k: cython.Py_ssize_t = i
    while k > 0 and tags[k] not in _ROOTS:
        if tags[k] in CHROME_TAGS:
            found = k
        elif _chrome_named(paths[k]) and (sizes[k] < dominant or _named(paths[k], _ALWAYS_CHROME)):
            found = k
        k = parents[k]
    return found


def _inline_only(tree: BlockTree, i: cython.Py_ssize_t) -> bool:
    """Whether block ``i`` holds text and inline spans only, or no sub-block (readability turns such a block itself
    into a ``<p>``). Its sub-blocks are found by jumping over their subtrees (pre-order numbering: a block's subtree
    is the range up to its ``ends``), so that no tuple of children is made."""
    cols = tree.columns
    tags: list = cols.tags
    ends: cython.long[:] = cols.ends
    k: cython.Py_ssize_t = i + 1
    end: cython.Py_ssize_t = ends[i]
    while k < end:
        if tags[k] not in _INLINE:
            return False
        k = ends[k]
    return True


def _outside_furniture(tree: BlockTree, i: int, furniture: dict[int, bool]) -> bool:
    """Whether neither block ``i`` nor an ancestor of it is named as furniture (:func:`fce.names.name_words`), where
    the loose text of a :data:`LOOSE_TEXT_TAGS` block beside its sub-blocks scores to the block itself (see there).
    ``furniture`` memoises, per block, whether it or an ancestor is named as furniture."""
    cols = tree.columns
    tags: list = cols.tags
    paths: list = cols.paths
    parents: cython.long[:] = cols.parents
    chain = []
    j: cython.Py_ssize_t = i
    while j >= 0 and j not in furniture:
        chain.append(j)
        j = parents[j]
    inside = furniture.get(j, False)
    for k in reversed(chain):
        inside = inside or (tags[k] not in _ROOTS and _name_weight(paths[k]) < 0)
        furniture[k] = inside
    return not inside


def _ancestors(cols: Columns, i: int) -> list[int]:
    """The ancestors of block ``i`` below ``<body>``, nearest first."""
    tags, parents = cols.tags, cols.parents
    out = []
    i = parents[i]
    while i >= 0 and tags[i] not in _ROOTS:
        out.append(i)
        i = parents[i]
    return out


def _promote(cols: Columns, best: int, final: dict[int, float]) -> int:
    """Readability.js's two moves up the tree from the best container (module docstring, step 4)."""
    top = final[best]
    if top >= SIBLING_MIN_SCORE:
        # the TOP_CANDIDATES best scoring at least ALTERNATIVE_SHARE of the best: those come first in the ranking
        # (sorted's, stable: of equal scores the first scored), so only they are ranked, and only when too many
        floor = ALTERNATIVE_SHARE * top
        ranked = [i for i, v in final.items() if v >= floor]
        if len(ranked) > TOP_CANDIDATES:
            ranked = sorted(ranked, key=final.__getitem__, reverse=True)[:TOP_CANDIDATES]
        alternatives = [set(_ancestors(cols, i)) for i in ranked if i != best]
        if len(alternatives) >= MIN_ALTERNATIVES:
            for a in _ancestors(cols, best):
                if sum(a in ancestors for ancestors in alternatives) >= MIN_ALTERNATIVES:
                    best = a
                    break
    last = final.get(best, 0.0)
    floor = last / PARENT_SCORE_DIVISOR
    for a in _ancestors(cols, best):
        score = final.get(a)
        if score is None:
            continue
        if score < floor:
            break
        if score > last:
            return a
        last = score
    return best


def _headline(tree: BlockTree, start: int, skip: Sequence[bool] | None) -> int | None:
    """The ``<h1>`` closest before block ``start`` within :data:`HEADLINE_LEVELS` ancestors of it, if the chosen
    container does not hold one: the article's title often sits outside the container of its paragraphs. ``skip``:
    the boilerplate mask, or None."""
    cols = tree.columns
    tags: list = cols.tags
    parents: cython.long[:] = cols.parents
    ends: cython.long[:] = cols.ends
    lengths: cython.long[:] = cols.text_lengths
    i: cython.Py_ssize_t
    tag: str
    first: cython.Py_ssize_t = start
    for i in range(first, ends[first]):
        tag = tags[i]
        if len(tag) == 2 and tag == "h1":  # (the length first: see _mains)
            return None
    ancestor: cython.Py_ssize_t = first
    for _ in range(HEADLINE_LEVELS):
        if parents[ancestor] <= 0:
            break
        ancestor = parents[ancestor]
    for i in range(first - 1, ancestor, -1):
        tag = tags[i]
        if len(tag) == 2 and tag == "h1" and lengths[i] and (skip is None or not skip[i]):
            # a container inside the headline is already part of it: no second copy
            return None if first < ends[i] else i
    return None


class PageBlocks(list):  # type: ignore[type-arg]
    """The blocks :func:`mainblock` extracted (a list of :class:`~fce.extraction.ExtractedBlock`), with what it
    learned of the page in ``info`` (:func:`select_page`), which :class:`fce.methods.MethodInfo` passes on as the
    extraction's ``info``."""

    __slots__ = ("info",)

    def __init__(self, blocks: Sequence[ExtractedBlock], info: dict[str, Any]) -> None:
        super().__init__(blocks)
        self.info = info


@register(
    "mainblock",
    paper="fce's own (readability-style scoring over the FastCE block tree, or the page's main region); see the "
          "module docstring",
    params={
        "min_paragraph_chars": MIN_PARAGRAPH_CHARS,
        "sibling_share": SIBLING_SHARE,
        "max_link_density": MAX_LINK_DENSITY,
        "top_candidates": TOP_CANDIDATES,
        "alternative_share": ALTERNATIVE_SHARE,
        "retry_min_chars": RETRY_MIN_CHARS,
        "region_ratio": REGION_RATIO,
        "prose_share": PROSE_SHARE,
    },
    blocks=DEFAULT_PATH_STYLE,  # (it reads the block tree alone, but for pages that show nothing without scripts)
)
def mainblock(page: Page) -> PageBlocks:
    """Main content: the best-scoring container of paragraphs on an article, the page's main region elsewhere."""
    return extract_page(page)


def extract_page(page: Page, *, comments: bool = False) -> PageBlocks:
    """:func:`select_page` over the page's block tree; a page that shows next to nothing without scripts is read
    from its largest ``<noscript>`` or hidden block (:data:`NOSCRIPT_MAX_CHARS`; ``info["noscript"]``: the blocks
    are those of that block's tree). ``comments``: see :func:`select_page`."""
    tree = blocks_of(page)
    cols = tree.columns
    if len(tree) < 2 or sum(cols.text_lengths) < NOSCRIPT_MAX_CHARS:
        inner = _noscript_tree(page, sum(cols.text_lengths))
        if inner is not None:
            blocks, info = select_page(inner, comments=comments)
            info["noscript"] = True  # (its blocks are those of the <noscript>'s (or hidden block's) tree)
            info.pop("covered", None)
            info.pop("covered_exact", None)
            return PageBlocks(blocks, info)
    blocks, info = select_page(tree, comments=comments)
    return PageBlocks(blocks, info)


def select_main(tree: BlockTree, boilerplate: Sequence[bool] | None = None,
                covered: list[int] | None = None, rendered: list[int] | None = None) -> list[ExtractedBlock]:
    """The article scoring of :func:`mainblock` over a block tree (steps 1–10). ``boilerplate`` marks blocks known
    not to be content (a site template's noise, :class:`fce.detect.Detector` in ``guided`` mode): they neither score
    as paragraphs nor appear in the output. The indices of the blocks whose text is output are appended to
    ``covered`` (the ``visited`` of :meth:`~fce.blocks.BlockTree.render`), those of the blocks rendered to
    ``rendered`` (each output block, and any whose text came out empty: what
    :func:`~fce.blocks.disjoint_subtrees` asks of ``covered``). Reads the tree column-wise
    (:attr:`~fce.blocks.BlockTree.columns`): no :class:`~fce.blocks.Block` is built."""
    if len(tree) < 2:
        return []
    return _article(tree, boilerplate, covered, subtree_sums(tree, _INLINE), rendered)


def _article(tree: BlockTree, boilerplate: Sequence[bool] | None, covered: list[int] | None,
             sums: tuple[array[int], array[int], array[int], array[int]],
             rendered: list[int] | None = None) -> list[ExtractedBlock]:
    """:func:`select_main` with the tree's :func:`~fce.blocks.subtree_sums` computed."""
    skip = boilerplate  # (None: nothing masked, no test per block)
    mine: list[int] = []
    excluded: list[int] = []  # containers whose output came out empty (step 9) or that sit in page chrome (step 10)
    # the customer reviews among them: the retry (step 8) leaves them out too (a short description stays the
    # product's; measured: wcxb-dev product +0.0044, cleaneval −0.0001, the others ±0; with galleries too, product
    # −0.018: a product's gallery holds its name and price)
    reviews: list[int] = []
    out: list[ExtractedBlock] = []
    roots: list[int] = []
    for _attempt in range(EMPTY_RETRIES + 1):
        mine = []
        roots = []
        chosen: list[int] = []
        out = _select(tree, skip, sums, mine, False, excluded, chosen, roots)
        if not chosen:
            break
        chrome = _chrome_around(tree, sums[0], chosen[0]) if boilerplate is None else -1
        if chrome < 0:
            chrome = _lone_item(tree, chosen[0], out)
        if chrome >= 0:
            excluded.append(chrome)
            if _named(tree.columns.paths[chrome], REVIEW_NAME_PARTS):
                reviews.append(chrome)
            continue
        if out:
            break
        excluded.append(chosen[0])
    if boilerplate is None and sum(len(b.text) for b in out) < RETRY_MIN_CHARS:
        again: list[int] = []
        again_roots: list[int] = []
        second = _select(tree, skip, sums, again, True, reviews, [], again_roots)
        if sum(len(b.text) for b in second) > sum(len(b.text) for b in out):
            out, mine, roots = second, again, again_roots
    if covered is not None:
        covered.extend(mine)
    if rendered is not None:
        rendered.extend(roots)
    return out


def _select(tree: BlockTree, skip: Sequence[bool] | None, sums: tuple[array[int], array[int], array[int], array[int]],
            covered: list[int], relaxed: bool, excluded: list[int], chosen_out: list[int],
            rendered: list[int]) -> list[ExtractedBlock]:
    """One attempt of :func:`select_main`; ``relaxed`` (the retry, step 8) ignores names and prunes nothing.
    Containers inside one of ``excluded`` (a block and its subtree) are not candidates (step 9); the container
    chosen is appended to ``chosen_out``, the blocks rendered to ``rendered``. ``skip``: the boilerplate mask, or
    None."""
    cols = tree.columns
    tags: list = cols.tags
    parents: cython.long[:] = cols.parents
    ends: cython.long[:] = cols.ends
    paths: list = cols.paths
    chars: cython.long[:] = sums[0]  # (arrays: compiled, read at C speed)
    links: cython.long[:] = sums[1]
    para: cython.long[:] = sums[2]
    para_commas: cython.long[:] = sums[3]
    n: cython.Py_ssize_t = len(tags)
    masked: cython.bint = skip is not None
    # The scores as C doubles (compiled, no float object per paragraph), and the containers in the order they were
    # first scored: the order of the dict of final scores, which breaks ties (max and sorted take the first).
    score_buffer = array("d", [0.0]) * n
    scored_buffer = bytearray(n)
    order_buffer = array("l", [0]) * n
    score: cython.double[:] = score_buffer
    scored: cython.uchar[:] = scored_buffer
    order: cython.long[:] = order_buffer
    count: cython.Py_ssize_t = 0
    i: cython.Py_ssize_t
    j: cython.Py_ssize_t
    k: cython.Py_ssize_t
    end: cython.Py_ssize_t
    _step: cython.int
    points: cython.double
    length_points: cython.double
    share: cython.double
    link_chars: cython.double
    density: cython.double
    value: cython.double
    top: cython.double = 0.0
    parent: cython.Py_ssize_t
    longest: cython.long = SIBLING_MIN_CHARS
    most_links: cython.double = SIBLING_MAX_LINK_DENSITY
    furniture: dict[int, bool] = {}
    tag_weights: dict = TAG_WEIGHTS  # (typed: compiled, a C lookup, not a method call)
    shortest: cython.long = MIN_PARAGRAPH_CHARS
    per_point: cython.double = CHARS_PER_POINT
    most_points: cython.double = MAX_LENGTH_POINTS
    grandparent_share: cython.double = GRANDPARENT_SHARE
    meta_chars: cython.long = META_MAX_CHARS
    link_share: cython.double = MAX_LINK_DENSITY
    for i in range(n):
        if para[i] < shortest:
            continue  # (most blocks: a C comparison when compiled)
        tag = tags[i]
        if tag in _INLINE or parents[i] < 0 or (masked and skip[i]) or tag in UNRENDERED_TAGS:  # type: ignore[index]
            continue
        length_points = para[i] / per_point
        if most_points < length_points:  # min(…, MAX_LENGTH_POINTS)
            length_points = most_points
        points = 1.0 + para_commas[i] + length_points
        j = parents[i]
        if tag in LOOSE_TEXT_TAGS:  # loose text beside sub-blocks (_inline_only, inlined) scores to the block
            k = i + 1
            end = ends[i]
            while k < end and tags[k] in _INLINE:
                k = ends[k]
            if k < end and _outside_furniture(tree, i, furniture):
                j = i
        share = 1.0
        for _step in range(2):  # the parent, then the grandparent
            if not scored[j]:
                scored[j] = 1
                order[count] = j
                count += 1
                score[j] = tag_weights.get(tags[j], 0.0) + (0.0 if relaxed else _name_weight(paths[j]))
            score[j] = score[j] + points * share
            j = parents[j]
            if j < 0:
                break
            share = grandparent_share
    if not count:
        return []

    final: dict[int, float] = {}
    for k in range(count):
        i = order[k]
        if chars[i] > 0:  # the link density (at most 1)
            link_chars = links[i]
            density = link_chars / chars[i]
            if density > 1.0:
                density = 1.0
        else:
            density = 0.0
        final[i] = score[i] * (1.0 - density)
    if excluded:
        final = _without(cols, final, excluded)
        if not final:
            return []
    best = -1
    for i, value in final.items():  # max(final, key=final.__getitem__): the first of equal scores
        if best < 0 or value > top:
            best = i
            top = value
    best = _promote(cols, best, final)
    chosen_out.append(best)
    chosen = [best]
    parent = parents[best]
    if parent >= 0:
        threshold = max(SIBLING_MIN_SCORE, final.get(best, 0.0) * SIBLING_SHARE)
        chosen = []
        k = parent + 1
        end = ends[parent]
        while k < end:  # the children of the parent, by jumping over their subtrees
            if k == best or final.get(k, -1.0) >= threshold:
                chosen.append(k)
            elif chars[k] > longest and tags[k] not in _INLINE:
                # a plain paragraph beside the container (tested here, not in a closure: compiled, a closure that
                # another closure calls lives in the scope object they share, a reference cycle that keeps the
                # page's columns alive until the cyclic GC runs; measured: a collection every ~50 pages)
                link_chars = links[k]
                if link_chars / chars[k] < most_links and (tags[k] == "p" or _inline_only(tree, k)):
                    chosen.append(k)
            k = ends[k]
        # a chunk (a sibling box with the same names) needs a container of SIBLING_MIN_SCORE only, not a share of
        # the best: the names say it is a part of the article, and an article cut by rules into sections has short
        # ones (medium.com). Measured, against the threshold: readability +0.0014, wcxb-dev +0.0007 (product
        # +0.003, forum +0.002), scrapinghub −0.0001, the others ±0
        chunks = _chunks(tree, parent, final, SIBLING_MIN_SCORE)
        chunks += _repeats(tree, best, parent, final, threshold, chunks)
        if chunks:
            chosen = sorted(set(chosen).union(chunks))

    def keep(i: cython.Py_ssize_t) -> bool:
        tag = tags[i]
        if (masked and skip[i]) or tag in UNRENDERED_TAGS:  # type: ignore[index]
            return False
        if relaxed:
            return True
        meta, gallery, named_ok = _path_traits(paths[i])
        size: cython.long = chars[i]
        if (meta and size <= meta_chars) or gallery:
            return False
        if tag in _INLINE:
            return True
        if size > 0 and links[i] > link_share * size:  # link density above MAX_LINK_DENSITY
            return False
        if size < shortest and tag in BOX_TAGS:
            return False
        if tag == "p" or named_ok:
            return True
        # named as furniture, but holding most of the container's text as prose: the article's own wrapper
        # (independent.co.uk's ``#gigya-share-btns-… .text-wrapper``), not comments or chrome (DOMINANT_SHARE).
        # Measured: readability +0.0020, wcxb-dev +0.0027 (article +0.012), the others ±0; without the link,
        # comment and chrome tests l3s-gn1 −0.0012, readability −0.0015 (comment threads, an <aside> rail)
        return (size >= most_of_best and links[i] < most_links * size and tag not in CHROME_TAGS
                and not _region_names(paths[i]) & 4)

    most_of_best: cython.double = DOMINANT_SHARE * chars[best]
    out = []
    for idx in chosen:
        if idx != best and not keep(idx):
            continue  # a sibling or chunk pruned as it would be inside the container (step 6)
        text = tree.render(idx, keep, covered)
        rendered.append(idx)
        if text:
            out.append(ExtractedBlock(paths[idx], text, idx))
    headline = _headline(tree, min(chosen), skip) if out else None  # a title alone is no article
    if headline is not None:
        mine: list[int] = []
        text = tree.render(headline, keep, mine)
        if text:
            out.insert(0, ExtractedBlock(paths[headline], text, headline))
            covered[:0] = mine
            rendered.append(headline)
    return out


def _without(cols: Columns, final: dict[int, float], excluded: list[int]) -> dict[int, float]:
    """``final`` less the containers inside the subtree of one of ``excluded``."""
    ends = cols.ends
    return {k: v for k, v in final.items() if not any(e <= k < ends[e] for e in excluded)}


def _repeats(tree: BlockTree, best: int, parent: int, final: dict[int, float], threshold: float,
             chunks: Sequence[int]) -> list[int]:
    """Containers elsewhere on the page whose path ends as that of ``best`` (its last :data:`REPEAT_STEPS` steps,
    tags and id/class names: :func:`_path_end`) that score at least ``threshold``: the other parts of an article
    the page template cut apart at a higher level than :func:`_chunks` looks (quantamagazine.org's three
    ``.theme__anchors`` boxes four levels down), or the other posts of a page of posts. Those inside ``parent``
    are its siblings, already judged; those inside a chunk come with it; those inside ``best`` or around it are
    part of it. Measured (the whole path): cleaneval +0.016 (34 pages better, none worse), scrapinghub +0.0008,
    the others ±0; at half the threshold cleaneval +0.004 more, l3s-gn1 −0.0001."""
    cols = tree.columns
    paths: list = cols.paths
    parents: cython.long[:] = cols.parents
    ends = cols.ends
    path = _path_end(paths, parents, best)
    k: cython.Py_ssize_t
    value: cython.double
    least: cython.double = threshold
    above: cython.Py_ssize_t = parent
    first: cython.Py_ssize_t = best
    last: cython.Py_ssize_t = ends[best]
    found = []
    for k, value in final.items():
        if (value >= least and parents[k] != above and not first <= k < last and not k < first < ends[k]
                and _path_end(paths, parents, k) == path):
            found.append(k)
    if found and chunks:
        inside = [(c, ends[c]) for c in chunks]
        found = [k for k in found if not any(c <= k < end for c, end in inside)]
    return found


def _path_end(paths: list, parents: Any, i: int) -> str:
    """The last :data:`REPEAT_STEPS` steps of block ``i``'s path (tags and id/class names), or the whole path
    where those hold no id/class name (``TR.TD.TABLE.TR``: a template's box is told by its names) or the block
    lies less deep."""
    a = i
    for _ in range(REPEAT_STEPS):
        if parents[a] <= 0:
            return paths[i]
        a = parents[a]
    end = paths[i][len(paths[a]):]
    return end if "[" in end else paths[i]


@lru_cache(maxsize=16384)
def _same_kind(other: str, names: str) -> bool:
    """Whether two elements' id/class names are the same, or the one's a part of the other's with the first name in
    common (``.articlebodytext .section`` and ``.articlebodytext .section .version``: a modifier class on one chunk
    of telegraph.co.uk's article; cached per pair: few per page). Measured, against the same names only (step 5's
    chunks): readability +0.0007, cleaneval +0.0001, wcxb-dev +0.0022 (listing +0.018), the others ±0."""
    if other == names:
        return True
    if not other:
        return False
    mine, theirs = names.split(), other.split()
    if mine[0] != theirs[0]:
        return False
    return set(mine) <= set(theirs) or set(theirs) <= set(mine)


def _chunks(tree: BlockTree, parent: int, final: dict[int, float], threshold: float) -> list[int]:
    """Siblings of ``parent`` (or of its parent, up to :data:`CHUNK_LEVELS` levels) with the same id/class names
    (:func:`_same_kind`) that hold a container scoring at least ``threshold``: the other chunks of an article cut
    into several boxes."""
    cols = tree.columns
    paths: list = cols.paths
    tags: list = cols.tags
    parents: cython.long[:] = cols.parents
    ends: cython.long[:] = cols.ends
    a: cython.Py_ssize_t = parent
    up: cython.Py_ssize_t
    c: cython.Py_ssize_t
    end: cython.Py_ssize_t
    k: cython.Py_ssize_t
    value: cython.double
    least: cython.double = threshold
    for _ in range(CHUNK_LEVELS):
        up = parents[a]
        if up < 0 or tags[up] in _ROOTS:
            return []
        names = _names(paths[a])
        if names:
            found = []
            c = up + 1
            while c < ends[up]:  # the children of ``up``, by jumping over their subtrees
                if c != a and _same_kind(_names(paths[c]), names):
                    end = ends[c]
                    for k, value in final.items():
                        if c <= k < end and value >= least:
                            found.append(c)
                            break
                c = ends[c]
            if found:
                return found
        a = up
    return []


# -- the page's kind: one article, or content spread over its main region (steps 11–14) --------------------------


def select_page(tree: BlockTree, *, comments: bool = False) -> tuple[list[ExtractedBlock], dict[str, Any]]:
    """The main content of a page's block tree and what kind of page it was taken for.

    Both readings of the page are made: the article scoring (:func:`select_main`, steps 1–10) and the page's main
    region (step 11: ``<main>`` or ``<body>`` less its chrome, :func:`_region_keep`). The article is kept unless
    the page shows it is not one (step 12, :func:`_page_kind`: the module docstring lists the tests); an article
    holding :data:`CODE_BLOCKS_MIN` code blocks is documentation, whose content is the region (step 13). Most pages
    are articles, whose region is never output: the region is pruned and the page's cards of lists are marked
    only where bounds on what the region holds leave a test of step 12 open (:func:`_surely_article`).

    ``info`` says which: ``page_type`` (``"article"``, ``"documentation"``, ``"listing"``: mostly cards of a list,
    ``"forum"``: mostly posts, or ``"page"``: content over several regions) and ``page_type_reason``
    (:data:`REASONS`: the test of step 12 that decided). Reader comments (blocks named as comments:
    :data:`fce.names.COMMENT_NAME_PARTS`) are left out, as most golds leave them out (README, "Choosing the
    fallback"); but on a page whose comments are most of its text (a forum thread) they are the content. With
    ``comments``, those left out are given as text in ``info["comments"]`` (step 14)."""
    if len(tree) < 2:  # (a tree of one block: a <noscript> or hidden block of text alone, read as the page)
        text = tree.render(0) if len(tree) else ""
        text = text if len(text) >= ONE_BLOCK_MIN_CHARS else ""
        whole = [ExtractedBlock(tree.columns.paths[0], text, 0)] if text else []
        return whole, {"page_type": "page", "page_type_reason": REASONS[0], "covered": [0] if text else []}
    sums = subtree_sums(tree, _INLINE)
    mine: list[int] = []
    roots: list[int] = []
    out = _article(tree, None, mine, sums, roots)
    mains = _mains(tree)
    root = _region_root(tree, sums[0], mains)
    kind, reason = "article", REASONS[5]
    cards = _surely_article(tree, sums, root, out, mine, mains)
    if cards is None:  # a test of step 12 is left open: the region is read
        keep = _region_keep(tree, sums, root, False)
        theirs = _kept(tree, root, keep)
        cards = _cards(tree, sums)
        kind, reason = _page_kind(tree, sums, cards, out, mine, theirs, mains)
        if kind != "article":
            text = tree.render(root, keep)
            out = [ExtractedBlock(tree.columns.paths[root], text, root)] if text else []
            mine, roots = theirs, [root]
    if kind == "article":
        kind = _region_kind(tree, sums, cards, mine)  # a list or a thread the article scoring took whole
        if kind == "page":
            kind = "article"
    # ``covered``: the blocks whose text went out, so that the structured output (fce.render) reads those alone;
    # ``covered_exact``: each block's text is its render with those (fce.blocks.disjoint_subtrees), which the
    # structured output then need not render to check
    info: dict[str, Any] = {"page_type": kind, "page_type_reason": reason, "covered": mine,
                            "covered_exact": disjoint_subtrees(tree, roots)}
    if comments:
        found = _comments(tree, sums, mine)
        if found:
            info["comments"] = found
    return out, info


_REGION_WORD_SPLIT = re.compile(r"[\s#.\-_:]+")


@lru_cache(maxsize=65536)
def _region_names(path: str) -> int:
    """What step 11 reads from a block's id/class names, as bits: 1 furniture (:func:`fce.names.name_words`, or
    reviews), 2 a :data:`REGION_CHROME_WORDS` word, 4 a comment (:data:`fce.names.COMMENT_NAME_PARTS`, or reviews:
    :data:`REVIEW_NAME_PARTS`), 8 left out at any share of the region (galleries and reviews: a gallery's captions
    or a product's reviews are never its content, however much text they hold). Cached per path: the region's
    pruning reads every block's."""
    names = _names(path)
    return _region_name_bits(names) if names else 0


@lru_cache(maxsize=16384)
def _region_name_bits(names: str) -> int:
    """:func:`_region_names` for one element's id/class names (cached per names, as :func:`_chrome_names`)."""
    content, furniture = name_words(names)
    reviews = any(part in names for part in REVIEW_NAME_PARTS)
    bits = 1 if (furniture or reviews) and not content else 0
    if not REGION_CHROME_WORDS.isdisjoint(_REGION_WORD_SPLIT.split(names)):
        bits |= 2
    if reviews or any(part in names for part in COMMENT_NAME_PARTS):
        bits |= 4
    if reviews or any(part in names for part in GALLERY_NAME_PARTS):
        bits |= 8
    return bits


def _mains(tree: BlockTree) -> list[int]:
    """The page's ``<main>`` blocks (steps 11 and 12), in one pass over its tags."""
    tags: list = tree.columns.tags
    i: cython.Py_ssize_t
    tag: str
    found = []
    for i in range(len(tags)):
        tag = tags[i]
        # (the length first: compiled, comparing two str is a three-way compare, a call per block)
        if len(tag) == 4 and tag == "main":
            found.append(i)
    return found


def _region_root(tree: BlockTree, chars: Sequence[int], mains: list[int] | None = None) -> int:
    """The block the region is rendered from: the largest ``<main>`` (of ``mains``, :func:`_mains`) with more than
    :data:`MAIN_MIN_SHARE` of the text of ``<body>``, else ``<body>`` (step 11)."""
    tags: list = tree.columns.tags
    body: cython.Py_ssize_t = 1 if tags[1] == "body" else 0
    sizes: cython.long[:] = chars  # type: ignore[assignment]
    best: cython.Py_ssize_t = body
    i: cython.Py_ssize_t
    floor: cython.double = MAIN_MIN_SHARE * sizes[body]
    for i in _mains(tree) if mains is None else mains:
        if sizes[i] > floor and (best == body or sizes[i] > sizes[best]):
            best = i
    return best


def _region_keep(tree: BlockTree, sums: tuple[array[int], array[int], array[int], array[int]], root: int,
                 comments: bool) -> Callable[[int], bool]:
    """The pruning of the region (step 11) as a ``keep`` function for :meth:`~fce.blocks.BlockTree.render`; with
    ``comments``, blocks named as comments stay."""
    cols = tree.columns
    tags: list = cols.tags
    paths: list = cols.paths
    parents: cython.long[:] = cols.parents
    chars: cython.long[:] = sums[0]
    links: cython.long[:] = sums[1]
    dominant: cython.double = DOMINANT_SHARE * sums[0][root]
    dominant_links: cython.double = DOMINANT_MAX_LINK_DENSITY
    small_form: cython.long = FORM_MAX_CHARS
    large: cython.long = FURNITURE_MAX_CHARS
    prose_links: cython.double = SIBLING_MAX_LINK_DENSITY

    def keep(i: cython.Py_ssize_t) -> bool:
        size: cython.long = chars[i]
        bits = _region_names(paths[i])
        if bits & 8:  # (measured, galleries: readability +0.0045, wcxb-dev −0.0001, the others ±0)
            return False
        if size >= dominant and links[i] < dominant_links * size:
            return True
        tag = tags[i]
        if tag in REGION_CHROME_TAGS or tag in UNRENDERED_TAGS or (tag == "form" and size < small_form):
            return False
        if tag == "header":
            j: cython.Py_ssize_t = parents[i]
            while j > 0 and tags[j] != "article" and tags[j] != "main":
                j = parents[j]
            if j <= 0:
                return False
        if bits & 2:
            return False
        if not bits & 1 or (comments and bits & 4 != 0):
            return True
        return not bits & 4 and size >= large and links[i] < prose_links * size  # (FURNITURE_MAX_CHARS)

    return keep


def _kept(tree: BlockTree, root: int, keep: Callable[[int], bool]) -> list[int]:
    """The blocks of ``root``'s subtree that :meth:`~fce.blocks.BlockTree.render` with ``keep`` would visit, in
    document order, without rendering them (most pages are articles: their region's text is never needed)."""
    ends: cython.long[:] = tree.columns.ends
    out = [root]
    i: cython.Py_ssize_t = root + 1
    end: cython.Py_ssize_t = ends[root]
    while i < end:
        if keep(i):
            out.append(i)
            i += 1
        else:
            i = ends[i]
    return out


def _surely_article(tree: BlockTree, sums: tuple[array[int], array[int], array[int], array[int]], root: int,
                    article: list[ExtractedBlock], mine: list[int], mains: list[int]) -> bytearray | None:
    """Step 12 decided from bounds where they suffice, without pruning the region: the region holds at most the
    text, prose and plain text of its ``root``'s whole subtree (its pruning and the cards of lists only take text
    away), so that a test that fails against those fails against the region too. When no test can hold and the
    article holds fewer than :data:`CODE_BLOCKS_MIN` code blocks, the page is an article (as :func:`_page_kind`
    finds it, a region without text included), and what is returned are the marks of the cards among the
    article's blocks ``mine`` (:func:`_card_marks`: all that :func:`select_page` reads of the cards after); else
    None, and :func:`_page_kind` reads the region. ``mains``: :func:`_mains`. Most pages are articles, whose
    region is never output: the bounds decide 2,566 of the 3,222 pages of the nine sets (msv-big9 326 of 360,
    wcxb-dev, of many kinds of pages, 163 of 350); those they leave open are mostly pages whose sidebars, comments
    or teasers hold prose."""
    if not article or _outside_main(tree, sums[0], article, mains) or _code_blocks(tree, article) >= CODE_BLOCKS_MIN:
        return None
    cols = tree.columns
    tags: list = cols.tags
    ends: cython.long[:] = cols.ends
    lengths: cython.long[:] = cols.text_lengths
    link_chars: cython.long[:] = cols.link_chars
    para: cython.long[:] = sums[2]
    chars: cython.long[:] = sums[0]
    links: cython.long[:] = sums[1]
    unique = list(dict.fromkeys(mine))  # (a block the output holds twice is counted once)
    cards = _card_marks(tree, sums, unique)
    own: cython.long = _text_length(cols.text_lengths, unique)
    prose: cython.long = _prose(tree, sums, unique, cards)
    region: cython.long = sums[0][root]
    region_prose: cython.long = 0
    plain: cython.long = 0
    least: cython.long = SIBLING_MIN_CHARS
    most_links: cython.double = SIBLING_MAX_LINK_DENSITY
    i: cython.Py_ssize_t
    first: cython.Py_ssize_t = root
    end: cython.Py_ssize_t = ends[root]
    for i in range(first, end):
        if link_chars[i] < most_links * lengths[i]:  # (_plain_text's test)
            plain += lengths[i]
        if para[i] > least and links[i] < most_links * chars[i] and tags[i] not in _NOT_PROSE:  # (_prose's)
            region_prose += para[i]
    for i in unique:
        if first <= i < end and link_chars[i] < most_links * lengths[i]:
            plain -= lengths[i]
    if own < REGION_RATIO * region and (prose < SMALL_PROSE_SHARE * region_prose or not prose):
        return None
    if prose < PROSE_SHARE * region_prose or plain >= DATA_SHARE * own:
        return None
    return cards


def _page_kind(tree: BlockTree, sums: tuple[array[int], array[int], array[int], array[int]], cards: bytearray,
               article: list[ExtractedBlock], mine: list[int], theirs: list[int],
               mains: list[int] | None = None) -> tuple[str, str]:
    """The kind of page and the reason (:data:`REASONS`) of step 12, given the article scoring's output (``article``,
    the blocks it covers in ``mine``), the blocks of the region (``theirs``), the cards of lists (:func:`_cards`)
    and the page's ``<main>`` blocks (:func:`_mains`). A region without text is never the content."""
    cols = tree.columns
    lengths = cols.text_lengths
    region = _text_length(lengths, theirs)
    if not article:
        return ("page" if region else "article"), REASONS[0]
    if not region:
        return "article", REASONS[5]
    if _outside_main(tree, sums[0], article, _mains(tree) if mains is None else mains):
        return _region_kind(tree, sums, cards, theirs), REASONS[1]
    mine = list(dict.fromkeys(mine))  # (a block the output holds twice is counted once)
    own = _text_length(lengths, mine)
    mine_prose = _prose(tree, sums, mine, cards)
    region_prose = _prose(tree, sums, theirs, cards)
    if own < REGION_RATIO * region and (mine_prose < SMALL_PROSE_SHARE * region_prose or not mine_prose):
        return _region_kind(tree, sums, cards, theirs), REASONS[2]
    if mine_prose < PROSE_SHARE * region_prose:
        return _region_kind(tree, sums, cards, theirs), REASONS[3]
    if _plain_text(tree, theirs, mine, cards) >= DATA_SHARE * own:
        return _region_kind(tree, sums, cards, theirs), REASONS[4]
    if _code_blocks(tree, article) >= CODE_BLOCKS_MIN:
        return "documentation", REASONS[6]
    return "article", REASONS[5]


def _outside_main(tree: BlockTree, chars: Sequence[int], article: list[ExtractedBlock], mains: list[int]) -> bool:
    """Whether the page has a ``<main>`` (of ``mains``, :func:`_mains`) holding text and the article's containers lie
    outside all of them (step 12)."""
    ends = tree.columns.ends
    mains = [i for i in mains if chars[i] > 0]
    return bool(mains) and not any(m <= b.index < ends[m] for m in mains for b in article)


def _code_blocks(tree: BlockTree, article: list[ExtractedBlock]) -> int:
    """How many ``<pre>`` blocks the article's containers hold (step 13)."""
    cols = tree.columns
    tags: list = cols.tags
    ends: cython.long[:] = cols.ends
    i: cython.Py_ssize_t
    tag: str
    count: cython.Py_ssize_t = 0
    for b in article:
        for i in range(b.index, ends[b.index]):
            tag = tags[i]
            if len(tag) == 3 and tag == "pre":  # (the length first: see _mains)
                count += 1
    return count


def _text_length(lengths: Sequence[int], blocks: list[int]) -> int:
    """Characters of own text of ``blocks``."""
    own: cython.long[:] = lengths  # type: ignore[assignment]
    total: cython.long = 0
    i: cython.Py_ssize_t
    for i in blocks:
        total += own[i]
    return total


def _plain_text(tree: BlockTree, theirs: list[int], mine: list[int], cards: bytearray) -> int:
    """Characters of the region's own text outside the article that is not in a card of a list and at most
    :data:`SIBLING_MAX_LINK_DENSITY` link text (step 12, :data:`DATA_SHARE`)."""
    cols = tree.columns
    lengths: cython.long[:] = cols.text_lengths
    link_chars: cython.long[:] = cols.link_chars
    card: cython.uchar[:] = cards
    inside_buffer = bytearray(len(lengths))
    inside: cython.uchar[:] = inside_buffer
    most_links: cython.double = SIBLING_MAX_LINK_DENSITY
    i: cython.Py_ssize_t
    for i in mine:
        inside[i] = 1
    total: cython.long = 0
    for i in theirs:
        if not inside[i] and not card[i] and link_chars[i] < most_links * lengths[i]:
            total += lengths[i]
    return total


def _cards(tree: BlockTree, sums: tuple[array[int], array[int], array[int], array[int]]) -> bytearray:
    """Per block, 1 where it lies in a card of a list (:data:`CARD_MIN_REPEATS`, :data:`CARD_MAX_CHARS`):
    :func:`_card_marks` of every block."""
    return _card_marks(tree, sums, list(range(len(tree))))


def _card_marks(tree: BlockTree, sums: tuple[array[int], array[int], array[int], array[int]],
                blocks: list[int]) -> bytearray:
    """Per block of ``blocks`` (0 elsewhere), 1 where it lies in a card of a list: a block holding links, of at most
    :data:`CARD_MAX_CHARS` characters, whose path :data:`CARD_MIN_REPEATS` such blocks of the page have. A block
    lies in a card when it or an ancestor is one, and the candidates among its ancestors are few (those up to
    :data:`CARD_MAX_CHARS` characters, the nearest: an ancestor holds its descendants' text), so that only their
    paths are counted, not every path of the page. A ``<dd>`` lies in the card of the ``<dt>`` right before it:
    a definition list of links sets each linked headline apart from its summary (cbc.ca's "more headlines"), and
    the summaries are not prose beside a short story (:data:`PROSE_SHARE`; measured: l3s-gn1 page mean +0.0019,
    two cbc.ca pages 0.29 → 0.98 and 0.49 → 0.96, no page of the other sets changed)."""
    cols = tree.columns
    paths: list = cols.paths
    tags: list = cols.tags
    parents: cython.long[:] = cols.parents
    chars: cython.long[:] = sums[0]
    links: cython.long[:] = sums[1]
    most: cython.long = CARD_MAX_CHARS
    repeats: cython.long = CARD_MIN_REPEATS
    i: cython.Py_ssize_t
    a: cython.Py_ssize_t
    n: cython.Py_ssize_t = len(paths)
    card_buffer = bytearray(n)
    counts: dict[str, int] = {}
    terms: dict[int, int] = {}  # a <dd> of ``blocks`` → the <dt> holding links right before it
    definitions = "dd" in tags
    for i in blocks:
        a = i
        while a > 0 and chars[a] <= most:  # (the root is never a card: _cards starts below it)
            if links[a] > 0:
                counts[paths[a]] = 0
            a = parents[a]
        if definitions and tags[i] == "dd":
            a = i - 1  # the previous sibling: the nearest block before it whose parent is its parent
            while a > 0 and parents[a] != parents[i]:
                a = parents[a]
            if a > 0 and tags[a] == "dt" and links[a] > 0 and chars[a] <= most:
                terms[i] = a
                counts[paths[a]] = 0
    if not counts:
        return card_buffer
    for i in range(n):
        if links[i] > 0 and chars[i] <= most:
            path = paths[i]
            if path in counts:
                counts[path] += 1
    card: cython.uchar[:] = card_buffer
    for i in blocks:
        a = i
        while a > 0 and chars[a] <= most:
            if links[a] > 0 and counts[paths[a]] >= repeats:
                card[i] = 1
                break
            a = parents[a]
        if not card[i] and i in terms and counts[paths[terms[i]]] >= repeats:
            card[i] = 1
    return card_buffer


def _prose(tree: BlockTree, sums: tuple[array[int], array[int], array[int], array[int]], covered: list[int],
           cards: bytearray) -> int:
    """Characters of prose among the blocks ``covered`` (step 12, :data:`PROSE_SHARE`), each block counted once."""
    cols = tree.columns
    tags: list = cols.tags
    para: cython.long[:] = sums[2]
    chars: cython.long[:] = sums[0]
    links: cython.long[:] = sums[1]
    card: cython.uchar[:] = cards
    seen_buffer = bytearray(len(tags))
    seen: cython.uchar[:] = seen_buffer
    least: cython.long = SIBLING_MIN_CHARS
    most_links: cython.double = SIBLING_MAX_LINK_DENSITY
    total: cython.long = 0
    i: cython.Py_ssize_t
    for i in covered:
        if (para[i] > least and links[i] < most_links * chars[i] and not seen[i] and not card[i]
                and tags[i] not in _NOT_PROSE):  # (the C tests first)
            seen[i] = 1
            total += para[i]
    return total


def _region_kind(tree: BlockTree, sums: tuple[array[int], array[int], array[int], array[int]], cards: bytearray,
                 covered: list[int]) -> str:
    """What the blocks ``covered`` are made of, for ``info["page_type"]``: ``"listing"`` when most of their text lies
    in the cards of lists (:func:`_cards`), ``"forum"`` when most lies in posts (boxes named as posts,
    :data:`POST_NAME_PARTS`, holding a paragraph of more than :data:`SIBLING_MIN_CHARS` characters, not cards, whose
    path :data:`CARD_MIN_REPEATS` of them share), else ``"page"``."""
    cols = tree.columns
    paths: list = cols.paths
    lengths: cython.long[:] = cols.text_lengths
    ends: cython.long[:] = cols.ends
    chars: cython.long[:] = sums[0]
    para: cython.long[:] = sums[2]
    card: cython.uchar[:] = cards
    least: cython.long = SIBLING_MIN_CHARS
    total: cython.long = 0
    listed: cython.long = 0
    i: cython.Py_ssize_t
    k: cython.Py_ssize_t
    for i in covered:
        total += lengths[i]
        if card[i]:
            listed += lengths[i]
    if not total:
        return "page"
    if listed * 2 >= total:
        return "listing"
    boxes = []
    for i in covered:
        if ends[i] > i + 1 and not card[i] and chars[i] >= least and _post_named(paths[i]):
            for k in range(i, ends[i]):  # a paragraph of more than SIBLING_MIN_CHARS inside
                if para[k] > least:
                    boxes.append(i)
                    break
    counts: dict[str, int] = {}
    for i in boxes:
        counts[paths[i]] = counts.get(paths[i], 0) + 1
    posts: cython.long = 0
    end: cython.Py_ssize_t = -1
    for i in boxes:
        if i >= end and counts[paths[i]] >= CARD_MIN_REPEATS:
            posts += chars[i]
            end = ends[i]
    return "forum" if posts * 2 >= total else "page"


def _comments(tree: BlockTree, sums: tuple[array[int], array[int], array[int], array[int]],
              covered: list[int]) -> str:
    """The text of the page's reader comments (step 14): the outermost blocks named as comments
    (:data:`fce.names.COMMENT_NAME_PARTS`) with at least :data:`COMMENT_MIN_CHARS` characters none of whose blocks the
    output holds, their chrome pruned as the region's is (comments sit inside ``<main>`` or after it)."""
    cols = tree.columns
    paths: list = cols.paths
    ends: cython.long[:] = cols.ends
    chars: cython.long[:] = sums[0]
    least: cython.long = COMMENT_MIN_CHARS
    inside = sorted(set(covered))  # a comment block any of whose blocks went out is not left over
    body = 1 if cols.tags[1] == "body" else 0
    keep = _region_keep(tree, sums, body, True)
    texts = []
    i: cython.Py_ssize_t = body + 1
    end: cython.Py_ssize_t = ends[body]
    while i < end:
        if (chars[i] >= least and _region_names(paths[i]) & 4
                and bisect_left(inside, i) == bisect_left(inside, ends[i])):
            text = tree.render(i, keep)
            if text:
                texts.append(text)
            i = ends[i]
        else:
            i += 1
    return "\n".join(texts)


def page_comments(tree: BlockTree, covered: Sequence[int]) -> str:
    """The text of the reader comments of a page whose extraction output the blocks ``covered`` (step 14's
    :func:`_comments`, for an extraction made by any means: a site's template, another method); empty if none."""
    if len(tree) < 2:
        return ""
    return _comments(tree, subtree_sums(tree, _INLINE), list(covered))


def _noscript_tree(page: Page, shown: int) -> BlockTree | None:
    """The block tree of the page's largest ``<noscript>``, or of its largest hidden block (:func:`_hidden_wrappers`),
    when it holds more text than the page shows (``shown`` characters); parses the page's lxml tree (only pages under
    :data:`NOSCRIPT_MAX_CHARS` come here)."""
    best = None
    size = shown
    noscripts = [e for e in page.root.iter("noscript") if not any(a.tag in _NEVER_SHOWN for a in e.iterancestors())]
    for element in [*noscripts, *_hidden_wrappers(page.root)]:
        tree = segment_element(element, DEFAULT_PATH_STYLE)  # (its text as read: not its scripts' and styles')
        length = sum(tree.columns.text_lengths)
        if length > size:
            best, size = tree, length
    return best


def _hidden_wrappers(root: Any) -> list[Any]:
    """The outermost elements of ``<body>`` hidden by their attributes (:func:`fce.blocks.is_hidden`): a page that
    shows nothing until its scripts have run hides its whole content in one (``<div style="visibility:hidden">``
    around a Next.js page, which the script makes visible), and its text is there. The segmentation leaves hidden
    blocks out, rightly on pages that show something (:data:`NOSCRIPT_MAX_CHARS`)."""
    found = []
    walker = etree.iterwalk(root, events=("start",))
    for _event, element in walker:
        tag = element.tag
        if tag.__class__ is not str:
            continue
        if tag in SKIPPED_TAGS:  # never shown, or a <noscript> (read as one)
            walker.skip_subtree()
        elif is_hidden(element):
            found.append(element)
            walker.skip_subtree()
    return found
