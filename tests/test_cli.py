"""Tests of the ``fce`` command line: CliRunner for the flows, real subprocesses for exit codes and stderr.

A generated news site (tests.sitegen) is served by a local HTTP server; templates go to SQLite files in
tmp_path.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from typer.testing import CliRunner

import fce.service
from fce import cli
from fce.errors import NotHTMLError, SourceError
from fce.pipeline import DEFAULT_FALLBACK
from templates_store import StoreConfigError, StoreUnavailable, VersionConflict
from tests.sitegen import GeneratedPage, generate_site, write_site

SITE = "news.example"
N_LEARN = 20  # fce.learn.RECOMMENDED_PAGES: no "too few pages" warning
PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(64))
JSON_KEYS = ["source", "site", "method", "fit", "layout", "match", "fallback_reason", "check", "page_type",
             "page_type_reason", "metadata", "fingerprint", "text", "blocks"]


# --- fixtures -----------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def pages() -> list[GeneratedPage]:
    """20 pages to learn from, then 3 new pages of the same site."""
    return generate_site(SITE, N_LEARN + 3, seed=3)


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, routes: dict[str, bytes]) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.routes = routes

    def url(self, page: GeneratedPage | str) -> str:
        path = page if isinstance(page, str) else urlsplit(page.url).path
        return f"http://127.0.0.1:{self.server_address[1]}{path}"


class _Handler(BaseHTTPRequestHandler):
    server: _Server

    def log_message(self, format: str, *args: object) -> None:
        pass

    def do_GET(self) -> None:
        body = self.server.routes.get(self.path)
        self.send_response(200 if body is not None else 404)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body or b"")))
        self.end_headers()
        self.wfile.write(body or b"")


@pytest.fixture(scope="module")
def server(pages: list[GeneratedPage]) -> Iterator[_Server]:
    srv = _Server({urlsplit(p.url).path: p.html for p in pages})
    thread = threading.Thread(target=srv.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    yield srv
    srv.shutdown()
    srv.server_close()
    thread.join(5)


@pytest.fixture(autouse=True)
def clean_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No store from the environment; the default store (if any test reached it) would be under tmp_path."""
    monkeypatch.delenv("FCE_STORE", raising=False)
    monkeypatch.delenv("FCE_DEBUG", raising=False)
    monkeypatch.setenv("FCE_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.chdir(tmp_path)


@pytest.fixture
def store(tmp_path: Path) -> str:
    return f"sqlite://{tmp_path / 'templates.db'}"  # tmp_path is absolute: sqlite:///tmp/...


def run(*args: str, input: bytes | None = None):  # noqa: ANN201 -- typer.testing.Result
    return CliRunner().invoke(cli.app, list(args), input=input)


def one_line(stderr: str, prefix: str = "fce: error: ") -> str:
    assert stderr.endswith("\n") and stderr.count("\n") == 1, stderr
    assert stderr.startswith(prefix) and "Traceback" not in stderr, stderr
    return stderr


def gold_lines_found(text: str, page: GeneratedPage) -> float:
    gold = page.gold.splitlines()
    got = set(text.splitlines())
    return sum(line in got for line in gold) / len(gold)


# --- learn → detect → sites, over HTTP ----------------------------------------------------------------------


def test_learn_detect_and_manage_templates_over_http(
    server: _Server, pages: list[GeneratedPage], store: str, tmp_path: Path
) -> None:
    learn, new = pages[:N_LEARN], pages[N_LEARN:]
    (tmp_path / "urls.txt").write_text(
        "# learning pages\n\n" + "\n".join(server.url(p) for p in learn) + "\n")

    result = run("--store", store, "learn", "--site", f"https://www.{SITE}/", "urls.txt")
    assert result.exit_code == 0, result.output
    assert result.stderr == ""  # no progress bar off a terminal, no warning at 20 pages
    summary = dict(line.split(":", 1) for line in result.stdout.splitlines())
    assert {k: v.strip() for k, v in summary.items() if k in ("site", "pages used", "store", "version")} == {
        "site": SITE, "pages used": "20", "store": store, "version": "1"}
    assert int(summary["content paths"]) > 0 and summary["learn time"].strip().endswith(" s")

    # detect: one JSON object per page, in input order, the template's blocks in document order
    urls = [server.url(p) for p in new]
    result = run("--store", store, "detect", "--site", SITE, "--format", "json", *urls)
    assert result.exit_code == 0, result.output
    rows = [json.loads(line) for line in result.stdout.splitlines()]
    assert [r["source"] for r in rows] == urls
    for row, page in zip(rows, new, strict=True):
        assert list(row) == JSON_KEYS
        assert (row["site"], row["method"], row["fallback_reason"], row["layout"]) == (SITE, "template", None, 0)
        assert 0.0 < row["match"] <= 1.0
        assert 0.0 <= row["fit"] <= 1.0
        indices = [b["index"] for b in row["blocks"]]
        assert indices == sorted(indices) and len(set(indices)) == len(indices)
        assert row["text"] == "\n".join(b["text"] for b in row["blocks"] if b["text"])
        assert page.gold.splitlines()[0] in row["text"].splitlines()  # the headline
        assert gold_lines_found(row["text"], page) >= 0.5

    # text format: the contents, each after a line naming its page, pages separated by one blank line
    result = run("--store", store, "detect", "--site", SITE, *urls[:2])
    assert result.exit_code == 0
    assert result.stdout == (f"==> {urls[0]} <==\n" + rows[0]["text"] + f"\n\n==> {urls[1]} <==\n"
                             + rows[1]["text"] + "\n")
    single = run("--store", store, "detect", "--site", SITE, urls[0])  # one page: the content only
    assert single.stdout == rows[0]["text"] + "\n"

    # every detection was counted: 3 + 2 fits, none stale
    counted = json.loads(run("--store", store, "sites", "--format", "json").stdout)
    assert (counted["fits"], counted["fallbacks"], counted["recent"], counted["stale"]) == (6, 0, 6, False)
    assert counted["layouts"][0]["n_pages"] >= 4

    # learning again replaces the template: version 2
    result = run("--store", store, "learn", "--site", SITE, "urls.txt")
    assert result.exit_code == 0 and result.stdout.rstrip().endswith("version:        2")
    assert "replaced:       version 1 (not stale, recent fit rate 1.00 over 6 pages)" in result.stdout

    result = run("--store", store, "sites")
    header, row = result.stdout.splitlines()
    assert header.split() == ["SITE", "VERSION", "LEARNED_AT", "PAGES", "LAYOUTS", "PATHS", "FITS", "FALLBACKS",
                              "OVERRULED", "RECENT_FIT", "STALE"]
    assert row.split()[:2] == [SITE, "2"] and row.split()[3] == "20"
    assert row.split()[6:] == ["0", "0", "0", "-", "-"]  # version 2 has not been used yet
    listing = run("--store", store, "sites", "--format", "json").stdout
    (listed,) = [json.loads(line) for line in listing.splitlines()]
    assert listed["site"] == SITE and listed["content_paths"] and listed["n_pages"] == 20

    shown = run("sites", "show", f"www.{SITE}", "--store", store)  # the site name is normalised
    assert shown.exit_code == 0 and json.loads(shown.stdout)["site"] == SITE
    assert shown.stdout.startswith("{\n  ")  # indented

    assert run("sites", "--store", store, "delete", SITE).stdout == f"deleted {SITE} from {store}\n"
    gone = run("--store", store, "sites", "show", SITE)
    assert gone.exit_code == 10
    assert one_line(gone.stderr) == f"fce: error: {SITE}: no template stored in {store}\n"
    assert run("--store", store, "sites", "delete", SITE).exit_code == 10
    empty = run("--store", store, "sites")
    assert empty.exit_code == 0 and empty.stdout == "" and "no templates" in empty.stderr


def test_site_comes_from_sidecar_metadata(pages: list[GeneratedPage], store: str, tmp_path: Path) -> None:
    files = write_site(pages, tmp_path / "site")  # <id>.html + <id>.json with "url"
    learn_dir = tmp_path / "learn"
    learn_dir.mkdir()
    for path in files[:N_LEARN]:
        for suffix in (".html", ".json", ".txt"):
            path.with_suffix(suffix).rename(learn_dir / path.with_suffix(suffix).name)
    result = run("--store", store, "learn", "learn")  # no --site: every page's sidecar URL names news.example
    assert result.exit_code == 0, result.output
    assert "site:           news.example\n" in result.stdout
    result = run("--store", store, "detect", "--format", "json", str(files[-1]))
    (row,) = [json.loads(line) for line in result.stdout.splitlines()]
    assert (row["site"], row["method"]) == (SITE, "template")


# --- detect: per-page failures, methods, fallback, stdin ----------------------------------------------------


def test_failed_pages_give_error_rows_and_the_first_error_exit_code(
    server: _Server, pages: list[GeneratedPage], store: str, tmp_path: Path
) -> None:
    good = tmp_path / "good.html"
    good.write_bytes(pages[0].html)
    (tmp_path / "empty.html").write_bytes(b"")
    (tmp_path / "image.png").write_bytes(PNG)
    inputs = ["missing.html", str(good), "empty.html", "image.png", server.url("/nope.html")]
    result = run("--store", store, "detect", "--format", "json", *inputs)
    assert result.exit_code == SourceError.exit_code  # 3: the first failed page (missing.html)
    rows = [json.loads(line) for line in result.stdout.splitlines()]
    assert [r["source"] for r in rows] == inputs
    assert [r.get("status") for r in rows] == ["source", None, "empty", "not-html", "fetch"]
    assert rows[4]["error"] == f"{server.url('/nope.html')}: HTTP 404 Not Found"
    assert rows[1]["method"] == DEFAULT_FALLBACK and rows[1]["fallback_reason"] == "no-template"
    errors = result.stderr.splitlines()
    assert len(errors) == 4 and all(e.startswith("fce: error: ") for e in errors)
    assert [e.split(": ")[2] for e in errors] == [*inputs[:1], *inputs[2:]]

    # the same in text mode: only the good page's text on stdout; now the first failure is the empty page (4)
    result = run("--store", store, "detect", *inputs[1:])
    assert result.exit_code == 4 and result.stdout == f"==> {inputs[1]} <==\n" + rows[1]["text"] + "\n"


def test_method_runs_without_touching_the_store(pages: list[GeneratedPage], tmp_path: Path) -> None:
    page = tmp_path / "p.html"
    page.write_bytes(pages[0].html)
    # a store URL that would fail (closed port): --method must not open it
    result = run("--store", "redis://127.0.0.1:1/0", "detect", "--method", "plain", "--format", "json",
                 "p.html")
    assert result.exit_code == 0, result.output
    (row,) = [json.loads(line) for line in result.stdout.splitlines()]
    assert row["method"] == "plain" and row["fit"] is None and pages[0].gold.splitlines()[0] in row["text"]


def test_no_fallback_makes_an_unknown_site_an_error(
    pages: list[GeneratedPage], store: str, tmp_path: Path
) -> None:
    (tmp_path / "p.html").write_bytes(pages[0].html)
    result = run("--store", store, "detect", "--no-fallback", "--site", "other.example", "--format", "json",
                 "p.html")
    assert result.exit_code == 10
    assert json.loads(result.stdout)["status"] == "no-template"
    assert one_line(result.stderr).startswith("fce: error: other.example: no template")


def test_a_corrupt_template_fails_only_its_own_sites_pages(
    pages: list[GeneratedPage], store: str, tmp_path: Path
) -> None:
    from templates_store import open_store

    with open_store(store) as raw:
        raw.put("broken.example", '{"schema": 1, "site": "broken.example"}')  # a key short
    (tmp_path / "p.html").write_bytes(pages[0].html)
    (tmp_path / "p.json").write_text(json.dumps({"url": pages[0].url}))  # news.example: no template
    (tmp_path / "q.html").write_bytes(pages[1].html)
    (tmp_path / "q.json").write_text(json.dumps({"url": "https://broken.example/q"}))
    # by default the site's pages are extracted by the fallback, with one warning and a reason in each row
    result = run("--store", store, "detect", "--format", "json", "p.html", "q.html", "q.html")
    assert result.exit_code == 0
    good, bad, again = (json.loads(line) for line in result.stdout.splitlines())
    assert (good["method"], good["fallback_reason"]) == (DEFAULT_FALLBACK, "no-template")
    assert (bad["method"], bad["fallback_reason"]) == (DEFAULT_FALLBACK, "template-error") and bad["text"]
    assert again["fallback_reason"] == "template-error"
    assert "stored template is corrupt" in one_line(result.stderr, "fce: warning: broken.example: ")
    # --strict: its pages fail (TemplateError), the others do not
    result = run("--store", store, "detect", "--strict", "--format", "json", "p.html", "q.html")
    assert result.exit_code == 11  # TemplateError
    good, bad = (json.loads(line) for line in result.stdout.splitlines())
    assert (good["method"], good["fallback_reason"]) == (DEFAULT_FALLBACK, "no-template")
    assert bad["status"] == "template" and "corrupt" in bad["error"]
    one_line(result.stderr)

    listed = run("--store", store, "sites").stdout.splitlines()
    # still listed, so it can be deleted
    assert listed[1].split() == ["broken.example", "1", "?", "?", "?", "?", "0", "0", "0", "-", "-"]
    assert run("--store", store, "sites", "delete", "broken.example").exit_code == 0


def test_a_store_that_cannot_be_reached_costs_the_templates_not_the_rows(pages: list[GeneratedPage],
                                                                           tmp_path: Path) -> None:
    for i, page in enumerate(pages[:3]):
        (tmp_path / f"p{i}.html").write_bytes(page.html)
    files = [f"p{i}.html" for i in range(3)]
    result = run("--store", "redis://:s3cret@127.0.0.1:1/0", "detect", "--format", "json", *files)
    assert result.exit_code == 13  # the run still says the store failed
    rows = [json.loads(line) for line in result.stdout.splitlines()]
    assert [(r["source"], r["method"], r["fallback_reason"]) for r in rows] == [
        (f, DEFAULT_FALLBACK, "store-error") for f in files] and all(r["text"] for r in rows)
    assert "Redis unreachable" in one_line(result.stderr, "fce: warning: ") and "s3cret" not in result.stderr


def test_structured_formats_and_an_output_dir(pages: list[GeneratedPage], tmp_path: Path) -> None:
    for i, page in enumerate(pages[:2]):
        (tmp_path / f"p{i}.html").write_bytes(page.html)
        (tmp_path / f"p{i}.json").write_text(json.dumps({"url": page.url}))
    linked = ("<html><body><article><h1>A title</h1><p>The council met on Monday, as <a href='/news/1'>we "
              "reported</a> last week, and <em>approved</em> the plan for the harbor and the new ferry.</p>"
              "</article></body></html>")
    (tmp_path / "linked.html").write_text(linked)
    (tmp_path / "linked.json").write_text(json.dumps({"url": "https://news.example/a/2"}))
    markdown = run("detect", "--format", "markdown", "--links", "linked.html")
    assert markdown.exit_code == 0 and markdown.stdout.startswith("# A title")
    assert "[we reported](https://news.example/news/1)" in markdown.stdout and "*approved*" in markdown.stdout
    assert "](" not in run("detect", "--format", "markdown", "linked.html").stdout  # no links unless asked
    html = run("detect", "--format", "html", "p0.html", "p1.html")
    assert html.stdout.startswith("<!-- p0.html -->\n<h1>") and "\n<!-- p1.html -->\n" in html.stdout
    out = tmp_path / "out"
    written = run("detect", "--format", "markdown", "--output-dir", str(out), "p0.html", "p1.html", "p1.html")
    assert written.exit_code == 0 and written.stdout == ""
    assert sorted(p.name for p in out.iterdir()) == ["p0.md", "p1-2.md", "p1.md"]  # one file per input
    assert (out / "p1.md").read_text() == (out / "p1-2.md").read_text()
    as_json = run("detect", "--format", "json", "--output-dir", str(out), "p0.html")
    assert json.loads((out / "p0.json").read_text())["metadata"]["title"] == pages[0].gold.splitlines()[0]
    assert as_json.exit_code == 0


COMMENTED = ("<html><body><main><article><h1>Harbour plan approved</h1>"
             + "<p>The council met on Monday, and after a long debate, it approved the plan for the harbour.</p>" * 4
             + "</article><div id='comments'>"
             + "<div class='comment-body'><p>A reader says: this plan is long overdue, and welcome news.</p></div>" * 3
             + "</div></main></body></html>")


def test_comments_and_the_page_kind(tmp_path: Path) -> None:
    (tmp_path / "c.html").write_text(COMMENTED)
    plain = run("detect", "c.html")
    assert plain.exit_code == 0 and "A reader says" not in plain.stdout  # left out by default
    text = run("detect", "--comments", "c.html").stdout
    content, _, comments = text.partition("\n\n")
    assert "Harbour plan approved" in content and "A reader says" not in content
    assert comments.count("A reader says") == 3
    markdown = run("detect", "--comments", "--format", "markdown", "c.html").stdout
    assert markdown.startswith("# Harbour plan approved") and "\n\n---\n\n" in markdown
    assert markdown.split("---")[1].count("A reader says") == 3
    html = run("detect", "--comments", "--format", "html", "c.html").stdout
    assert "\n<hr>\n<p>A reader says" in html
    record = json.loads(run("detect", "--comments", "--format", "json", "c.html").stdout)
    assert record["page_type"] == "article" and record["page_type_reason"]
    assert record["comments"].count("A reader says") == 3 and "A reader says" not in record["text"]
    assert "comments" not in json.loads(run("detect", "--format", "json", "c.html").stdout)


def test_stdin(pages: list[GeneratedPage]) -> None:
    html = b"<html><body><p>Hello from stdin.</p></body></html>"
    result = run("detect", "--method", "plain", "-", input=html)
    assert result.exit_code == 0 and result.stdout == "Hello from stdin.\n"


@pytest.mark.parametrize(
    "args",
    [
        ["detect", "--method", "plain", "--fallback", "density", "x.html"],
        ["detect", "--fallback", "plain", "--no-fallback", "x.html"],
        ["detect", "--max-bytes", "lots", "x.html"],
        ["detect", "--format", "xml", "x.html"],
        ["learn", "--rules", "strict", "x.html"],
        ["learn"],
    ],
)
def test_usage_errors_exit_2(args: list[str]) -> None:
    assert run(*args).exit_code == 2


def test_learn_warns_about_few_and_skipped_pages(
    pages: list[GeneratedPage], store: str, tmp_path: Path
) -> None:
    names = []
    for i, page in enumerate(pages[:5]):
        (tmp_path / f"{i}.html").write_bytes(page.html)
        names.append(f"{i}.html")
    (tmp_path / "bad.html").write_bytes(PNG)
    result = run("--store", store, "learn", "--site", SITE, *names, "bad.html")
    assert result.exit_code == 0, result.output
    assert result.stderr.splitlines() == [
        "fce: warning: skipped bad.html: not HTML: looks like PNG image",
        f"fce: warning: learned {SITE} from 5 page(s); 20-30 pages of the site are recommended",
    ]
    assert "pages used:     5 (1 skipped)\n" in result.stdout


def test_learn_error_names_why_pages_were_unusable(server: _Server, store: str) -> None:
    urls = [server.url(f"/gone-{i}.html") for i in range(3)]
    result = run("--store", store, "learn", "--site", SITE, *urls)
    assert result.exit_code == 9
    assert one_line(result.stderr).endswith(
        f"3 page(s) could not be used, the first: {urls[0]}: HTTP 404 Not Found\n")


def test_learn_fails_on_a_missing_source_before_fetching(server: _Server, store: str) -> None:
    result = run("--store", store, "learn", "--site", SITE, server.url("/a.html"), "missing.html")
    assert result.exit_code == 3
    assert one_line(result.stderr) == "fce: error: missing.html: no such file or directory\n"


# --- the error mapping --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("exc", "message", "code"),
    [
        (NotHTMLError("not HTML: binary", source="a.png"), "error: a.png: not HTML: binary", 5),
        (StoreUnavailable("template store redis://h/0: down"), "error: template store redis://h/0: down", 13),
        (StoreConfigError("bad option"), "error: bad option", 13),
        (VersionConflict("site has version 3", url="u", site="s", expected=2, actual=3),
         "error: site has version 3", 13),
        (KeyboardInterrupt(), "interrupted", 130),
        (ValueError("boom"), "internal error: ValueError: boom", 1),
    ],
)
def test_exceptions_map_to_one_message_and_exit_code(exc: BaseException, message: str, code: int) -> None:
    assert cli._message(exc) == (message, code)


