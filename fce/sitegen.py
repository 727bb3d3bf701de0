"""Deterministic generator of synthetic news websites, for tests and examples without network or third-party data.

A generated site has what the FastCE template learner needs to find (Nguyen et al., §III): boilerplate that repeats
with the same text at the same structural positions on every page, and main content that differs per page.

Anatomy of a page (``SiteStyle(layout="div")``, the paths as :mod:`fce.blocks` writes them)::

    HTML.BODY.DIV                          leaderboard ad: <script> + <a><img>, per-page click ids     noise
    HTML.BODY.HEADER...                    logo, tagline, navigation bar, search form, today's date    noise
    HTML.BODY.DIV.MAIN.ARTICLE.NAV         breadcrumb "Home › World"                                   noise
    HTML.BODY.DIV.MAIN.ARTICLE.H1          headline                                                    CONTENT
    HTML.BODY.DIV.MAIN.ARTICLE.DIV         byline and date, share links                                noise
    HTML.BODY.DIV.MAIN.ARTICLE.DIV.P       paragraphs, with inline <span>/<a>/<em>/<strong>/<b>        CONTENT
    HTML.BODY.DIV.MAIN.ARTICLE.DIV.UL.LI   a bullet list inside the article (some pages)               CONTENT
    HTML.BODY.DIV.MAIN.ARTICLE.DIV.FIGURE  photo; its FIGCAPTION is content, the <img> alt is not      CONTENT
    HTML.BODY.DIV.MAIN.ARTICLE.DIV.DIV     in-article ad ("Advertisement")                             noise
    HTML.BODY.DIV.MAIN.ARTICLE.DIV.P       "Read more: <other headline>" (some pages), and the same
                                           newsletter promo on every page: noise on a CONTENT path     noise
    HTML.BODY.DIV.MAIN.ARTICLE.DIV         tags                                                        noise
    HTML.BODY.DIV.MAIN.SECTION             "Related articles": page-specific links                     noise
    HTML.BODY.DIV.MAIN.SECTION.DIV.P       reader comments (some pages): plausible prose, but noise    noise
    HTML.BODY.DIV.ASIDE.SECTION            "Most popular" (items vary a bit per page), ad, newsletter  noise
    HTML.BODY.FOOTER                       footer links, copyright, address                            noise

``SiteStyle(layout="table")`` yields a 2005-era page of the same parts in nested tables (upper-case tags, unquoted
attributes, hard-wrapped source lines): the headline at ``HTML.BODY.TABLE.TR.TD.H1``, paragraphs at
``HTML.BODY.TABLE.TR.TD.TABLE.TR.TD.P``, photo captions in ``TD class=caption`` of a nested table, and a copyright
notice as the last ``P`` of the story cell — the paper's non-content block that shares a content path.

**Gold** (:attr:`GeneratedPage.gold`) is the headline, then each paragraph, each list item and each photo caption of
the article, in document order, one per line, joined by ``"\\n"``, whitespace collapsed to single spaces and no
trailing newline. It excludes the byline and date, breadcrumb, share links, in-article ads, "Read more" links, the
promo/copyright paragraph, tags, related articles, comments and all site chrome.

Everything is drawn from ``random.Random`` instances seeded with strings built from ``(domain, seed, page index)``
(string seeds are hashed with SHA-512, so independent of ``PYTHONHASHSEED``): the same arguments give the same
bytes, and page *i* does not depend on ``n_pages``, so ``generate_site(d, 35)[:30] == generate_site(d, 30)``.
"""

from __future__ import annotations

import hashlib
import html
import json
import random
import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from datetime import date, timedelta
from pathlib import Path
from typing import Literal
from urllib.parse import urlsplit

__all__ = ["CHARSETS", "GeneratedPage", "SiteStyle", "generate_site", "write_site"]

#: Declared charsets a site may use; characters a charset lacks (curly quotes in ISO-8859-1) become ``&#NNNN;``.
CHARSETS = ("utf-8", "windows-1252", "iso-8859-1")


# --- vocabulary: a few hundred words, with names and places outside ASCII (é, ü, ø, ã, ’) ------------------------
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

Seg = tuple[
    str, str
]  # (text, kind): kind "" is plain text, else "person", "org", "place", "number", "quote"…


