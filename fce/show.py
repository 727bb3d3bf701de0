"""Look at what fce keeps: the page with every block outlined and coloured by its fate (``fce show``).

    from fce.show import explain, render_html
    overlay = explain(page, template)                 # the same decision as fce.pipeline.extract
    pathlib.Path("out.html").write_text(render_html(page, overlay), encoding="utf-8")

:func:`explain` runs the detection pipeline (:func:`fce.pipeline.extract`: template, fit test, fallback) and gives
every block of the page one fate (:data:`FATES`):

* ``content`` — its text is in the template's extraction (:attr:`fce.detect.TemplateMatch.covered`);
* ``fallback`` — its text is in the extraction of the single-page method that ran instead (no template, low fit,
  or the template extracted nothing);
* ``noise-path`` — left out because of its path: in ``guided`` mode a path the template saw only as noise (the
  site's boilerplate, ``Detector.noise_paths``), in ``rules`` mode a path outside P;
* ``noise-similar`` — on a content path, but its text is similar (cosine above the template's threshold, FastCE
  §II) to a noise block the template stored for that path;
* ``other`` — left out for another reason (not chosen by the content scoring, a path never seen while learning).

:func:`render_html` writes one self-contained HTML file: the page with the page's own scripts, event handlers,
frames, plugins and every external resource removed (a Content-Security-Policy forbids what is left), each block
with text outlined in its fate's colour and its path as tooltip, and a side panel with a legend, the method,
the fit score and the extracted text. :func:`render_png` screenshots it through a headless Chromium.
"""

from __future__ import annotations

import copy
import html
import os
import re
import shutil
import subprocess
import tempfile
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from lxml import etree
from lxml import html as lxml_html

from fce.blocks import BLOCK_TAGS, SKIPPED_TAGS, BlockTree, blocks_of
from fce.content_extractor import block_counts
from fce.detect import DEFAULT_MODE, MIN_FIT, Detector
from fce.errors import BrowserError
from fce.extraction import Extraction
from fce.features import block_vectors
from fce.layouts import SiteDetector
from fce.methods import get_method
from fce.parse import Page
from fce.pipeline import DEFAULT_FALLBACK, compile_site, extract
from fce.template import SiteTemplates, Template

__all__ = [
    "BROWSER_CANDIDATES",
    "BROWSER_TIMEOUT",
    "FATES",
    "PNG_WINDOW",
    "Overlay",
    "explain",
    "find_browser",
    "render_html",
    "render_png",
]

#: The fates of a block, in the legend's order, with their colour and what they mean.
FATES: dict[str, tuple[str, str]] = {
    "content": ("#1a9641", "content: extracted with the site's template"),
    "fallback": ("#2b83ba", "content: extracted by a single-page method (the fallback, or --method)"),
    "noise-path": ("#d7191c", "noise by path: the template puts this path in the site's boilerplate"),
    "noise-similar": ("#fdae61", "noise by similarity: like a noise block the template stored for this path"),
    "other": ("#9e9e9e", "left out: not chosen (or a path the template never saw)"),
}

#: Executables tried, in order, by :func:`find_browser` (``$FCE_BROWSER`` first): Debian's ``chromium``, then the
#: names other distributions and Google's packages use.
BROWSER_CANDIDATES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "chrome")

#: Seconds a headless browser may take for one screenshot. A cold Chromium start takes 1–3 s on the 2-core
#: development machine; the page loads nothing from the network, so anything past a minute is a hung browser.
BROWSER_TIMEOUT = 60.0

#: Window of the PNG (CSS pixels): a common laptop width, tall enough for a news article's first screens.
PNG_WINDOW = (1280, 2400)

#: Elements removed from the page with their content: scripts, frames and plugins (they run code or load
#: documents), and the elements that load or point the page at other resources.
REMOVED_TAGS = frozenset({"script", "noscript", "iframe", "frame", "frameset", "object", "embed", "applet",
                          "base", "link", "portal", "template"})

#: Attributes that make the browser fetch something (or run ``javascript:``); removed unless a ``data:`` URI.
URL_ATTRIBUTES = frozenset({"src", "srcset", "href", "action", "formaction", "poster", "background", "data",
                            "ping", "lowsrc", "dynsrc", "codebase", "manifest", "xlink:href", "imagesrcset"})

#: The policy written into the page: nothing may load or run but the inline styles and ``data:`` images.
CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; font-src data:; form-action 'none'"

_CSS_URL = re.compile(r"url\s*\(|@import|expression\s*\(", re.IGNORECASE)


