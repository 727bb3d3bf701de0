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

import base64
import copy
import html
import json
import math
import os
import re
import select
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn

from lxml import etree
from lxml import html as lxml_html

from fce.blocks import BlockTree, block_elements, blocks_of
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
    "PNG_FIRST_HEIGHT",
    "PNG_MAX_HEIGHT",
    "PNG_WIDTH",
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

#: Width of the PNG (CSS pixels): a common laptop width. Its height is the page's own, up to
#: :data:`PNG_MAX_HEIGHT`.
PNG_WIDTH = 1280
#: The tallest PNG taken (CSS pixels). The browser holds a capture as 4 bytes a pixel, and again while encoding it:
#: 84 MB at 1280 × 16,384, where a page of a hundred thousand list items would ask for gigabytes. A longer page is
#: cut there; the side panel and the HTML hold all the text.
PNG_MAX_HEIGHT = 16_384
#: The window's height while the page loads and is measured (a laptop's): what ``vh`` units and ``min-height:
#: 100vh`` are read against.
PNG_FIRST_HEIGHT = 800

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


def render_html(page: Page, overlay: Overlay, *, title: str | None = None) -> str:
    """The self-contained overlay page (see the module docstring). ``page`` is not modified."""
    root = copy.deepcopy(page.root)
    elements = block_elements(root)
    blocks = overlay.tree.blocks
    if len(elements) != len(blocks) or any(el.tag != b.tag for el, b in zip(elements, blocks, strict=True)):
        # (the page's blocks, made by the compiled walk or from the parser's events, and the walk that defines
        # them, over the tree: a mismatch is a bug, not bad input)
        raise RuntimeError(f"block/element mismatch: {len(blocks)} blocks, {len(elements)} block elements")
    for el, block, fate in zip(elements, blocks, overlay.fates, strict=True):
        el.set("data-fce-index", str(block.index))
        if not block.text:
            continue
        classes = _NOT_XML_TEXT.sub("", el.get("class") or "")
        el.set("class", f"{classes} fce-b fce-{fate}" if classes else f"fce-b fce-{fate}")
        path = _NOT_XML_TEXT.sub("", block.path)  # (its names are the page's attribute values, as parsed)
        el.set("data-fce-fate", fate)
        el.set("data-fce-path", path)
        el.set("title", f"{path}\n[{fate}]")
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
        if el.attrib:
            _neutralise_attributes(el)
        if el.tag == "style" and el.text and _CSS_URL.search(el.text):
            el.text = _NOT_XML_TEXT.sub("", _CSS_URL.sub("invalid(", el.text))


def _neutralise_attributes(el: etree._Element) -> None:
    """Remove ``el``'s event handlers and URLs (``href`` kept as ``data-fce-href``), defuse CSS ``url()`` in its
    style, and drop the attributes whose names start with ``{`` (lxml reads such a name as a namespace, ``{`` alone
    it cannot address at all) or that lxml does not write: they name nothing a browser reads."""
    kept: list[tuple[str, str]] = []
    changed = False
    for name, value in el.attrib.items():
        lower = name.lower()
        if lower.startswith(("on", "{")) or lower == "srcdoc":
            changed = True
        elif lower in URL_ATTRIBUTES and not value.strip().lower().startswith("data:image/"):
            changed = True
            if lower == "href":
                kept.append(("data-fce-href", value))
        elif lower == "style" and _CSS_URL.search(value):
            changed = True
            kept.append((name, _CSS_URL.sub("invalid(", value)))
        else:
            kept.append((name, value))
    if changed:
        el.attrib.clear()
        for name, value in kept:
            try:
                el.set(name, _NOT_XML_TEXT.sub("", value))
            except ValueError:  # a name lxml does not write (control characters in it): dropped too
                pass


#: What lxml refuses in a text it is given (XML 1.0 has no C0 control characters but tab and line breaks, and
#: neither U+FFFE nor U+FFFF), though the HTML parser puts such characters in the tree it builds.
_NOT_XML_TEXT = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


def _drop(el: etree._Element) -> None:
    """Remove ``el`` with its subtree, keeping the text that follows it (its tail)."""
    parent = el.getparent()
    if el.tail:
        previous = el.getprevious()
        if previous is not None:
            previous.tail = _NOT_XML_TEXT.sub("", (previous.tail or "") + el.tail)
        else:
            parent.text = _NOT_XML_TEXT.sub("", (parent.text or "") + el.tail)
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


