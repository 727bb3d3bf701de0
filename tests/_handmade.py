"""A small hand-made news site for the tests of site learning: each failure class of learning from a real crawl
sample (copies of one article, a page the template reads wrongly, mixed page types, few pages, furniture whose
text differs on every page) is made by choosing what goes into the sample.

Every page has the site's chrome (navigation, footer: the same text on every page), a headline that is a link (so
that learning's link-density filter never takes it for content: only the ``<title>`` says it is the headline),
the article's paragraphs, and a reader-comments box whose comments are unique prose under names that say nothing
(``div.talk > div.c > p``), so that only the site's consensus can tell them from the article.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from fce.parse import Page, parse_page

SITE = "times.example"

_WORDS = ("council harbor budget rail tunnel school hospital river market bridge report study plan vote mayor "
          "residents officials workers engineers growth delay cost winter summer station museum library park "
          "ferry port energy water street district county region minister court ruling season league team "
          "coach player festival concert theatre gallery record surprise agreement proposal funding").split()


def sentence(rng: random.Random, words: int) -> str:
    text = " ".join(rng.choice(_WORDS) for _ in range(words))
    return text[0].upper() + text[1:] + "."


def paragraph(rng: random.Random, sentences: int = 4) -> str:
    return " ".join(sentence(rng, rng.randint(9, 16)) for _ in range(sentences))


@dataclass(frozen=True)
class Article:
    """One article: its number (its URL), headline and paragraphs."""

    number: int
    title: str
    paragraphs: tuple[str, ...]

    @classmethod
    def make(cls, number: int, n_paragraphs: int = 6) -> Article:
        rng = random.Random(f"article|{number}")
        return cls(number, sentence(rng, 7).rstrip(".").title(),
                   tuple(paragraph(rng) for _ in range(n_paragraphs)))

    @property
    def gold(self) -> str:
        return "\n".join((self.title, *self.paragraphs))


def comments(number: int, n: int, sentences: int = 3) -> tuple[str, ...]:
    """``n`` reader comments of page ``number``: prose that no other page has."""
    rng = random.Random(f"comments|{number}")
    return tuple(paragraph(rng, sentences) for _ in range(n))


def article_html(article: Article, *, talk: tuple[str, ...] = (), url_suffix: str = "",
                 body_class: str = "body", top: str = "") -> str:
    """The page of ``article`` with the comments ``talk``; ``body_class`` names the box of its paragraphs; ``top``
    is markup between the headline and that box."""
    paragraphs = "\n".join(f"<p>{p}</p>" for p in article.paragraphs)
    comments_box = "\n".join(f'<div class="c"><span class="who">reader{i}</span><p>{c}</p></div>'
                             for i, c in enumerate(talk))
    return f"""<!doctype html><html><head><title>{article.title} - The Example Times</title>
<meta property="og:title" content="{article.title}"></head><body>
<div id="nav"><ul><li><a href="/">Home</a></li><li><a href="/world">World</a></li><li><a href="/sport">Sport</a></li>
<li><a href="/culture">Culture</a></li></ul>
<p class="tagline">The Example Times: news of the harbor town since 1887.</p></div>
<div class="wrap"><h2 class="hl"><a href="/a/{article.number}{url_suffix}">{article.title}</a></h2>{top}
<div class="{body_class}">
{paragraphs}
</div>
<div class="talk">
{comments_box}
</div></div>
<div id="foot"><p>Copyright The Example Times. All rights reserved. Reproduction without permission is forbidden.</p>
<p>Harbor Street 1, Example Town. Contact the newsroom for corrections and complaints.</p></div>
</body></html>"""


def listing_html(number: int, articles: list[Article]) -> str:
    """A section page: teasers of ``articles`` (linked headlines and a first sentence), no article of its own."""
    items = "\n".join(f'<li><a href="/a/{a.number}">{a.title}</a><p>{a.paragraphs[0][:90]}</p></li>' for a in articles)
    return f"""<!doctype html><html><head><title>Section {number} - The Example Times</title></head><body>
<div id="nav"><ul><li><a href="/">Home</a></li><li><a href="/world">World</a></li><li><a href="/sport">Sport</a></li>
<li><a href="/culture">Culture</a></li></ul>
<p class="tagline">The Example Times: news of the harbor town since 1887.</p></div>
<div class="list"><ul>
{items}
</ul></div>
<div id="foot"><p>Copyright The Example Times. All rights reserved. Reproduction without permission is forbidden.</p>
<p>Harbor Street 1, Example Town. Contact the newsroom for corrections and complaints.</p></div>
</body></html>"""


def page(html: str, url: str) -> Page:
    return parse_page(html.encode(), url=url)


def article_page(article: Article, *, talk: tuple[str, ...] = (), url: str | None = None,
                 body_class: str = "body", top: str = "") -> Page:
    return page(article_html(article, talk=talk, body_class=body_class, top=top),
                url or f"https://{SITE}/a/{article.number}")
