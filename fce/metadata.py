# cython: annotation_typing=False
"""Page metadata — title, authors, dates, language, site name, description, canonical URL, categories, tags,
image and page type — read from the page's HTML text without parsing it into a tree.

    >>> meta = extract_metadata(html, url="https://example.com/2024/05/02/story")
    >>> meta.title, meta.authors, meta.published
    ('A story', ('Jane Doe', 'John Roe'), '2024-05-02T09:30:00+02:00')

**Why no tree.** Metadata sits in a few places a scan finds without a DOM: the ``<head>``, the JSON-LD scripts,
and a byline or a ``<time>`` near the headline. Building lxml's tree only to read them would cost ten times the
budget, so the head is read by one regular expression for its ``<meta>`` tags and two searches that stop early
(``<title>``, ``<html lang>``), JSON-LD by ``json.loads`` of the scripts the parse saw (else found by a literal
search), and the body only when the head left a field empty, in a bounded window around the headline
(:class:`_Body`). ``bench/output_bench.py`` times it against lxml's parse of the same pages.

**Sources, in order of precedence per field** (the first usable value wins):

* ``title`` — the JSON-LD ``headline`` (or ``name``: the one closer to ``<title>``, as Readability.js picks),
  then ``dc.title`` and ``og:title``; when these differ, the one ``<title>`` also says (minus the site name)
  wins, since ``og:title`` is often rewritten for social media and a JSON-LD headline cut at 110 characters.
  Then the other meta titles (``twitter:title``, ``parsely-title`` …), last ``<title>`` without the site name
  (:func:`clean_title`).
* ``authors`` — JSON-LD ``author``/``creator`` (strings, objects, arrays, ``@id`` references); the meta authors
  (``dc.creator``, ``author``, ``article:author`` unless a URL, ``parsely-author``, ``sailthru.author``,
  ``citation_author`` …); a byline element near the headline (``itemprop=author``, ``rel=author``, a class or id
  ``byline``/``author``). Cleaned by :func:`split_authors`.
* ``published``/``modified`` — JSON-LD ``datePublished``/``dateModified``; ``article:published_time`` and the
  date metas htmldate reads (``parsely-pub-date``, ``sailthru.date``, ``dc.date``, ``date``, ``pubdate`` …);
  ``itemprop=datePublished`` and ``<time datetime>`` near the headline; a date in the URL's path. Of a JSON-LD
  date in UTC and a meta date in the page's local time for the same instant, the local one wins (its calendar
  day is the one the page's readers saw).
* ``description`` — ``dc.description``, ``description``, ``og:description``, the JSON-LD ``description``,
  ``twitter:description`` …, a later one replacing an earlier one it completes (cut with "…" or broken by a
  stray quote); when the page declares none, its first paragraph of MIN_EXCERPT_CHARS characters or more near
  the headline, as Readability.js's excerpt.
* ``site_name`` — the JSON-LD ``publisher.name`` or ``WebSite`` name, ``og:site_name``, ``application-name``,
  ``publisher``, ``twitter:site`` (without its ``@``).
* ``language`` — ``<html lang>``, JSON-LD ``inLanguage``, ``content-language``, ``og:locale``; as BCP 47; where
  the page declares none, the language of its extracted text (``text``: :mod:`fce.language`).
* ``canonical_url`` — ``<link rel=canonical>``, ``og:url``, the JSON-LD ``url``; ``image`` — ``og:image``,
  ``twitter:image``, the JSON-LD ``image`` (string, ``ImageObject`` or array); both made absolute against
  ``<base href>`` or ``url``.
* ``categories`` — JSON-LD ``articleSection``, ``article:section``, ``parsely-section``; ``tags`` —
  ``article:tag``, ``keywords``, ``news_keywords``, ``parsely-tags``, then JSON-LD ``keywords``.
* ``page_type`` — the JSON-LD ``@type`` of the page's main entity (an article or posting first, then other
  content such as ``Product``, then a page type such as ``QAPage``), else ``og:type``.

Meta keys are read from ``name=``, ``property=``, ``itemprop=`` or ``http-equiv=``, case-insensitively, each of a
space-separated list; ``dc:``, ``DC.`` and ``dcterm:`` are one prefix. Values are cleaned: entities decoded, tags
dropped, whitespace collapsed.

**Robustness.** :func:`extract_metadata` never raises: malformed JSON-LD is skipped; every scan is bounded (the
head, the body window, the number of tags, hits and JSON-LD scripts, the length of a value); every regular
expression is linear in what it scans (no quantified group repeats another quantifier unless possessive; a
quoted value ends at its quote), so hostile input costs time in proportion to its size at worst.
"""

from __future__ import annotations

import html as html_lib
import json
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta, timezone
from functools import partial
from typing import Any
from urllib.parse import urljoin

from fce._accel import compiled
from fce.language import identify_language

__all__ = [
    "Metadata",
    "clean_title",
    "extract_metadata",
    "normalize_date",
    "normalize_language",
    "raw_title",
    "split_authors",
]

# --- bounds ------------------------------------------------------------------------------------------------------

#: How far ``</head>`` (or ``<body``) is looked for: heads of a few hundred KB of inline script exist (547 K
#: characters the largest of the evaluation pages). A page with neither (a fragment) is read as head up to
#: HEAD_FALLBACK_CHARS, where its metadata would be. ``<html lang>`` is looked for in the first
#: HTML_TAG_SEARCH_CHARS (after a doctype and comments).
HEAD_MAX_CHARS = 1024 * 1024
HEAD_FALLBACK_CHARS = 8 * 1024
HTML_TAG_SEARCH_CHARS = 4096
#: The body window (see :class:`_Body`): the headline is looked for in the body with a needle of at least
#: MIN_ANCHOR_CHARS characters, within ANCHOR_SEARCH_CHARS and half the page (of its first MAX_ANCHOR_HITS places,
#: one with a heading tag in the HEADING_CONTEXT_CHARS before it; else the first ``<h1``); the window starts
#: BEFORE_ANCHOR_CHARS before it and is BODY_SCAN_CHARS long, but at most a BODY_SHARE-th of the page (at least
#: MIN_BODY_SCAN_CHARS). On the Readability test pages bylines lie 0.4–4 K characters after the headline, a few K
#: before it on sites that put them above; the share keeps the window's cost a fixed fraction of the parse's
#: (a window of 32 K, a quarter of the page, finds 3 more of the 76 bylines and costs 0.02× more at the median).
ANCHOR_SEARCH_CHARS = 512 * 1024
MIN_ANCHOR_CHARS = 12
MAX_ANCHOR_HITS = 4
HEADING_CONTEXT_CHARS = 400
BEFORE_ANCHOR_CHARS = 3 * 1024
BODY_SCAN_CHARS = 16 * 1024
MIN_BODY_SCAN_CHARS = 2 * 1024
BODY_SHARE = 8
#: JSON-LD: at most this many scripts, each at most JSON_LD_MAX_CHARS long (schema.org blocks are a few KB; the
#: largest on the evaluation pages ~200 KB), and at most JSON_LD_MAX_NODES objects walked.
JSON_LD_MAX_SCRIPTS = 24
JSON_LD_MAX_CHARS = 1024 * 1024
JSON_LD_MAX_NODES = 512
#: A tag longer than this is not read as a tag; an element's text is looked for within MAX_ELEMENT_CHARS; at most
#: MAX_HITS occurrences of a needle ("author", "<time") and MAX_PARAGRAPHS paragraphs are read in the window.
MAX_TAG_CHARS = 16 * 1024
MAX_ELEMENT_CHARS = 4096
MAX_HITS = 16
MAX_PARAGRAPHS = 8
#: Values are cut to this many characters before cleaning (descriptions run to a few hundred).
MAX_VALUE_CHARS = 4096
MAX_TITLE_CHARS = 1000
#: Readability.js's ``_isValidByline``: a byline is shorter than 100 characters.
MAX_BYLINE_CHARS = 100
#: One author: at most this many characters and words (longer strings are sentences, not names).
MAX_AUTHOR_CHARS = 80
MAX_AUTHOR_WORDS = 6
MAX_AUTHORS = 24
MAX_ITEMS = 64
#: The first-paragraph description: a shorter paragraph is a label or a caption, not a summary.
MIN_EXCERPT_CHARS = 80
#: Plausible years of a web page's date (with room for scheduled posts).
MIN_YEAR, MAX_YEAR = 1990, 2100

# --- meta keys, best first ---------------------------------------------------------------------------------------
# After Readability.js (_getArticleMetadata: Dublin Core before Open Graph before plain names), trafilatura
# (metadata.py: METANAME_*) and htmldate (core.py: DATE_ATTRIBUTES, PROPERTY_MODIFIED, NAME_MODIFIED).

#: The titles that can outrank the JSON-LD headline when ``<title>`` agrees with them (see _title).
PRIMARY_TITLE_KEYS = ("dc.title", "dcterms.title", "og:title")
TITLE_KEYS = ("twitter:title", "parsely-title", "sailthru.title", "citation_title", "headline", "title",
              "weibo:article:title", "weibo:webpage:title")
AUTHOR_KEYS = ("dc.creator", "dcterms.creator", "author", "article:author", "parsely-author", "sailthru.author",
               "citation_author", "og:article:author", "byl", "byline", "authors", "dcsext.author",
               "shareaholic:article_author_name", "creator")
#: The JSON-LD description ranks after the first DESCRIPTION_KEYS_BEFORE_JSON_LD keys: on the Readability test
#: pages it is more often cut short or prefixed with the headline than the meta description.
DESCRIPTION_KEYS = ("dc.description", "dcterms.description", "description", "og:description",
                    "twitter:description", "dcterms.abstract", "sailthru.description",
                    "weibo:article:description", "weibo:webpage:description")
DESCRIPTION_KEYS_BEFORE_JSON_LD = 4
SITE_NAME_KEYS = ("og:site_name", "application-name", "apple-mobile-web-app-title", "publisher", "dc.publisher",
                  "dcterms.publisher", "citation_journal_title", "twitter:site")
