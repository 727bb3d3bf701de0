"""Deterministic synthetic news websites, for tests and examples without network or third-party data.

A generated site has what the FastCE template learner looks for (Nguyen et al., §III): boilerplate that
repeats with the same text at the same structural positions on every page, and main content that differs per
page.

Anatomy of a page with ``SiteStyle(layout="div")`` (paths as :mod:`fce.blocks` writes them)::

    HTML.BODY.DIV                          leaderboard ad: <script>, <a><img>, per-page click ids     noise
    HTML.BODY.HEADER.DIV / .NAV.UL.LI      logo, tagline, today's date, navigation bar, search form   noise
    HTML.BODY.DIV.MAIN.ARTICLE.NAV         breadcrumb "Home › World"                                  noise
    HTML.BODY.DIV.MAIN.ARTICLE.H1          headline                                                   CONTENT
    HTML.BODY.DIV.MAIN.ARTICLE.DIV         byline and date; share links                               noise
    HTML.BODY.DIV.MAIN.ARTICLE.DIV.P       paragraphs, with inline <span>/<a>/<em>/<strong>/<b>       CONTENT
    HTML.BODY.DIV.MAIN.ARTICLE.DIV.UL.LI   a bullet list (some pages)                                 CONTENT
    HTML.BODY.DIV.MAIN.ARTICLE.DIV.FIGURE  photo (some pages): the FIGCAPTION is content, alt is not  CONTENT
    HTML.BODY.DIV.MAIN.ARTICLE.DIV.DIV     in-article ad with an "Advertisement" label                noise
    HTML.BODY.DIV.MAIN.ARTICLE.DIV.P       "Read more: <other headline>" (some pages) and a promo
                                           identical on every page: noise on a content path           noise
    HTML.BODY.DIV.MAIN.ARTICLE.DIV         topic tags                                                 noise
    HTML.BODY.DIV.MAIN.SECTION.UL.LI       "Related articles": page-specific links                    noise
    HTML.BODY.DIV.MAIN.SECTION.DIV.P       reader comments (some pages): plausible prose, yet noise   noise
    HTML.BODY.DIV.ASIDE.SECTION...         "Most popular" (varies a bit per page), ad, newsletter     noise
    HTML.BODY.FOOTER...                    footer links, copyright, address                           noise

``SiteStyle(layout="table")`` yields a 2005-era page with the same parts in nested tables (upper-case tags,
unquoted attributes, HTML comments, ``document.write`` ads, hard-wrapped source lines): the headline at
``HTML.BODY.TABLE.TR.TD.H1``, the byline in SPANs beside it, paragraphs and list at
``HTML.BODY.TABLE.TR.TD.TABLE.TR.TD.P`` / ``…TD.UL.LI``, photo captions in a ``TD class="caption"`` of a table
nested in the story cell, and a copyright notice as the last ``P`` of the story cell — the paper's non-content
block that shares a content path.

**Gold** (:attr:`GeneratedPage.gold`) is the headline, then each paragraph, list item and photo caption of the
article in document order, one per line, joined by ``"\\n"``, with whitespace collapsed to single spaces and
no trailing newline. It leaves out the byline and date, breadcrumb, share links, in-article ads, "Read more"
links, the promo/copyright paragraph, topic tags, related articles, comments and all site chrome.

Everything is drawn from ``random.Random`` instances seeded with strings made of the domain, the seed and the
page index (string seeds are hashed with SHA-512, so no dependence on ``PYTHONHASHSEED``): the same arguments
give the same bytes, and page *i* does not depend on ``n_pages``, so
``generate_site(d, 35)[:30] == generate_site(d, 30)``.
"""

from __future__ import annotations

import hashlib
import html
import itertools
import json
import random
import re
import unicodedata
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from datetime import date, timedelta
from pathlib import Path
from typing import Literal
from urllib.parse import urlsplit

__all__ = ["CHARSETS", "POPULAR_POOL", "GeneratedPage", "SiteStyle", "generate_mixed_site", "generate_site",
           "write_site"]

#: The charsets a site may declare; characters a charset lacks (curly quotes in ISO-8859-1) become ``&#N;``.
CHARSETS = ("utf-8", "windows-1252", "iso-8859-1")

#: Paragraphs of the standing introduction of a live blog page (``SiteStyle.live_blog``).
LIVE_BLOG_STANDING = 6

#: Size of the site-wide "Most popular" pool of which each page shows ``SiteStyle.popular_items``.
POPULAR_POOL = 8

#: A run of text and its kind ("" plain, "person", "org", "place", "number", "quote", "dateline"); after
#: :func:`_markup` the second item is the inline tag instead ("", "span:ID", "a:HREF", "em", "strong", "b").
Seg = tuple[str, str]


# --- vocabulary: a few hundred words; names and places outside ASCII (é, ü, ø, ã, ’) ---------------------


def _words(text: str) -> tuple[str, ...]:
    """A vocabulary list written as one comma-separated string (entries may contain spaces)."""
    return tuple(" ".join(text.split()).split(", "))


