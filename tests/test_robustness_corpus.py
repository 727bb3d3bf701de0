"""Hostile pages through the public API and the CLI: each gets a one-line error with its documented exit
code, or a sound (possibly empty) result — never a traceback, never a hang.

The corpus is built here: binary files, text that is not HTML, broken and exotic markup, wrong encodings, and pages
that are huge in size, depth, breadth or a single text node. Every page that parses goes through ``fce.extract``
with and without a template and through every registered method, each under a time limit; a representative subset
goes through ``python -m fce detect`` in a subprocess.
"""

from __future__ import annotations

import codecs
import gzip
import json
import os
import random
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

import pytest

import fce
from fce.errors import EmptyPageError, FceError, InputError, NotHTMLError, PageTimeoutError, PageTooLargeError
from fce.evaluation.measures import words
from fce.limits import run_limited
from fce.methods import available_methods
from tests._robustness import assert_one_line_error, is_sound, is_word_subsequence, page_words
from tests.sitegen import generate_site

#: Seconds each method may take on a corpus page that is not meant to be slow. Generous: they take milliseconds.
LIMIT = 10.0
#: Seconds for the pages built to be slow (huge, 1,000,000 elements): a timeout is then a sound outcome too.
SLOW_LIMIT = 2.0

SITE = "robust.example"


@dataclass(frozen=True)
class Case:
    """One corpus entry: how to build it and what must come of it."""

    name: str
    build: Callable[[], bytes]
    error: type[FceError] | None = None  # the error parse_page must raise, or None: it parses
    contains: tuple[str, ...] = ()  # words the whole visible text (method "plain") must contain, in order
    absent: tuple[str, ...] = ()  # words it must not contain
    big: bool = False  # methods may time out (SLOW_LIMIT), the word-order check is skipped for speed
    cli: bool = False  # also run through `python -m fce detect`
    marks: tuple[pytest.MarkDecorator, ...] = field(default=())


def _html(body: str, head: str = "") -> bytes:
    return f"<html><head>{head}</head><body>{body}</body></html>".encode()


WIDE = "<html><body><p>wide é text</p></body></html>"
MIXED = "<html><body><p>café</p>".encode() + "<p>naïve</p></body></html>".encode("cp1252")


def _deep(levels: int, opening: bytes = b"<div>", closing: bytes = b"</div>") -> bytes:
    return b"<html><body><p>before</p>" + opening * levels + b"deep" + closing * levels + b"<p>after</p></body></html>"