PUBLISHED_KEYS = ("article:published_time", "og:article:published_time", "article:published", "parsely-pub-date",
                  "sailthru.date", "datepublished", "dc.date.issued", "dc.date", "dcterms.issued",
                  "dcterms.created", "dcterms.date", "dcterms.available", "citation_publication_date",
                  "citation_date", "date", "pubdate", "publishdate", "publish_date", "publish-date",
                  "published_time", "published-date", "publication_date", "og:published_time", "article.published",
                  "article:post_date", "datecreated", "originalpublicationdate", "displaydate",
                  "weibo:article:create_at")
MODIFIED_KEYS = ("article:modified_time", "og:article:modified_time", "og:updated_time", "article:modified",
                 "datemodified", "dcterms.modified", "dc.modified", "last-modified", "lastmod", "modified",
                 "updated_time", "article:updated_time")
LANGUAGE_KEYS = ("content-language", "language", "dc.language", "dcterms.language", "og:locale")
IMAGE_KEYS = ("og:image", "og:image:url", "og:image:secure_url", "twitter:image", "twitter:image:src", "image",
              "thumbnail", "parsely-image-url")
URL_KEYS = ("og:url", "twitter:url", "parsely-link")
SECTION_KEYS = ("article:section", "parsely-section", "section", "category", "dc.subject", "dcterms.subject")
TAG_KEYS = ("article:tag", "keywords", "news_keywords", "parsely-tags", "sailthru.tags", "citation_keywords")
#: Keys whose values follow the library convention "Last, First" (Dublin Core, Google Scholar's citation_author).
INVERTED_NAME_KEYS = frozenset({"dc.creator", "dcterms.creator", "citation_author"})
#: Each meta key's field and rank within it, so that one pass over a page's metas sorts them (see _scan_head).
_FIELD_OF = {key: (field, rank) for field, keys in (
    ("primary_title", PRIMARY_TITLE_KEYS), ("title", TITLE_KEYS), ("authors", AUTHOR_KEYS),
    ("description", DESCRIPTION_KEYS), ("site_name", SITE_NAME_KEYS), ("published", PUBLISHED_KEYS),
    ("modified", MODIFIED_KEYS), ("language", LANGUAGE_KEYS), ("image", IMAGE_KEYS), ("url", URL_KEYS),
    ("categories", SECTION_KEYS), ("tags", TAG_KEYS), ("page_type", ("og:type",)),
) for rank, key in enumerate(keys)}

#: schema.org types of what a page is about, best first: article-like (_ARTICLE_TYPE), other content, page types
#: (_PAGE_TYPES). Types in _SUPPORT_TYPES describe the site or parts of the page, never the page itself.
_ARTICLE_TYPE = re.compile(r"(?:Article|Posting|Report|Review)$")
_PAGE_TYPES = frozenset({"WebPage", "ItemPage", "CollectionPage", "QAPage", "FAQPage", "AboutPage", "ProfilePage",
                         "SearchResultsPage", "MedicalWebPage", "ContactPage", "CheckoutPage", "RealEstateListing",
                         "ItemList"})
_SUPPORT_TYPES = frozenset({"WebSite", "Organization", "NewsMediaOrganization", "Corporation", "Person",
                            "ImageObject", "BreadcrumbList", "ListItem", "SiteNavigationElement", "SearchAction",
                            "WPHeader", "WPFooter", "WPSideBar", "Brand", "Offer", "AggregateOffer",
                            "AggregateRating", "Rating", "Thing", "EntryPoint", "ReadAction", "Place",
                            "PostalAddress", "ContactPoint", "Language", "SpeakableSpecification", "Country",
                            "City", "WebPageElement", "InteractionCounter", "PropertyValue", "Audience", "Comment",
                            "Answer", "VideoObject"})

# --- regular expressions -----------------------------------------------------------------------------------------

_Q = r"""("[^"]*+"|'[^']*+'|[^\s"'<>]++)"""  # an attribute value, quotes kept (stripped where read)
_V = r"""(?:"([^"]*+)"|'([^']*+)'|([^\s"'<>]++))"""  # an attribute value, in one of three groups by its quotes
#: Attributes skipped on the way to the one wanted, a whitespace-separated token at a time (possessive: a tag
#: without the attribute fails in one pass over it; a token stops at "<", so that a tag that never closes does
#: not make every later tag scan to the end), at most META_MAX_SKIPPED of them: unbounded, each key found set off
#: a search for the content over the rest of the tag, and a tag of many keys and no content took quadratic time
#: (16,000 ``name=a`` in one tag, 10 s). No <meta> of the evaluation pages has a key or content after more than two.
META_MAX_SKIPPED = 16
_SKIP = rf"(?:[^\s<>]*+\s++){{0,{META_MAX_SKIPPED}}}?"
_KEY = r"(?:name|property|itemprop|http-equiv)"
#: <meta> with its key and content, in either order: groups (key ×3, content ×3, content ×3, key ×3); the definition
#: of what the head scan reads (_meta_pairs; compiled, fce/_scan.pyx follows it in C). Each pattern that starts with
#: a tag name spells it in letter classes, ASCII letters in either case as the compiled find takes them, and is
#: tried only where that name is (_tag_match).
_META = re.compile(
    rf"<[mM][eE][tT][aA](?i:\s++(?:{_SKIP}{_KEY}\s*=\s*{_V}\s++{_SKIP}content\s*=\s*{_V}"
    rf"|{_SKIP}content\s*=\s*{_V}\s++{_SKIP}{_KEY}\s*=\s*{_V}))"
)
#: A ``<title>`` element (the head's title, and :func:`raw_title` for learning). Its start tag holds no ``<`` and the
#: quantifiers are possessive, so that each ``<title`` is read up to the next ``<`` at most: with ``[^>]*`` a head
#: of many ``<title`` and no ``>`` took quadratic time (8,000 of them 0.23 s, a megabyte of them minutes).
_TITLE = re.compile(r"<[tT][iI][tT][lL][eE]\b(?i:[^<>]*+>([^<]*+)</title)")
_HTML_TAG = re.compile(r"<[hH][tT][mM][lL]\b[^<>]*+>")
_LANG = re.compile(rf"\s(?:xml:)?lang\s*=\s*{_Q}", re.IGNORECASE)
#: (ASCII whitespace, as HTML's tokenizer ends a tag name: the same pattern finds the same end in the page's bytes)
_HEAD_END = re.compile(r"<(?:/[hH][eE][aA][dD]\s*>|[bB][oO][dD][yY][\s>])", re.ASCII)
#: One whole tag: name and attribute text (possessive, so that a tag that never closes fails in linear time).
_TAG_AT = re.compile(r"""<([a-zA-Z][\w:-]{0,40})((?:[^<>"']++|"[^"]*+"|'[^']*+')*+)>""")
_ATTRIBUTE = re.compile(r"""([^\s"'<>/=]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'=<>`]+)))?""")
#: A paragraph's start tag, to its ">" (a ">" inside a quoted value does not end it): its attributes are not text.
_PARAGRAPH = re.compile(r"""<[pP](?:>|\s(?:[^<>"']++|"[^"]*+"|'[^']*+')*+>)""")
_ANY_TAG = re.compile(r"<[^<>]*>")
#: A character reference or a named one, with its ";": what is left of a value encoded twice once decoded once.
_ENTITY = re.compile(r"&(?:#[0-9]{1,8}|#[xX][0-9a-fA-F]{1,8}|[a-zA-Z][a-zA-Z0-9]{1,31});")
_BREAK = re.compile(r"<br\b[^<>]*>", re.IGNORECASE)
_COMMENT = re.compile(r"<!--.*?-->", re.DOTALL)
_SCRIPT_END = re.compile(r"</script", re.IGNORECASE)
_JSON_WRAPPER = re.compile(r"^\s*(?:<!--|//\s*<!\[CDATA\[|<!\[CDATA\[)|(?:-->|//\s*\]\]>|\]\]>)\s*$")
_TRAILING_COMMA = re.compile(r",(\s*[}\]])")
_WORD = re.compile(r"\w+")
_NOT_ALNUM = re.compile(r"[\W_]+")
_DIGIT = re.compile(r"\d")
_URL_HOST = re.compile(r"\s*(?:[a-zA-Z][\w+.-]*:)?//(?:[^/?#@]*@)?([^/?#:\s]+)")
#: The headline's first words as they appear in the HTML whatever its escaping: letters, digits and spaces.
_ANCHOR = re.compile(rf"[^\W_][\w ]{{{MIN_ANCHOR_CHARS - 2},38}}[^\W_]")
#: Elements that are never a byline even when their class says "author" (containers, scripts, media).
_NOT_BYLINE_TAGS = frozenset({"", "script", "style", "link", "body", "html", "main", "article", "section", "img",
                              "header", "footer", "nav", "ul", "ol", "form", "input", "iframe"})
#: The attributes whose value can make an element a byline.
_BYLINE_ATTRIBUTES = ("class", "id", "rel", "itemprop")
#: Byline markup, after Readability.js (REGEXPS.byline): a class or id naming a byline or an author.
_BYLINE_HINT = re.compile(r"byline|author|dateline|writtenby|p-author", re.IGNORECASE)

