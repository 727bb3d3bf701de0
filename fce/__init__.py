"""fce — FastContentExtractor: learn per-site templates of where the main content of web pages sits, and extract
it in document order; single-page methods for sites not learned.

    >>> import fce
    >>> result = fce.extract_html(html, "https://example.com/story")   # text, markdown, metadata
    >>> pages = [fce.parse_page(open(p, "rb").read(), url=u) for p, u in sample]
    >>> record = fce.learn_site(pages, "example.com")                   # the site's layouts
    >>> fce.extract(fce.parse_page(html), record).text
"""

from __future__ import annotations

import fce._accel  # noqa: F401  (first: where FCE_NO_ACCEL is set, the compiled modules are not imported)
from fce.api import extract_html
from fce.blocks import BLOCK_TAGS, Block, BlockTree, blocks_of, segment
from fce.content_extractor import ContentExtractor
from fce.detect import MIN_FIT, Detector
from fce.errors import (
    EmptyPageError,
    FceError,
    FetchError,
    InputError,
    LearnError,
    MissingExtraError,
    NotHTMLError,
    PageTimeoutError,
    PageTooLargeError,
    SourceError,
    StoreFailure,
    TemplateError,
    TemplateNotFoundError,
    UnknownMethodError,
)
from fce.extraction import ExtractedBlock, Extraction
from fce.layouts import SiteDetector, is_stale
from fce.learn import LayoutLearner, TemplateLearner
from fce.metadata import Metadata
from fce.methods import available_methods, get_method, run_method
from fce.parse import Page, parse_page
from fce.pipeline import DEFAULT_FALLBACK, Extractor, extract, learn_site, learn_template
from fce.sites import normalize_site, site_of
from fce.template import NoiseBlock, SiteTemplates, Template
from fce.version import __version__

__all__ = [
    "BLOCK_TAGS",
    "DEFAULT_FALLBACK",
    "MIN_FIT",
    "Block",
    "BlockTree",
    "ContentExtractor",
    "Detector",
    "EmptyPageError",
    "ExtractedBlock",
    "Extraction",
    "Extractor",
    "FceError",
    "FetchError",
    "Metadata",
    "MissingExtraError",
    "InputError",
    "LayoutLearner",
    "LearnError",
    "NoiseBlock",
    "NotHTMLError",
    "Page",
    "PageTimeoutError",
    "PageTooLargeError",
    "SiteDetector",
    "SiteTemplates",
    "SourceError",
    "StoreFailure",
    "Template",
    "TemplateError",
    "TemplateLearner",
    "TemplateNotFoundError",
    "UnknownMethodError",
    "__version__",
    "available_methods",
    "blocks_of",
    "extract",
    "extract_html",
    "get_method",
    "is_stale",
    "learn_site",
    "learn_template",
    "normalize_site",
    "parse_page",
    "run_method",
    "segment",
    "site_of",
]