@dataclass(frozen=True)
class Overlay:
    """What :func:`explain` found: the extraction (as ``fce detect`` gives it), the page's block tree, the fate
    of every block (indexed like the tree) and the detection mode used (``None`` for a single-page method)."""

    extraction: Extraction
    tree: BlockTree
    fates: tuple[str, ...]
    mode: str | None

    def counts(self) -> dict[str, int]:
        """Blocks with text per fate."""
        found = Counter(f for f, b in zip(self.fates, self.tree.blocks, strict=True) if b.text)
        return {name: found.get(name, 0) for name in FATES}


def explain(
    page: Page,
    template: Template | Detector | SiteTemplates | SiteDetector | None,
    *,
    method: str | None = None,
    site: str | None = None,
    fallback: str | None = DEFAULT_FALLBACK,
    min_fit: float = MIN_FIT,
    mode: str = DEFAULT_MODE,
    timeout: float | None = None,
) -> Overlay:
    """Extract ``page`` as :func:`fce.pipeline.extract` does (or with the single-page ``method`` only) and give
    every block its fate (:data:`FATES`). For a site with several layouts, the noise fates are those of the
    layout that was applied (or, after a fallback, of the layout that fitted best)."""
    detector: Detector | None = None
    if method is not None:
        extraction = get_method(method)(page)
    else:
        site_detector = None if template is None else compile_site(template, mode=mode, min_fit=min_fit)
        extraction = extract(page, site_detector, site=site, fallback=fallback, min_fit=min_fit, mode=mode,
                             timeout=timeout)
        if site_detector is not None:
            layout = extraction.info.get("layout")
            if layout is None:
                layout = site_detector.choose(blocks_of(page, site_detector.path_style), min_fit=min_fit).best
            detector = site_detector.detectors[layout]
    style = detector.path_style if detector is not None else None
    tree = blocks_of(page, style) if style else blocks_of(page)
    fates = ["other"] * len(tree)
    if extraction.method == "template" and "covered" in extraction.info:
        for i in extraction.info["covered"]:
            fates[i] = "content"
    else:
        for i in _aligned(tree, extraction.text):
            fates[i] = "fallback"
    if detector is not None:
        _mark_noise(tree, detector, fates)
    return Overlay(extraction, tree, tuple(fates), detector.mode if detector is not None else None)


def _aligned(tree: BlockTree, text: str) -> list[int]:
    """Blocks whose own text appears in ``text``, matched in document order (a single-page method reports its
    output as text, not block indices). Each block's text is searched from where the previous match ended, so a
    short text ("Home") matches only where it falls in sequence."""
    out: list[int] = []
    flat = " ".join(text.split())
    cursor = 0
    for block in tree.blocks:
        if not block.text:
            continue
        at = flat.find(block.text, cursor)
        if at >= 0:
            out.append(block.index)
            cursor = at + len(block.text)
    return out


def _mark_noise(tree: BlockTree, detector: Detector, fates: list[str]) -> None:
    """Fates of the blocks left out: ``noise-path`` by the template's paths, ``noise-similar`` by comparison with
    the template's stored noise blocks (the block's text with its sub-blocks, as the detection phase compares)."""
    blocks = tree.blocks
    guided = detector.mode == "guided"
    noise_by_path: dict[str, list[int]] = {}
    for row, nb in enumerate(detector.template.noise_blocks):
        noise_by_path.setdefault(nb.path, []).append(row)
    similar_todo: list[int] = []
    for b in blocks:
        if fates[b.index] in ("content", "fallback") or not b.text:
            continue
        if (b.path in detector.noise_paths) if guided else (b.path not in detector.paths):
            fates[b.index] = "noise-path"
        elif b.path in noise_by_path:
            similar_todo.append(b.index)
    if not similar_todo:
        return
    texts, counts = [], []
    for i in similar_todo:
        visited: list[int] = []
        texts.append(tree.render(i, None, visited))
        counts.append(tuple(sum(c) for c in zip(*(block_counts(blocks[j]) for j in visited), strict=True)))
    noise = detector.template.noise_blocks
    sims = (block_vectors(texts, counts) @ block_vectors([nb.text for nb in noise], [nb.counts for nb in noise]).T)
    sims = sims.toarray()
    threshold = detector.threshold
    for row, i in enumerate(similar_todo):
        if any(sims[row, col] > threshold for col in noise_by_path[blocks[i].path]):
            fates[i] = "noise-similar"


# --- HTML ---------------------------------------------------------------------------------------------------