#: What the body window is read with, for a text (``str``) and for the page's UTF-8 bytes (the same needles and
#: patterns, encoded: every one is ASCII). Bytes are read where they are: a page is decoded only in the values taken
#: from it (decoding the whole page was a sixth of the metadata's time).
_SYNTAX: dict[type, dict[str, Any]] = {
    str: {"tag_at": _TAG_AT, "paragraph": _PARAGRAPH, "attributes": _BYLINE_ATTRIBUTES,
          "script_end": _SCRIPT_END, "meta": _META, "title": _TITLE, "html_tag": _HTML_TAG, "lang": _LANG,
          "head_end": _HEAD_END,
          **{needle: needle for needle in ("<", ">", "=", "<h1", "<h2", "<H1", "<H2", "datePublished", "<time",
                                           "uthor", "yline", 'itemprop="name"', "</", "<p", "application/ld+json",
                                           "script", "<!--", "-->", "</script", "canonical", "<base",
                                           "<meta", "</head", "<body", "<title", "<html")}},
}
_SYNTAX[bytes] = {key: (re.compile(value.pattern.encode(), value.flags & re.IGNORECASE) if isinstance(value, re.Pattern)
                        else tuple(v.encode() for v in value) if isinstance(value, tuple) else value.encode())
                  for key, value in _SYNTAX[str].items()}


#: ``text.find(needle, start, stop)`` for the text and for the bytes, as ``_SYNTAX[type(text)]["find"](…)``; for the
#: bytes, compiled where built (``fce/_scan.pyx``: the needle's two rarest bytes tested at many places at once,
#: several times as fast on HTML; the body window's searches were a third of the metadata's time).
_SYNTAX[str]["find"] = str.find
_SCAN: Any = compiled("_scan")
_SYNTAX[bytes]["find"] = bytes.find if _SCAN is None else _SCAN.find


def _search_caseless(text: Any, needle: Any, start: int, stop: int) -> int:
    """``text.find(needle, start, stop)`` with the needle's ASCII letters (lowercase) in either case."""
    flags = re.IGNORECASE | (re.ASCII if isinstance(needle, str) else 0)
    match = re.compile(re.escape(needle), flags).search(text, start, stop)  # (re caches the compiled pattern)
    return -1 if match is None else match.start()


#: ``find`` with the needle's ASCII letters (written lowercase) in either case: where the head's tags (``</head``,
#: ``<meta``, ``<title``, ``<html``) and the body window's ``<p`` are, so that their patterns are tried only there
#: (:func:`_tag_match`). A regular expression's search tries every ``<`` of the text, about a byte a nanosecond;
#: compiled, the needle's rarest bytes are tested a chunk at a time (fce/_scan.pyx): the ``</head>`` search takes
#: 1.2 µs at the median page instead of 2.4.
_SYNTAX[str]["ifind"] = _search_caseless
_SYNTAX[bytes]["ifind"] = _search_caseless if _SCAN is None else _SCAN.find_caseless


def _meta_pairs(text: Any, start: int, stop: int) -> list[tuple[Any, Any]]:
    """The key and the content of each ``<meta>`` that _META matches in ``text[start:stop]``, in order."""
    syntax = _SYNTAX[type(text)]
    return [(k1 or k2 or k3 or j1 or j2 or j3, v1 or v2 or v3 or w1 or w2 or w3)
            for k1, k2, k3, v1, v2, v3, w1, w2, w3, j1, j2, j3
            in _tag_matches(text, syntax["<meta"], syntax["meta"], start, stop)]


#: The same, compiled for the bytes where built (fce/_scan.pyx: the pattern followed in C, its lazy skips as it
#: backtracks): matching the pattern at each tag, about 0.4 µs a tag, and taking its twelve groups apart were half
#: of the head's time. With the caseless find, the metadata of the 3,231 evaluation pages is the same and takes
#: 0.88–0.90× the time at the median page, 0.85–0.87× summed (old and new compiled, alternating in one process).
_SYNTAX[str]["meta_pairs"] = _meta_pairs
_SYNTAX[bytes]["meta_pairs"] = (_meta_pairs if _SCAN is None  # (the bound of the skips, which _META holds)
                                else partial(_SCAN.meta_pairs, max_skipped=META_MAX_SKIPPED))

# --- authors -----------------------------------------------------------------------------------------------------
#: A name as most pages write it, which needs no cleaning: two to four capitalised words, not starting with "By".
_PLAIN_NAME = re.compile(r"(?!(?:By|Von|Par|Por|Door|Av|Di|Written|Posted)\b)[A-Z][a-z'’-]+(?: [A-Z][a-z'’.-]*){1,3}")
#: Separators between names: commas, semicolons, ampersands, pipes, slashes, "and" in the languages of the
#: evaluation data, and a second credit ("Edited by", "Photos by").
_AUTHOR_SPLIT = re.compile(
    r"\s*(?:[,;|/&+·•]|\s(?:and|und|et|y|e|en|og|och|with|avec|mit|con|com)\s"
    r"|\s(?:edited|photos?|photographs|illustrations?|video|graphics|(?:additional\s+)?reporting)\s+by\s)\s*",
    re.IGNORECASE,
)
#: "(with Jane Doe)", "(avec …)": co-authors in parentheses, read as a list.
_WITH = re.compile(r"\(\s*(?:with|avec|mit|con|com)\s+([^()]*)\)", re.IGNORECASE)
#: "By", "Written by", "Par", "Von", "Author:" … before a name; and "Tech Industry by Jane Doe" (a label, "by").
_AUTHOR_PREFIX = re.compile(
    r"^(?:(?:[^,;|&]{0,40}?\s)?(?:(?:written|posted|reported|words|text|story|published|compiled)\s+)?by\b"
    r"|(?:von|par|por|di|door|av)\s|(?:autor(?:in)?|author|auteur|text|texto)\s*:)\s*[:\-–—]?\s*",
    re.IGNORECASE,
)
#: A byline piece naming a role or nobody ("Staff", "Senior Writer", "Admin", "Sign in"), not a person.
_QUALIFIER = (r"(?:(?:the\s+)?(?:senior|chief|contributing|managing|staff|special|guest|associate|deputy|"
              r"executive|political|science|sports?|games?|tech(?:nology)?|business|foreign|national|local|news|"
              r"web|digital|features?|health|editorial|online|freelance)\s+)")
_ROLE_WORDS = (r"(?:staff|writers?|editors?|reporters?|correspondents?|columnists?|contributors?|journalists?|"
               r"producers?|authors?|analysts?|interns?|photographers?|desk|team|admin(?:istrator)?|anonymous|"
               r"unknown|guest|redaktion|rédaction|redacción|redazione|follow(?:\s+author)?|more|profile|"
               r"sign\s+(?:in|up|out)|log\s*(?:in|out)|subscribe|menu|share|last\s+updated|updated)")
_ROLE = re.compile(rf"^{_QUALIFIER}*{_ROLE_WORDS}$", re.IGNORECASE)
#: A role after a name needs its qualifier ("Games Editor"): "Ann Author" and "Jim Writer" are names.
_ROLE_TAIL = re.compile(rf"\s+{_QUALIFIER}+{_ROLE_WORDS}$", re.IGNORECASE)
#: Degrees and suffixes written after a name ("Jane Doe, MA"): not names of their own.
_DEGREE = re.compile(r"(?:MA|MS|MSc|BA|BSc|PhD|Ph\.D|MD|M\.D|MPH|RN|DO|DDS|MBA|JD|Jr|Sr|II|III|IV|Esq)\.?",
                     re.IGNORECASE)
_INVERTED_NAME = re.compile(r"([^\s,;&]+),\s*([^\s,;&]+(?:\s[^\s,;&]+){0,2})")
#: An e-mail address: started only where a run without ``@`` starts, its domain read label by label, so that a text
#: of many ``@`` is read once (``\S+@\S+\.\w+`` took 13 s for an author meta of 4,096 characters of ``a@``).
_EMAIL = re.compile(r"(?<![^\s@])[^\s@]++@(?:[^\s@.]++\.)+\w+")
_URLISH = re.compile(r"(?:https?:|www\.)\S*", re.IGNORECASE)
_HANDLE = re.compile(r"(?<!\w)@\w+")
#: A date after a name in a byline: cut from a month name followed by a number, or from a digit.
_DATE_TAIL = re.compile(r"\s*(?:\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec|january|february|march|"
                        r"april|june|july|august|september|october|november|december)\b\.?\s*\d|\d).*$",
                        re.IGNORECASE | re.DOTALL)

# --- titles ------------------------------------------------------------------------------------------------------
#: Separators between a headline and a site name in <title>: "Headline - Site", "Site | Headline", "A » B".
#: (Read in a title whose white space is single spaces: ``\s+[|\-–—·•»~/]\s+|\s+::\s+|\s*\|\s*`` there. Each
#: alternative starts with a space or a "|", which the engine scans for: three times as fast as trying every place.)
_TITLE_SEPARATOR = re.compile(r" (?:[|\-–—·•»~/] |:: |\| ?)|\| ?")
#: Readability.js (_getArticleTitle): a title cut to fewer words than this lost its headline, not its site name;
#: one cut to at most SHORT_TITLE_WORDS words is not trusted when no part named the site.
MIN_TITLE_WORDS = 3
SHORT_TITLE_WORDS = 4

# --- dates -------------------------------------------------------------------------------------------------------
#: ISO 8601 as most pages write it, read without building a datetime: date, time, fraction, offset.
_ISO_FAST = re.compile(r"(\d{4})-(\d\d)-(\d\d)(?:[T ](\d\d):(\d\d)(?::(\d\d))?(?:[.,]\d+)?\s*(Z|[+-]\d\d:?\d\d)?)?")
_ISO_DATE = re.compile(r"(\d{4})-?(\d{1,2})-?(\d{1,2})(?![\d])")
_SLASH_YMD = re.compile(r"(\d{4})[/.](\d{1,2})[/.](\d{1,2})")
_NUMERIC_DMY = re.compile(r"(\d{1,2})([./-])(\d{1,2})\2(\d{4})")
_TEXT_DATE = re.compile(
    r"(?:(?P<m1>[^\W\d_]{3,10})\.?\s+(?P<d1>\d{1,2})(?:st|nd|rd|th)?,?\s+(?P<y1>\d{4})"
    r"|(?P<d2>\d{1,2})(?:st|nd|rd|th|\.)?\s+(?:de\s+)?(?P<m2>[^\W\d_]{3,10})\.?,?\s+(?:de\s+)?(?P<y2>\d{4}))",
)
_CLOCK = re.compile(r"[T\s,at]*(\d{1,2}):(\d{2})(?::(\d{2}))?(?:[.,]\d+)?\s*([ap]\.?m\.?)?\s*"
                    r"(Z\b|[+-]\d{2}:?\d{2}|[A-Z]{2,5}\b)?", re.IGNORECASE)