def render_png(html_text: str, out: str | Path, *, browser: str | None = None, width: int = PNG_WIDTH,
               max_height: int = PNG_MAX_HEIGHT, timeout: float = BROWSER_TIMEOUT) -> Path:
    """Screenshot ``html_text`` (from :func:`render_html`) to ``out`` with a headless Chromium: the whole page,
    ``width`` CSS pixels wide and as tall as the page (at most ``max_height``). Raises
    :class:`~fce.errors.BrowserError` when no browser is installed, or it fails or takes longer than ``timeout``
    seconds."""
    exe = browser or find_browser()
    if exe is None:
        raise BrowserError("no headless browser found (install chromium, or set FCE_BROWSER)", source=str(out))
    target = Path(out).resolve()
    with tempfile.TemporaryDirectory(prefix="fce-show-") as tmp:
        page = Path(tmp) / "overlay.html"
        page.write_text(html_text, encoding="utf-8")
        args = [*browser_args(exe), f"--user-data-dir={tmp}/profile", "--hide-scrollbars",
                "--remote-debugging-pipe"]
        with _DevTools(args, timeout, source=str(out)) as devtools:
            png = devtools.screenshot(page.as_uri(), width, max_height)
    try:
        target.write_bytes(png)
    except OSError as exc:
        raise BrowserError(f"cannot write the screenshot ({exc.strerror or exc})", source=str(out)) from None
    return target


#: Run in a Python of its own between the caller and the browser: puts the two pipe ends it is given on fds 3 and
#: 4, where ``--remote-debugging-pipe`` reads and writes, and executes the browser. (``preexec_fn`` would do it in
#: the forked child, which is unsafe in a program with threads; a POSIX shell cannot name fds above 9.)
_ON_FDS_3_AND_4 = ("import os, sys; r, w = int(sys.argv[1]), int(sys.argv[2]); os.dup2(r, 3); os.dup2(w, 4); "
                   "os.close(r); os.close(w); os.execvp(sys.argv[3], sys.argv[3:])")
#: Lowest fd number for the pipe ends handed to the browser: never 3 or 4 themselves.
_HIGH_FD = 10
#: Bytes read from the browser's pipe at a time (a pipe holds 64 KiB; a larger read costs nothing when less is there).
_READ_BYTES = 1 << 20