def _block_elements(root: etree._Element) -> list[etree._Element]:
    """The element of every block of the tree rooted at ``root``, indexed like :func:`fce.blocks.blocks_of`: the
    root, then every element with a block tag in document order, skipping what segmentation skips (the subtrees
    of :data:`fce.blocks.SKIPPED_TAGS`, comments and processing instructions)."""
    out = [root]
    walker = etree.iterwalk(root, events=("start",))
    first = True
    for _, el in walker:
        if first:
            first = False
            continue
        tag = el.tag
        if not isinstance(tag, str) or tag in SKIPPED_TAGS:
            walker.skip_subtree()
            continue
        if tag in BLOCK_TAGS:
            out.append(el)
    return out


def render_html(page: Page, overlay: Overlay, *, title: str | None = None) -> str:
    """The self-contained overlay page (see the module docstring). ``page`` is not modified."""
    root = copy.deepcopy(page.root)
    elements = _block_elements(root)
    blocks = overlay.tree.blocks
    if len(elements) != len(blocks) or any(el.tag != b.tag for el, b in zip(elements, blocks, strict=True)):
        # both walks follow fce.blocks' rules; a mismatch is a bug in this module, not bad input
        raise RuntimeError(f"block/element mismatch: {len(blocks)} blocks, {len(elements)} block elements")
    for el, block, fate in zip(elements, blocks, overlay.fates, strict=True):
        el.set("data-fce-index", str(block.index))
        if not block.text:
            continue
        classes = el.get("class")
        el.set("class", f"{classes} fce-b fce-{fate}" if classes else f"fce-b fce-{fate}")
        el.set("data-fce-fate", fate)
        el.set("data-fce-path", block.path)
        el.set("title", f"{block.path}\n[{fate}]")
    _neutralise(root)
    head = root.find("head")
    if head is None:
        head = etree.Element("head")
        root.insert(0, head)
    for meta in head.findall("meta"):
        if meta.get("charset") is not None or (meta.get("http-equiv") or "").lower() in (
                "content-type", "refresh", "content-security-policy", "set-cookie"):
            head.remove(meta)
    head.insert(0, etree.fromstring(f'<meta http-equiv="Content-Security-Policy" content="{CSP}"/>'))
    head.insert(0, etree.fromstring('<meta charset="utf-8"/>'))
    style = etree.SubElement(head, "style")
    style.text = _css()
    body = root.find("body")
    if body is None:
        body = etree.SubElement(root, "body")
    body.append(lxml_html.fragment_fromstring(_panel(overlay, title or page.source or page.url or "page")))
    return "<!DOCTYPE html>\n" + lxml_html.tostring(root, encoding="unicode", method="html")


def _neutralise(root: etree._Element) -> None:
    """Remove what would run or load: scripts, frames, plugins, event handlers, external URLs, CSS ``url()``."""
    for el in list(root.iter()):
        if not isinstance(el.tag, str):
            if isinstance(el, etree._ProcessingInstruction) and el.getparent() is not None:
                _drop(el)
            continue
        if (el.tag in REMOVED_TAGS or (el.tag == "meta" and (el.get("http-equiv") or "").lower() == "refresh")) \
                and el is not root and el.getparent() is not None:
            _drop(el)
            continue
        for name in list(el.attrib):
            lower = name.lower()
            value = el.get(name) or ""
            if lower.startswith("on") or lower == "srcdoc":
                del el.attrib[name]
            elif lower in URL_ATTRIBUTES and not value.strip().lower().startswith("data:image/"):
                del el.attrib[name]
                if lower == "href":
                    el.set("data-fce-href", value)
            elif lower == "style" and _CSS_URL.search(value):
                el.set(name, _CSS_URL.sub("invalid(", value))
        if el.tag == "style" and el.text and _CSS_URL.search(el.text):
            el.text = _CSS_URL.sub("invalid(", el.text)


def _drop(el: etree._Element) -> None:
    """Remove ``el`` with its subtree, keeping the text that follows it (its tail)."""
    parent = el.getparent()
    if el.tail:
        previous = el.getprevious()
        if previous is not None:
            previous.tail = (previous.tail or "") + el.tail
        else:
            parent.text = (parent.text or "") + el.tail
    parent.remove(el)