_FIRST = _words(
    """
    Anna, Ben, Carla, David, Elena, Farid, Grace, Hugo, Irene, James, Keiko, Liam, Maria, Noah, Olivia,
    Pedro, Rosa, Samuel, Tomás, Uma, Victor, Wen, Yusuf, Zoë, José, Renée, Søren, Chloé, Ines, Marcus
    """
)
_LAST = _words(
    """
    Adler, Baker, Castillo, Dubois, Evans, Fischer, García, Hansen, Ibrahim, Jensen, Kowalski, Lambert,
    Müller, Nakamura, O’Brien, Patel, Quinn, Ramírez, Schmidt, Thompson, Usman, Vargas, Walsh, Young,
    Zhang, Lefèvre, Okafor, Brennan
    """
)
_ROLES = _words(
    """
    mayor, spokesperson, chief economist, director, professor, analyst, chair, minister, researcher,
    union leader, head of operations, senior engineer, treasurer, commissioner
    """
)
_ORGS = _words(
    """
    the city council, the Ministry of Transport, Northwind Energy, the Harbor Authority, the National
    Weather Service, Riverside University, the regional health board, Bellmont & Sons, the Chamber of
    Commerce, the state legislature, Kestrel Analytics, the Central Bank, the House of Representatives,
    the Parks Department, Café Lumière, the teachers’ union, the Water Board, Greenline Transit
    """
)
_PLACES = _words(
    """
    Riverton, Port Ellis, Springfield, Lakeside, Brookhaven, Ashford, Québec City, São Paulo, Zürich,
    Marlow, Eastbridge, Fairview, Kingsport, Millbrook, Westgate
    """
)
_NOUNS = _words(
    """
    budget, plan, report, proposal, project, bridge, school, hospital, market, election, storm,
    festival, study, agreement, program, survey, contract, policy, investigation, railway, factory,
    harbor, museum, library, tunnel, reservoir, stadium, network, ordinance, pipeline, ferry service,
    housing scheme, tax cut, rescue effort, trade deal, wind farm, recycling program, bus route, clinic,
    water supply
    """
)
_PLURALS = _words(
    """
    residents, workers, students, officials, voters, investors, farmers, families, visitors, drivers,
    teachers, nurses, businesses, homeowners, commuters, tenants, engineers, shoppers, volunteers,
    retailers, patients, fishermen, landlords, passengers
    """
)
_VERBS = tuple(
    tuple(v.split())
    for v in _words(
        """
    approve approves approved, reject rejects rejected, announce announces announced, delay delays
    delayed, propose proposes proposed, review reviews reviewed, expand expands expanded, cut cuts cut,
    defend defends defended, unveil unveils unveiled, postpone postpones postponed, launch launches
    launched, suspend suspends suspended, back backs backed, question questions questioned, fund funds
    funded, scrap scraps scrapped, revive revives revived, extend extends extended, block blocks blocked
    """
    )
)
_ADJECTIVES = _words(
    """
    new, local, major, controversial, long-awaited, ambitious, modest, record, early, temporary,
    regional, national, independent, detailed, surprising, costly, popular, final, revised, emergency,
    five-year, historic, delayed, smaller, greener
    """
)
_ADVERBS = _words(
    """
    quietly, sharply, narrowly, unanimously, finally, repeatedly, briefly, openly, formally, cautiously,
    suddenly
    """
)
_TIMES = _words(
    """
    on Monday, on Tuesday, on Wednesday, on Thursday, on Friday, over the weekend, last week, earlier
    this month, in March, in the autumn, after months of debate, late on Thursday, this spring, at a
    packed meeting, during a hearing
    """
)
_CONNECTORS = _words(
    """
    However, Meanwhile, In addition, At the same time, According to officials, Still, By contrast, Last
    year, Since then
    """
)
_QUOTES = _words(
    """
    We have waited long enough, This is a good day for the whole region, The numbers simply do not add
    up, Nobody expected the costs to rise this quickly, We will keep listening to residents, It is too
    early to say what this means, Our members deserve a clear answer, We were frankly surprised, This
    was never about politics, The work is far from over
    """
)
_SECTIONS = _words(
    """
    World, Politics, Business, Technology, Science, Health, Sports, Culture, Opinion, Travel, Weather,
    Local
    """
)
_MASTHEADS = _words(
    """
    Herald, Tribune, Chronicle, Courier, Gazette, Post, Times, Observer, Ledger
    """
)
_FOOTER_LINKS = _words(
    """
    About us, Contact, Careers, Advertise, Privacy policy, Terms of use, Corrections, Site map
    """
)
_USERNAMES = _words(
    """
    riverfan42, oldtimer, J. Walsh, concerned_parent, mkent, Sam R., northside_ned, Ellie, taxpayer77,
    Dr. Okafor
    """
)


@dataclass(frozen=True)
class GeneratedPage:
    """One generated page; ``html`` is encoded in ``charset``, ``gold`` is its main content (module doc)."""

    url: str
    html: bytes
    gold: str
    charset: str

    @property
    def page_id(self) -> str:
        """The file stem :func:`write_site` uses: the last URL path segment without ``.html``."""
        return Path(urlsplit(self.url).path).stem


