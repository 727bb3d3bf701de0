"""fce — FastContentExtractor: learn per-site templates of where the main content of web pages sits, and extract
it in document order; single-page methods for sites not learned.

    >>> import fce
    >>> result = fce.extract_html(html, "https://example.com/story")   # text, markdown, metadata
    >>> pages = [fce.parse_page(open(p, "rb").read(), url=u) for p, u in sample]
    >>> record = fce.learn_site(pages, "example.com")                   # the site's layouts
    >>> fce.extract(fce.parse_page(html), record).text
"""

from __future__ import annotations

import importlib
import importlib.util
from typing import TYPE_CHECKING, Any

import fce._accel  # noqa: F401  (first: where FCE_NO_ACCEL is set, the compiled modules are not imported)
from fce.version import __version__

# The public names are imported when first used (PEP 562): ``import fce`` loads neither lxml's tree builder nor
# numpy, scipy and scikit-learn until a name needs them, so that the ``fce`` command (fce._entry) can configure
# them first, and a program that uses one function does not pay for the others.
_EXPORTS = {
    "extract_html": "fce.api",
    "BLOCK_TAGS": "fce.blocks",
    "Block": "fce.blocks",
    "BlockTree": "fce.blocks",
    "blocks_of": "fce.blocks",
    "segment": "fce.blocks",
    "ContentExtractor": "fce.content_extractor",
    "MIN_FIT": "fce.detect",
    "Detector": "fce.detect",
    "EmptyPageError": "fce.errors",
    "FceError": "fce.errors",
    "FetchError": "fce.errors",
    "InputError": "fce.errors",
    "LearnError": "fce.errors",
    "MissingExtraError": "fce.errors",
    "NotHTMLError": "fce.errors",
    "PageTimeoutError": "fce.errors",
    "PageTooLargeError": "fce.errors",
    "SourceError": "fce.errors",
    "StoreFailure": "fce.errors",
    "TemplateError": "fce.errors",
    "TemplateNotFoundError": "fce.errors",
    "UnknownMethodError": "fce.errors",
    "ExtractedBlock": "fce.extraction",
    "Extraction": "fce.extraction",
    "SiteDetector": "fce.layouts",
    "is_stale": "fce.layouts",
    "LayoutLearner": "fce.learn",
    "TemplateLearner": "fce.learn",
    "Metadata": "fce.metadata",
    "available_methods": "fce.methods",
    "get_method": "fce.methods",
    "run_method": "fce.methods",
    "Page": "fce.parse",
    "parse_page": "fce.parse",
    "DEFAULT_FALLBACK": "fce.pipeline",
    "Extractor": "fce.pipeline",
    "extract": "fce.pipeline",
    "learn_site": "fce.pipeline",
    "learn_template": "fce.pipeline",
    "normalize_site": "fce.sites",
    "site_of": "fce.sites",
    "NoiseBlock": "fce.template",
    "SiteTemplates": "fce.template",
    "Template": "fce.template",
}


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:  # a submodule (``fce.pipeline`` after ``import fce``), or nothing
        if importlib.util.find_spec(f"fce.{name}") is None:
            raise AttributeError(f"module 'fce' has no attribute {name!r}")
        return importlib.import_module(f"fce.{name}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value  # (found directly from now on)
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_EXPORTS})


if TYPE_CHECKING:
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