def test_internal_error_is_one_redacted_line_with_traceback_only_when_debugging(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("lost redis://admin:hunter2@db:6379/0?password=hunter2 mid-call")

    monkeypatch.setattr(fce.service, "detect_sources", broken)
    result = run("detect", "--method", "plain", "x.html")
    assert result.exit_code == 1
    assert one_line(result.stderr, "fce: internal error: ") == (
        "fce: internal error: RuntimeError: lost redis://admin:***@db:6379/0?password=*** mid-call\n")
    monkeypatch.setenv("FCE_DEBUG", "1")
    result = run("detect", "--method", "plain", "x.html")
    assert result.exit_code == 1 and "Traceback" in result.stderr and "hunter2" not in result.stderr


def test_interrupt_exits_130(monkeypatch: pytest.MonkeyPatch) -> None:
    def interrupted(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(fce.service, "detect_sources", interrupted)
    result = run("detect", "--method", "plain", "x.html")
    assert result.exit_code == 130 and result.stderr == "fce: interrupted\n"


def test_version_methods_and_help() -> None:
    assert run("--version").stdout == f"fce {fce.__version__}\n"
    methods = run("methods").stdout
    assert f"{DEFAULT_FALLBACK}  [default fallback]" in methods and "paper:" in methods and "c1=0.333" in methods
    from fce.blocks import ACCELERATED

    assert ("segmentation (all methods and templates): compiled" in methods) == ACCELERATED
    from fce.parse import SCANS_COMPILED

    assert ("byte checks of the parse (encoding, control bytes, prefixes): compiled" in methods) == SCANS_COMPILED
    from fce.features import FEATURES_COMPILED

    assert ("block vectors and similar blocks (learning): compiled" in methods) == FEATURES_COMPILED
    from fce.methods.mainblock import COMPILED

    assert ("mainblock scoring (the fallback and guided detection): compiled" in methods) == COMPILED
    from fce._accel import runs_compiled

    compiled_kernels = runs_compiled("fce.kernels")
    assert ("subtree and template sums, boilerplate mask (per page): compiled" in methods) == compiled_kernels
    from fce.blocks import sax_available

    assert ("block tree made while parsing (detection, learning): on" in methods) == sax_available()
    assert "Usage" in run().output
    # eval and ingest are loaded when asked for, and listed where they always were
    listed = run("--help").stdout.split("Commands:")[1].splitlines()
    assert [line.split()[0] for line in listed if line.strip()] == [
        "learn", "detect", "methods", "show", "serve", "eval", "ingest", "sites"]
    assert "PACKAGE" in run("eval", "--help").stdout and "INPUT" in run("ingest", "--help").stdout
    for command in (["eval", "/nonexistent/package"],
                    ["ingest", "/nonexistent/crawl.warc", "--out", "/nonexistent/out"]):
        failed = run(*command)  # their errors go through the group's mapping like any command's
        assert failed.exit_code == 3 and failed.stderr.startswith("fce: error: /nonexistent/"), failed.stderr


# --- exit codes and one-line stderr, in-process and in real processes ---------------------------------------


ERROR_CASES = {
    # name: (arguments, expected exit code); {d} is a directory with the inputs, {store} a SQLite store URL
    "missing file": (["detect", "--method", "plain", "{d}/missing.html"], 3),
    "empty file": (["detect", "--method", "plain", "{d}/empty.html"], 4),
    "binary file": (["detect", "--method", "plain", "{d}/image.png"], 5),
    "json file": (["detect", "--method", "plain", "{d}/data.json"], 5),
    "unknown method": (["detect", "--method", "nope", "{d}/page.html"], 12),
    "unknown fallback": (["--store", "{store}", "detect", "--fallback", "nope", "{d}/page.html"], 12),
    "too few pages": (["--store", "{store}", "learn", "--site", SITE, "{d}/page.html", "{d}/page2.html"], 9),
    "mixed sites": (["--store", "{store}", "learn", "{d}/page.html", "{d}/other.html"], 9),
    "learn missing file": (["--store", "{store}", "learn", "--site", SITE, "{d}/missing.html"], 3),
    "stdin for learn": (["--store", "{store}", "learn", "--site", SITE, "-"], 3),
    "unknown store scheme": (["--store", "ftp://user:s3cret@host/x", "sites"], 13),
    "bad store option": (["--store", "sqlite:///{d}/x.db?colour=red", "sites"], 13),
    "redis on a closed port": (["--store", "redis://:s3cret@127.0.0.1:1/0", "detect", "--strict", "{d}/page.html"],
                               13),
}

#: Run as real processes too (each pays ~2 s of imports, so only these): the process boundary matters here.
SUBPROCESS_CASES = ("missing file", "binary file", "unknown store scheme", "redis on a closed port")


@pytest.fixture(scope="module")
def inputs(tmp_path_factory: pytest.TempPathFactory, pages: list[GeneratedPage]) -> Path:
    d = tmp_path_factory.mktemp("inputs")
    (d / "empty.html").write_bytes(b"")
    (d / "image.png").write_bytes(PNG)
    (d / "data.json").write_text('{"url": "https://news.example/a", "items": [1, 2, 3]}')
    (d / "page.html").write_bytes(pages[0].html)
    (d / "page2.html").write_bytes(pages[1].html)
    (d / "other.html").write_bytes(pages[2].html)
    (d / "other.json").write_text('{"url": "https://elsewhere.example/x"}')
    (d / "page.json").write_text(f'{{"url": "{pages[0].url}"}}')
    return d


def _argv(name: str, d: Path) -> list[str]:
    return [a.format(d=d, store=f"sqlite://{d / 'store.db'}") for a in ERROR_CASES[name][0]]


@pytest.mark.parametrize("name", list(ERROR_CASES))
def test_errors_exit_code_and_one_line_stderr(inputs: Path, name: str) -> None:
    result = run(*_argv(name, inputs))
    assert result.exit_code == ERROR_CASES[name][1], result.output
    one_line(result.stderr)
    assert "s3cret" not in result.stderr and result.stdout == ""


@pytest.fixture(scope="module")
def processes(inputs: Path) -> dict[str, tuple[int, str, str, float]]:
    """Run SUBPROCESS_CASES as ``python -m fce``, two at a time."""
    env = {k: v for k, v in os.environ.items() if k not in ("FCE_STORE", "FCE_DEBUG")}
    env["FCE_DATA_DIR"] = str(inputs / "data")
    done = {}
    for pair in (SUBPROCESS_CASES[i:i + 2] for i in range(0, len(SUBPROCESS_CASES), 2)):
        running = {
            name: (subprocess.Popen([sys.executable, "-m", "fce", *_argv(name, inputs)], env=env, cwd=inputs,
                                    stdout=subprocess.PIPE, stderr=subprocess.PIPE), time.monotonic())
            for name in pair
        }
        for name, (proc, started) in running.items():
            out, err = proc.communicate(timeout=60)
            done[name] = (proc.returncode, out.decode(), err.decode(), time.monotonic() - started)
    return done


@pytest.mark.parametrize("name", SUBPROCESS_CASES)
def test_subprocess_exit_code_and_one_line_stderr(processes: dict[str, tuple], name: str) -> None:
    code, out, err, seconds = processes[name]
    assert code == ERROR_CASES[name][1], (code, err)
    one_line(err)
    assert "s3cret" not in err and out == ""
    if name == "redis on a closed port":
        # refused at once and the store's retries are short: at most a few seconds more than a run that
        # fails right after start-up (run alongside it: both pay the same import time, whatever the load)
        baseline = processes["unknown store scheme"][3]
        assert "redis://:***@127.0.0.1:1/0" in err and seconds < baseline + 5


def test_the_pure_python_segmentation_gives_the_same_output_end_to_end(tmp_path: Path) -> None:
    # FCE_NO_ACCEL=1 is what an install without a C compiler runs: same extraction, from the command line
    import importlib.util

    example = Path(__file__).resolve().parent.parent / "examples" / "site" / "new"
    pages = [str(p) for p in sorted(example.glob("*.html"))]
    outputs = {}
    for accel in ("", "1"):
        env = {**os.environ, "FCE_NO_ACCEL": accel, "FCE_DATA_DIR": str(tmp_path)}
        done = subprocess.run([sys.executable, "-m", "fce", "detect", "--method", "mainblock", *pages], env=env,
                              capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        methods = subprocess.run([sys.executable, "-m", "fce", "methods"], env=env, capture_output=True, text=True,
                                 timeout=60).stdout
        assert ("pure Python" in methods) == (accel == "1" or importlib.util.find_spec("fce._segment") is None)
        outputs[accel] = done.stdout
    assert outputs[""] == outputs["1"] and outputs[""].strip()


def test_the_command_line_imports_no_http_client_nor_redis_until_it_needs_them(tmp_path, store):
    # a detection of one local page with a template reads the embedded store and compares no vectors: importing
    # httpx, redis-py and scipy.sparse took ~0.3 s of it (fce.fetch, templates_store.RedisStore and the sparse
    # matrices of fce.features import them on first use), the eval and ingest commands ~0.15 s (imported when
    # one of them is run)
    site = generate_site("lazy.example", 13, seed=1)
    write_site(site[:12], tmp_path / "site")
    learned = run("--store", store, "learn", "--site", "lazy.example", str(tmp_path / "site"))
    assert learned.exit_code == 0, learned.output
    page = tmp_path / "page.html"
    page.write_bytes(site[12].html)
    code = (
        "import sys\n"
        "from fce import cli\n"
        "try:\n"
        f"    cli.main(['detect', '--store', {store!r}, '--site', 'lazy.example', '--format', 'json', {str(page)!r}])\n"
        "except SystemExit as done:\n"
        "    assert not done.code, done.code\n"
        "print(sorted(m for m in ('httpx', 'redis', 'scipy', 'sklearn', 'fce.evaluation', 'fce.ingest')\n"
        "             if m in sys.modules))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False)
    *records, loaded = done.stdout.strip().splitlines()
    assert loaded == "[]", done.stdout + done.stderr
    record = json.loads(records[-1])
    assert record["method"] == "template", record  # the template was applied, not a fallback
    assert gold_lines_found(record["text"], site[12]) > 0.9
    from templates_store import RedisStore  # and it is there when asked for

    assert RedisStore.__name__ == "RedisStore"


def test_a_closed_output_pipe_exits_141_quietly(inputs: Path) -> None:
    # `fce detect … | head`: the reader is gone before fce writes; no message, no "Exception ignored", and the
    # shell's code for a program stopped by SIGPIPE
    env = {k: v for k, v in os.environ.items() if k not in ("FCE_STORE", "FCE_DEBUG")}
    env["FCE_DATA_DIR"] = str(inputs / "pipe-data")
    proc = subprocess.Popen([sys.executable, "-m", "fce", "detect", "--method", "plain", str(inputs / "page.html")],
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()
    with proc.stderr:
        err = proc.stderr.read().decode()
    assert proc.wait(timeout=60) == 141, err
    assert err == ""
