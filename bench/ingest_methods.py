"""The extractors ``bench.ingest_bench`` runs through ``fce ingest`` besides fce's own, registered as fce methods on
import: the bench adds this module to the workers' preload, since they start from a forkserver and inherit
nothing the driver registered."""

from __future__ import annotations

from typing import Any

import lxml.html

from fce.extraction import ExtractedBlock
from fce.methods import register

__all__ = ["NOTHING", "TRAFILATURA"]

TRAFILATURA = "trafilatura-bench"
NOTHING = "nothing-bench"


@register(TRAFILATURA, paper="trafilatura (Barbaresi 2021)", description="trafilatura.extract, defaults")
def _trafilatura(page: Any) -> list[ExtractedBlock]:
    """trafilatura's plain text as one block. trafilatura only takes an ``lxml.html`` tree, and fce's parsed tree is
    a plain ``etree`` one, so the page is serialised (about 1 ms for 100 KB) and trafilatura parses it itself, as
    it does from bytes: its run pays fce's parse too (the pipeline parses every record), a few ms per page, about
    a tenth of trafilatura's time."""
    import trafilatura  # here, not at the top: the pipeline floor run imports this module too

    text = trafilatura.extract(lxml.html.tostring(page.root)) or ""
    return [ExtractedBlock("trafilatura", text, 0)] if text else []


@register(NOTHING, paper="-", description="returns nothing: the pipeline without extraction")
def _nothing(page: Any) -> list[ExtractedBlock]:
    """What is left is the pipeline's own cost (the ``pipeline floor`` run)."""
    return []