_EPOCH = re.compile(r"\d{10}(?:\d{3})?")
_URL_DATE = re.compile(r"/((?:19|20)\d{2})[/_-]?(0[1-9]|1[0-2])[/_-]?(0[1-9]|[12]\d|3[01])(?:/|[_-]|$)")
_DAYS_IN_MONTH = (0, 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)
#: Month names in the languages of the evaluation data, with the abbreviations htmldate reads.
_MONTHS = {name: number for number, names in enumerate((
    "jan january januar janvier enero janeiro gennaio januari ledna",
    "feb february februar février fevrier febrero fevereiro febbraio februari února",
    "mar march märz maerz mars marzo março mart maart března",
    "apr april avril abril aprile dubna",
    "may mai mayo maio maggio mei května",
    "jun june juni juin junio junho giugno června",
    "jul july juli juillet julio julho luglio července",
    "aug august août aout agosto augustus srpna",
    "sep sept september septembre septiembre setembro settembre září",
    "oct october oktober octobre octubre outubro ottobre října",
    "nov november novembre noviembre novembro listopadu",
    "dec december dezember décembre decembre diciembre dezembro dicembre prosince",
), start=1) for name in names.split()}
#: UTC offsets (minutes) of the zone names pages write after a time; ambiguous ones (IST) are left out.
_ZONES = {"Z": 0, "UTC": 0, "GMT": 0, "UT": 0, "WET": 0, "BST": 60, "CET": 60, "MEZ": 60, "CEST": 120,
          "MESZ": 120, "EET": 120, "EEST": 180, "MSK": 180, "EST": -300, "EDT": -240, "CST": -360, "CDT": -300,
          "MST": -420, "MDT": -360, "PST": -480, "PDT": -420, "JST": 540, "KST": 540, "AEST": 600, "AEDT": 660}


@dataclass(frozen=True, slots=True)
class Metadata:
    """What a page says about itself; absent values are None or an empty tuple.

    ``published``/``modified`` are ISO 8601: ``YYYY-MM-DD``, or ``YYYY-MM-DDTHH:MM:SS`` followed by the UTC offset
    when the page gave one (``+02:00``) — kept as the page wrote it, not converted to UTC, so the calendar day is
    the page's. ``language`` is a BCP 47 tag (``en``, ``pt-BR``); ``page_type`` the schema.org ``@type`` of the
    page's main entity (``NewsArticle``, ``Product``, ``QAPage``), else its ``og:type`` (``article``).
    """

    title: str | None = None
    authors: tuple[str, ...] = ()
    published: str | None = None
    modified: str | None = None
    language: str | None = None
    site_name: str | None = None
    description: str | None = None
    canonical_url: str | None = None
    categories: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    image: str | None = None
    page_type: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """The fields that have a value, JSON-ready (tuples as lists). Absent fields are left out rather than
        written as null: ingestion records stay small, and for metadata "absent" and "unknown" are the same."""
        out: dict[str, Any] = {}
        for name in self.__slots__:
            value = getattr(self, name)
            if value:
                out[name] = list(value) if isinstance(value, tuple) else value
        return out


def extract_metadata(html: str | bytes, *, url: str | None = None, read_body: bool = True,
                     linked_data: Sequence[str] | None = None, text: str | None = None,
                     headline: str | None = None) -> Metadata:
    """The metadata of a page from its HTML, as text or as UTF-8 bytes. Never raises.

    ``url`` (where the page was fetched) makes relative URLs absolute, names the site whose name is cut from
    ``<title>`` and is the date of last resort. ``read_body=False`` reads the head and the JSON-LD only — no
    byline, ``<time>`` or first-paragraph description from the body window — which roughly halves the cost on
    pages without structured metadata. ``linked_data``: the text of the page's JSON-LD scripts, where the parse
    already found them (:attr:`fce.blocks.BlockTree.linked_data`); else they are searched for in ``html``, which
    costs about a fifth of the metadata's time (``bench/output_bench.py``). ``html`` may be the page's UTF-8
    bytes (:attr:`fce.parse.Page.markup`): the head and the body window are then read in the bytes (positions
    and sizes counted in bytes) and only the values taken from them are decoded (decoding the whole page was a
    sixth of the metadata's time, decoding its head a twentieth); a page without ``</head>`` or ``<body`` is
    decoded.

    ``text``, the page's extracted main text, names the language where the markup declares none
    (:func:`fce.language.identify_language`); ``headline``, the title where the markup gives none (a site
    template's learned headline block)."""
    head_end = 0
    if not isinstance(html, str):
        html = bytes(html) if isinstance(html, bytes | bytearray) else b""
        head_end = _head_end(html)
        if head_end < 0:
            html = html.decode("utf-8", "replace")
        else:  # the head is read in the bytes too, and only the values taken from it are decoded
            if linked_data is None:  # (bytes are read as bytes however the page was parsed: the same windows)
                linked_data = list(_json_ld_sources(html))
    if isinstance(html, str):
        head_end = _head_end(html)
        if head_end < 0:
            head_end = min(len(html), HEAD_FALLBACK_CHARS)
    url = url if isinstance(url, str) else None
    fields, raw_title, lang = _scan_head(html, head_end)
    entity = _linked_data(html, linked_data)
    base = _Base(html, head_end, url)
    canonical = base.absolute(_head_tag(html, head_end, "canonical", "link", "href", "canonical")
                              or _first(fields.get("url")))
    site_name = entity.get("site_name") or _text(_first(fields.get("site_name")))
    if site_name and site_name[0] == "@":  # twitter:site is a handle
        site_name = site_name[1:] or None
    title = _title(entity, fields, raw_title, site_name, url or canonical)
    body = _Body(html, head_end, title, read_body)

    authors = entity.get("authors") or ()
    if not authors:
        for key, values in fields.get("authors", ()):
            if key in INVERTED_NAME_KEYS:
                values = [_INVERTED_NAME.sub(r"\2 \1", v.strip()) if _INVERTED_NAME.fullmatch(v.strip()) else v
                          for v in values]
            authors = split_authors(values)
            if authors:
                break
        else:
            authors = split_authors(body.byline())
    published = _pick_date(entity.get("published"), fields.get("published"))
    if published is None:  # the URL's day before the body's <time>, which costs a scan
        published = _url_date(url) or _url_date(canonical) or _first_date(body.dates())
    language = normalize_language(lang) or normalize_language(entity.get("language"))
    if language is None:
        language = next(filter(None, map(normalize_language, _all(fields.get("language")))), None)
    if language is None and text:
        language = identify_language(text)
    image = base.absolute(_first(fields.get("image")) or entity.get("image"))
    return Metadata(
        title=title or headline,
        authors=authors,
        published=published,
        modified=_pick_date(entity.get("modified"), fields.get("modified")),
        language=language,
        site_name=site_name,
        description=_description(entity, fields.get("description") or []) or body.excerpt(),
        canonical_url=canonical or base.absolute(entity.get("url")),
        categories=entity.get("categories") or _split_list(_all(fields.get("categories"))),
        tags=_split_list(_all(fields.get("tags"))) or entity.get("tags") or (),
        image=image,
        page_type=entity.get("type") or _text(_first(fields.get("page_type"))),
    )


# --- the head ----------------------------------------------------------------------------------------------------


def _head_end(text: str | bytes) -> int:
    """Where the head ends: ``</head>`` or ``<body`` (_HEAD_END), the first in the first HEAD_MAX_CHARS characters
    (bytes); -1 where there is neither."""
    syntax = _SYNTAX[type(text)]
    stop = min(len(text), HEAD_MAX_CHARS)
    match = _tag_match(text, syntax["</head"], syntax["head_end"], 0, stop)
    end = match.start() if match else stop
    match = _tag_match(text, syntax["<body"], syntax["head_end"], 0, end)  # (a <body before </head>)
    return match.start() if match else end if end < stop else -1


def _tag_match(text: Any, needle: Any, pattern: re.Pattern[Any], start: int, stop: int) -> re.Match[Any] | None:
    """``pattern.search(text, start, stop)`` for a pattern that starts with ``needle`` (its letters in either case):
    the pattern is tried only where the needle is."""
    find = _SYNTAX[type(text)]["ifind"]
    pos = find(text, needle, start, stop)
    while pos >= 0:
        match = pattern.match(text, pos, stop)
        if match is not None:
            return match
        pos = find(text, needle, pos + 1, stop)
    return None


def _tag_matches(text: Any, needle: Any, pattern: re.Pattern[Any], start: int, stop: int) -> list[Any]:
    """``pattern.findall(text, start, stop)`` (a pattern of several groups, never empty) in the same way."""
    found = []
    match = _tag_match(text, needle, pattern, start, stop)
    while match is not None:
        found.append(match.groups())
        match = _tag_match(text, needle, pattern, match.end(), stop)
    return found


