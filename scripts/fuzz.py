"""Mutation fuzzing of ``parse_page`` and the default extraction over real pages: count undocumented exceptions.

Each case takes one page of the corpus (the evaluation pages of ``../shared/data`` when present, else pages that
:mod:`tests.sitegen` generates), applies one to three mutations — hostile charset labels in ``<meta>``, in an XML
declaration and as the HTTP charset (Python codecs that are not text encodings, WHATWG labels, junk, NULs), other
encodings (UTF-16 and UTF-32 with and without a BOM, a BOM that lies, a page of mixed encodings), truncation,
NUL bytes, control characters, huge attributes, many attributes, deep nesting, unclosed comments and scripts,
binary signatures, random bytes — then parses the result as ``fce detect`` does (with the block tree made while
parsing, or the lxml tree, alternately) and extracts it with its site's template (learned once per worker from
up to :data:`LEARN_PAGES` unmutated pages of the site, where it has at least :data:`LEARN_MIN_PAGES`; a site with
fewer, or whose learning fails, goes without one) and the default fallback method, under the per-page time limit;
then makes what ``fce detect --format json``, ``markdown`` and ``html`` print of it (the metadata, the structure,
the fingerprint, the record), and on every :data:`SHOW_EVERY`-th case the page ``fce show`` writes. Anything
raised that is not an :class:`fce.errors.FceError` is an *undocumented exception*: a failure.

    python scripts/fuzz.py                         # 100,000 cases, one worker per CPU
    python scripts/fuzz.py --cases 5000 --seed 7   # a shorter run; the same seed gives the same cases
    python scripts/fuzz.py --case 4711 --seed 7    # rerun one case, with its traceback
    python scripts/fuzz.py --save failures/        # also write each failing input and its mutations
    python scripts/fuzz.py --properties            # the hypothesis properties of tests/test_robustness_properties.py

Prints the outcomes (pages extracted, and each documented error class), the failures (case, mutations,
exception) and the slowest cases; exits 1 when there was any failure.
"""

from __future__ import annotations

import argparse
import codecs
import json
import os
import random
import re
import subprocess
import sys
import time
import traceback
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import cached_property
from multiprocessing import get_context
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # (run from a checkout: the fce beside this script)

from fce.errors import FceError  # noqa: E402
from fce.extraction import Extraction  # noqa: E402
from fce.limits import DEFAULT_PAGE_TIMEOUT, run_limited  # noqa: E402
from fce.parse import Page, parse_page  # noqa: E402
from fce.pipeline import (  # noqa: E402
    DEFAULT_FALLBACK,
    extract,
    learn_site,
    parse_blocks,
    structured,
)
from fce.show import explain, render_html  # noqa: E402
from fce.template import SiteTemplates  # noqa: E402

#: Where the evaluation pages are, beside the checkout (``<dataset>/<site>/<id>.html`` with ``<id>.json``).
DATA = ROOT.parent / "shared" / "data"
#: Cases of a default run: enough that a mutation hitting one page in a thousand shows up about a hundred times.
DEFAULT_CASES = 100_000
#: Pages generated when there is no evaluation data: 6 sites of 40 pages, both layouts of tests.sitegen.
GENERATED_SITES = 6
GENERATED_PAGES = 40
#: Cases handed to a worker at once: large enough that scheduling costs nothing, small enough to balance.
CHUNK = 250
#: Failures and slow cases printed in full.
SHOWN = 20
#: The longest input a mutation builds, so that a case stays within memory and the time limit (the pages are
#: under 2 MiB; this allows a huge attribute or a deep nest on top of the largest).
MAX_MUTATED_BYTES = 8 * 1024 * 1024
TESTS = "tests/test_robustness_properties.py"
#: A site's template is learned from at most this many of its pages (``fce learn`` reads 20–30)…
LEARN_PAGES = 30
#: …where it has at least this many (fewer distinct pages are a LearnError).
LEARN_MIN_PAGES = 5
#: Every this many cases also make the page ``fce show`` writes (a second extraction, a copy of the page's tree
#: walked in Python and written out: about 10 ms a page, three times an extraction).
SHOW_EVERY = 10