@dataclass(frozen=True)
class SiteStyle:
    """The knobs of a generated site. A ``*_rate`` is the share of pages (or paragraphs) with the feature."""

    #: "div": modern DIV/SECTION/ARTICLE page; "table": 2005-era nested TABLE/TR/TD page.
    layout: Literal["div", "table"] = "div"
    #: One of :data:`CHARSETS`, declared in a ``<meta>``; the page bytes are encoded in it.
    charset: str = "utf-8"
    #: Sections in the navigation bar (1 to 12).
    nav_items: int = 8
    #: The sidebar: "Most popular", plus the sidebar ad and the newsletter box where those are on.
    sidebar: bool = True
    #: Items of "Most popular", drawn per page (in pool order) from a site-wide pool of :data:`POPULAR_POOL`.
    popular_items: int = 5
    #: Banner, sidebar and in-article ads, with ``<script>`` and ``<img>``.
    ads: bool = True
    #: The newsletter sign-up box in the sidebar.
    newsletter: bool = True
    #: The same promo (div) or copyright (table) paragraph closing every article: noise on a content path.
    in_article_promo: bool = True
    #: Page-specific links in the "Related articles" box; 0 leaves the box out.
    related_links: int = 4
    #: Pages with reader comments below the article.
    comments_rate: float = 0.4
    #: Footer links, copyright and address.
    footer: bool = True
    #: Paragraphs (and lists) with inline ``<span>``/``<a>``/``<em>``/``<strong>``/``<b>``.
    inline_markup_rate: float = 0.5
    #: Pages with a ``<ul>`` inside the article.
    list_rate: float = 0.3
    #: Pages with a captioned photo inside the article.
    figure_rate: float = 0.4
    #: Pages with a "Read more: <link>" paragraph among the article paragraphs.
    read_more_rate: float = 0.2
    #: Least and most article paragraphs.
    paragraphs: tuple[int, int] = (3, 12)
    #: A prefix for every class and id name (``"v2"``: ``class="story"`` becomes ``class="v2-story"``): the same
    #: parts under other names, as after a redesign or in a second layout of the site. ``""``: none.
    theme: str = ""
    #: Class and id names the theme leaves as they are (e.g. the story container's, shared by the layouts of one
    #: content management system).
    theme_keep: tuple[str, ...] = ()
    #: A live blog ("div" layout): each story paragraph is an entry (``<div class="entry"><p>``), after
    #: :data:`LIVE_BLOG_STANDING` paragraphs of a standing introduction, the same on every live blog of the site and
    #: sitting where an article's paragraphs sit (``DIV.story-body > P``): noise on the article layout's content
    #: path. A site that mixes both layouts makes a one-template learner see that path as mostly noise.
    live_blog: bool = False

    def __post_init__(self) -> None:
        if self.layout not in ("div", "table"):
            raise ValueError(f"layout must be 'div' or 'table', not {self.layout!r}")
        if self.charset not in CHARSETS:
            raise ValueError(f"charset must be one of {CHARSETS}, not {self.charset!r}")
        if not 1 <= self.nav_items <= len(_SECTIONS):
            raise ValueError(f"nav_items must be in 1..{len(_SECTIONS)}, not {self.nav_items}")
        if not 0 <= self.popular_items <= POPULAR_POOL:
            raise ValueError(f"popular_items must be in 0..{POPULAR_POOL}, not {self.popular_items}")
        if self.related_links < 0:
            raise ValueError(f"related_links must be >= 0, not {self.related_links}")
        low, high = self.paragraphs
        if not 1 <= low <= high:
            raise ValueError(f"paragraphs must be (min, max) with 1 <= min <= max, not {self.paragraphs}")
        if self.live_blog and self.layout != "div":
            raise ValueError("live_blog needs layout='div'")
        if self.theme and not re.fullmatch(r"[a-z][a-z0-9]*", self.theme):
            raise ValueError(f"theme must be lower-case letters and digits, not {self.theme!r}")
        for name in ("comments_rate", "inline_markup_rate", "list_rate", "figure_rate", "read_more_rate"):
            if not 0.0 <= getattr(self, name) <= 1.0:
                raise ValueError(f"{name} must be in [0, 1], not {getattr(self, name)}")


@dataclass(frozen=True)
class _Site:
    """What every page of a site shares."""

    domain: str
    name: str
    tagline: str
    sections: tuple[str, ...]
    popular: tuple[tuple[str, str], ...]  # (headline, url)
    base_date: date
    base_number: int  # article numbers grow from here
    ad_host: str
    address: str


@dataclass(frozen=True)
class _Page:
    """One article before rendering. ``blocks`` are, in document order: ``("p", segs)``,
    ``("ul", (segs, ...))``, ``("figure", caption, src)``, ``("ad",)``, ``("readmore", headline, url)``,
    ``("promo",)``; their segments carry inline tags (see :data:`Seg`)."""

    url: str
    when: date
    minute: int  # time of day of publication
    section: str
    headline: str
    author: str
    blocks: tuple[tuple, ...]
    popular: tuple[tuple[str, str], ...]
    related: tuple[tuple[str, str], ...]
    comments: tuple[tuple[str, str], ...]  # (user, text)
    tags: tuple[str, ...]
    token: str  # per-page ad and cache-busting id


def generate_site(
    domain: str, n_pages: int, *, seed: int = 0, style: SiteStyle | None = None
) -> list[GeneratedPage]:
    """Generate ``n_pages`` article pages of one news site at ``domain``; same arguments, same bytes."""
    if n_pages < 0:
        raise ValueError(f"n_pages must be >= 0, not {n_pages}")
    style = style or SiteStyle()
    site = _make_site(random.Random(f"{domain}|{seed}|site"), domain, style)
    render = _render_table if style.layout == "table" else _render_div
    pages = []
    for index in range(n_pages):
        page = _make_page(random.Random(f"{domain}|{seed}|page|{index}"), site, style, index)
        source = render(site, page, style)
        if style.theme:
            source = _retheme(source, style.theme, frozenset(style.theme_keep))
        data = source.encode(style.charset, "xmlcharrefreplace")
        pages.append(GeneratedPage(page.url, data, _gold(page), style.charset))
    return pages


def generate_mixed_site(
    domain: str, n_pages: int, styles: Sequence[SiteStyle], *, seed: int = 0
) -> list[GeneratedPage]:
    """A site that serves several layouts: page *i* is page *i* of :func:`generate_site` in
    ``styles[i % len(styles)]`` (so the layouts alternate, and every page has its own URL and article).
    With ``styles`` of an old and a new look, the first and second halves of ``generate_site`` of each make a
    redesign instead; this function mixes them."""
    if not styles:
        raise ValueError("styles must name at least one SiteStyle")
    per_style = [generate_site(domain, n_pages, seed=seed, style=style) for style in styles]
    return [per_style[i % len(styles)][i] for i in range(n_pages)]


_NAME_ATTR = re.compile(r'(?<=\s)(class|id)=(?:"([^"]*)"|([^\s>"]+))')


def _retheme(source: str, theme: str, keep: frozenset[str] = frozenset()) -> str:
    """Prefix every class and id name of ``source`` but those in ``keep`` with ``theme-``."""

    def rename(m: re.Match[str]) -> str:
        names = " ".join(n if n in keep else f"{theme}-{n}"
                         for n in (m.group(2) if m.group(2) is not None else m.group(3)).split())
        return f'{m.group(1)}="{names}"'

    return _NAME_ATTR.sub(rename, source)


