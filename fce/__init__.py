"""fce — FastContentExtractor: learn per-site templates of where the main content of web pages sits, and extract
it in document order; single-page methods for sites not learned.

    >>> import fce
    >>> pages = [fce.parse_page(open(p, "rb").read()) for p in paths]
    >>> template = fce.TemplateLearner("example.com").fit(pages).template_
    >>> fce.extract(fce.parse_page(html), template).text
"""

from __future__ import annotations

__version__ = "0.1.0"

from fce.blocks import BLOCK_TAGS, Block, BlockTree, blocks_of, segment
from fce.content_extractor import ContentExtractor
from fce.detect import MIN_FIT, Detector
from fce.errors import (
    EmptyPageError,
    FceError,
    FetchError,
    InputError,
    LearnError,
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
from fce.methods import available_methods, get_method, run_method
from fce.parse import Page, parse_page
from fce.pipeline import DEFAULT_FALLBACK, Extractor, extract, learn_site, learn_template
from fce.sites import normalize_site, site_of
from fce.template import NoiseBlock, SiteTemplates, Template

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
