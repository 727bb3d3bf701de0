"""The names of fce's choices, as string enumerations: what a result, a template or an option says, in one place
below every stage that uses them. Each member is its string (``FallbackReason.LOW_FIT == "low-fit"``), so JSON,
stored templates and command-line options read and write them as they always did."""

from __future__ import annotations

from enum import StrEnum

__all__ = ["CheckRule", "DetectionMode", "FallbackReason", "OutputFormat", "PathStyle", "Rules", "Winner"]


class FallbackReason(StrEnum):
    """Why a page was extracted by the fallback method rather than its site's template (``fallback_reason``)."""

    NO_TEMPLATE = "no-template"  # the site has no stored template
    LOW_FIT = "low-fit"  # no layout's fit reached the minimum (fce.detect.MIN_FIT)
    EMPTY = "empty"  # the template extracted nothing
    CHECK = "check"  # the check of the template's result chose the fallback's (fce.pipeline.CHECK_MIN_SHARE)
    TEMPLATE_ERROR = "template-error"  # the stored template could not be read (corrupt, another schema)
    STORE_ERROR = "store-error"  # the store could not be reached


class DetectionMode(StrEnum):
    """How a template is applied (fce.detect)."""

    GUIDED = "guided"  # the site's boilerplate removed, then the content scored
    RULES = "rules"  # the FastCE paper's three extraction rules


class Rules(StrEnum):
    """The extraction rules of the rules mode (fce.learn.RULES)."""

    PAPER = "paper"
    RECURSIVE = "recursive"


class PathStyle(StrEnum):
    """How block paths are spelled (fce.blocks.PATH_STYLES)."""

    PAPER = "paper"  # tag names only: HTML.BODY.TABLE.TR.P
    QUALIFIED = "qualified"  # tags with id and class names: HTML.BODY.DIV[#main .story].P


class CheckRule(StrEnum):
    """The rule that decided the check of a template's result (fce.extraction.Check)."""

    KEPT_TOO_LITTLE = "kept-too-little"  # the fallback won: the template kept next to nothing
    FALLBACK_AGREES = "fallback-agrees"  # the fallback won: it reads about what the site model expects
    KEPT_ENOUGH = "kept-enough"  # the template won
    NARROWED = "narrowed"  # the template won: guided scoring kept nothing, and the fallback's text holds all of
    # the text on the template's content paths among more (fce.pipeline.narrowed)


class Winner(StrEnum):
    """Whose extraction a checked result is."""

    TEMPLATE = "template"
    FALLBACK = "fallback"


class OutputFormat(StrEnum):
    """What an extraction is given as (``fce detect --format``; ``fce.pipeline.extract(..., output=…)``)."""

    TEXT = "text"  # the plain text, a line per block
    JSON = "json"  # the text with the extraction's record and the page's metadata (the CLI's and the HTTP API's)
    MARKDOWN = "markdown"  # headings, lists, tables, code, emphasis (and links, asked for): fce.render
    HTML = "html"  # clean semantic HTML of the same structure