def write_site(pages: Iterable[GeneratedPage], directory: str | Path) -> list[Path]:
    """Write each page as ``<page_id>.html`` (its bytes), ``.txt`` (gold, UTF-8, final newline) and ``.json``.

    The layout of the evaluation data (``data/*/README.md``); returns the ``.html`` paths in page order.
    """
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    paths = []
    for page in pages:
        host = urlsplit(page.url).hostname or ""
        meta = {
            "url": page.url,
            "site": host.removeprefix("www."),
            "dataset": "sitegen",
            "page_id": page.page_id,
            "sha256_html": hashlib.sha256(page.html).hexdigest(),
            "charset": page.charset,
        }
        path = directory / f"{page.page_id}.html"
        path.write_bytes(page.html)
        path.with_suffix(".txt").write_bytes((page.gold + "\n").encode("utf-8"))
        path.with_suffix(".json").write_bytes(
            (json.dumps(meta, indent=1, ensure_ascii=False) + "\n").encode()
        )
        paths.append(path)
    return paths


# --- content ---------------------------------------------------------------------------------------------


def _person(rng: random.Random) -> str:
    return f"{rng.choice(_FIRST)} {rng.choice(_LAST)}"


def _money(rng: random.Random) -> str:
    kind = rng.randrange(3)
    if kind == 0:
        return f"${rng.randint(1, 90)}.{rng.randint(1, 9)} million"
    if kind == 1:
        return f"€{rng.randint(2, 400)},000"
    return f"${rng.randint(1, 9)},{rng.randrange(1000):03d}"


def _sentence(rng: random.Random) -> list[Seg]:
    """One plausible news sentence; names, organisations, places, numbers and quotes are marked by kind."""
    org, place, person = ("org", rng.choice(_ORGS)), ("place", rng.choice(_PLACES)), ("person", _person(rng))
    noun, plural, adj = rng.choice(_NOUNS), rng.choice(_PLURALS), rng.choice(_ADJECTIVES)
    when, past, role = rng.choice(_TIMES), rng.choice(_VERBS)[2], rng.choice(_ROLES)
    num, amount = ("number", str(rng.randint(12, 900))), ("number", _money(rng))
    share = ("number", f"{rng.randint(3, 90)} percent")
    month, year = rng.choice(("May", "June", "October", "December")), ("number", str(rng.randint(2025, 2031)))
    patterns: list[tuple[str | tuple[str, str], ...]] = [
        (org, f" {rng.choice(_ADVERBS)} {past} the {adj} {noun} {when}, a move that could affect ", num,
         f" {plural} in ", place, "."),
        (person, f", {role} of ", org, f", said the {noun} would cost about ", amount, "."),
        ("“", ("quote", rng.choice(_QUOTES)), ",” said ", person, f", who {past} the {noun} {when}."),
        (f"The {adj} {noun} is expected to be finished by {month} ", year, ", according to ", org, "."),
        (f"{rng.choice(_CONNECTORS)}, ", num, f" {plural} {past} the {noun} in ", place, f" {when}."),
        (share, f" of {plural} surveyed by ", org, f" said they {past} the {noun}."),
        ("The report, published by ", org, f" {when}, found that {plural} in ", place, " paid ", share,
         " more than a year earlier."),
        (person, f" told reporters that the {noun} was “{adj} but necessary” and that ", org,
         " would decide within weeks."),
        ("Critics in ", place, f" say the {noun} ignores the needs of {plural}, while supporters point to ",
         amount, " in new funding."),
        (f"{rng.choice(_CONNECTORS)}, {rng.choice(_PLURALS)} {past} plans for a {rng.choice(_ADJECTIVES)} "
         f"{rng.choice(_NOUNS)} near ", place, "."),
        ("Officials in ", place, " said ", num, f" {plural} had signed a petition against the {noun} "
         f"{when}."),
        (f"The {noun} was first proposed in ", ("number", str(rng.randint(1990, 2004))),
         " but stalled after ", org, " withdrew its support."),
        (f"Work on the {adj} {noun} began {when} and is scheduled to last ",
         ("number", str(rng.randint(3, 40))), " months."),
        ("According to ", person, f", a {role} at ", org, f", the {noun} will create about ", num, " jobs."),
        ("A spokesperson for ", org, f" declined to comment on the {adj} {noun} {when}."),
        ("“", ("quote", rng.choice(_QUOTES)), ",” ", person, " wrote in a statement."),
    ]  # fmt: skip
    segs = [(part[1], part[0]) if isinstance(part, tuple) else (part, "") for part in rng.choice(patterns)]
    text, kind = segs[0]
    segs[0] = (text[0].upper() + text[1:], kind)
    return segs


def _paragraph(rng: random.Random, n_sentences: int) -> list[Seg]:
    segs: list[Seg] = []
    for k in range(n_sentences):
        segs += [(" ", "")] * (k > 0) + _sentence(rng)
    return segs


def _markup(rng: random.Random, segs: Sequence[Seg], span_ids: Iterator[str] | None) -> tuple[Seg, ...]:
    """Turn kinds into inline tags; with ``span_ids`` None, plain text. Entities become the paper's Figure 1
    ``<span class="yshortcuts" id=…>`` or topic links, quotes ``<em>``, numbers ``<strong>`` or ``<b>``."""
    out = []
    for text, kind in segs:
        tag = ""
        if span_ids is not None and kind and rng.random() < 2 / 3:
            if kind in ("person", "org") and rng.random() < 0.5:
                tag = f"span:{next(span_ids)}"
            elif kind in ("person", "org", "place"):
                tag = f"a:/topics/{_slug(text)}/"
            elif kind == "quote":
                tag = "em"
            else:  # number, dateline
                tag = rng.choice(("strong", "b"))
        out.append((text, tag))
    return tuple(out)


def _headline(rng: random.Random) -> str:
    place, plural = rng.choice(_PLACES), rng.choice(_PLURALS)
    subject, many = rng.choice(
        (
            (f"{place} council", False),
            (f"{place} officials", True),
            (rng.choice(_ORGS).removeprefix("the "), False),
            (f"{plural} in {place}", True),
        )
    )
    tail = rng.choice(
        (
            "",
            f" in {rng.choice(_PLACES)}",
            f" after {rng.randint(2, 30)} years",
            f" amid {rng.choice(_PLURALS)}’ concerns",
            f" as {rng.choice(_NOUNS)} costs rise",
        )
    )
    verb = rng.choice(_VERBS)[0 if many else 1]
    text = f"{subject} {verb} {rng.choice(_ADJECTIVES)} {rng.choice(_NOUNS)}{tail}"
    return text[0].upper() + text[1:]