#: Charset labels a hostile or broken page or server sends: Python codecs that are not text encodings of web
#: pages, ones that raise on decoding, encodings no browser has, labels of the WHATWG Encoding Standard spelled
#: every way, and junk.
HOSTILE_LABELS = (
    "base64", "base_64", "zlib", "zip", "hex", "bz2", "rot13", "rot-13", "uu", "quopri", "undefined", "punycode",
    "idna", "utf-7", "utf7", "unicode_escape", "raw_unicode_escape", "unicode_internal", "mbcs", "oem",
    "utf_8_sig", "utf-32", "utf-32le", "utf-32be", "utf-16", "utf-16le", "utf-16be", "ucs-2", "cp037", "cp500",
    "palmos", "mac-latin2", "x-user-defined", "iso-2022-kr", "iso-2022-cn", "hz-gb-2312", "replacement",
    "utf-8", "UTF8", " utf-8 ", "'utf-8'", "iso-8859-1", "latin1", "latin_1", "iso8859_1", "windows-1252",
    "us-ascii", "ascii", "gb2312", "gbk", "gb18030", "big5", "big5-hkscs", "shift_jis", "sjis", "euc-jp", "euc-kr",
    "euc_kr", "iso-2022-jp", "koi8-r", "koi8-u", "windows-1251", "x-mac-cyrillic", "macintosh", "tis-620",
    "iso-8859-8-i", "utf\x00-8", "utf-8\x00", "\x00", "", " ", "none", "charset", "text/html", "utf-8; q=1",
    "ütf-8", "utf-８", "x" * 300, "🙂",
)
ENCODINGS = ("utf-16", "utf-16-le", "utf-16-be", "utf-32", "utf-32-le", "utf-32-be", "cp1252", "cp1251",
             "gb18030", "shift_jis", "iso2022_jp", "utf-7", "cp037")
BOMS = (codecs.BOM_UTF8, codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE, codecs.BOM_UTF32_LE, codecs.BOM_UTF32_BE)
SIGNATURES = (b"%PDF-1.7\n", b"\x89PNG\r\n\x1a\n", b"\x1f\x8b\x08\x00", b"PK\x03\x04", b"WARC/1.0\r\n", b"MZ",
              b"\xef\xbb\xbf{\"json\": true}", b"<?xml version='1.0'?>", b"<!DOCTYPE html>")


# --- the corpus -----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Corpus:
    """Pages to mutate: files of the evaluation data (read when a case takes them), or generated bytes."""

    paths: tuple[str, ...] = ()
    generated: tuple[tuple[str, bytes], ...] = ()
    origin: str = ""

    def __len__(self) -> int:
        return len(self.paths) or len(self.generated)

    def site(self, index: int) -> str:
        """The site of page ``index``: its directory (``<dataset>/<site>``), or a generated page's host."""
        if self.generated:
            return self.generated[index][0].split("/")[2]
        return str(Path(self.paths[index]).parent)

    def site_pages(self, site: str) -> list[int]:
        """The pages of ``site``, in corpus order."""
        return self._by_site.get(site, [])

    @cached_property
    def _by_site(self) -> dict[str, list[int]]:
        """Every site's pages, found in one pass (a worker learns a template for each site it meets)."""
        found: dict[str, list[int]] = {}
        for i in range(len(self)):
            found.setdefault(self.site(i), []).append(i)
        return found

    def page(self, index: int) -> tuple[str | None, bytes]:
        """``(url, bytes)`` of page ``index``."""
        if self.generated:
            return self.generated[index]
        path = Path(self.paths[index])
        try:
            url = json.loads(path.with_suffix(".json").read_text(encoding="utf-8")).get("url")
        except (OSError, ValueError, AttributeError):
            url = None
        return (url if isinstance(url, str) else None), path.read_bytes()