@dataclass(frozen=True)
class GeneratedPage:
    """One generated page: ``html`` is encoded in ``charset``; ``gold`` is its main content (see module doc)."""

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
    """The knobs of a generated site. Rates are the share of pages (or paragraphs) that get the feature."""

    layout: Literal["div", "table"] = "div"  # modern DIV/SECTION/ARTICLE, or 2005-era nested TABLE/TR/TD
    charset: str = "utf-8"  # one of CHARSETS, declared in a <meta>
    nav_items: int = 8  # sections in the navigation bar (1..12)
    sidebar: bool = True  # "Most popular" list (plus the sidebar ad and newsletter box when those are on)
    popular_items: int = 5  # items shown in "Most popular", drawn per page from a site pool of 8
    ads: bool = True  # banner, sidebar and in-article ads, with <script> and <img>
    newsletter: bool = True  # newsletter sign-up box in the sidebar
    in_article_promo: bool = (
        True  # the same promo/copyright paragraph closing every article (noise on a content path)
    )
    related_links: int = 4  # page-specific "Related articles" links; 0 = no box
    comments_rate: float = 0.4  # pages with reader comments below the article
    footer: bool = True
    inline_markup_rate: float = 0.5  # paragraphs with inline <span>/<a>/<em>/<strong>/<b>
    list_rate: float = 0.3  # pages with a <ul> inside the article
    figure_rate: float = 0.4  # pages with a captioned photo inside the article
    read_more_rate: float = 0.2  # pages with a "Read more: <link>" paragraph inside the article body
    paragraphs: tuple[int, int] = (3, 12)  # min and max article paragraphs

    def __post_init__(self) -> None:
        if self.layout not in ("div", "table"):
            raise ValueError(f"layout must be 'div' or 'table', not {self.layout!r}")
        if self.charset not in CHARSETS:
            raise ValueError(f"charset must be one of {CHARSETS}, not {self.charset!r}")
        if not 1 <= self.nav_items <= len(_SECTIONS):
            raise ValueError(f"nav_items must be in 1..{len(_SECTIONS)}")
        if not 0 <= self.popular_items <= _POPULAR_POOL or self.related_links < 0:
            raise ValueError(f"popular_items must be in 0..{_POPULAR_POOL} and related_links >= 0")
        lo, hi = self.paragraphs
        if not 1 <= lo <= hi:
            raise ValueError(f"paragraphs must be (min, max) with 1 <= min <= max, not {self.paragraphs}")
        for name in ("comments_rate", "inline_markup_rate", "list_rate", "figure_rate", "read_more_rate"):
            if not 0.0 <= getattr(self, name) <= 1.0:
                raise ValueError(f"{name} must be in [0, 1]")


_POPULAR_POOL = 8  # size of the site-wide "Most popular" pool each page shows a subset of


@dataclass(frozen=True)
class _Site:
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
    url: str
    when: date
    section: str
    headline: str
    author: str
    # ("p", segs) | ("ul", (segs, ...)) | ("figure", caption, src) | ("ad",) | ("readmore", headline, url) |
    # ("promo",); segs are (text, tag) pairs, tag "" or "span:ID", "a:HREF", "em", "strong", "b"
    blocks: tuple[tuple, ...]
    popular: tuple[tuple[str, str], ...]
    related: tuple[tuple[str, str], ...]
    comments: tuple[tuple[str, str], ...]  # (user, text)
    tags: tuple[str, ...]
    token: str  # per-page ad/cache-busting id
    minute: int  # time of day of publication, in minutes


def generate_site(
    domain: str, n_pages: int, *, seed: int = 0, style: SiteStyle | None = None
) -> list[GeneratedPage]:
    """Generate ``n_pages`` article pages of one news site at ``domain``; same arguments, same bytes."""
    if n_pages < 0:
        raise ValueError("n_pages must be >= 0")
    style = style or SiteStyle()
    site = _make_site(random.Random(f"{domain}|{seed}|site"), domain, style)
    render = _render_table if style.layout == "table" else _render_div
    out = []
    for i in range(n_pages):
        page = _make_page(random.Random(f"{domain}|{seed}|page|{i}"), site, style, i)
        text = render(site, page, style)
        out.append(GeneratedPage(page.url, text.encode(style.charset, "xmlcharrefreplace"), _gold(page),
                                 style.charset))  # fmt: skip
    return out