class _DevTools:
    """A headless Chromium driven through the DevTools protocol over ``--remote-debugging-pipe``: JSON messages,
    each ended by a NUL byte, written to the browser's fd 3 and read from its fd 4. Every read waits at most until
    the deadline (``timeout`` seconds from the start); the browser is closed, or killed, on leaving."""

    def __init__(self, args: Sequence[str], timeout: float, *, source: str) -> None:
        self.exe, self.source, self.timeout = args[0], source, timeout
        self.deadline = time.monotonic() + timeout
        import fcntl  # (POSIX: the pipe is how Chromium is driven there)

        to_browser, self.writer = os.pipe()
        self.reader, from_browser = os.pipe()
        theirs = [fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, _HIGH_FD) for fd in (to_browser, from_browser)]
        for fd in (to_browser, from_browser):
            os.close(fd)
        self.stderr = tempfile.TemporaryFile()
        try:
            self.process = subprocess.Popen(
                [sys.executable, "-c", _ON_FDS_3_AND_4, *map(str, theirs), *args], pass_fds=theirs,
                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=self.stderr)
        except OSError as exc:
            self._close_fds()
            raise BrowserError(f"cannot run {self.exe} ({exc.strerror or exc})", source=source) from None
        finally:
            for fd in theirs:
                os.close(fd)
        self.buffer = bytearray()
        self.last_id = 0
        self.events: list[dict[str, Any]] = []

    def __enter__(self) -> _DevTools:
        return self

    def __exit__(self, error: type[BaseException] | None, *_: object) -> None:
        if self.process.poll() is None:
            if error is None:  # (after a screenshot: the browser closes itself, its profile written)
                try:
                    self._send("Browser.close", {}, None)
                    self.process.wait(timeout=max(0.1, min(5.0, self.deadline - time.monotonic())))
                except (BrowserError, subprocess.TimeoutExpired):
                    pass
            if self.process.poll() is None:
                self.process.kill()
            self.process.wait()
        self._close_fds()

    def _close_fds(self) -> None:
        for fd in (self.writer, self.reader):
            try:
                os.close(fd)
            except OSError:
                pass
        self.stderr.close()

    def screenshot(self, url: str, width: int, max_height: int) -> bytes:
        """The PNG of ``url``, loaded in a new tab ``width`` CSS pixels wide, as tall as its content (at most
        ``max_height``)."""
        tab = self.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = self.call("Target.attachToTarget", {"targetId": tab, "flatten": True})["sessionId"]
        self.call("Page.enable", {}, session)
        metrics = {"width": width, "height": min(PNG_FIRST_HEIGHT, max_height), "deviceScaleFactor": 1,
                   "mobile": False}
        self.call("Emulation.setDeviceMetricsOverride", metrics, session)
        self.call("Page.navigate", {"url": url}, session)
        self.event("Page.loadEventFired", session)
        content = self.call("Page.getLayoutMetrics", {}, session)["cssContentSize"]
        metrics["height"] = max(1, min(max_height, math.ceil(content["height"])))
        self.call("Emulation.setDeviceMetricsOverride", metrics, session)
        shot = self.call("Page.captureScreenshot", {"format": "png"}, session)
        return base64.b64decode(shot["data"])

    def call(self, method: str, params: dict[str, Any], session: str | None = None) -> dict[str, Any]:
        """Send one command and read up to its answer (the events on the way kept for :meth:`event`); its
        result."""
        ident = self._send(method, params, session)
        while True:
            message = self._receive()
            if message.get("id") == ident:
                if "error" in message:
                    raise BrowserError(f"{self.exe}: {method} failed: {message['error'].get('message')}",
                                       source=self.source)
                return message.get("result", {})
            if "method" in message:
                self.events.append(message)

    def event(self, name: str, session: str) -> dict[str, Any]:
        """The event ``name`` of ``session``: one that came while a command's answer was awaited (a page's load
        may come before the answer to its navigation), or the next to come."""
        for k, message in enumerate(self.events):
            if message.get("method") == name and message.get("sessionId") == session:
                del self.events[:k + 1]
                return message
        self.events.clear()
        while True:
            message = self._receive()
            if message.get("method") == name and message.get("sessionId") == session:
                return message

    def _send(self, method: str, params: dict[str, Any], session: str | None) -> int:
        self.last_id += 1
        message: dict[str, Any] = {"id": self.last_id, "method": method, "params": params}
        if session is not None:
            message["sessionId"] = session
        data = json.dumps(message).encode() + b"\0"
        try:
            while data:
                data = data[os.write(self.writer, data):]
        except OSError:  # (the browser is gone: its pipe's reading end is closed)
            self._failed()
        return self.last_id

    def _receive(self) -> dict[str, Any]:
        # (a screenshot's message is its PNG in base64, tens of MB for a page of photographs: the buffer grows in
        # place and only each new chunk is searched for the message's end)
        end = self.buffer.find(b"\0")
        while end < 0:
            left = self.deadline - time.monotonic()
            if left <= 0 or not select.select([self.reader], [], [], left)[0]:
                self.process.kill()
                raise BrowserError(f"{self.exe} took more than {self.timeout:g} s", source=self.source)
            chunk = os.read(self.reader, _READ_BYTES)
            if not chunk:
                self._failed()
            at = chunk.find(b"\0")
            if at >= 0:
                end = len(self.buffer) + at
            self.buffer += chunk
        message = bytes(self.buffer[:end])
        del self.buffer[:end + 1]
        return json.loads(message)  # type: ignore[no-any-return]

    def _failed(self) -> NoReturn:
        """The browser closed its pipe: it exited (or is exiting) without a screenshot."""
        try:
            code: int | None = self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            code = None
        self.stderr.seek(0)
        tail = " ".join(self.stderr.read().decode("utf-8", "replace").split()[-20:])
        raise BrowserError(f"{self.exe} exited {code} without a screenshot: {tail}", source=self.source)