def load_corpus(data: Path | None) -> Corpus:
    if data is not None and data.is_dir():
        paths = tuple(sorted(str(p) for p in data.glob("*/*/*.html")))
        if paths:
            return Corpus(paths=paths, origin=f"{len(paths)} pages of {data}")
    from tests.sitegen import SiteStyle, generate_site

    pages = tuple(
        (g.url, g.html)
        for i in range(GENERATED_SITES)
        for g in generate_site(f"site{i}.example", GENERATED_PAGES, seed=i,
                               style=SiteStyle(layout="table" if i % 2 else "div"))
    )
    return Corpus(generated=pages, origin=f"{len(pages)} generated pages (no data at {data})")


# --- the mutations --------------------------------------------------------------------------------------------


@dataclass
class Case:
    """One input: its bytes, the HTTP charset a server declared, and what was done to the page."""

    data: bytes
    url: str | None
    declared: str | None = None
    steps: list[str] = field(default_factory=list)
    site: str = ""


def _label(rng: random.Random) -> str:
    if rng.random() < 0.15:  # junk: any characters a header or an attribute may carry
        return "".join(chr(rng.choice((rng.randrange(0, 0x80), rng.randrange(0x80, 0x3000)))) for _ in
                       range(rng.randrange(0, 16)))
    return rng.choice(HOSTILE_LABELS)


def _at(rng: random.Random, data: bytes) -> int:
    """A position in ``data``: inside the head more often than not (where declarations are read)."""
    if data and rng.random() < 0.5:
        return rng.randrange(0, min(len(data), 4096) + 1)
    return rng.randrange(0, len(data) + 1)


def _insert(data: bytes, at: int, chunk: bytes) -> bytes:
    return data[:at] + chunk + data[at:]


_META = re.compile(rb"<meta[^>]*charset[^>]*>", re.IGNORECASE)


def meta_charset(case: Case, rng: random.Random) -> str:
    label = _label(rng)
    tag = rng.choice(('<meta charset="{}">', "<meta charset={}>",
                      '<meta http-equiv="Content-Type" content="text/html; charset={}">'))
    chunk = tag.format(label).encode("utf-8", "surrogatepass")
    found = _META.search(case.data, 0, 8192)
    if found and rng.random() < 0.7:  # replace the page's own declaration
        case.data = case.data[:found.start()] + chunk + case.data[found.end():]
    else:
        head = case.data.lower().find(b"<head")
        at = case.data.find(b">", head) + 1 if head >= 0 else _at(rng, case.data)
        case.data = _insert(case.data, at, chunk)
    return f"meta charset {label!r}"


def http_charset(case: Case, rng: random.Random) -> str:
    case.declared = _label(rng)
    return f"HTTP charset {case.declared!r}"


def xml_declaration(case: Case, rng: random.Random) -> str:
    label = _label(rng)
    case.data = f'<?xml version="1.0" encoding="{label}"?>'.encode("utf-8", "surrogatepass") + case.data
    return f"XML declaration encoding {label!r}"


def _text(data: bytes) -> str:
    return data.decode("utf-8", errors="replace")


def reencode(case: Case, rng: random.Random) -> str:
    encoding = rng.choice(ENCODINGS)
    body = _text(case.data).encode(encoding, errors="replace")
    if encoding.endswith(("-le", "-be")) and rng.random() < 0.5:  # the same with its BOM
        bom = {"utf-16-le": codecs.BOM_UTF16_LE, "utf-16-be": codecs.BOM_UTF16_BE,
               "utf-32-le": codecs.BOM_UTF32_LE, "utf-32-be": codecs.BOM_UTF32_BE}[encoding]
        case.data = bom + body
        return f"re-encoded as {encoding} with BOM"
    case.data = body
    return f"re-encoded as {encoding}"


def lying_bom(case: Case, rng: random.Random) -> str:
    bom = rng.choice(BOMS)
    case.data = bom + case.data
    return f"BOM {bom.hex()} before the page's bytes"


def mixed_encodings(case: Case, rng: random.Random) -> str:
    """A region of the page re-encoded in another encoding (a paste, a template of another charset)."""
    start = _at(rng, case.data)
    stop = min(len(case.data), start + rng.randrange(1, 20_000))
    encoding = rng.choice(ENCODINGS)
    region = _text(case.data[start:stop]).encode(encoding, errors="replace")
    case.data = case.data[:start] + region + case.data[stop:]
    return f"bytes {start}-{stop} re-encoded as {encoding}"


