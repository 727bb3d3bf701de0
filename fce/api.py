"""The one call: a page's HTML in, its main content, structure and metadata out.

    >>> import fce
    >>> result = fce.extract_html(html, "https://example.com/2024/05/02/story")
    >>> result.text, result.markdown, result.metadata.title
    >>> result.to_dict()

With a template store (``store=``: a :class:`templates_store.TemplateStore` or a store URL, such as
``"sqlite:///templates.db"``), the page's site's learned template is applied, as ``fce detect`` does; without one,
fce's single-page method (:data:`fce.pipeline.DEFAULT_FALLBACK`).
"""

from __future__ import annotations

from fce.errors import StoreFailure
from fce.extraction import Extraction
from fce.kinds import OutputFormat
from fce.parse import parse_page
from fce.pipeline import DEFAULT_FALLBACK, Extractor, extract, parse_blocks
from fce.sites import normalize_site, site_of
from templates_store import StoreError, TemplateStore, open_store

__all__ = ["extract_html"]


def extract_html(
    html: str | bytes,
    url: str | None = None,
    *,
    site: str | None = None,
    store: TemplateStore | str | None = None,
    format: str = OutputFormat.MARKDOWN,  # noqa: A002 -- the word users know (trafilatura's output_format)
    links: bool = False,
    comments: bool = False,
    fallback: str = DEFAULT_FALLBACK,
    timeout: float | None = None,
) -> Extraction:
    """The main content of one page, in document order, with the page's metadata.

    ``html``: the page, as text or as its bytes (decoded as ``fce detect`` decodes them: the HTML's own charset
    declaration, else detection); ``url``: where it comes from (names its site, makes links absolute). ``site``
    overrides the site the URL (or the page's canonical link) names. ``format``: ``"markdown"`` (the default)
    fills ``.markdown``, ``"html"`` fills ``.html`` (clean semantic HTML), ``"text"`` neither; ``.text`` and
    ``.metadata`` are always there. ``links`` keeps links in the markdown. ``comments`` fills ``.comments`` with
    the text of the page's reader comments, which the content leaves out. ``timeout``: seconds for the page
    (:class:`~fce.errors.PageTimeoutError`).

    Raises :class:`~fce.errors.InputError` for a page that is not HTML (empty, binary, JSON, too large),
    :class:`~fce.errors.StoreFailure` for a store that cannot be reached, ``ValueError`` for an unknown ``format``.
    """
    output = OutputFormat(format)
    if output == OutputFormat.JSON:
        raise ValueError("format must be text, markdown or html; .to_dict() gives the JSON record")
    page = parse_page(html, url=url, blocks=parse_blocks(fallback))  # (as fce detect: the block tree from events)
    name = normalize_site(site) if site else site_of(page)
    detector = None
    if isinstance(store, str):
        try:
            opened = open_store(store)
        except StoreError as exc:
            raise StoreFailure(str(exc)) from None
        with opened:
            detector = Extractor(opened, fallback=fallback, record=False).detector(name)
    elif store is not None:
        detector = Extractor(store, fallback=fallback, record=False).detector(name)
    return extract(page, detector, site=name, fallback=fallback, timeout=timeout, metadata=True, output=output,
                   links=links, comments=comments)