def write_site(pages: Iterable[GeneratedPage], directory: str | Path) -> list[Path]:
    """Write each page as ``<page_id>.html`` (its bytes), ``.txt`` (gold, UTF-8) and ``.json`` (meta).

    The layout of the evaluation data (``data/*/README.md``); returns the ``.html`` paths in page order.
    """
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    paths = []
    for page in pages:
        host = urlsplit(page.url).hostname or ""
        meta = {"url": page.url, "site": host.removeprefix("www."), "dataset": "sitegen", "page_id": page.page_id,
                "sha256_html": hashlib.sha256(page.html).hexdigest(), "charset": page.charset}  # fmt: skip
        path = directory / f"{page.page_id}.html"
        path.write_bytes(page.html)
        path.with_suffix(".txt").write_bytes((page.gold + "\n").encode("utf-8"))
        path.with_suffix(".json").write_bytes(
            (json.dumps(meta, indent=1, ensure_ascii=False) + "\n").encode()
        )
        paths.append(path)
    return paths


# --- content -------------------------------------------------------------------------------------------------------


def _person(rng: random.Random) -> str:
    return f"{rng.choice(_FIRST)} {rng.choice(_LAST)}"


def _amount(rng: random.Random) -> str:
    kind = rng.randrange(5)
    if kind == 0:
        return f"{rng.randint(1, 9)},{rng.randrange(1000):03d}"
    if kind == 1:
        return f"${rng.randint(1, 90)}.{rng.randint(1, 9)} million"
    if kind == 2:
        return f"€{rng.randint(2, 400)},000"
    if kind == 3:
        return f"{rng.randint(3, 80)} percent"
    return str(rng.randint(2, 95))


def _sentence(rng: random.Random) -> list[Seg]:
    """One plausible news sentence; names, organisations, places, numbers and quotes are marked by kind."""
    org, place, person = ("org", rng.choice(_ORGS)), ("place", rng.choice(_PLACES)), ("person", _person(rng))
    noun, plural, adj, when = (
        rng.choice(_NOUNS),
        rng.choice(_PLURALS),
        rng.choice(_ADJECTIVES),
        rng.choice(_TIMES),
    )
    past, num = rng.choice(_VERBS)[2], ("number", str(rng.randint(12, 900)))
    patterns: list[tuple[str | tuple[str, str], ...]] = [
        (org, f" {rng.choice(_ADVERBS)} {past} the {adj} {noun} {when}, a move that could affect ", num,
         f" {plural} in ", place, "."),
        (person, f", {rng.choice(_ROLES)} of ", org, f", said the {noun} would cost about ", ("number", _amount(rng)),
         "."),
        ("“", ("quote", rng.choice(_QUOTES)), ",” said ", person, f", who {past} the {noun} {when}."),
        (f"The {adj} {noun} is expected to be finished by {rng.choice(('May', 'June', 'October', 'December'))} ",
         ("number", str(rng.randint(2025, 2031))), ", according to ", org, "."),
        (f"{rng.choice(_CONNECTORS)}, ", num, f" {plural} {past} the {noun} in ", place, f" {when}."),
        (("number", f"{rng.randint(3, 90)} percent"), f" of {plural} surveyed by ", org,
         f" said they {past} the {noun}."),
        ("The report, published by ", org, f" {when}, found that {plural} in ", place, " paid ",
         ("number", f"{rng.randint(2, 40)} percent"), " more than a year earlier."),
        (person, f" told reporters that the {noun} was “{adj} but necessary” and that ", org,
         " would decide within weeks."),
        ("Critics in ", place, f" say the {noun} ignores the needs of {plural}, while supporters point to ",
         ("number", _amount(rng)), " in new funding."),
        (f"{rng.choice(_CONNECTORS)}, {rng.choice(_PLURALS)} {past} plans for a {rng.choice(_ADJECTIVES)} ",
         f"{rng.choice(_NOUNS)} near ", place, "."),
    ]  # fmt: skip
    segs = [(p[1], p[0]) if isinstance(p, tuple) else (p, "") for p in rng.choice(patterns)]
    text, kind = segs[0]
    segs[0] = (text[0].upper() + text[1:], kind)
    return segs