def truncate(case: Case, rng: random.Random) -> str:
    at = rng.choice((rng.randrange(0, len(case.data) + 1), rng.randrange(0, min(len(case.data), 600) + 1)))
    case.data = case.data[:at]
    return f"truncated at byte {at}"


def nul_bytes(case: Case, rng: random.Random) -> str:
    kind = rng.randrange(3)
    if kind == 0:
        at = _at(rng, case.data)
        case.data = _insert(case.data, at, b"\x00" * rng.choice((1, 2, 7, 4096)))
        return f"NULs at byte {at}"
    if kind == 1:
        start = _at(rng, case.data)
        stop = min(len(case.data), start + rng.randrange(1, 8192))
        case.data = case.data[:start] + b"\x00".join(bytes([b]) for b in case.data[start:stop]) + case.data[stop:]
        return f"NUL between the bytes {start}-{stop}"
    count = rng.randrange(1, 200)
    buf = bytearray(case.data)
    for _ in range(count):
        if buf:
            buf[rng.randrange(len(buf))] = 0
    case.data = bytes(buf)
    return f"{count} bytes set to NUL"


def control_characters(case: Case, rng: random.Random) -> str:
    at = _at(rng, case.data)
    chunk = bytes(rng.choice(b"\x01\x02\x07\x08\x0b\x0c\x0e\x1a\x1b\x7f") for _ in range(rng.randrange(1, 3000)))
    case.data = _insert(case.data, at, chunk)
    return f"{len(chunk)} control characters at byte {at}"