def _slug(text: str, words: int = 6) -> str:
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    return "-".join(re.findall(r"[a-z0-9]+", ascii_text.lower())[:words])


def _article_url(site: _Site, section: str, when: date, number: int, headline: str) -> str:
    path = f"{section.lower()}/{when.year}/{when.month:02d}/{number}-{_slug(headline)}.html"
    return f"https://{site.domain}/{path}"


def _link(rng: random.Random, site: _Site, when: date, number: int) -> tuple[str, str]:
    """(headline, url) of another, older article of the site."""
    headline, older = _headline(rng), when - timedelta(days=rng.randint(1, 60))
    return headline, _article_url(
        site, rng.choice(site.sections), older, number - rng.randint(1, 900), headline
    )


def _make_site(rng: random.Random, domain: str, style: SiteStyle) -> _Site:
    labels = [
        x for x in domain.lower().split(".") if x not in ("www", "news", "com", "org", "net", "co", "uk")
    ]
    brand = (max(labels, key=len) if labels else "daily").replace("-", " ").title()
    era = date(2005, 1, 3) if style.layout == "table" else date(2024, 1, 8)
    street = f"{rng.randint(10, 990)} {rng.choice(('Main', 'Harbor', 'Union', 'Market'))} Street"
    site = _Site(
        domain=domain,
        name=f"The {brand} {rng.choice(_MASTHEADS)}",
        tagline=rng.choice(
            ("Independent journalism since 1887", "News you can trust", "Your city, your stories")
        ),
        sections=tuple(rng.sample(_SECTIONS, style.nav_items)),
        popular=(),
        base_date=era + timedelta(days=rng.randrange(120)),
        base_number=rng.randrange(100_000, 800_000),
        ad_host=f"ads.{rng.choice(('adnet', 'clickserve', 'bannerhub'))}.example",
        address=f"{street}, {rng.choice(_PLACES)}",
    )
    return replace(
        site, popular=tuple(_link(rng, site, site.base_date, site.base_number) for _ in range(POPULAR_POOL))
    )


def _make_page(rng: random.Random, site: _Site, style: SiteStyle, index: int) -> _Page:
    when = site.base_date + timedelta(days=2 * index + rng.randrange(2))
    number = site.base_number + 17 * index + rng.randrange(17)
    section, headline, author = rng.choice(site.sections), _headline(rng), _person(rng)
    stamp = rng.randrange(10**9, 2 * 10**9)
    span_ids = (f"lw_{stamp}_{k}" for k in itertools.count())

    def marked(segs: Sequence[Seg]) -> tuple[Seg, ...]:
        return _markup(rng, segs, span_ids if rng.random() < style.inline_markup_rate else None)

    first = _paragraph(rng, rng.randint(2, 4))
    if rng.random() < 0.5:  # a dateline opens the story: "RIVERTON — The city council …"
        first[:0] = [(rng.choice(_PLACES).upper(), "dateline"), (" — ", "")]
    more = [_paragraph(rng, rng.randint(1, 5)) for _ in range(rng.randint(*style.paragraphs) - 1)]
    blocks: list[tuple] = [("p", marked(segs)) for segs in [first, *more]]
    if rng.random() < style.list_rate:
        sentences = [_sentence(rng) for _ in range(rng.randint(3, 5))]
        ids = span_ids if rng.random() < style.inline_markup_rate else None
        items = tuple(_markup(rng, sentence, ids) for sentence in sentences)
        blocks.insert(rng.randint(1, len(blocks)), ("ul", items))
    if rng.random() < style.figure_rate:
        caption = (
            f"{_person(rng)} at the {rng.choice(_NOUNS)} site in {rng.choice(_PLACES)} {rng.choice(_TIMES)}."
        )
        blocks.insert(rng.randint(1, len(blocks)), ("figure", caption, f"/img/{when.year}/{number}-1.jpg"))
    if style.ads and len(blocks) > 2:
        blocks.insert(2, ("ad",))
    if rng.random() < style.read_more_rate:
        blocks.insert(rng.randint(1, len(blocks)), ("readmore", *_link(rng, site, when, number)))
    if style.in_article_promo:
        blocks.append(("promo",))
    comments = []
    if rng.random() < style.comments_rate:
        for _ in range(rng.randint(1, 5)):
            opener = rng.choice(("", "Totally agree. ", "Not again. ", "Who pays for this? "))
            comments.append((rng.choice(_USERNAMES), opener + _plain(_paragraph(rng, rng.randint(1, 2)))))
    return _Page(
        url=_article_url(site, section, when, number, headline),
        when=when,
        minute=rng.randrange(6 * 60, 22 * 60),
        section=section,
        headline=headline,
        author=author,
        blocks=tuple(blocks),
        popular=tuple(site.popular[k] for k in sorted(rng.sample(range(POPULAR_POOL), style.popular_items))),
        related=tuple(_link(rng, site, when, number) for _ in range(style.related_links)),
        comments=tuple(comments),
        tags=(*rng.sample(_PLACES, 2), section),
        token=f"{rng.getrandbits(48):012x}",
    )


def _gold(page: _Page) -> str:
    lines = [page.headline]
    for block in page.blocks:
        if block[0] == "p":
            lines.append(_plain(block[1]))
        elif block[0] == "ul":
            lines += [_plain(item) for item in block[1]]
        elif block[0] == "figure":
            lines.append(block[1])
    return "\n".join(lines)


def _plain(segs: Iterable[Seg]) -> str:
    return " ".join("".join(text for text, _ in segs).split())


# --- rendering -------------------------------------------------------------------------------------------

_DAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
_MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
           "November", "December")  # fmt: skip


def _e(text: str) -> str:
    return html.escape(text, quote=True)