def _paragraph(rng: random.Random, n_sentences: int) -> list[Seg]:
    segs: list[Seg] = []
    for k in range(n_sentences):
        segs += [(" ", "")] * (k > 0) + _sentence(rng)
    return segs


def _markup(rng: random.Random, segs: Sequence[Seg], ids: list[str]) -> tuple[Seg, ...]:
    """Turn the kinds of segments into inline tags, ``ids`` supplying ``<span>`` ids (the paper's Figure 1)."""
    out = []
    for text, kind in segs:
        tag = ""
        if kind and rng.random() < 2 / 3:
            if kind in ("person", "org") and rng.random() < 0.5:
                tag = f"span:{ids.pop(0)}"
            elif kind in ("person", "org", "place"):
                tag = f"a:/topics/{_slug(text)}/"
            else:
                tag = {"quote": "em", "number": rng.choice(("strong", "b"))}.get(kind, "strong")
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
    text = f"{subject} {verb} {rng.choice(_ADJECTIVES)} {rng.choice(_NOUNS)}{tail}"  # fmt: skip
    return text[0].upper() + text[1:]


def _slug(text: str, words: int = 6) -> str:
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    return "-".join(re.findall(r"[a-z0-9]+", ascii_text.lower())[:words])


def _article_url(site: _Site, section: str, when: date, number: int, headline: str) -> str:
    return f"https://{site.domain}/{section.lower()}/{when.year}/{when.month:02d}/{number}-{_slug(headline)}.html"


def _link(rng: random.Random, site: _Site, when: date, number: int) -> tuple[str, str]:
    """(headline, url) of another, older article of the site."""
    headline = _headline(rng)
    older = when - timedelta(days=rng.randint(1, 60))
    return headline, _article_url(
        site, rng.choice(site.sections), older, number - rng.randint(1, 900), headline
    )


def _make_site(rng: random.Random, domain: str, style: SiteStyle) -> _Site:
    labels = [
        x for x in domain.lower().split(".") if x not in ("www", "news", "com", "org", "net", "co", "uk")
    ]
    brand = (max(labels, key=len) if labels else "daily").replace("-", " ").title()
    era = date(2005, 1, 3) if style.layout == "table" else date(2024, 1, 8)
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
        address=f"{rng.randint(10, 990)} {rng.choice(('Main', 'Harbor', 'Union', 'Market'))} Street, "
        f"{rng.choice(_PLACES)}",
    )
    popular = tuple(_link(rng, site, site.base_date, site.base_number) for _ in range(_POPULAR_POOL))
    return replace(site, popular=popular)


def _make_page(rng: random.Random, site: _Site, style: SiteStyle, index: int) -> _Page:
    when = site.base_date + timedelta(days=2 * index + rng.randrange(2))
    number = site.base_number + 17 * index + rng.randrange(17)
    section, headline, author = rng.choice(site.sections), _headline(rng), _person(rng)
    stamp = rng.randrange(10**9, 2 * 10**9)
    ids = [f"lw_{stamp}_{k}" for k in range(1000)]
    paragraphs = [_paragraph(rng, rng.randint(2, 4))]
    if rng.random() < 0.5:  # a dateline opens the story: "RIVERTON — The city council …"
        paragraphs[0][:0] = [(rng.choice(_PLACES).upper(), "dateline"), (" — ", "")]
    paragraphs += [_paragraph(rng, rng.randint(1, 5)) for _ in range(rng.randint(*style.paragraphs) - 1)]
    blocks: list[tuple] = []
    for segs in paragraphs:
        marked = rng.random() < style.inline_markup_rate
        blocks.append(("p", _markup(rng, segs, ids) if marked else tuple((t, "") for t, _ in segs)))
    if rng.random() < style.list_rate:
        marked = rng.random() < style.inline_markup_rate
        items = tuple(_markup(rng, _sentence(rng), ids if marked else []) if marked else
                      tuple((t, "") for t, _ in _sentence(rng)) for _ in range(rng.randint(3, 5)))  # fmt: skip
        blocks.insert(rng.randint(1, len(blocks)), ("ul", items))
    if rng.random() < style.figure_rate:
        caption = (
            f"{_person(rng)} at the {rng.choice(_NOUNS)} site in {rng.choice(_PLACES)} {rng.choice(_TIMES)}."
        )
        blocks.insert(
            rng.randint(1, len(blocks)), ("figure", caption, f"/img/{when.year}/{number}-{index % 9}.jpg")
        )
    if style.ads and len(blocks) > 2:
        blocks.insert(2, ("ad",))
    if rng.random() < style.read_more_rate:
        blocks.insert(rng.randint(1, len(blocks)), ("readmore", *_link(rng, site, when, number)))
    if style.in_article_promo:
        blocks.append(("promo",))
    comments = []
    if rng.random() < style.comments_rate:
        for _ in range(rng.randint(1, 5)):
            text = _plain(_paragraph(rng, rng.randint(1, 2)))
            comments.append(
                (rng.choice(_USERNAMES), rng.choice(("", "Totally agree. ", "Not again. ")) + text)
            )
    return _Page(
        url=_article_url(site, section, when, number, headline),
        when=when,
        section=section,
        headline=headline,
        author=author,
        blocks=tuple(blocks),
        popular=tuple(site.popular[k] for k in sorted(rng.sample(range(_POPULAR_POOL), style.popular_items))),
        related=tuple(_link(rng, site, when, number) for _ in range(style.related_links)),
        comments=tuple(comments),
        tags=(*rng.sample(_PLACES, 2), section),
        token=f"{rng.getrandbits(48):012x}",
        minute=rng.randrange(6 * 60, 22 * 60),
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


# --- rendering -----------------------------------------------------------------------------------------------------

_DAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
_MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
           "November", "December")  # fmt: skip


