"""Shared helpers for tests: generated sites parsed once per session (pages are immutable values)."""

from functools import cache
from typing import Literal

from fce.parse import parse_page
from tests.sitegen import SiteStyle, generate_site


@cache
def site_pages(domain: str = "news.test", n: int = 30, seed: int = 1, layout: Literal["div", "table"] = "div"):
    generated = generate_site(domain, n, seed=seed, style=SiteStyle(layout=layout))
    return tuple((g, parse_page(g.html, url=g.url)) for g in generated)