def _inline(segs: Iterable[Seg]) -> str:
    """The HTML of marked-up segments: ``span:ID``, ``a:HREF`` or a bare tag name around escaped text."""
    out = []
    for text, tag in segs:
        escaped = html.escape(text, quote=False)
        name, _, arg = tag.partition(":")
        if name == "span":
            out.append(f'<span class="yshortcuts" id="{arg}">{escaped}</span>')
        elif name == "a":
            out.append(f'<a href="{arg}">{escaped}</a>')
        else:
            out.append(f"<{name}>{escaped}</{name}>" if name else escaped)
    return "".join(out)


def _wrap(source: str, width: int = 78) -> str:
    """Hard-wrap HTML at spaces outside tags, as hand-edited 2005 pages were (only whitespace changes)."""
    out, column, in_tag = [], 0, False
    for char in source:
        in_tag = (in_tag or char == "<") and char != ">"
        if char == " " and not in_tag and column >= width:
            out.append("\n")
            column = 0
        else:
            out.append(char)
            column = 0 if char == "\n" else column + 1
    return "".join(out)


def _long_date(day: date) -> str:
    return f"{_DAYS[day.weekday()]}, {_MONTHS[day.month - 1]} {day.day}, {day.year}"


def _clock(minute: int) -> str:
    hour, minutes = divmod(minute, 60)
    return f"{(hour - 1) % 12 + 1}:{minutes:02d} {'a.m.' if hour < 12 else 'p.m.'}"


def _ad_div(site: _Site, page: _Page, slot: str, width: int, height: int, indent: str) -> list[str]:
    query = f"slot={slot}&amp;c={page.token}"
    image = f"https://{site.ad_host}/b/{width}x{height}/{page.token}.gif"
    return [
        f'{indent}<div class="ad ad-{slot}" id="ad-{slot}">',
        f"{indent}  <script>window.adq=window.adq||[];"
        f'adq.push({{slot:"{slot}",page:"{page.token}"}});</script>',
        f'{indent}  <a href="https://{site.ad_host}/click?{query}" rel="sponsored">'
        f'<img src="{image}" width="{width}" height="{height}" alt="Advertisement"></a>',
        f'{indent}  <span class="ad-label">Advertisement</span>',
        f"{indent}</div>",
    ]


def _render_div(site: _Site, page: _Page, style: SiteStyle) -> str:
    """A modern page: HEADER, MAIN.ARTICLE, ASIDE and FOOTER (paths in the module doc)."""
    name, when, section = _e(site.name), page.when, page.section
    ld = {
        "@context": "https://schema.org",
        "@type": "NewsArticle",
        "headline": page.headline,
        "datePublished": when.isoformat(),
        "author": {"@type": "Person", "name": page.author},
    }
    description = _plain(next(block[1] for block in page.blocks if block[0] == "p"))[:150]
    lines = [
        "<!DOCTYPE html>",
        '<html lang="en">',
        "<head>",
        f'<meta charset="{style.charset}">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{_e(page.headline)} | {name}</title>",
        f'<meta name="description" content="{_e(description)}">',
        f'<link rel="canonical" href="{page.url}">',
        '<link rel="stylesheet" href="/static/css/main.css?v=3">',
        '<script type="application/ld+json">'
        + json.dumps(ld, ensure_ascii=False).replace("</", "<\\/")
        + "</script>",
        "<style>.ad{min-height:90px}.visually-hidden{position:absolute;left:-9999px}</style>",
        "</head>",
        '<body class="article-page">',
        *(_ad_div(site, page, "leaderboard", 728, 90, "") if style.ads else []),
        '<header class="site-header">',
        '  <div class="masthead">',
        f'    <a class="logo" href="/"><img src="/static/img/logo.svg" alt="{name}" width="240" '
        'height="40"></a>',
        f'    <p class="tagline">{_e(site.tagline)}</p>',
        f'    <p class="today">{_long_date(when)}</p>',
        "  </div>",
        '  <nav class="main-nav" aria-label="Sections">',
        "    <ul>",
        '      <li><a href="/">Home</a></li>',
        *(f'      <li><a href="/{s.lower()}/">{s}</a></li>' for s in site.sections),
        "    </ul>",
        "  </nav>",
        '  <form class="search" action="/search" method="get">'
        '<label class="visually-hidden" for="q">Search</label>'
        f'<input id="q" name="q" type="search" placeholder="Search {name}">'
        '<button type="submit">Search</button></form>',
        "</header>",
        '<div class="page-wrap">',
        '  <main id="main">',
        '    <article class="story">',
        '      <nav class="breadcrumb"><a href="/">Home</a> › '
        f'<a href="/{section.lower()}/">{section}</a></nav>',
        f'      <h1 class="headline">{_e(page.headline)}</h1>',
        f'      <div class="byline">By <a href="/authors/{_slug(page.author)}/" rel="author">'
        f'{_e(page.author)}</a> · <time datetime="{when.isoformat()}">'
        f"{_MONTHS[when.month - 1]} {when.day}, {when.year}, {_clock(page.minute)}</time></div>",
        f'      <div class="share"><a href="https://www.facebook.com/sharer.php?u={page.url}">Facebook</a> '
        f'<a href="https://x.com/intent/post?url={page.url}">X</a> '
        f'<a href="mailto:?subject={_slug(page.headline)}">Email</a></div>',
        '      <div class="story-body">',
    ]
    indent = " " * 8
    if style.live_blog:
        standing = random.Random(f"{site.domain}|live-blog")
        lines += [f"{indent}<p>{_e(_plain(_paragraph(standing, 5)))}</p>" for _ in range(LIVE_BLOG_STANDING)]
    for block in page.blocks:
        kind = block[0]
        if kind == "p" and style.live_blog:
            lines.append(f'{indent}<div class="entry"><p>{_inline(block[1])}</p></div>')
        elif kind == "p":
            lines.append(f"{indent}<p>{_inline(block[1])}</p>")
        elif kind == "ul":
            lines.append(f'{indent}<ul class="key-points">')
            lines += [f"{indent}  <li>{_inline(item)}</li>" for item in block[1]]
            lines.append(f"{indent}</ul>")
        elif kind == "figure":
            lines += [
                f'{indent}<figure class="photo">',
                f'{indent}  <img src="{block[2]}" alt="Photo: {section}" width="800" height="533" '
                'loading="lazy">',
                f"{indent}  <figcaption>{_e(block[1])}</figcaption>",
                f"{indent}</figure>",
            ]
        elif kind == "ad":
            lines += _ad_div(site, page, "inline", 300, 250, indent)
        elif kind == "readmore":
            lines.append(f'{indent}<p class="read-more"><strong>Read more:</strong> '
                         f'<a href="{block[2]}">{_e(block[1])}</a></p>')  # fmt: skip
        elif kind == "promo":
            lines.append(f'{indent}<p class="promo"><em>Sign up for {name}’s morning briefing and get '
                         "the day’s top stories in your inbox.</em></p>")  # fmt: skip
    topics = ", ".join(f'<a href="/topics/{_slug(t)}/">{_e(t)}</a>' for t in page.tags)
    lines += ["      </div>", f'      <div class="tags">Topics: {topics}</div>', "    </article>"]
    if page.related:
        lines += ['    <section class="related">', "      <h2>Related articles</h2>", "      <ul>"]
        lines += [f'        <li><a href="{url}">{_e(title)}</a></li>' for title, url in page.related]
        lines += ["      </ul>", "    </section>"]
    if page.comments:
        lines.append('    <section class="comments" id="comments">')
        lines.append(f"      <h2>Comments ({len(page.comments)})</h2>")
        for k, (user, text) in enumerate(page.comments):
            lines += [
                '      <div class="comment">',
                f'        <p class="comment-meta"><b>{_e(user)}</b> · {k + 2} hours ago</p>',
                f'        <p class="comment-text">{_e(text)}</p>',
                "      </div>",
            ]
        lines.append("    </section>")
    lines.append("  </main>")
    if style.sidebar:
        lines.append('  <aside class="sidebar">')
        if page.popular:
            lines += ['    <section class="popular">', "      <h2>Most popular</h2>", "      <ol>"]
            lines += [f'        <li><a href="{url}">{_e(title)}</a></li>' for title, url in page.popular]
            lines += ["      </ol>", "    </section>"]
        if style.ads:
            lines += _ad_div(site, page, "sidebar", 300, 600, "    ")
        if style.newsletter:
            lines += [
                '    <section class="newsletter">',
                "      <h2>The Morning Briefing</h2>",
                f"      <p>Get the day’s top stories from {name} in your inbox every morning.</p>",
                '      <form action="/newsletter" method="post"><input type="email" name="email" '
                'placeholder="Your email"><button type="submit">Sign up</button></form>',
                "    </section>",
            ]
        lines.append("  </aside>")
    lines.append("</div>")
    if style.footer:
        lines += ['<footer class="site-footer">', "  <nav>", "    <ul>"]
        lines += [f'      <li><a href="/{_slug(x)}/">{x}</a></li>' for x in _FOOTER_LINKS]
        lines += [
            "    </ul>",
            "  </nav>",
            f'  <p class="copyright">© {when.year} {name}. All rights reserved.</p>',
            f"  <address>{name}, {_e(site.address)}</address>",
            "</footer>",
        ]
    lines += [
        '<script src="/static/js/app.js?v=3" defer></script>',
        f'<script>window.analytics&&analytics.page({{id:"{page.token}"}});</script>',
        "</body>",
        "</html>",
        "",
    ]
    return "\n".join(lines)