def _e(text: str) -> str:
    return html.escape(text, quote=True)


def _inline(segs: Iterable[Seg]) -> str:
    """The HTML of marked-up segments: ``span:ID``, ``a:HREF`` or a bare tag name around escaped text."""
    out = []
    for text, tag in segs:
        t = html.escape(text, quote=False)
        name, _, arg = tag.partition(":")
        if name == "span":
            out.append(f'<span class="yshortcuts" id="{arg}">{t}</span>')
        elif name == "a":
            out.append(f'<a href="{arg}">{t}</a>')
        else:
            out.append(f"<{name}>{t}</{name}>" if name else t)
    return "".join(out)


def _wrap(source: str, width: int = 78) -> str:
    """Hard-wrap HTML at spaces outside tags, as hand-edited 2005 pages were (only whitespace changes)."""
    out, col, in_tag = [], 0, False
    for ch in source:
        in_tag = (in_tag or ch == "<") and ch != ">"
        if ch == " " and not in_tag and col >= width:
            out.append("\n")
            col = 0
        else:
            out.append(ch)
            col = 0 if ch == "\n" else col + 1
    return "".join(out)


def _long_date(d: date) -> str:
    return f"{_DAYS[d.weekday()]}, {_MONTHS[d.month - 1]} {d.day}, {d.year}"


def _clock(minute: int) -> str:
    hour, mins = divmod(minute, 60)
    return f"{(hour - 1) % 12 + 1}:{mins:02d} {'a.m.' if hour < 12 else 'p.m.'}"


def _ad(site: _Site, page: _Page, slot: str, size: tuple[int, int], indent: str) -> list[str]:
    w, h = size
    click = f"https://{site.ad_host}/click?slot={slot}&amp;c={page.token}"
    return [
        f'{indent}<div class="ad ad-{slot}" id="ad-{slot}">',
        f'{indent}  <script>window.adq=window.adq||[];adq.push({{slot:"{slot}",page:"{page.token}"}});</script>',
        f'{indent}  <a href="{click}" rel="sponsored"><img src="https://{site.ad_host}/b/{w}x{h}/{page.token}.gif" '
        f'width="{w}" height="{h}" alt="Advertisement"></a>',
        f'{indent}  <span class="ad-label">Advertisement</span>',
        f"{indent}</div>",
    ]