def huge_attribute(case: Case, rng: random.Random) -> str:
    size = rng.choice((70_000, 1_000_000, 3_000_000))
    quote = rng.choice(('"', "'", ""))
    value = rng.choice(("x", "é", "<", ">", " a=b", "&amp;")) * (size // 5)
    tag = f"<div data-x={quote}{value}{quote if rng.random() < 0.8 else ''}>text</div>".encode()
    at = _at(rng, case.data)
    case.data = _insert(case.data, at, tag)
    return f"a {len(tag)}-byte attribute at byte {at}"


def many_attributes(case: Case, rng: random.Random) -> str:
    count = rng.choice((1_001, 5_000, 30_000))
    tag = ("<p " + " ".join(f"a{i}=v" for i in range(count)) + ">many attributes</p>").encode()
    at = _at(rng, case.data)
    case.data = _insert(case.data, at, tag)
    return f"{count} attributes at byte {at}"


def deep_nesting(case: Case, rng: random.Random) -> str:
    depth = rng.choice((300, 3_000, 30_000))
    tag = rng.choice(("div", "span", "font", "table", "li", "a", "b"))
    closed = rng.random() < 0.5
    nest = (f"<{tag}>" * depth + "deep text" + (f"</{tag}>" * depth if closed else "")).encode()
    at = _at(rng, case.data)
    case.data = _insert(case.data, at, nest)
    return f"{depth} nested <{tag}> ({'closed' if closed else 'unclosed'}) at byte {at}"


def unclosed_construct(case: Case, rng: random.Random) -> str:
    chunk = rng.choice((b"<!--", b"<script>", b"<style>", b"<textarea>", b"<![CDATA[", b"<title>", b"<noscript>",
                        b"<template>", b"<svg><foreignObject>", b"<math><mi>", b"<noframes>", b"<plaintext>",
                        b"<xmp>", b"<iframe>", b"</html></body>", b"<frameset>", b"<?php ", b"<!DOCTYPE"))
    at = _at(rng, case.data)
    case.data = _insert(case.data, at, chunk)
    return f"{chunk.decode()} at byte {at}"


def binary_signature(case: Case, rng: random.Random) -> str:
    signature = rng.choice(SIGNATURES)
    case.data = signature + case.data
    return f"prefixed by {signature[:12]!r}"


def random_bytes(case: Case, rng: random.Random) -> str:
    if rng.random() < 0.5:
        count = rng.randrange(1, 500)
        buf = bytearray(case.data)
        for _ in range(count):
            if buf:
                buf[rng.randrange(len(buf))] = rng.randrange(256)
        case.data = bytes(buf)
        return f"{count} bytes flipped"
    at = _at(rng, case.data)
    chunk = rng.randbytes(rng.randrange(1, 20_000))
    case.data = _insert(case.data, at, chunk)
    return f"{len(chunk)} random bytes at byte {at}"


def splice(case: Case, rng: random.Random) -> str:
    """A chunk of the page repeated elsewhere (a broken template, a retried write)."""
    start = rng.randrange(0, len(case.data) + 1)
    chunk = case.data[start:start + rng.randrange(1, 50_000)] * rng.choice((1, 2, 10))
    at = _at(rng, case.data)
    case.data = _insert(case.data, at, chunk)
    return f"{len(chunk)} bytes from byte {start} inserted at byte {at}"


def whitespace_only(case: Case, rng: random.Random) -> str:
    case.data = rng.choice((b"", b" ", b"\n\t\r ", b"\xef\xbb\xbf", b"\xff\xfe", b"\xef\xbb\xbf   "))
    return "replaced by whitespace or a bare BOM"


#: The mutations and how often each is drawn: the charset-label and encoding paths, where the undocumented
#: exceptions were, weigh most.
MUTATIONS: tuple[tuple[Callable[[Case, random.Random], str], int], ...] = (
    (meta_charset, 6), (http_charset, 6), (xml_declaration, 2), (reencode, 4), (lying_bom, 2),
    (mixed_encodings, 3), (truncate, 3), (nul_bytes, 3), (control_characters, 2), (huge_attribute, 1),
    (many_attributes, 1), (deep_nesting, 1), (unclosed_construct, 3), (binary_signature, 1), (random_bytes, 2),
    (splice, 1), (whitespace_only, 1),
)
_FUNCTIONS = [fn for fn, _ in MUTATIONS]
_WEIGHTS = [weight for _, weight in MUTATIONS]


def make_case(corpus: Corpus, seed: int, index: int) -> Case:
    """Case ``index`` of the run seeded ``seed``: the same every time, in any worker."""
    rng = random.Random(f"{seed}:{index}")
    page = rng.randrange(len(corpus))
    url, data = corpus.page(page)
    case = Case(data, url, steps=[f"page {page}"], site=corpus.site(page))
    for fn in rng.choices(_FUNCTIONS, _WEIGHTS, k=rng.choice((1, 1, 2, 3))):
        case.steps.append(fn(case, rng))
        if len(case.data) > MAX_MUTATED_BYTES:
            case.data = case.data[:MAX_MUTATED_BYTES]
            case.steps.append(f"cut to {MAX_MUTATED_BYTES} bytes")
    return case


# --- running cases ----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Outcome:
    index: int
    kind: str  # "ok", the name of a documented error class, or "FAILURE"
    seconds: float
    error: str = ""  # for a failure: the exception and where it was raised
    steps: tuple[str, ...] = ()
    via: str = ""  # what extracted the page: "template" or the fallback, with the reason ("mainblock:low-fit")


def run_case(case: Case, index: int, timeout: float | None, template: SiteTemplates | None = None) -> Outcome:
    """Parse ``case`` as ``fce detect`` does, extract it with ``template`` (its site's, or None) and the default
    fallback, and make its outputs (metadata, markdown, HTML, fingerprint, the JSON record), each step under
    ``timeout``."""
    started = time.perf_counter()
    try:
        result = process(case, index, timeout, template)
    except FceError as exc:
        return Outcome(index, type(exc).__name__, time.perf_counter() - started, steps=tuple(case.steps))
    except Exception as exc:  # noqa: BLE001 -- the undocumented exceptions are what this script counts
        where = traceback.extract_tb(exc.__traceback__)[-1]
        error = f"{type(exc).__name__}: {str(exc)[:300]} ({Path(where.filename).name}:{where.lineno})"
        return Outcome(index, "FAILURE", time.perf_counter() - started, error, tuple(case.steps))
    via = result.method if result.fallback_reason is None else f"{result.method}:{result.fallback_reason}"
    return Outcome(index, "ok", time.perf_counter() - started, steps=tuple(case.steps), via=via)


def process(case: Case, index: int, timeout: float | None, template: SiteTemplates | None) -> Extraction:
    """What :func:`run_case` does with ``case``, without catching anything: the extraction."""
    blocks = parse_blocks(DEFAULT_FALLBACK) if index % 2 else None  # the block tree made while parsing, or not
    page = run_limited(timeout, lambda: parse_page(case.data, url=case.url, declared_charset=case.declared,
                                                   source=f"case-{index}", blocks=blocks))
    result = extract(page, template, fallback=DEFAULT_FALLBACK, timeout=timeout, metadata=True, comments=True)
    run_limited(timeout, lambda: _outputs(page, result))
    if index % SHOW_EVERY == 0:
        run_limited(timeout, lambda: render_html(page, explain(page, template, timeout=timeout)))
    return result


def _outputs(page: Page, result: Extraction) -> None:
    """What ``fce detect`` prints of an extraction (with its metadata and comments) in the other formats: the
    markdown (with links) and the HTML, and the JSON record (the fingerprint in it)."""
    for output in ("markdown", "html"):
        structured(page, result, output, links=True)
    json.dumps(result.to_dict(), ensure_ascii=False)


_corpus: Corpus | None = None
#: The templates learned in this process, by site (None: the site has too few pages, or learning failed).
_templates: dict[str, SiteTemplates | None] = {}


def site_template(corpus: Corpus, site: str) -> SiteTemplates | None:
    """The template of ``site``, learned on first use from up to :data:`LEARN_PAGES` of its unmutated pages."""
    if site not in _templates:
        indices = corpus.site_pages(site)[:LEARN_PAGES]
        template = None
        if len(indices) >= LEARN_MIN_PAGES:
            try:
                pages = [parse_page(data, url=url) for url, data in map(corpus.page, indices)]
                template = learn_site(pages, Path(site).name)
            except FceError:  # too few distinct pages, a page that does not parse: the site goes without one
                pass
        _templates[site] = template
    return _templates[site]


def _init_worker(corpus: Corpus) -> None:
    global _corpus
    _corpus = corpus


def _run_chunk(job: tuple[int, int, int, float | None, str | None]) -> list[Outcome]:
    seed, start, stop, timeout, save = job
    assert _corpus is not None
    out = []
    for index in range(start, stop):
        case = make_case(_corpus, seed, index)
        outcome = run_case(case, index, timeout, site_template(_corpus, case.site))
        if outcome.kind == "FAILURE" and save:
            _save(Path(save), index, case, outcome)
        out.append(outcome)
    return out


def _save(directory: Path, index: int, case: Case, outcome: Outcome) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    (directory / f"case-{index}.bin").write_bytes(case.data)
    (directory / f"case-{index}.json").write_text(json.dumps(
        {"url": case.url, "declared_charset": case.declared, "steps": case.steps, "error": outcome.error},
        ensure_ascii=False, indent=1))


def _jobs(seed: int, cases: int, timeout: float | None, save: str | None) -> Iterator[tuple]:
    for start in range(0, cases, CHUNK):
        yield seed, start, min(cases, start + CHUNK), timeout, save


def fuzz(corpus: Corpus, *, cases: int, seed: int, workers: int, timeout: float | None,
         save: str | None) -> list[Outcome]:
    if workers <= 1:
        _init_worker(corpus)
        return [o for job in _jobs(seed, cases, timeout, save) for o in _run_chunk(job)]
    # fork: the workers inherit fce's imports and the corpus list; each reads the pages it draws
    with get_context("fork").Pool(workers, initializer=_init_worker, initargs=(corpus,)) as pool:
        return [o for chunk in pool.imap_unordered(_run_chunk, _jobs(seed, cases, timeout, save)) for o in chunk]


def report(outcomes: list[Outcome], *, seconds: float, workers: int, seed: int, origin: str) -> int:
    kinds = Counter(o.kind for o in outcomes)
    failures = sorted((o for o in outcomes if o.kind == "FAILURE"), key=lambda o: o.index)
    print(f"corpus:    {origin}")
    print(f"cases:     {len(outcomes)} in {seconds:.0f} s ({len(outcomes) / max(seconds, 1e-9):.0f} cases/s, "
          f"{workers} worker(s)), seed {seed}")
    print("outcomes:  " + " · ".join(f"{kind} {count}" for kind, count in kinds.most_common() if kind != "FAILURE"))
    via = Counter(o.via for o in outcomes if o.kind == "ok")
    print("extracted: " + " · ".join(f"{name} {count}" for name, count in via.most_common()))
    by_error = Counter(o.error.split(" (", 1)[0][:80] for o in failures)
    print(f"undocumented exceptions: {len(failures)}" + ("" if not failures else " — " + "; ".join(
        f"{count}× {error}" for error, count in by_error.most_common(5))))
    for o in failures[:SHOWN]:
        print(f"  case {o.index}: {o.error}\n    {' → '.join(o.steps)}")
    print("slowest:   " + "; ".join(f"case {o.index} {o.seconds:.2f} s ({o.kind}: {' → '.join(o.steps[1:])[:90]})"
                                    for o in sorted(outcomes, key=lambda o: -o.seconds)[:3]))
    return 1 if failures else 0


def run_properties(examples: int, seed: int | None) -> int:
    """The hypothesis properties at scale: ``examples`` for each property test."""
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", TESTS, "--hypothesis-show-statistics"]
    if seed is not None:
        command.append(f"--hypothesis-seed={seed}")
    env = {**os.environ, "FCE_FUZZ_EXAMPLES": str(examples)}
    started = time.monotonic()
    result = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True)
    sys.stdout.write(result.stdout)
    sys.stderr.write(result.stderr)
    counts = [tuple(map(int, m)) for m in re.findall(r"(\d+) passing, (\d+) failing", result.stdout)]
    passed, failed = sum(c[0] for c in counts), sum(c[1] for c in counts)
    print(f"\nfuzz: {passed + failed} generated cases in {len(counts)} property tests, {passed} passed, "
          f"{failed} failed, {time.monotonic() - started:.0f} s; pytest exit status {result.returncode}")
    return result.returncode


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--cases", type=int, default=DEFAULT_CASES, help=f"cases to run (default {DEFAULT_CASES})")
    parser.add_argument("--seed", type=int, default=None, help="seed of the run (default: random, printed)")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1, help="worker processes")
    parser.add_argument("--data", type=Path, default=DATA, help=f"evaluation pages (default {DATA})")
    parser.add_argument("--timeout", type=float, default=DEFAULT_PAGE_TIMEOUT,
                        help="seconds to parse, and again to extract, a case (fce detect's default; 0: none)")
    parser.add_argument("--case", type=int, default=None, help="run this one case and show its traceback")
    parser.add_argument("--save", default=None, metavar="DIR", help="write each failing input to DIR")
    parser.add_argument("--properties", action="store_true", help="run the hypothesis properties instead")
    parser.add_argument("--examples", type=int, default=2500, help="--properties: examples per property test")
    args = parser.parse_args(argv)
    if args.properties:
        return run_properties(args.examples, args.seed)
    seed = args.seed if args.seed is not None else random.randrange(1_000_000)
    corpus = load_corpus(args.data)
    timeout = args.timeout or None
    if args.case is not None:
        case = make_case(corpus, seed, args.case)
        print(" → ".join(case.steps), f"({len(case.data)} bytes, HTTP charset {case.declared!r})")
        try:  # (anything else raises, with its traceback: what this option is for)
            result = process(case, args.case, timeout, site_template(corpus, case.site))
            print(f"{result.method} {result.fallback_reason or ''}\n{result.text[:500]}")
        except FceError as exc:
            print(f"documented: {type(exc).__name__}: {exc}")
        return 0
    started = time.perf_counter()
    outcomes = fuzz(corpus, cases=args.cases, seed=seed, workers=args.workers, timeout=timeout, save=args.save)
    return report(outcomes, seconds=time.perf_counter() - started, workers=args.workers, seed=seed,
                  origin=corpus.origin)


if __name__ == "__main__":
    sys.exit(main())