def _scan_head(text: str | bytes, end: int) -> tuple[dict[str, _Keyed], str | None, str | None]:
    """The head's ``<meta>`` values by the field they give (see _FIELD_OF; per field, best key first, each key's
    values in document order; entities are decoded by :func:`_text` and :func:`_absolute` in the values used),
    its ``<title>`` and ``<html lang>``; read in the page's text or its UTF-8 bytes (then the keys and the values
    are decoded as they are read)."""
    syntax = _SYNTAX[type(text)]
    raw = not isinstance(text, str)
    found: dict[str, dict[str, list[str]]] = {}
    for key, value in syntax["meta_pairs"](text, 0, end):
        if raw:
            key = key.decode("utf-8", "replace")
        where = _FIELD_OF.get(key)
        if where is None:
            key = key.lower()
            where = _FIELD_OF.get(key)
            if where is None and not (key[:2] == "dc" or " " in key or "&" in key):
                continue  # a key no field reads (viewport, fb:app_id, og:image:width …)
        if not value:
            continue
        if raw:
            value = value.decode("utf-8", "replace")
        if where is not None:  # the common case, spelled out: this loop runs for every <meta> of the head
            keys = found.get(where[0])
            if keys is None:
                found[where[0]] = {key: [value]}
            elif key in keys:
                keys[key].append(value)
            else:
                keys[key] = [value]
            continue
        for name in _meta_keys(key):
            field = _FIELD_OF.get(name)
            if field is not None:
                found.setdefault(field[0], {}).setdefault(name, []).append(value)
    fields = {field: list(keys.items()) if len(keys) == 1 else sorted(keys.items(), key=_key_rank)
              for field, keys in found.items()}
    match = _tag_match(text, syntax["<title"], syntax["title"], 0, end)
    title = _decoded(match.group(1)) if match else None
    match = _tag_match(text, syntax["<html"], syntax["html_tag"], 0, min(end, HTML_TAG_SEARCH_CHARS))
    match = syntax["lang"].search(match.group(0)) if match else None
    return fields, title, _decoded(match.group(1)).strip("\"'") if match else None


def raw_title(html: str, stop: int) -> str | None:
    """The text of the first ``<title>`` in ``html[:stop]`` as the page wrote it, site name and all (entities
    decoded, whitespace collapsed); None where there is none. (Linear: see _TITLE.)"""
    match = _tag_match(html, "<title", _TITLE, 0, stop)
    title = " ".join(html_lib.unescape(match.group(1)).split()) if match else ""
    return title or None


def _meta_keys(key: str) -> list[str]:
    """The keys an attribute value names: each of a space-separated list, with ``dc:``, ``DC.``, ``dcterm:`` and
    ``dcterms:`` written ``dc.`` / ``dcterms.``."""
    names = []
    for name in html_lib.unescape(key).split():
        if name[:2] == "dc" and name[2:3] in (":", ".", "t"):
            prefix, _, rest = name.replace(":", ".", 1).partition(".")
            name = ("dcterms." if prefix.startswith("dcterm") else "dc.") + rest
        names.append(name)
    return names


def _key_rank(item: tuple[str, list[str]]) -> int:
    return _FIELD_OF[item[0]][1]


def _head_tag(text: str | bytes, end: int, needle: str, tag: str, attribute: str, rel: str | None) -> str | None:
    """The ``attribute`` of the first ``<tag>`` of the head that contains ``needle`` (and whose ``rel`` holds
    ``rel``, when given): ``<link rel=canonical href>``, ``<base href>``."""
    syntax = _SYNTAX[type(text)]
    needle = syntax[needle]
    for hit in _find_all(text, needle, 0, end):
        tag_start = text.rfind(syntax["<"], max(0, hit - MAX_TAG_CHARS), hit + 1)
        name, attrs, _ = _tag_at(text, tag_start) if tag_start >= 0 else ("", {}, 0)
        if name == tag and attrs.get(attribute) and (rel is None or rel in attrs.get("rel", "").lower().split()):
            return attrs[attribute]
    return None


_Keyed = list[tuple[str, list[str]]]  # (meta key, its values in document order), best key first


def _first(keyed: _Keyed | None) -> str | None:
    """The first non-blank value of the best key that has one."""
    for _, values in keyed or ():
        for value in values:
            if not value.isspace():
                return value
    return None


def _all(keyed: _Keyed | None) -> list[str]:
    return [value for _, values in keyed or () for value in values]


def _text(value: Any, limit: int = MAX_VALUE_CHARS) -> str | None:
    """A display string: tags dropped, entities decoded, whitespace collapsed; None when empty or not a string."""
    if not isinstance(value, str):
        return None
    value = value[:limit]
    if "<" in value:
        value = _ANY_TAG.sub(" ", value)
    if "&" in value:
        value = html_lib.unescape(value)
        if "&" in value and _ENTITY.search(value):  # encoded twice (a CMS's escaping of its own escapes)
            value = html_lib.unescape(value)
    return " ".join(value.split()) or None