def _render_div(site: _Site, page: _Page, style: SiteStyle) -> str:
    """A modern page: HEADER, MAIN.ARTICLE, ASIDE, FOOTER (see the module doc for the paths)."""
    year = page.when.year
    ld = json.dumps({"@context": "https://schema.org", "@type": "NewsArticle", "headline": page.headline,
                     "datePublished": page.when.isoformat(), "author": {"@type": "Person", "name": page.author}},
                    ensure_ascii=False).replace("</", "<\\/")  # fmt: skip
    first = _plain(next(b[1] for b in page.blocks if b[0] == "p"))
    lines = [
        "<!DOCTYPE html>",
        '<html lang="en">',
        "<head>",
        f'<meta charset="{style.charset}">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{_e(page.headline)} | {_e(site.name)}</title>",
        f'<meta name="description" content="{_e(first[:150])}">',
        f'<link rel="canonical" href="{page.url}">',
        '<link rel="stylesheet" href="/static/css/main.css?v=3">',
        f'<script type="application/ld+json">{ld}</script>',
        "<style>.ad{min-height:90px}.visually-hidden{position:absolute;left:-9999px}</style>",
        "</head>",
        '<body class="article-page">',
    ]
    if style.ads:
        lines += _ad(site, page, "leaderboard", (728, 90), "")
    lines += [
        '<header class="site-header">',
        '  <div class="masthead">',
        f'    <a class="logo" href="/"><img src="/static/img/logo.svg" alt="{_e(site.name)}" width="240" '
        'height="40"></a>',
        f'    <p class="tagline">{_e(site.tagline)}</p>',
        f'    <p class="today">{_long_date(page.when)}</p>',
        "  </div>",
        '  <nav class="main-nav" aria-label="Sections">',
        "    <ul>",
        '      <li><a href="/">Home</a></li>',
        *(f'      <li><a href="/{s.lower()}/">{s}</a></li>' for s in site.sections),
        "    </ul>",
        "  </nav>",
        '  <form class="search" action="/search" method="get"><label class="visually-hidden" for="q">Search</label>'
        f'<input id="q" name="q" type="search" placeholder="Search {_e(site.name)}"><button type="submit">Search'
        "</button></form>",
        "</header>",
        '<div class="page-wrap">',
        '  <main id="main">',
        '    <article class="story">',
        f'      <nav class="breadcrumb"><a href="/">Home</a> › <a href="/{page.section.lower()}/">{page.section}</a>'
        "</nav>",
        f'      <h1 class="headline">{_e(page.headline)}</h1>',
        f'      <div class="byline">By <a href="/authors/{_slug(page.author)}/" rel="author">{_e(page.author)}</a> · '
        f'<time datetime="{page.when.isoformat()}">{_MONTHS[page.when.month - 1]} {page.when.day}, {year}, '
        f"{_clock(page.minute)}</time></div>",
        f'      <div class="share"><a href="https://www.facebook.com/sharer.php?u={page.url}">Facebook</a> '
        f'<a href="https://x.com/intent/post?url={page.url}">X</a> <a href="mailto:?subject={_e(_slug(page.headline))}'
        '">Email</a></div>',
        '      <div class="story-body">',
    ]
    for block in page.blocks:
        kind = block[0]
        if kind == "p":
            lines.append(f"        <p>{_inline(block[1])}</p>")
        elif kind == "ul":
            lines += ['        <ul class="key-points">', *(f"          <li>{_inline(i)}</li>" for i in block[1]),
                      "        </ul>"]  # fmt: skip
        elif kind == "figure":
            lines += [
                '        <figure class="photo">',
                f'          <img src="{block[2]}" alt="Photo: {page.section}" width="800" height="533" '
                'loading="lazy">',
                f"          <figcaption>{_e(block[1])}</figcaption>",
                "        </figure>",
            ]
        elif kind == "ad":
            lines += _ad(site, page, "inline", (300, 250), "        ")
        elif kind == "readmore":
            lines.append(f'        <p class="read-more"><strong>Read more:</strong> <a href="{block[2]}">'
                         f"{_e(block[1])}</a></p>")  # fmt: skip
        elif kind == "promo":
            lines.append(f'        <p class="promo"><em>Sign up for {_e(site.name)}’s morning briefing and get the '
                         "day’s top stories in your inbox.</em></p>")  # fmt: skip
    lines += [
        "      </div>",
        '      <div class="tags">Topics: '
        + ", ".join(f'<a href="/topics/{_slug(t)}/">{_e(t)}</a>' for t in page.tags)
        + "</div>",
        "    </article>",
    ]
    if page.related:
        lines += ['    <section class="related">', "      <h2>Related articles</h2>", "      <ul>",
                  *(f'        <li><a href="{u}">{_e(h)}</a></li>' for h, u in page.related), "      </ul>",
                  "    </section>"]  # fmt: skip
    if page.comments:
        lines += [
            '    <section class="comments" id="comments">',
            f"      <h2>Comments ({len(page.comments)})</h2>",
        ]
        for k, (user, text) in enumerate(page.comments):
            lines += ['      <div class="comment">',
                      f'        <p class="comment-meta"><b>{_e(user)}</b> · {k + 2} hours ago</p>',
                      f'        <p class="comment-text">{_e(text)}</p>', "      </div>"]  # fmt: skip
        lines.append("    </section>")
    lines.append("  </main>")
    if style.sidebar:
        lines += ['  <aside class="sidebar">']
        if page.popular:
            lines += ['    <section class="popular">', "      <h2>Most popular</h2>", "      <ol>",
                      *(f'        <li><a href="{u}">{_e(h)}</a></li>' for h, u in page.popular), "      </ol>",
                      "    </section>"]  # fmt: skip
        if style.ads:
            lines += _ad(site, page, "sidebar", (300, 600), "    ")
        if style.newsletter:
            lines += [
                '    <section class="newsletter">',
                "      <h2>The Morning Briefing</h2>",
                f"      <p>Get the day’s top stories from {_e(site.name)} in your inbox every morning.</p>",
                '      <form action="/newsletter" method="post"><input type="email" name="email" '
                'placeholder="Your email"><button type="submit">Sign up</button></form>',
                "    </section>",
            ]
        lines.append("  </aside>")
    lines.append("</div>")
    if style.footer:
        lines += ['<footer class="site-footer">', "  <nav>", "    <ul>",
                  *(f'      <li><a href="/{_slug(x)}/">{x}</a></li>' for x in _FOOTER_LINKS), "    </ul>", "  </nav>",
                  f'  <p class="copyright">© {year} {_e(site.name)}. All rights reserved.</p>',
                  f"  <address>{_e(site.name)}, {_e(site.address)}</address>", "</footer>"]  # fmt: skip
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
    year = page.when.year
    ad_js = (f"<SCRIPT language=\"JavaScript\" type=\"text/javascript\">\n<!--\ndocument.write('<scr'+'ipt src="
             f"\"http://{site.ad_host}/js/{page.token}.js\"></scr'+'ipt>');\n//-->\n</SCRIPT>")  # fmt: skip
    ad_img = (f'<A href="http://{site.ad_host}/click?c={page.token}"><IMG src="http://{site.ad_host}/b/{page.token}'
              '.gif" width=468 height=60 border=0 alt="Advertisement"></A>')  # fmt: skip
    lines = [
        '<!DOCTYPE HTML PUBLIC "-//W3C//DTD HTML 4.01 Transitional//EN" "http://www.w3.org/TR/html4/loose.dtd">',
        "<HTML>",
        "<HEAD>",
        f'<META http-equiv="Content-Type" content="text/html; charset={style.charset}">',
        f"<TITLE>{_e(site.name)} - {_e(page.headline)}</TITLE>",
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
        f'<TR><TD width=180><A href="/"><IMG src="/images/logo.gif" width=180 height=60 border=0 alt="{_e(site.name)}">'
        f"</A></TD>",
        f'<TD align="right">{ad_js if style.ads else ""}{ad_img if style.ads else "&nbsp;"}</TD></TR>',
        '<TR><TD colspan=2 bgcolor="#003366" class="navbar"><FONT color="#FFFFFF" face="Arial" size="-1">'
        + _wrap("&nbsp;|&nbsp;".join(f'<A href="/{s.lower()}/" class="nav">{s}</A>' for s in site.sections))
        + "</FONT></TD></TR>",
        f'<TR><TD colspan=2 class="dateline">{_long_date(page.when)} &nbsp;|&nbsp; {_e(site.tagline)}</TD></TR>',
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
        '<FORM action="/search" method="get"><INPUT type="text" name="q" size=12><INPUT type="submit" value="Search">'
        "</FORM>",
        "</TD>",
        '<TD width=440 valign="top" class="content">',
        f'<TABLE width="100%" border=0 cellpadding=0 cellspacing=0><TR><TD class="kicker"><A href="/'
        f'{page.section.lower()}/">{page.section.upper()}</A></TD></TR></TABLE>',
        f"<H1>{_e(page.headline)}</H1>",
        f'<SPAN class="byline">By {_e(page.author)}, Staff Writer</SPAN><BR>',
        f'<SPAN class="timestamp">{_long_date(page.when)} Posted: {page.minute // 60:02d}{page.minute % 60:02d} GMT'
        "</SPAN>",
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
            lines.append(f'<TABLE align="right" width=210 border=0 cellpadding=2 cellspacing=0><TR><TD><IMG src='
                         f'"{block[2]}" width=200 height=133 border=0 alt=""></TD></TR><TR><TD class="caption">'
                         f"{_e(block[1])}</TD></TR></TABLE>")  # fmt: skip
        elif kind == "ad":
            lines.append(f'<TABLE align="right" width=310 border=0><TR><TD class="adbox">{ad_js}<BR><SMALL>'
                         "Advertisement</SMALL></TD></TR></TABLE>")  # fmt: skip
        elif kind == "readmore":
            lines.append(f'<P><B>RELATED:</B> <A href="{block[2]}">{_e(block[1])}</A></P>')
        elif kind == "promo":
            lines.append(_wrap(f"<P><I>Copyright {year} {_e(site.name)}. All rights reserved. This material may not "
                               "be published, broadcast, rewritten, or redistributed.</I></P>"))  # fmt: skip
    lines += ["</TD></TR></TABLE>", "<!-- END STORY BODY -->"]
    if page.related:
        lines += [
            '<TABLE width="100%" border=0 cellpadding=4 cellspacing=0><TR><TD class="related">',
            "<B>RELATED STORIES</B><BR>",
            *(f'&#149;&nbsp;<A href="{u}">{_e(h)}</A><BR>' for h, u in page.related),
            "</TD></TR></TABLE>",
        ]
    if page.comments:
        lines += ['<TABLE width="100%" border=0 cellpadding=4 cellspacing=0>',
                  f'<TR><TD class="commenthead"><B>Reader comments ({len(page.comments)})</B></TD></TR>',
                  *(f'<TR><TD class="comment"><B>{_e(u)}</B> wrote:<BR>{_e(t)}</TD></TR>' for u, t in page.comments),
                  "</TABLE>"]  # fmt: skip
    lines += ["</TD>", '<TD width=180 valign="top" class="rightcol">']
    if style.sidebar and page.popular:
        lines += [
            '<TABLE width="100%" border=0 cellpadding=2 cellspacing=0>',
            '<TR><TD class="boxhead"><B>MOST POPULAR</B></TD></TR>',
            '<TR><TD class="boxbody"><OL>',
            *(f'<LI><A href="{u}">{_e(h)}</A></LI>' for h, u in page.popular),
            "</OL></TD></TR>",
            "</TABLE>",
        ]
    if style.sidebar and style.ads:
        lines.append(f"<CENTER>{ad_js}<BR><SMALL>Advertisement</SMALL></CENTER>")
    if style.sidebar and style.newsletter:
        lines += ['<TABLE width="100%" border=0 cellpadding=2 cellspacing=0>',
                  '<TR><TD class="boxhead"><B>E-MAIL NEWSLETTER</B></TD></TR>',
                  f'<TR><TD><FONT size="-1">Get the day’s top stories from {_e(site.name)} in your inbox.</FONT>'
                  '<FORM action="/newsletter" method="post"><INPUT type="text" name="email" size=14>'
                  '<INPUT type="submit" value="Subscribe"></FORM></TD></TR>', "</TABLE>"]  # fmt: skip
    lines += ["</TD>", "</TR>", "</TABLE>"]
    if style.footer:
        lines += ["<!-- BEGIN FOOTER -->", "<TABLE width=770 border=0 cellpadding=4 cellspacing=0>",
                  '<TR><TD align="center" class="footer"><FONT size="-2">'
                  + " | ".join(f'<A href="/{_slug(x)}/">{x}</A>' for x in _FOOTER_LINKS) + "<BR>",
                  f"&copy; {year} {_e(site.name)}. All rights reserved.<BR>{_e(site.address)}</FONT></TD></TR>",
                  "</TABLE>"]  # fmt: skip
    lines += ["</BODY>", "</HTML>", ""]
    return "\n".join(lines)