def _render_table(site: _Site, page: _Page, style: SiteStyle) -> str:
    """A 2005-era page: the same parts in nested TABLE/TR/TD, upper-case tags, hard-wrapped source lines."""
    name, when, section, year = _e(site.name), page.when, page.section, page.when.year
    ad_js = (
        '<SCRIPT language="JavaScript" type="text/javascript">\n<!--\n'
        f"document.write('<scr'+'ipt src=\"http://{site.ad_host}/js/{page.token}.js\"></scr'+'ipt>');\n"
        "//-->\n</SCRIPT>"
    )
    banner = (
        f'<A href="http://{site.ad_host}/click?c={page.token}"><IMG src="http://{site.ad_host}/b/'
        f'{page.token}.gif" width=468 height=60 border=0 alt="Advertisement"></A>'
    )
    nav = "&nbsp;|&nbsp;".join(f'<A href="/{s.lower()}/" class="nav">{s}</A>' for s in site.sections)
    lines = [
        '<!DOCTYPE HTML PUBLIC "-//W3C//DTD HTML 4.01 Transitional//EN" "http://www.w3.org/TR/html4/loose.dtd">',
        "<HTML>",
        "<HEAD>",
        f'<META http-equiv="Content-Type" content="text/html; charset={style.charset}">',
        f"<TITLE>{name} - {_e(page.headline)}</TITLE>",
        '<LINK rel="stylesheet" type="text/css" href="/css/site.css">',
        '<SCRIPT language="JavaScript" type="text/javascript">',
        "<!--",
        "function popUp(url) { window.open(url, 'pop', 'width=400,height=300,scrollbars=yes'); }",
        f"var pageStamp = '{page.token}';",
        "//-->",
        "</SCRIPT>",
        "</HEAD>",
        '<BODY bgcolor="#FFFFFF" leftmargin=0 topmargin=0 marginwidth=0 marginheight=0>',
        "<!-- BEGIN HEADER -->",
        "<TABLE width=770 border=0 cellpadding=0 cellspacing=0>",
        f'<TR><TD width=180><A href="/"><IMG src="/images/logo.gif" width=180 height=60 border=0 '
        f'alt="{name}">'
        "</A></TD>",
        f'<TD align="right">{ad_js + banner if style.ads else "&nbsp;"}</TD></TR>',
        '<TR><TD colspan=2 bgcolor="#003366" class="navbar"><FONT color="#FFFFFF" face="Arial" size="-1">',
        _wrap(nav),
        "</FONT></TD></TR>",
        f'<TR><TD colspan=2 class="dateline">{_long_date(when)} &nbsp;|&nbsp; {_e(site.tagline)}</TD></TR>',
        "</TABLE>",
        "<!-- END HEADER -->",
        "<TABLE width=770 border=0 cellpadding=0 cellspacing=0>",
        "<TR>",
        '<TD width=150 valign="top" bgcolor="#EEEEEE" class="leftnav">',
        '<TABLE width="100%" border=0 cellpadding=3 cellspacing=0>',
        '<TR><TD class="navhead"><B>SECTIONS</B></TD></TR>',
        '<TR><TD><A href="/">Home</A></TD></TR>',
        *(f'<TR><TD><A href="/{s.lower()}/">{s}</A></TD></TR>' for s in site.sections),
        "</TABLE>",
        '<FORM action="/search" method="get"><INPUT type="text" name="q" size=12>'
        '<INPUT type="submit" value="Search"></FORM>',
        "</TD>",
        '<TD width=440 valign="top" class="content">',
        '<TABLE width="100%" border=0 cellpadding=0 cellspacing=0><TR><TD class="kicker">'
        f'<A href="/{section.lower()}/">{section.upper()}</A></TD></TR></TABLE>',
        f"<H1>{_e(page.headline)}</H1>",
        f'<SPAN class="byline">By {_e(page.author)}, Staff Writer</SPAN><BR>',
        f'<SPAN class="timestamp">{_long_date(when)} Posted: {page.minute // 60:02d}{page.minute % 60:02d} '
        "GMT</SPAN>",
        "<!-- BEGIN STORY BODY -->",
        '<TABLE width="100%" border=0 cellpadding=4 cellspacing=0><TR><TD class="storybody">',
    ]
    for block in page.blocks:
        kind = block[0]
        if kind == "p":
            lines.append(_wrap(f"<P>{_inline(block[1])}</P>"))
        elif kind == "ul":
            lines += ["<UL>", *(_wrap(f"<LI>{_inline(item)}</LI>") for item in block[1]), "</UL>"]
        elif kind == "figure":
            lines += [
                '<TABLE align="right" width=210 border=0 cellpadding=2 cellspacing=0>',
                f'<TR><TD><IMG src="{block[2]}" width=200 height=133 border=0 alt=""></TD></TR>',
                f'<TR><TD class="caption">{_e(block[1])}</TD></TR>',
                "</TABLE>",
            ]
        elif kind == "ad":
            lines.append('<TABLE align="right" width=310 border=0><TR><TD class="adbox">')
            lines.append(f"{ad_js}<BR><SMALL>Advertisement</SMALL></TD></TR></TABLE>")
        elif kind == "readmore":
            lines.append(f'<P><B>RELATED:</B> <A href="{block[2]}">{_e(block[1])}</A></P>')
        elif kind == "promo":
            notice = "This material may not be published, broadcast, rewritten, or redistributed."
            lines.append(_wrap(f"<P><I>Copyright {year} {name}. All rights reserved. {notice}</I></P>"))
    lines += ["</TD></TR></TABLE>", "<!-- END STORY BODY -->"]
    if page.related:
        lines.append('<TABLE width="100%" border=0 cellpadding=4 cellspacing=0><TR><TD class="related">')
        lines.append("<B>RELATED STORIES</B><BR>")
        lines += [f'&#149;&nbsp;<A href="{url}">{_e(title)}</A><BR>' for title, url in page.related]
        lines.append("</TD></TR></TABLE>")
    if page.comments:
        lines.append('<TABLE width="100%" border=0 cellpadding=4 cellspacing=0>')
        lines.append(f'<TR><TD class="commenthead"><B>Reader comments ({len(page.comments)})</B></TD></TR>')
        for user, text in page.comments:
            lines.append(f'<TR><TD class="comment"><B>{_e(user)}</B> wrote:<BR>{_e(text)}</TD></TR>')
        lines.append("</TABLE>")
    lines += ["</TD>", '<TD width=180 valign="top" class="rightcol">']
    if style.sidebar and page.popular:
        lines.append('<TABLE width="100%" border=0 cellpadding=2 cellspacing=0>')
        lines.append('<TR><TD class="boxhead"><B>MOST POPULAR</B></TD></TR><TR><TD class="boxbody"><OL>')
        lines += [f'<LI><A href="{url}">{_e(title)}</A></LI>' for title, url in page.popular]
        lines.append("</OL></TD></TR></TABLE>")
    if style.sidebar and style.ads:
        lines.append(f"<CENTER>{ad_js}<BR><SMALL>Advertisement</SMALL></CENTER>")
    if style.sidebar and style.newsletter:
        lines += [
            '<TABLE width="100%" border=0 cellpadding=2 cellspacing=0>',
            '<TR><TD class="boxhead"><B>E-MAIL NEWSLETTER</B></TD></TR>',
            f'<TR><TD><FONT size="-1">Get the day’s top stories from {name} in your inbox.</FONT>',
            '<FORM action="/newsletter" method="post"><INPUT type="text" name="email" size=14>'
            '<INPUT type="submit" value="Subscribe"></FORM></TD></TR>',
            "</TABLE>",
        ]
    lines += ["</TD>", "</TR>", "</TABLE>"]
    if style.footer:
        links = " | ".join(f'<A href="/{_slug(x)}/">{x}</A>' for x in _FOOTER_LINKS)
        lines += [
            "<!-- BEGIN FOOTER -->",
            "<TABLE width=770 border=0 cellpadding=4 cellspacing=0>",
            f'<TR><TD align="center" class="footer"><FONT size="-2">{_wrap(links)}<BR>',
            f"&copy; {year} {name}. All rights reserved.<BR>{_e(site.address)}</FONT></TD></TR>",
            "</TABLE>",
        ]
    lines += ["</BODY>", "</HTML>", ""]
    return "\n".join(lines)