def _description(entity: dict[str, Any], keyed: _Keyed) -> str | None:
    """The first description in order of precedence — or a later one that is the same text uncut, since pages cut
    a description ("…", a stray quote that ends the attribute) in one place and not in another."""
    split = DESCRIPTION_KEYS_BEFORE_JSON_LD
    raw: list[Any] = [values[0] for key, values in keyed if _FIELD_OF[key][1] < split]
    raw.append(entity.get("description"))
    raw += [values[0] for key, values in keyed if _FIELD_OF[key][1] >= split]
    best = stem = None
    for value in raw:
        if best is not None and stem is not None:
            if isinstance(value, str) and len(value) > len(best) and value[:len(stem) // 2] == stem[:len(stem) // 2]:
                text = _text(value)  # cleaned only when it may be the same text, uncut
                if text and len(text) > len(best) and text.startswith(stem):
                    best = text
        else:
            best = _text(value)
            stem = best.rstrip(".… ") if best else None
    return best


# --- titles ------------------------------------------------------------------------------------------------------


def _title(entity: dict[str, Any], fields: dict[str, _Keyed], raw_title: str | None, site_name: str | None,
           page_url: str | None) -> str | None:
    """The JSON-LD headline and the PRIMARY_TITLE_KEYS titles: the one ``<title>`` says without the site name,
    else the first; then the other meta titles; then ``<title>`` without the site name (the site named by
    ``site_name`` or by the host of ``page_url``)."""
    page_title = _text(raw_title, MAX_TITLE_CHARS)
    headline, name = entity.get("headline"), entity.get("name")
    if headline and name and headline != name:  # Readability.js: the one closer to <title> (og:title without one)
        reference = page_title or _text(_first(fields.get("primary_title")), MAX_TITLE_CHARS) or ""
        headline = headline if _similarity(headline, reference) >= _similarity(name, reference) else name
    primary: list[str] = [headline or name or ""] if headline or name else []
    for key, values in fields.get("primary_title", ()):
        candidate = _text(_first([(key, values)]), MAX_TITLE_CHARS)
        if candidate and candidate not in primary:
            primary.append(candidate)
    if len(primary) > 1 and page_title:
        cleaned = _fold(clean_title(page_title, site_name, _host(page_url)))
        for candidate in primary:
            if _fold(candidate) == cleaned:
                return candidate
    if primary:
        return primary[0]
    title = _text(_first(fields.get("title")), MAX_TITLE_CHARS)
    return title or (clean_title(page_title, site_name, _host(page_url)) if page_title else None)


def _similarity(text: str, reference: str) -> float:
    """The share of ``reference``'s words that ``text`` has (Readability.js's ``_textSimilarity``, by words)."""
    words = _WORD.findall(reference.casefold())
    if not words:
        return 0.0
    have = set(_WORD.findall(text.casefold()))
    return sum(word in have for word in words) / len(words)


def clean_title(title: str, site_name: str | None = None, host: str | None = None) -> str:
    """``title`` without the site's name: ``Headline - Site`` and ``Site | Headline`` give ``Headline``.

    The end parts that name the site (``site_name``, or the host's name: ``bbc`` for ``www.bbc.co.uk``) or that
    are a date (``Headline - 07.12.2017 - Site``) are cut. When no part names the site, Readability.js's rule
    applies: the last part is cut, or the first when fewer than MIN_TITLE_WORDS words would remain, and the title
    is kept whole when what remains has at most SHORT_TITLE_WORDS words (too short to be sure a headline and not
    a name was cut).
    """
    title = " ".join(title.split())
    parts = _TITLE_SEPARATOR.split(title)
    if len(parts) < 2:
        return title
    names = {_fold(name) for name in (site_name, _host_name(host)) if name} - {""}
    site = [_names_site(part, names) for part in parts] if names else [False] * len(parts)
    start, stop, named = 0, len(parts), False
    while stop - start > 1 and (site[stop - 1] or _is_date(parts[stop - 1])):
        named = named or site[stop - 1]
        stop -= 1
    while stop - start > 1 and (site[start] or _is_date(parts[start])):
        named = named or site[start]
        start += 1
    if named or stop - start == 1:
        return _join_parts(title, parts, start, stop)
    kept = _join_parts(title, parts, start, stop - 1)
    if len(kept.split()) < MIN_TITLE_WORDS:
        kept = _join_parts(title, parts, start + 1, stop)
    return kept if len(kept.split()) > SHORT_TITLE_WORDS else _join_parts(title, parts, start, stop)


def _join_parts(title: str, parts: list[str], start: int, stop: int) -> str:
    """``title`` from part ``start`` to part ``stop - 1``, with its own separators between them."""
    begin = title.find(parts[start])
    end = title.rfind(parts[stop - 1]) + len(parts[stop - 1])
    return title[begin:end].strip() if 0 <= begin < end else " ".join(parts[start:stop])


def _names_site(part: str, names: set[str]) -> bool:
    folded = _fold(part)
    return len(folded) >= 2 and any(folded == name or (len(folded) >= 3 and (folded in name or name in folded))
                                    for name in names)


def _is_date(part: str) -> bool:
    return len(part) <= 30 and _DIGIT.search(part) is not None and normalize_date(part) is not None


def _fold(text: str) -> str:
    return _NOT_ALNUM.sub("", text.casefold())


def _host(url: str | None) -> str | None:
    match = _URL_HOST.match(url) if url else None
    return match.group(1).lower() if match else None


def _host_name(host: str | None) -> str | None:
    """The name a host goes by: ``bbc`` for ``www.bbc.co.uk``, ``nytimes`` for ``nytimes.com``."""
    labels = [label for label in (host or "").split(".") if label not in ("www", "m", "amp", "mobile")]
    while len(labels) > 1 and len(labels[-1]) <= 3:
        labels.pop()  # the public suffix (com, co.uk, com.ar …): short labels, no list needed to compare a name
    return labels[-1] if labels else None


# --- JSON-LD -----------------------------------------------------------------------------------------------------


def _linked_data(text: str | bytes, scripts: Sequence[str] | None = None) -> dict[str, Any]:
    """What JSON-LD says, cleaned: the fields of the page's main entity (the best-ranked node, the first of
    equals: see _rank) and the site name (its publisher's name, else the ``WebSite`` node's). ``scripts``: the
    JSON-LD scripts' text, where known (else they are searched for in ``text``)."""
    if scripts is None:
        scripts = list(_json_ld_sources(text))
    nodes = _json_nodes(_json_ld_scripts(scripts)) if scripts else None
    if not nodes:
        return {}
    best = min((*_rank(node), index) for index, node in enumerate(nodes))
    by_id = {node["@id"]: node for node in nodes if isinstance(node.get("@id"), str)}
    fields: dict[str, Any] = {}
    if best[0] < 3:
        node = nodes[best[2]]
        fields = _entity_fields(node, by_id)
        fields["type"] = best[1]
        publisher = _resolve(node.get("publisher"), by_id)
        publisher = publisher[0] if isinstance(publisher, list) and publisher else publisher
        if isinstance(publisher, dict):
            fields["site_name"] = _text(publisher.get("name"))
    if not fields.get("site_name"):
        fields["site_name"] = next((_text(node.get("name")) for node in nodes if "WebSite" in _types(node)), None)
    return fields


#: UTF-8 writes a character in at most this many bytes: a script's end is searched for this much further in bytes.
UTF8_MAX_BYTES = 4


def _json_ld_sources(text: str | bytes) -> Iterator[str]:
    """The text of the page's first ``application/ld+json`` scripts (bounded), in its text or its UTF-8 bytes; a
    script not ended within JSON_LD_MAX_CHARS characters is skipped (by :func:`_json_ld_scripts`, where it is read
    in bytes)."""
    syntax = _SYNTAX[type(text)]
    find, ld, lt, gt, script = syntax["find"], syntax["application/ld+json"], syntax["<"], syntax[">"], syntax["script"]
    span = JSON_LD_MAX_CHARS if isinstance(text, str) else UTF8_MAX_BYTES * JSON_LD_MAX_CHARS
    size = len(text)
    pos = 0
    for _ in range(JSON_LD_MAX_SCRIPTS):
        hit = find(text, ld, pos, size)
        if hit < 0:
            return
        pos = hit + len(ld)
        tag_start = text.rfind(lt, max(0, hit - MAX_TAG_CHARS), hit)  # type: ignore[arg-type]
        open_end = find(text, gt, hit, hit + MAX_TAG_CHARS)
        if open_end < 0 or tag_start < 0 or text[tag_start + 1:tag_start + 7].lower() != script:
            continue
        comment = text.rfind(syntax["<!--"], 0, tag_start)  # type: ignore[arg-type]
        if comment >= 0 and find(text, syntax["-->"], comment + 4, tag_start) < 0:
            continue  # a script commented out: no browser runs it, and the parse never sees it
        close = find(text, syntax["</script"], open_end, open_end + span)
        if close < 0:
            match = syntax["script_end"].search(text, open_end, open_end + span)
            if match is None:
                if open_end + span >= size:
                    return  # no script after this one can end either
                continue
            close = match.start()
        pos = close
        yield _decoded(text[open_end + 1:close])


def _json_ld_scripts(scripts: Sequence[str]) -> Iterator[Any]:
    """The parsed JSON of the scripts' text (:func:`_json_ld_sources`, or found by the parse)."""
    for source in scripts[:JSON_LD_MAX_SCRIPTS]:
        document = _load_json(source) if len(source) <= JSON_LD_MAX_CHARS else None
        if document is not None:
            yield document


def _load_json(source: str) -> Any:
    for attempt in range(3):
        try:
            return json.loads(source, strict=False)
        except (ValueError, RecursionError):
            if attempt == 0:  # wrapped in an HTML comment or a CDATA section
                source = _JSON_WRAPPER.sub("", source)
            elif attempt == 1:  # trailing commas, the commonest hand-written JSON error
                source = _TRAILING_COMMA.sub(r"\1", source)
    return None


def _json_nodes(documents: Iterable[Any]) -> list[dict[str, Any]]:
    """The typed objects of the documents: top-level objects and arrays, ``@graph`` members and the
    ``mainEntity`` of a page (at most JSON_LD_MAX_NODES)."""
    nodes: list[dict[str, Any]] = []
    stack: list[Any] = list(documents)[::-1]
    while stack and len(nodes) < JSON_LD_MAX_NODES:
        item = stack.pop()
        if isinstance(item, list):
            stack.extend(item[JSON_LD_MAX_NODES - 1::-1] if len(item) > JSON_LD_MAX_NODES else item[::-1])
        elif isinstance(item, dict):
            if "@type" in item:
                nodes.append(item)
            for key in ("@graph", "mainEntity"):
                child = item.get(key)
                if isinstance(child, list | dict):
                    stack.append(child)
    return nodes


def _types(node: dict[str, Any]) -> list[str]:
    kinds = node.get("@type")
    return [kind.rsplit("/", 1)[-1].rsplit(":", 1)[-1] for kind in (kinds if isinstance(kinds, list) else [kinds])
            if isinstance(kind, str)]


def _rank(node: dict[str, Any]) -> tuple[int, str]:
    """How well a node stands for the page — 0 an article, 1 other content, 2 a page, 3 not at all — and the type
    that says so."""
    best = (3, "")
    for kind in _types(node):
        if kind not in _SUPPORT_TYPES:
            best = min(best, (0 if _ARTICLE_TYPE.search(kind) else 2 if kind in _PAGE_TYPES else 1, kind))
    return best


def _resolve(value: Any, by_id: dict[str, dict[str, Any]]) -> Any:
    """A ``{"@id": …}`` reference replaced by the node it names, when the page has it."""
    if isinstance(value, list):
        return [_resolve(item, by_id) for item in value[:MAX_AUTHORS]]
    if isinstance(value, dict) and len(value) <= 2 and isinstance(value.get("@id"), str):
        return by_id.get(value["@id"], value)
    return value


def _entity_fields(node: dict[str, Any], by_id: dict[str, dict[str, Any]]) -> dict[str, Any]:
    language = node.get("inLanguage")
    if isinstance(language, dict):
        language = language.get("alternateName") or language.get("name")
    return {
        "headline": _text(node.get("headline"), MAX_TITLE_CHARS),
        "name": _text(node.get("name"), MAX_TITLE_CHARS),
        "authors": _json_authors(_resolve(node.get("author") or node.get("creator"), by_id)),
        "published": node.get("datePublished") or node.get("dateCreated") or node.get("uploadDate"),
        "modified": node.get("dateModified"),
        "description": node.get("description"),
        "language": language,
        "image": _json_url(node.get("image") or node.get("thumbnailUrl")),
        "url": node.get("url") if isinstance(node.get("url"), str) else None,
        "categories": _split_list(_strings(node.get("articleSection"))),
        "tags": _split_list(_strings(node.get("keywords"))),
    }


def _json_authors(value: Any) -> tuple[str, ...]:
    names: list[str] = []
    for item in value if isinstance(value, list) else [value]:
        if isinstance(item, dict):
            name = item.get("name")
            if isinstance(name, list):
                name = ", ".join(part for part in name if isinstance(part, str))
            elif not isinstance(name, str):
                name = " ".join(part for part in (item.get("givenName"), item.get("familyName"))
                                if isinstance(part, str))
            item = name
        if isinstance(item, str):
            names.append(item)
    return split_authors(names)


def _json_url(value: Any) -> str | None:
    """The URL of a JSON-LD image: a string, an ``ImageObject``, or the first of an array of either."""
    for _ in range(4):
        if isinstance(value, list):
            value = value[0] if value else None
        elif isinstance(value, dict):
            value = value.get("url") or value.get("contentUrl") or value.get("@id")
        else:
            break
    return value if isinstance(value, str) else None


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    return [item for item in value[:MAX_ITEMS] if isinstance(item, str)] if isinstance(value, list) else []


def _split_list(values: Iterable[str]) -> tuple[str, ...]:
    """Comma-separated lists as items, cleaned, de-duplicated ignoring case, at most MAX_ITEMS."""
    items: dict[str, str] = {}
    for value in values:
        if "<" in value or "&" in value:
            value = _text(value) or ""
        for item in value[:MAX_VALUE_CHARS].split(","):
            item = item.strip()
            if "  " in item or "\n" in item or "\t" in item:
                item = " ".join(item.split())
            if item and len(items) < MAX_ITEMS:
                items.setdefault(item.casefold(), item)
    return tuple(items.values())


# --- the body ----------------------------------------------------------------------------------------------------


class _Body:
    """The window of the body around the article's headline, read only for what the head left empty: the byline,
    the date candidates, the first paragraph.

    The window starts a little before the headline's first words in the body (the page's title, found by a
    literal search: cheaper and surer than an ``<h1>``, in which sites put their logo) or at the head's end, and
    is at most BODY_SCAN_CHARS and a BODY_SHARE-th of the page long, so that reading it costs a fixed share of
    what parsing the page does."""

    __slots__ = ("_text", "_head_end", "_title", "_window", "_syntax")

    def __init__(self, text: str | bytes, head_end: int, title: str | None, read: bool = True) -> None:
        self._text: Any = text  # the page's text, or its UTF-8 bytes: then every position and size is in bytes
        self._head_end = head_end
        self._title = title
        self._window: tuple[int, int] | None = None if read else (0, 0)  # an empty window: nothing is read
        self._syntax = _SYNTAX[type(text)]

    def window(self) -> tuple[int, int]:
        if self._window is None:
            text, start = self._text, self._head_end
            size = min(BODY_SCAN_CHARS, max(MIN_BODY_SCAN_CHARS, len(text) // BODY_SHARE))
            anchor = self._anchor(start, start + min(ANCHOR_SEARCH_CHARS, len(text) // 2))
            if anchor >= 0:
                start = max(start, anchor - min(BEFORE_ANCHOR_CHARS, size // 4))
            self._window = (start, min(len(text), start + size))
        return self._window

    def _anchor(self, start: int, stop: int) -> int:
        """Where the headline is: of the first MAX_ANCHOR_HITS places the title's words are found, the first in a
        heading (an ``<h1>`` or ``<h2>`` tag just before it), else the first; without the title, the first
        ``<h1``; -1 when neither is found."""
        text, syntax = self._text, self._syntax
        needle = _ANCHOR.search(self._title) if self._title else None
        first = -1
        if needle:
            words = needle.group(0).rstrip()
            for hit in _find_all(text, words if isinstance(text, str) else words.encode(), start, stop,
                                 MAX_ANCHOR_HITS):
                first = hit if first < 0 else first
                before = text[max(start, hit - HEADING_CONTEXT_CHARS):hit]
                if (syntax["<h1"] in before or syntax["<h2"] in before or syntax["<H1"] in before
                        or syntax["<H2"] in before):
                    return hit
            if first >= 0:
                return first
        return syntax["find"](text, syntax["<h1"], start, stop)  # type: ignore[no-any-return]

    def dates(self) -> list[str]:
        """Candidate publication dates, best first: ``itemprop="datePublished"`` (then the ``<time>`` elements are
        not looked for), a ``<time>`` marked as the publication date (``pubdate``, an attribute naming it), the
        other ``<time>`` elements in order."""
        start, stop = self.window()
        text, syntax = self._text, self._syntax
        marked: list[str] = []
        for pos in _find_all(text, syntax["datePublished"], start, stop):
            tag_start = text.rfind(syntax["<"], max(start, pos - MAX_TAG_CHARS), pos)
            name, attrs, end = _tag_at(text, tag_start) if tag_start >= 0 else ("", {}, 0)
            if attrs.get("itemprop") == "datePublished":
                marked.append(attrs.get("content") or attrs.get("datetime") or _element_text(text, name, end) or "")
        if marked:
            return marked
        plain: list[str] = []
        for pos in _find_all(text, syntax["<time"], start, stop):
            name, attrs, end = _tag_at(text, pos)
            if name == "time":
                hints = " ".join((attrs.get("itemprop", ""), attrs.get("class", ""), *attrs)).lower()
                if "modif" not in hints and "updat" not in hints:
                    value = attrs.get("datetime") or _element_text(text, name, end) or ""
                    (marked if "pub" in hints or "created" in hints else plain).append(value)
        return marked + plain

    def byline(self) -> list[str]:
        """The byline element's text: an ``itemprop=author`` element (its ``itemprop=name`` part when it has one),
        else ``rel=author``, else a class or id matching Readability.js's byline pattern; the first of each kind
        whose text is a plausible byline (1–99 characters, a name in it)."""
        start, stop = self.window()
        text, syntax = self._text, self._syntax
        lt, gt, eq, attributes = syntax["<"], syntax[">"], syntax["="], syntax["attributes"]
        found: dict[int, str] = {}  # rank → text
        seen: set[int] = set()
        # "uthor" finds author and Author, "yline" byline and Byline: two searches rather than four, the second
        # only when the first found no byline
        for needle in (syntax["uthor"], syntax["yline"]):
            for hit in _find_all(text, needle, start, stop):
                tag_start = text.rfind(lt, max(start, hit - MAX_TAG_CHARS), hit)
                if tag_start < 0 or tag_start in seen or text.find(gt, tag_start, hit) >= 0:
                    continue  # not inside a tag, or a tag already read
                equals = text.rfind(eq, tag_start, hit)
                if equals < 0 or not text[max(tag_start, equals - 10):equals].rstrip().lower().endswith(attributes):
                    continue  # in another attribute's value (an href="/author/…"): the tag need not be read
                seen.add(tag_start)
                name, attrs, end = _tag_at(text, tag_start)
                if name in _NOT_BYLINE_TAGS:
                    continue
                rank = 0 if "author" in attrs.get("itemprop", "") else 1 if "author" in attrs.get("rel", "") else 2
                if rank in found or (rank == 2 and not _BYLINE_HINT.search(f"{attrs.get('class', '')} "
                                                                            f"{attrs.get('id', '')}")):
                    continue
                if name == "meta":
                    value: str | None = attrs.get("content")
                elif rank == 0:
                    value = self._item_name(end) or _element_text(text, name, end)
                else:
                    value = _element_text(text, name, end)
                if value and len(value) < MAX_BYLINE_CHARS and split_authors(value):
                    found[rank] = value
                    if rank == 0:
                        break
            if found:
                return [found[min(found)]]
        return []

    def _item_name(self, start: int) -> str | None:
        """The text of the ``itemprop="name"`` element inside the element whose content starts at ``start``."""
        text, syntax = self._text, self._syntax
        at = syntax["find"](text, syntax['itemprop="name"'], start, start + MAX_ELEMENT_CHARS)
        tag_start = text.rfind(syntax["<"], start, at) if at >= 0 else -1
        if tag_start < 0:
            return None
        name, attrs, end = _tag_at(text, tag_start)
        return attrs.get("content") or _element_text(text, name, end)

    def excerpt(self) -> str | None:
        """The first paragraph of at least MIN_EXCERPT_CHARS characters among the first MAX_PARAGRAPHS of the
        window, read as a browser shows it (inline tags joined, ``<br>`` a space)."""
        start, stop = self.window()
        text, syntax = self._text, self._syntax
        paragraph_tag, end_tag, p_tag, find = syntax["paragraph"], syntax["</"], syntax["<p"], syntax["find"]
        for _ in range(MAX_PARAGRAPHS):
            match = _tag_match(text, p_tag, paragraph_tag, start, stop)
            if match is None:
                return None
            start = match.end()
            end = find(text, end_tag, start, start + MAX_ELEMENT_CHARS)  # a paragraph ends at its first end tag …
            following = find(text, p_tag, start, end) if end >= 0 else -1  # … or where the next one starts
            end = following if following >= 0 else end
            if end < 0:
                continue
            inner = _decoded(text[start:end])
            if "<" in inner:
                inner = _ANY_TAG.sub("", _BREAK.sub(" ", _COMMENT.sub("", inner)))
            paragraph = _text(inner)
            if paragraph and len(paragraph) >= MIN_EXCERPT_CHARS:
                return paragraph
        return None


def _decoded(text: str | bytes) -> str:
    """A piece of the page as text (the page's bytes are UTF-8)."""
    return text if isinstance(text, str) else text.decode("utf-8", "replace")


def _find_all(text: Any, needle: Any, start: int, stop: int, limit: int = MAX_HITS) -> Iterator[int]:
    """Where ``needle`` occurs in ``text[start:stop]`` (the first ``limit``)."""
    find = _SYNTAX[type(text)]["find"]
    pos = find(text, needle, start, stop)
    for _ in range(limit):
        if pos < 0:
            return
        yield pos
        pos = find(text, needle, pos + len(needle), stop)


def _tag_at(text: str | bytes, pos: int) -> tuple[str, dict[str, str], int]:
    """The tag starting at ``pos``: lowercased name, attributes (lowercased names, decoded values) and the
    position after its ``>``; ``("", {}, pos)`` when no whole tag starts there."""
    match = _SYNTAX[type(text)]["tag_at"].match(text, pos, min(len(text), pos + MAX_TAG_CHARS))
    if match is None:
        return "", {}, pos
    attrs: dict[str, str] = {}
    for name, double, single, bare in _ATTRIBUTE.findall(_decoded(match.group(2))):
        value = double or single or bare
        attrs.setdefault(name.lower(), html_lib.unescape(value) if "&" in value else value)
    return _decoded(match.group(1)).lower(), attrs, match.end()


def _element_text(text: str | bytes, name: str, start: int) -> str | None:
    """The text of the element ``name`` whose content starts at ``start``, to its end tag (nested elements of the
    same name counted) within MAX_ELEMENT_CHARS; comments dropped, tags read as spaces (between the parts of a
    byline: "By <a>Jane</a><span>May 2</span>")."""
    if not name.isalnum():
        return None
    inner = text[start:start + MAX_ELEMENT_CHARS]
    pattern = rf"<(/?){name}[\s/>]"  # (compiled once, by re)
    matches: Iterator[re.Match[Any]] = (re.finditer(pattern, inner, re.IGNORECASE) if isinstance(inner, str)
                                        else re.finditer(pattern.encode(), inner, re.IGNORECASE))
    depth = 1
    for match in matches:
        depth += -1 if match.group(1) else 1
        if depth == 0:
            piece = _decoded(inner[:match.start()])
            return _text(_COMMENT.sub("", piece) if "<!--" in piece else piece)
    return None


# --- authors -----------------------------------------------------------------------------------------------------


def split_authors(values: str | Iterable[str]) -> tuple[str, ...]:
    """Author names from bylines: ``"By Jane Doe and John Roe"`` → ``("Jane Doe", "John Roe")``.

    Each value is split on commas, semicolons, ``&``, ``|``, ``/``, "and" (in several languages), "(with …)" and a
    second credit ("Edited by"); a leading "By", "Written by", "Von", "Par" … is dropped with a short label before
    it ("Tech Industry by"), and so are e-mail addresses, URLs, ``@handles``, a date after the name, degrees
    ("MA", "PhD"), roles ("Staff", "Senior Editor", a trailing "Games Editor") and pieces too long to be a name.
    All-capital names are title-cased; duplicates (ignoring case) are kept once.
    """
    names: dict[str, str] = {}
    for value in (values,) if isinstance(values, str) else values:
        if not isinstance(value, str):
            continue
        if _PLAIN_NAME.fullmatch(value) and not _ROLE_TAIL.search(value):  # the common case: nothing to clean
            names.setdefault(value.casefold(), value)
            continue
        text = _text(value)
        if not text:
            continue
        if "@" in text or "/" in text or "www." in text:
            text = _EMAIL.sub(" ", _HANDLE.sub(" ", _URLISH.sub(" ", text)))
        if "(" in text:
            text = _WITH.sub(r", \1", text)
        for piece in _AUTHOR_SPLIT.split(_AUTHOR_PREFIX.sub("", text)):
            name = _clean_author(piece)
            if name and len(names) < MAX_AUTHORS:
                names.setdefault(name.casefold(), name)
    return tuple(names.values())


def _clean_author(piece: str) -> str | None:
    if len(piece) > 2 * MAX_AUTHOR_CHARS:
        return None  # a sentence, not a name (and not worth the regular expressions below)
    piece = _AUTHOR_PREFIX.sub("", piece.strip(" .:-–—\"'“”"))
    cut = _DATE_TAIL.sub("", piece)
    if cut != piece:
        if " " not in cut.strip():
            return None  # a user name with digits ("CC7567") or a date alone
        piece = cut
    piece = _ROLE_TAIL.sub("", piece).strip(" .,:-–—\"'“”")
    if piece.count("(") != piece.count(")"):
        piece = piece.strip("()[] ")
    if not piece or not any(ch.isalpha() for ch in piece) or _ROLE.match(piece) or _DEGREE.fullmatch(piece):
        return None
    if len(piece) > MAX_AUTHOR_CHARS or piece.count(" ") >= MAX_AUTHOR_WORDS:
        return None
    return piece.title() if piece.isupper() and len(piece) > 3 else piece


# --- dates -------------------------------------------------------------------------------------------------------


def _pick_date(structured: Any, keyed: _Keyed | None) -> str | None:
    """The JSON-LD date, else the first meta date; of the two, when they are the same instant, the one written in
    local time (a JSON-LD date in UTC, ``article:published_time`` with the page's offset)."""
    linked = normalize_date(structured) if isinstance(structured, str) else None
    if linked is not None and not linked.endswith("+00:00"):
        return linked
    meta = None
    for _, values in keyed or ():
        meta = _first_date(values)
        if meta:
            break
    if linked is None or meta is None:
        return linked or meta
    if meta != linked and len(meta) > 10 and not meta.endswith("+00:00") and len(linked) > 10:
        try:
            if datetime.fromisoformat(linked) == datetime.fromisoformat(meta):
                return meta
        except ValueError:
            pass
    return linked


def _first_date(*groups: Iterable[str]) -> str | None:
    """The first value of ``groups`` that :func:`normalize_date` reads."""
    for group in groups:
        for value in group:
            date = normalize_date(value)
            if date:
                return date
    return None


def _url_date(url: str | None) -> str | None:
    match = _URL_DATE.search(url) if url else None
    return _iso(int(match.group(1)), int(match.group(2)), int(match.group(3))) if match else None


def normalize_date(value: str) -> str | None:
    """A date as ISO 8601 — ``YYYY-MM-DD``, or ``YYYY-MM-DDTHH:MM:SS`` plus ``+HH:MM`` when the value has a time and
    names its offset or zone — or None when it is not a date of a plausible year (MIN_YEAR to MAX_YEAR).

    Reads ISO 8601 (extended and basic, with ``Z``, ``+0100`` or ``+01:00``), ``2024/05/02``, RFC 2822 (``Thu, 02
    May 2024 09:30:00 GMT``), month names in several languages (``May 2, 2024``, ``2 mai 2024``, ``2. Mai 2024``),
    numeric ``02.05.2024`` (day first) and ``05/02/2024`` (month first, as in the US, unless the first number
    cannot be a month), clock times with ``am``/``pm`` and common zone names, and Unix timestamps in seconds or
    milliseconds. The time is kept as written, not converted to UTC; fractions of a second are dropped.
    """
    if not isinstance(value, str):
        return None
    text = value.strip()[:200]
    match = _ISO_FAST.match(text)
    if match and match.end() == len(text):  # the common case, without datetime objects
        year, month, day = int(match.group(1)), int(match.group(2)), int(match.group(3))
        if not (MIN_YEAR <= year <= MAX_YEAR and 1 <= month <= 12 and 1 <= day <= _DAYS_IN_MONTH[month]) or (
                month == 2 and day == 29 and not (year % 4 == 0 and (year % 100 != 0 or year % 400 == 0))):
            return None
        if match.group(4) is None:
            return text[:10]
        hour, minute, second = int(match.group(4)), int(match.group(5)), int(match.group(6) or 0)
        if hour > 23 or minute > 59 or second > 59:
            return text[:10]
        zone = match.group(7)
        offset = "" if zone is None else "+00:00" if zone == "Z" else f"{zone[:3]}:{zone[-2:]}"
        return f"{text[:10]}T{hour:02d}:{minute:02d}:{second:02d}{offset}"
    if _EPOCH.fullmatch(text):
        moment = datetime.fromtimestamp(int(text[:10]), UTC)  # 10 digits: before 2286, no overflow
        return moment.isoformat() if MIN_YEAR <= moment.year <= MAX_YEAR else None
    year = month = day = 0
    if match := _ISO_DATE.match(text):
        year, month, day = int(match.group(1)), int(match.group(2)), int(match.group(3))
    elif match := _SLASH_YMD.search(text):
        year, month, day = int(match.group(1)), int(match.group(2)), int(match.group(3))
    elif match := _TEXT_DATE.search(text):
        month_name = (match.group("m1") or match.group("m2")).casefold()
        month = _MONTHS.get(month_name, 0) or _MONTHS.get(month_name[:3], 0)
        day, year = int(match.group("d1") or match.group("d2")), int(match.group("y1") or match.group("y2"))
    elif match := _NUMERIC_DMY.search(text):
        first, second, year = int(match.group(1)), int(match.group(3)), int(match.group(4))
        month, day = (first, second) if match.group(2) == "/" and first <= 12 else (second, first)
        if month > 12 >= day:
            month, day = day, month
    if not month or match is None:
        return None
    clock = _CLOCK.match(text, match.end(), match.end() + 40)
    if clock is None:
        return _iso(year, month, day)
    hour = int(clock.group(1))
    meridiem = (clock.group(4) or "").lower().replace(".", "")
    if meridiem == "pm" and hour < 12:
        hour += 12
    elif meridiem == "am" and hour == 12:
        hour = 0
    return _iso(year, month, day, hour, int(clock.group(2)), int(clock.group(3) or 0), clock.group(5))


def _iso(year: int, month: int, day: int, hour: int | None = None, minute: int = 0, second: int = 0,
         zone: str | None = None) -> str | None:
    """The ISO 8601 form of a date (and time, when ``hour`` is given); None for an impossible date."""
    if not MIN_YEAR <= year <= MAX_YEAR:
        return None
    try:
        if hour is None:
            return datetime(year, month, day).date().isoformat()
        return datetime(year, month, day, hour, minute, min(second, 59), tzinfo=_offset(zone)).isoformat()
    except ValueError:
        return _iso(year, month, day) if hour is not None else None


def _offset(zone: str | None) -> timezone | None:
    if not zone:
        return None
    zone = zone.upper()
    if zone in _ZONES:
        return timezone(timedelta(minutes=_ZONES[zone]))
    digits = zone[1:].replace(":", "")
    if zone[0] in "+-" and digits.isdigit():
        minutes = int(digits[:2]) * 60 + int(digits[2:4] or 0)
        if minutes < 24 * 60:
            return timezone(timedelta(minutes=-minutes if zone[0] == "-" else minutes))
    return None


# --- languages and URLs ------------------------------------------------------------------------------------------


def normalize_language(value: Any) -> str | None:
    """A BCP 47 tag: ``en_us`` → ``en-US``, ``EN`` → ``en``, ``zh-hans-cn`` → ``zh-Hans-CN``; None for what is not
    a language tag (``x-default``, ``*``, a sentence)."""
    if not isinstance(value, str):
        return None
    parts = value.strip().replace("_", "-").split("-")
    primary = parts[0].lower()
    if not (2 <= len(primary) <= 3 and primary.isascii() and primary.isalpha()):
        return None
    if len(parts) == 1:
        return primary
    tag = [primary]
    for part in parts[1:4]:
        if not (part.isascii() and part.isalnum()):
            break
        if (len(part) == 2 and part.isalpha()) or (len(part) == 3 and part.isdigit()):
            tag.append(part.upper())  # region
        elif len(part) == 4 and part.isalpha():
            tag.append(part.title())  # script
        else:
            tag.append(part.lower())
    return "-".join(tag)


class _Base:
    """What relative URLs are resolved against: ``<base href>`` (looked for only when a relative URL needs it),
    else the page's URL."""

    __slots__ = ("_text", "_head_end", "_url", "_base")

    def __init__(self, text: str | bytes, head_end: int, url: str | None) -> None:
        self._text, self._head_end, self._url = text, head_end, url
        self._base: str | None | bool = False  # False: not looked for yet

    def absolute(self, href: Any) -> str | None:
        if not isinstance(href, str) or href.startswith(("http://", "https://")):
            return _absolute(None, href)
        if self._base is False:
            base = _head_tag(self._text, self._head_end, "<base", "base", "href", None)
            self._base = _absolute(self._url, base) or self._url
        return _absolute(self._base if isinstance(self._base, str) else None, href)


def _absolute(base: str | None, href: Any) -> str | None:
    """``href`` (entities decoded) made absolute against ``base`` when there is one; None for an empty, script or
    data URL."""
    if not isinstance(href, str):
        return None
    href = href.strip()
    if "&" in href:
        href = html_lib.unescape(href)
    if not href or href.startswith(("javascript:", "data:", "#", "mailto:")):
        return None
    if href.startswith("//"):
        href = "https:" + href
    if base and "://" not in href[:12]:
        try:
            return urljoin(base, href)
        except ValueError:
            return None
    return href