CASES = [
    # --- not HTML at all
    Case("empty", lambda: b"", EmptyPageError, cli=True),
    Case("whitespace", lambda: b" \n\t \r\n", EmptyPageError),
    Case("bom-only", lambda: codecs.BOM_UTF8, EmptyPageError),
    Case("comment-only", lambda: b"<!-- nothing here -->", EmptyPageError),
    Case("png", lambda: b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + random.Random(1).randbytes(512), NotHTMLError,
         cli=True),
    Case("jpeg", lambda: b"\xff\xd8\xff\xe0\x00\x10JFIF" + random.Random(2).randbytes(512), NotHTMLError),
    Case("pdf", lambda: b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj <<>> endobj\n", NotHTMLError, cli=True),
    Case("gzip", lambda: gzip.compress(_html("<p>compressed</p>")), NotHTMLError, cli=True),
    Case("random-bytes", lambda: random.Random(3).randbytes(64 * 1024), NotHTMLError, cli=True),
    Case("json", lambda: b'{"items": [1, 2, 3], "ok": true}', NotHTMLError, cli=True),
    Case("json-with-markup", lambda: b'{"html": "<p>hello</p>", "n": [1, 2]}', NotHTMLError),
    Case("css", lambda: b"body { color: red; }\n.a > p { margin: 0 }\n", NotHTMLError),
    Case("plain-text", lambda: b"Just words.\nMore words, no markup.\n", NotHTMLError, cli=True),
    Case("text-with-less-than", lambda: b"if a < b and c > d then stop", NotHTMLError),
    Case("nul-heavy", lambda: b"<p>" + b"a\x00" * 2000 + b"</p>", NotHTMLError),
    # --- broken markup
    Case("unclosed", lambda: b"<html><body><div><p>one<p>two<div><span>three <b>four <i>five",
         contains=("one", "two", "three", "four", "five")),
    Case("misnested", lambda: b"<html><body><b><i>ex</b></i><p><div>why</p></div><table><p>zed</table>",
         contains=("ex", "why", "zed")),
    Case("no-body", lambda: b"<html><head><title>Only a title</title></head></html>", absent=("title",)),
    Case("only-head", lambda: b"<head><title>t</title><meta charset=utf-8></head>"),
    Case("stray-end-tags", lambda: b"</p></div></body></html><p>kept</p></span>", contains=("kept",)),
    Case("entities", lambda: _html("<p>&amp; &lt; &#0; &#x110000; &#xD800; &nbsp; &bogus; &#99999999999; ok</p>"),
         contains=("ok",)),
    Case("weird-tags", lambda: b"<html><body><p:x>one</p:x><123>two<\xff>three</body></html>", contains=("one",)),
    Case("nul-bytes", lambda: b"<html><body><p>alpha\x00beta\x00</p>\x00<p>gamma</p></body></html>",
         contains=("alpha", "beta", "gamma"), cli=True),
    Case("long-attribute", lambda: b'<p title="' + b"x" * 1_000_000 + b'">value</p>', contains=("value",)),
    Case("50000-attributes", lambda: b"<p " + b" ".join(b"a%d=x" % i for i in range(50_000)) + b">value</p>",
         contains=("value",)),
    # --- encodings
    Case("wrong-charset", lambda: _html("<p>café crème</p>", "<meta charset='utf-8'>").replace(
        "é".encode(), b"\xe9").replace("è".encode(), b"\xe8"), contains=("café", "crème"), cli=True),
    Case("unknown-charset", lambda: _html("<p>ok</p>", "<meta charset='x-no-such-charset'>"), contains=("ok",)),
    Case("missing-charset", lambda: ("<html><body><p>" + "Le café était très fréquenté à l'été. " * 5
                                     + "</p></body></html>").encode("cp1252"), contains=("café", "fréquenté")),
    Case("mixed-encodings", lambda: MIXED, contains=("café", "naïve")),
    Case("invalid-utf8", lambda: _html("<p>ok</p>") + b"<p>\xc3\x28 \xa0\xa1 \xf0\x28\x8c\x28 \xff</p>",
         contains=("ok",)),
    Case("lone-surrogate", lambda: "<p>\ud800 ok</p>".encode("utf-8", "surrogatepass"), contains=("ok",)),
    Case("utf-16-bom", lambda: WIDE.encode("utf-16"), contains=("wide", "é", "text"), cli=True),
    Case("utf-16-le-no-bom", lambda: WIDE.encode("utf-16-le"), contains=("wide", "é", "text"), cli=True),
    Case("utf-16-be-no-bom", lambda: WIDE.encode("utf-16-be"), contains=("wide", "é", "text")),
    Case("utf-32-bom", lambda: WIDE.encode("utf-32"), contains=("wide", "é", "text")),
    Case("utf-16-declared-in-ascii", lambda: _html("<p>ascii</p>", "<meta charset='utf-16'>"),
         contains=("ascii",)),
    # --- documents of other kinds
    Case("frameset", lambda: b"<html><head></head><frameset cols='50%,50%'><frame src='a.html'>"
         b"<frame src='b.html'><noframes><p>no frames text</p></noframes></frameset></html>",
         contains=("no", "frames", "text"), absent=("p",), cli=True),
    Case("xhtml-namespaces", lambda: (
        b'<?xml version="1.0" encoding="iso-8859-1"?>\n'
        b'<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Strict//EN" "http://www.w3.org/TR/xhtml1/DTD/xhtml1-strict.dtd">'
        b'<html xmlns="http://www.w3.org/1999/xhtml" xmlns:svg="http://www.w3.org/2000/svg" '
        b'xmlns:m="http://www.w3.org/1998/Math/MathML" xml:lang="en"><head><title>t</title></head><body>'
        b"<p>caf\xe9 para</p><svg:svg><svg:text>svgtext</svg:text></svg:svg><m:math><m:mi>mathvar</m:mi></m:math>"
        b'<o:p xmlns:o="urn:schemas-microsoft-com:office:office">office</o:p></body></html>'),
         contains=("café", "para", "office"), absent=("svgtext", "mathvar"), cli=True),
    Case("template-svg-math-noscript", lambda: _html(
        "<template><p>tmpl</p></template><svg><text>svgt</text><foreignObject><p>fo</p></foreignObject></svg>"
        "<math><mi>mathvar</mi></math><noscript><p>noscript para</p></noscript><p>visible</p>"),
         contains=("visible",), absent=("tmpl", "svgt", "fo", "mathvar", "noscript")),
    Case("script-only", lambda: b"<script>var s = '<p>not text</p>';</script>", absent=("not",)),
    # --- huge in one dimension
    Case("depth-300", lambda: _deep(300), contains=("before", "deep", "after")),
    Case("depth-100000", lambda: _deep(100_000), contains=("before", "deep", "after"), cli=True),
    Case("depth-100000-unclosed", lambda: b"<html><body>" + b"<div><span>" * 100_000 + b"deep",
         contains=("deep",)),
    Case("depth-100000-inline", lambda: b"<html><body>" + b"<b>" * 100_000 + b"deep", contains=("deep",)),
    Case("depth-30000-tables", lambda: b"<html><body>" + b"<table><tr><td>" * 30_000 + b"deep",
         contains=("deep",)),
    Case("huge-text-node", lambda: _html("<p>" + "word " * 2_400_000 + "</p><p>after</p>"),
         contains=("after",), big=True, marks=(pytest.mark.slow,)),  # ~20 s; test_huge_text_node_is_kept_whole
    Case("siblings-1000000", lambda: _html("<p>x</p>" * 1_000_000), big=True,
         marks=(pytest.mark.slow,)),  # ~60 s: 14 methods, each stopped by the 2 s limit or finishing
]


def _params() -> list[object]:
    return [pytest.param(case, id=case.name, marks=case.marks) for case in CASES]


@pytest.fixture(scope="module")
def template() -> fce.Template:
    pages = generate_site(SITE, 20, seed=7)
    return fce.learn_template([fce.parse_page(p.html, url=p.url) for p in pages], SITE)


def _plain_words(page: fce.Page) -> list[str]:
    return words(fce.run_method("plain", page).text)


def _contains_in_order(haystack: list[str], needles: tuple[str, ...]) -> bool:
    return is_word_subsequence([w for n in needles for w in words(n)], haystack)


@pytest.mark.parametrize("case", _params())
def test_public_api(case: Case, template: fce.Template) -> None:
    data = case.build()
    started = time.monotonic()
    try:
        page = fce.parse_page(data, source=case.name)
    except FceError as error:
        assert case.error is not None and isinstance(error, case.error), f"{case.name}: {error!r}"
        assert_one_line_error(error, case.name)
        return
    assert case.error is None, f"{case.name}: parsed, expected {case.error.__name__}"
    assert time.monotonic() - started < 10, "parsing took too long"
    limit = SLOW_LIMIT if case.big else LIMIT
    runs: list[tuple[str, Callable[[], fce.Extraction]]] = [
        ("extract", lambda: fce.extract(page, None, timeout=limit)),
        ("extract+template", lambda: fce.extract(page, template, site=SITE, timeout=limit)),
        ("extract+template, no fallback", lambda: fce.extract(page, template, fallback=None, timeout=limit)),
    ]
    runs += [(info.name, partial(run_limited, limit, partial(info, page), source=case.name))
             for info in available_methods()]
    visible = None if case.big else page_words(page)
    for name, run in runs:
        try:
            extraction = run()
        except PageTimeoutError as error:
            assert case.big, f"{case.name}: {name} timed out"
            assert_one_line_error(error, case.name)
            continue
        assert isinstance(extraction, fce.Extraction)
        if visible is not None:
            assert is_sound(extraction, page, visible), f"{case.name}: {name} invented words"
    if case.contains or case.absent:
        plain = _plain_words(page)
        assert _contains_in_order(plain, case.contains), f"{case.name}: {plain[:50]}"
        for word in case.absent:
            assert word not in plain, f"{case.name}: {word!r} in {plain[:50]}"


def test_huge_text_node_is_kept_whole() -> None:
    """libxml2 stops at a 10 MB text node unless told otherwise; the page used to come out empty."""
    page = fce.parse_page(_html("<p>" + "word " * 2_400_000 + "</p>"))
    assert len(fce.run_method("plain", page).text) == len("word " * 2_400_000) - 1


@pytest.mark.parametrize("levels", [255, 300, 2_000, 100_000])
def test_deep_nesting_keeps_the_text_after_it(levels: int) -> None:
    """libxml2 stopped reading at depth 256 (2048 with huge_tree): everything after was lost."""
    page = fce.parse_page(_deep(levels))
    assert words(fce.run_method("plain", page).text) == ["before", "deep", "after"]


def test_many_attributes_parse_fast() -> None:
    data = b"<p " + b" ".join(b"a%d=x" % i for i in range(200_000)) + b">value</p>"
    started = time.monotonic()
    page = fce.parse_page(data)
    assert time.monotonic() - started < 5  # uncapped, libxml2 needs minutes (quadratic)
    assert fce.run_method("plain", page).text == "value"


def test_page_over_the_size_cap() -> None:
    with pytest.raises(PageTooLargeError) as caught:
        fce.parse_page(b"<p>" + b"x" * 2048 + b"</p>", source="big.html", max_bytes=1024)
    assert_one_line_error(caught.value, "big.html")


# --- the 50 MB page -----------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def page_50mb(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """50 MB of real-looking article markup (the generated site's pages, repeated), written once."""
    pages = generate_site(SITE, 20, seed=11)
    bodies = [p.html.split(b"<body", 1)[1].split(b">", 1)[1].rsplit(b"</body>", 1)[0] for p in pages]
    unit = b"".join(b"<div class='copy'>" + body + b"</div>" for body in bodies)
    path = tmp_path_factory.mktemp("big") / "page-50mb.html"
    with path.open("wb") as out:
        out.write(b"<html><head><title>big</title></head><body>")
        written = 0
        while written < 50_000_000:
            written += out.write(unit)
        out.write(b"</body></html>")
    return path


def test_50mb_page_through_the_api(page_50mb: Path) -> None:
    data = page_50mb.read_bytes()
    started = time.monotonic()
    page = fce.parse_page(data, source="page-50mb.html")
    assert time.monotonic() - started < 15
    try:
        extraction = fce.extract(page, None, timeout=SLOW_LIMIT)
    except PageTimeoutError as error:
        assert_one_line_error(error, "page-50mb.html")
    else:
        assert extraction.text
    with pytest.raises(PageTooLargeError):
        fce.parse_page(data, max_bytes=16 * 1024 * 1024)


# --- the CLI ------------------------------------------------------------------------------------------------


def _fce(*args: str, cwd: Path, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("FCE_STORE", "FCE_DEBUG")}
    env["FCE_DATA_DIR"] = str(cwd / "data")
    return subprocess.run([sys.executable, "-m", "fce", *args], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=timeout)


def _assert_clean_stderr(stderr: str, errors: int) -> None:
    assert "Traceback" not in stderr, stderr
    lines = stderr.splitlines()
    assert len(lines) == errors, stderr
    assert all(line.startswith("fce: error: ") for line in lines), stderr


@pytest.fixture(scope="module")
def corpus_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("corpus")
    for case in CASES:
        if case.cli:
            (root / f"{case.name}.html").write_bytes(case.build())
    return root


@pytest.mark.parametrize("case", [pytest.param(c, id=c.name) for c in CASES if c.cli])
def test_cli_one_page(case: Case, corpus_dir: Path) -> None:
    """One page per process: the documented exit code, one line on stderr naming the file, no traceback."""
    name = f"{case.name}.html"
    result = _fce("detect", "--store", "memory://", name, cwd=corpus_dir)
    if case.error is None:
        assert result.returncode == 0, result.stderr
        _assert_clean_stderr(result.stderr, 0)
    else:
        assert result.returncode == case.error.exit_code, result.stderr
        _assert_clean_stderr(result.stderr, 1)
        assert result.stderr.startswith(f"fce: error: {name}: ")


def test_cli_batch_keeps_every_record(corpus_dir: Path) -> None:
    """All pages in one run: one JSON row per page in input order, errors as rows with a status."""
    names = sorted(p.name for p in corpus_dir.glob("*.html"))
    result = _fce("detect", "--store", "memory://", "--format", "json", *names, cwd=corpus_dir)
    rows = [json.loads(line) for line in result.stdout.splitlines()]
    assert [row["source"] for row in rows] == names
    failed = [row for row in rows if "error" in row]
    by_name = {f"{c.name}.html": c for c in CASES}
    assert {row["source"] for row in failed} == {n for n in names if by_name[n].error is not None}
    assert all(row["status"] in ("empty", "not-html") for row in failed)
    first = next(by_name[n] for n in names if by_name[n].error is not None)
    assert first.error is not None
    assert result.returncode == first.error.exit_code  # the exit status of the first failed page
    _assert_clean_stderr(result.stderr, len(failed))


def test_cli_50mb_page_with_a_time_limit(page_50mb: Path) -> None:
    result = _fce("detect", "--store", "memory://", "--page-timeout", str(SLOW_LIMIT), page_50mb.name,
                  cwd=page_50mb.parent)
    assert result.returncode in (0, PageTimeoutError.exit_code), result.stderr
    _assert_clean_stderr(result.stderr, 0 if result.returncode == 0 else 1)
    if result.returncode:
        assert "page-50mb.html: processing took longer than the 2 s time limit" in result.stderr
    small = _fce("detect", "--store", "memory://", "--max-bytes", "16M", page_50mb.name, cwd=page_50mb.parent)
    assert small.returncode == PageTooLargeError.exit_code
    _assert_clean_stderr(small.stderr, 1)


def test_input_errors_are_input_errors() -> None:
    """Every refusal of parse_page is an InputError (a ValueError too): callers may catch either."""
    for case in CASES:
        if case.error is not None:
            assert issubclass(case.error, InputError) and issubclass(case.error, ValueError)