def _css() -> str:
    rules = [
        ".fce-b{outline:2px solid var(--fce-c)!important;outline-offset:-1px!important;"
        "background-color:color-mix(in srgb,var(--fce-c) 12%,transparent)!important}",
        ".fce-b:hover{outline-width:4px!important}",
    ]
    rules += [f".fce-{name}{{--fce-c:{colour}}}" for name, (colour, _) in FATES.items()]
    rules += [
        "html body{margin-right:380px!important}",
        "#fce-panel{position:fixed!important;top:0;right:0;bottom:0;width:360px;overflow:auto;z-index:2147483647;"
        "background:#fff;color:#111;border-left:3px solid #333;font:13px/1.4 system-ui,sans-serif;padding:10px;"
        "box-sizing:border-box;text-align:left}",
        "#fce-panel h2{font-size:15px;margin:0 0 6px}#fce-panel table{border-collapse:collapse;margin:6px 0}",
        "#fce-panel td{padding:1px 6px;vertical-align:top}#fce-panel .sw{display:inline-block;width:12px;"
        "height:12px;border:2px solid}",
        "#fce-panel pre{white-space:pre-wrap;font:12px/1.35 ui-monospace,monospace;background:#f4f4f4;"
        "padding:6px;margin:0}",
    ]
    return "\n".join(rules)


def _panel(overlay: Overlay, title: str) -> str:
    ex = overlay.extraction
    esc = html.escape
    fit = "–" if ex.fit is None else f"{ex.fit:.3f}"
    layout = ex.info.get("layout")
    facts = [("page", title), ("site", ex.site or "–"), ("method", ex.method),
             ("mode", overlay.mode or "–"), ("layout", "–" if layout is None else str(layout)), ("fit", fit),
             ("fallback reason", ex.fallback_reason or "–"),
             ("extracted", f"{len(ex.blocks)} blocks, {len(ex.text)} characters")]
    counts = overlay.counts()
    legend = "".join(
        f'<tr class="fce-legend-{name}"><td><span class="sw" style="border-color:{colour};'
        f'background:{colour}33"></span></td><td>{esc(text)}</td><td>{counts[name]}</td></tr>'
        for name, (colour, text) in FATES.items()
    )
    rows = "".join(f'<tr><td>{esc(k)}</td><td id="fce-{k.replace(" ", "-")}">{esc(v)}</td></tr>' for k, v in facts)
    return (f'<aside id="fce-panel"><h2>fce show</h2><table>{rows}</table>'
            f'<h2>Legend (blocks with text)</h2><table>{legend}</table>'
            f'<p>Hover a block for its path.</p><h2>Extracted text</h2><pre id="fce-text">{esc(ex.text)}</pre>'
            "</aside>")


# --- PNG ----------------------------------------------------------------------------------------------------


def find_browser() -> str | None:
    """The headless browser executable: ``$FCE_BROWSER``, else the first of :data:`BROWSER_CANDIDATES` on PATH."""
    explicit = os.environ.get("FCE_BROWSER")
    if explicit:
        return shutil.which(explicit)
    for name in BROWSER_CANDIDATES:
        found = shutil.which(name)
        if found:
            return found
    return None


def browser_args(browser: str) -> list[str]:
    """Command line of a headless Chromium that loads nothing it is not told to (root needs ``--no-sandbox``)."""
    args = [browser, "--headless", "--disable-gpu", "--no-first-run", "--no-default-browser-check",
            "--disable-extensions", "--disable-background-networking", "--disable-sync", "--mute-audio"]
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        args.append("--no-sandbox")
    return args


def render_png(html_text: str, out: str | Path, *, browser: str | None = None,
               window: Sequence[int] = PNG_WINDOW, timeout: float = BROWSER_TIMEOUT) -> Path:
    """Screenshot ``html_text`` (from :func:`render_html`) to ``out`` with a headless Chromium. Raises
    :class:`~fce.errors.BrowserError` when no browser is installed or it fails."""
    exe = browser or find_browser()
    if exe is None:
        raise BrowserError("no headless browser found (install chromium, or set FCE_BROWSER)", source=str(out))
    target = Path(out).resolve()
    with tempfile.TemporaryDirectory(prefix="fce-show-") as tmp:
        page = Path(tmp) / "overlay.html"
        page.write_text(html_text, encoding="utf-8")
        args = [*browser_args(exe), f"--user-data-dir={tmp}/profile", "--hide-scrollbars",
                f"--window-size={window[0]},{window[1]}", f"--screenshot={target}", page.as_uri()]
        try:
            done = subprocess.run(args, capture_output=True, timeout=timeout, check=False)
        except subprocess.TimeoutExpired:
            raise BrowserError(f"{exe} took more than {timeout:g} s", source=str(out)) from None
        except OSError as exc:
            raise BrowserError(f"cannot run {exe} ({exc.strerror or exc})", source=str(out)) from None
    if done.returncode != 0 or not target.is_file() or target.stat().st_size == 0:
        tail = " ".join(done.stderr.decode("utf-8", "replace").split()[-20:])
        raise BrowserError(f"{exe} exited {done.returncode} without a screenshot: {tail}", source=str(out))
    return target
