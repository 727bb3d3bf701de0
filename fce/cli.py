"""The ``fce`` command line: thin commands over :mod:`fce.service`, :mod:`fce.methods` and the template store.

    fce learn --site example.com urls.txt          learn a site's template from 20–30 of its pages
    fce detect https://example.com/new-article     extract a page's main content with its site's template
    fce sites [show SITE | delete SITE]            list, print or delete stored templates
    fce methods                                    list the single-page methods (``detect --method``)
    fce show PAGE -o out.html                      the page with every block coloured by its fate
    fce serve                                      the HTTP API (POST /extract, POST /learn, GET /sites)
    fce eval DATA...                               score methods against gold text (:mod:`fce.evaluation`)

Errors are mapped to exit codes in one place, :func:`_fail` (the codes are ``fce.errors.EXIT_CODES``; 2 is a
usage error, 1 an internal error, 130 an interrupt, 141 a closed output pipe). Every message is one line on
stderr; a traceback is printed only with ``FCE_DEBUG=1``, and store URLs are always shown redacted.
"""

from __future__ import annotations

import json
import os
import re
import sys
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, NoReturn

import typer
from typer.core import TyperGroup

from fce.cliutil import parse_size as _size
from fce.errors import FceError, MissingExtraError, StoreFailure, TemplateNotFoundError
from fce.extras import install_hint
from fce.fetch import DEFAULT_CONCURRENCY, DEFAULT_TIMEOUT, FetchOptions
from fce.kinds import OutputFormat
from fce.learn import DEFAULT_RULES, RULES
from fce.limits import DEFAULT_PAGE_TIMEOUT
from fce.parse import MAX_PAGE_BYTES
from fce.pipeline import DEFAULT_FALLBACK
from fce.render import text_html, text_markdown
from fce.sites import normalize_site, printable_site, stored_site_names
from fce.version import __version__

if TYPE_CHECKING:
    from templates_store import TemplateStore

__all__ = ["app", "main"]

#: Exit status of an unexpected exception (a bug) and of an interrupt (128 + SIGINT, as shells do).
EXIT_INTERNAL = 1
EXIT_INTERRUPTED = 130
#: Exit status when the reader of the output closed it (``fce detect … | head``): 128 + SIGPIPE, what a shell
#: reports for ``cat`` or ``grep`` in the same place (Python ignores SIGPIPE, so it is set explicitly, silently).
EXIT_CLOSED_OUTPUT = 141

_DEBUG_ENV = "FCE_DEBUG"


# --- errors: the one place where exceptions become messages and exit codes ----------------------------------


def _message(exc: BaseException) -> tuple[str, int]:
    """``(one-line message, exit code)`` for any exception: an FceError keeps its code, a store error becomes
    a StoreFailure (13), anything else is an internal error (1)."""
    from templates_store import StoreError

    if isinstance(exc, StoreError):
        exc = StoreFailure(str(exc))
    if isinstance(exc, FceError):
        return f"error: {exc}", exc.exit_code
    if isinstance(exc, KeyboardInterrupt):
        return "interrupted", EXIT_INTERRUPTED
    return f"internal error: {type(exc).__name__}: {exc}", EXIT_INTERNAL


def _report(exc: BaseException) -> int:
    """Print the one-line message of ``exc`` on stderr; return its exit code."""
    text, code = _message(exc)
    if os.environ.get(_DEBUG_ENV) == "1" and code == EXIT_INTERNAL:
        typer.echo(_redact("".join(traceback.format_exception(exc))).rstrip(), err=True)
    typer.echo(f"fce: {_one_line(_redact(text))}", err=True)
    return code


def _fail(exc: BaseException) -> NoReturn:
    raise typer.Exit(_report(exc))


_URL_PASSWORD = re.compile(r"([A-Za-z][A-Za-z0-9+.-]*://[^/@:\s]*):[^/@\s]*@")
_QUERY_PASSWORD = re.compile(r"([?&]password=)[^&\s]*", re.IGNORECASE)


def _redact(text: str) -> str:
    """Mask passwords of URLs anywhere in ``text`` (a message may quote a store URL, e.g. from redis-py)."""
    return _QUERY_PASSWORD.sub(r"\1***", _URL_PASSWORD.sub(r"\1:***@", text))


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _discard_stdout() -> None:
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):  # no file descriptor (stdout replaced, e.g. under a test runner)
        pass


#: Commands whose modules are imported only when the command is asked for (by name, or to list them in
#: ``--help``): the evaluation harness and the ingestion pipeline were ~40 ms of every command's start-up.
#: Name → (module, function); ``--help`` lists them after ``_AFTER_LAZY``.
LAZY_COMMANDS = {"eval": ("fce.evaluation.command", "eval_command"),
                 "ingest": ("fce.ingest.command", "ingest_command")}
_AFTER_LAZY = "serve"


class _Group(TyperGroup):
    """The app's group: maps every exception a command raises through :func:`_fail`, and loads the
    :data:`LAZY_COMMANDS` on first use."""

    def list_commands(self, ctx: Any) -> list[str]:
        names = [n for n in super().list_commands(ctx) if n not in LAZY_COMMANDS]
        at = names.index(_AFTER_LAZY) + 1 if _AFTER_LAZY in names else len(names)
        return [*names[:at], *LAZY_COMMANDS, *names[at:]]

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        if cmd_name in LAZY_COMMANDS and cmd_name not in self.commands:
            import importlib

            module, function = LAZY_COMMANDS[cmd_name]
            single = typer.Typer(add_completion=False, pretty_exceptions_enable=False, rich_markup_mode=None)
            single.command(cmd_name)(getattr(importlib.import_module(module), function))
            self.add_command(typer.main.get_command(single), cmd_name)
        return super().get_command(ctx, cmd_name)

    def invoke(self, ctx: Any) -> Any:
        try:
            return super().invoke(ctx)
        except (typer.Exit, typer.Abort, typer.TyperException):
            raise  # Typer's own: usage errors (2), --help, explicit exits
        except BrokenPipeError:
            # the output's reader is gone: no message, and what is still buffered goes nowhere (not to a closed
            # pipe at exit, where Python would print "Exception ignored")
            _discard_stdout()
            raise typer.Exit(EXIT_CLOSED_OUTPUT) from None
        except (Exception, KeyboardInterrupt) as exc:
            _fail(exc)


# --- shared resources ---------------------------------------------------------------------------------------


@dataclass
class _State:
    """Built once per invocation in the app callback; the store opens lazily on first use."""

    store_url: str | None = None
    _store: TemplateStore | None = field(default=None, repr=False)

    def store(self, override: str | None = None) -> TemplateStore:
        if self._store is None:
            from templates_store import open_store

            self._store = open_store(override or self.store_url)
        return self._store

    def close(self) -> None:
        if self._store is not None:
            self._store.close()


def _state(ctx: typer.Context) -> _State:
    obj = ctx.find_root().obj
    assert isinstance(obj, _State)
    return obj


class Format(StrEnum):
    """``fce sites``'s output."""

    text = "text"
    json = "json"


class DetectFormat(StrEnum):
    """``fce detect``'s output (:class:`fce.kinds.OutputFormat`)."""

    text = "text"
    json = "json"
    markdown = "markdown"
    html = "html"


#: ``fce detect --output-dir``: the file extension per format.
OUTPUT_SUFFIXES = {"text": ".txt", "json": ".json", "markdown": ".md", "html": ".html"}

#: At least this many pages, written while stderr is a terminal and stdout is not (a file, --output-dir, a pipe),
#: get a progress bar on stderr: a batch long enough to wonder how far it is.
PROGRESS_MIN_PAGES = 20


StoreOpt = Annotated[
    str | None,
    typer.Option("--store", metavar="URL", show_default=False,
                 help="Template store: sqlite:///path.db, a file path, redis://[:password@]host:port/db, "
                      "redis+cluster://host:port, memory:// (overrides the global --store and $FCE_STORE)."),
]
MaxBytesOpt = Annotated[
    int,
    typer.Option("--max-bytes", metavar="SIZE", parser=_size,
                 help="Refuse pages larger than this (bytes, or with K/M/G)."),
]
TimeoutOpt = Annotated[float, typer.Option(min=0.001, metavar="SECONDS", help="Seconds per download try.")]
PageTimeoutOpt = Annotated[float, typer.Option(
    "--page-timeout", min=0.0, metavar="SECONDS",
    help="Seconds of processing per page (parse, extract; learning: per page learned from) before it fails "
         "with exit 8; 0: no limit.")]
ConcurrencyOpt = Annotated[int, typer.Option(min=1, metavar="N", help="Parallel downloads.")]


def _progress(label: str) -> tuple[Callable[[str], None], Callable[[], None]]:
    """A progress counter on stderr, shown only when stderr is a terminal; ``(update, close)``."""
    from tqdm import tqdm

    bar = tqdm(desc=label, unit=" page", file=sys.stderr, disable=None, leave=False, dynamic_ncols=True)
    return (lambda _name: bar.update()), bar.close


# --- the app ------------------------------------------------------------------------------------------------


app = typer.Typer(
    name="fce",
    cls=_Group,
    help="FastContentExtractor: learn where the main content of a site's pages sits, then extract it fast.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"fce {__version__}")
        raise typer.Exit()


@app.callback()
def _callback(
    ctx: typer.Context,
    store: Annotated[
        str | None,
        typer.Option("--store", envvar="FCE_STORE", metavar="URL", show_default=False,
                     help="Template store: sqlite:///path.db, a file path, redis://[:password@]host:port/db, "
                          "redis+cluster://host:port, memory://. Default: templates.sqlite3 in $FCE_DATA_DIR or "
                          "the user data dir."),
    ] = None,
    version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help="Print the version and exit.")
    ] = False,
) -> None:
    """FastContentExtractor: learn where the main content of a site's pages sits, then extract it fast."""
    state = _State(store_url=store)
    ctx.obj = state
    ctx.call_on_close(state.close)


@app.command()
def learn(
    ctx: typer.Context,
    sources: Annotated[list[str], typer.Argument(
        metavar="SOURCE", show_default=False,
        help="Pages of the site: http(s) URLs, HTML files, directories, or text files listing URLs/paths.")],
    site: Annotated[str | None, typer.Option(
        metavar="SITE", help="Site to learn (example.com); default: the one site the pages' URLs name.",
    )] = None,
    store: StoreOpt = None,
    rules: Annotated[str, typer.Option(
        metavar="RULES", help=f"Detection rules stored with the template: {' or '.join(RULES)}.")] = DEFAULT_RULES,
    max_bytes: MaxBytesOpt = MAX_PAGE_BYTES,
    timeout: TimeoutOpt = DEFAULT_TIMEOUT,
    concurrency: ConcurrencyOpt = DEFAULT_CONCURRENCY,
    page_timeout: PageTimeoutOpt = DEFAULT_PAGE_TIMEOUT,
    one_layout: Annotated[bool, typer.Option(
        "--one-layout", help="Learn one template from all pages, instead of one per layout of the site.")] = False,
) -> None:
    """Learn a site's templates from 20–30 of its pages (one per layout: articles, galleries, a redesign) and
    store them, replacing all that was stored for the site at once (a stale site is relearned this way)."""
    from fce.service import learn_sources, save_template, site_rows

    if rules not in RULES:
        raise typer.BadParameter(f"must be one of {', '.join(RULES)}", param_hint="--rules")
    site = None if site is None else normalize_site(site)  # an unusable name fails before anything is read
    target = _state(ctx).store(store)
    target.ping()  # fail before fetching and learning, not after
    update, close = _progress("reading")
    try:
        result = learn_sources(sources, site=site, max_bytes=max_bytes, progress=update, rules=rules,
                               fetch=FetchOptions(concurrency=concurrency, timeout=timeout),
                               page_timeout=page_timeout or None, layouts=not one_layout)
    finally:
        close()
    for warning in result.warnings:
        typer.echo(f"fce: warning: {_one_line(warning)}", err=True)
    record = result.record
    for copy in record.extra.get("duplicates", ()):
        typer.echo(f"fce: note: {_one_line(copy['page'])}: left out, a copy of {_one_line(copy['copy_of'])} "
                   f"({copy['reason']})", err=True)
    before = next(iter(site_rows(target, [record.site])), None)
    # compare-and-set on the version just read: a relearn by someone else in between is not overwritten
    version = save_template(target, record, expected_version=0 if before is None else before["version"])
    skipped = f" ({len(result.skipped)} skipped)" if result.skipped else ""
    sizes = " + ".join(str(t.n_pages) for t in record.layouts)
    replaced = ""
    if before is not None:
        rate = before["recent_fit_rate"]
        replaced = (f"\nreplaced:       version {before['version']}"
                    + (" (stale" if before["stale"] else " (not stale")
                    + ("" if rate is None else f", recent fit rate {rate:.2f} over {before['recent']} pages")
                    + ")")
    copies = record.extra.get("duplicates", ())
    dropped = f" ({len(copies)} copies of another page left out)" if copies else ""
    titled = sum(t.title_path is not None for t in record.layouts)
    typer.echo(
        f"site:           {record.site}\n"
        f"pages used:     {record.n_pages}{skipped}{dropped}\n"
        f"layouts:        {len(record.layouts)} ({sizes} pages)\n"
        f"content paths:  {len({p for t in record.layouts for p in t.content_paths})}\n"
        f"noise blocks:   {sum(len(t.noise_blocks) for t in record.layouts)}\n"
        f"headline path:  {titled} of {len(record.layouts)} layout(s)\n"
        f"learn time:     {result.seconds:.2f} s\n"
        f"store:          {target.url}"
        f"{replaced}\n"
        f"version:        {version}"
    )


@app.command()
def detect(
    ctx: typer.Context,
    pages: Annotated[list[str], typer.Argument(
        metavar="PAGE", show_default=False,
        help="http(s) URLs, HTML files, directories, URL list files, or - for standard input.")],
    site: Annotated[str | None, typer.Option(
        metavar="SITE", help="Site of every page; default: each page's URL, canonical link or og:url.",
    )] = None,
    store: StoreOpt = None,
    fmt: Annotated[DetectFormat, typer.Option(
        "--format", metavar="text|json|markdown|html",
        help="text: the content, a line per block; json: one object per line per page, with the page's metadata; "
             "markdown: headings, lists, tables, code and emphasis; html: clean semantic HTML. Several pages: each "
             "after a line naming it (==> page <== for text, a comment for markdown and html).",
    )] = DetectFormat.text,
    links: Annotated[bool, typer.Option(
        "--links", help="Keep links in markdown output ([text](url)); html output always keeps them.")] = False,
    comments: Annotated[bool, typer.Option(
        "--comments", help="Keep the page's reader comments, which the content leaves out: after the content "
                           "(text, markdown, html: after a rule), as the field comments in json.")] = False,
    output_dir: Annotated[Path | None, typer.Option(
        "--output-dir", metavar="DIR", show_default=False,
        help="Write each page to its own file in DIR, named after the input (page.html -> page.md), instead of "
             "standard output.")] = None,
    method: Annotated[str | None, typer.Option(
        metavar="NAME", help="Run only this single-page method (see `fce methods`); no template store used.",
    )] = None,
    fallback: Annotated[str | None, typer.Option(
        metavar="NAME", show_default=False,
        help=f"Method for pages without a (fitting) template. Default: {DEFAULT_FALLBACK}.")] = None,
    no_fallback: Annotated[bool, typer.Option(
        "--no-fallback", help="A page of a site without a template is an error (exit 10).")] = False,
    min_fit: Annotated[float | None, typer.Option(
        min=0.0, max=1.0, metavar="FIT", show_default=False,
        help="Fit score below which the template is not trusted and the fallback runs.")] = None,
    mode: Annotated[str, typer.Option(
        metavar="guided|rules",
        help="How templates are applied: guided (site boilerplate removed, then content scoring) or rules "
             "(the FastCE paper's three extraction rules).")] = "guided",
    max_bytes: MaxBytesOpt = MAX_PAGE_BYTES,
    timeout: TimeoutOpt = DEFAULT_TIMEOUT,
    concurrency: ConcurrencyOpt = DEFAULT_CONCURRENCY,
    page_timeout: PageTimeoutOpt = DEFAULT_PAGE_TIMEOUT,
    strict: Annotated[bool, typer.Option(
        "--strict", help="A corrupt stored template, or a store that cannot be reached, fails the pages it concerns "
                         "(exit 11 / 13) instead of their being extracted by the fallback.")] = False,
) -> None:
    """Extract the main content of pages, in document order, with their sites' templates.

    Every page gives one output record, in input order. A page that fails is reported on stderr (and, with
    --format json, as {"source", "error", "status"}); the others are still processed, and the exit status is
    that of the first failed page. A site whose stored template is corrupt, or every page once the store cannot
    be reached, is extracted by the fallback (fallback_reason template-error / store-error) with one warning; a
    store that could not be reached still ends the run with exit 13. --strict makes those pages errors.
    """
    from fce.detect import DETECTION_MODES, MIN_FIT
    from fce.service import detect_sources

    if method is not None and (fallback is not None or no_fallback or min_fit is not None):
        raise typer.BadParameter("--fallback, --no-fallback and --min-fit apply to templates, not --method",
                                 param_hint="--method")
    if mode not in DETECTION_MODES:
        raise typer.BadParameter(f"must be one of {', '.join(DETECTION_MODES)}", param_hint="--mode")
    if fallback is not None and no_fallback:
        raise typer.BadParameter("give --fallback or --no-fallback, not both", param_hint="--no-fallback")
    site = None if site is None else normalize_site(site)  # an unusable name fails before anything is read
    target = None if method is not None else _state(ctx).store(store)
    results = detect_sources(  # checks the method names; reads nothing until iterated
        pages,
        store=target,
        site=site,
        method=method,
        fallback=None if no_fallback else (fallback or DEFAULT_FALLBACK),
        min_fit=MIN_FIT if min_fit is None else min_fit,
        mode=mode,
        max_bytes=max_bytes,
        fetch=FetchOptions(concurrency=concurrency, timeout=timeout),
        page_timeout=page_timeout or None,
        strict=strict,
        metadata=fmt is DetectFormat.json,
        output=OutputFormat(fmt.value),
        links=links,
        comments=comments,
    )
    writer = _PageWriter(fmt, output_dir, several=len(pages) > 1 or output_dir is not None)
    first_error: FceError | None = None
    warned: set[str] = set()
    for result in results:
        if result.error is not None:
            _report(result.error)
            first_error = first_error or result.error
        if result.problem is not None and str(result.problem) not in warned:
            warned.add(str(result.problem))
            reason = result.extraction.fallback_reason if result.extraction is not None else None
            typer.echo(f"fce: warning: {_one_line(str(result.problem)).rstrip('.')}; extracted by the fallback instead "
                       f"({reason})", err=True)
            if isinstance(result.problem, StoreFailure):
                first_error = first_error or result.problem
        writer.write(result)
    writer.close()
    if first_error is not None:
        raise typer.Exit(first_error.exit_code)


class _PageWriter:
    """Where ``fce detect`` writes each page's output: standard output, each page after a line naming it when there
    may be several (as ``head`` does), or a file per page in ``output_dir``; a progress bar on stderr for a long
    batch that is not written to the terminal (:data:`PROGRESS_MIN_PAGES`)."""

    def __init__(self, fmt: DetectFormat, output_dir: Path | None, *, several: bool) -> None:
        self.fmt = fmt
        self.output_dir = output_dir
        self.several = several
        self.written = 0
        self.names: set[str] = set()
        self.bar: Any = None
        self.count = 0
        if output_dir is not None:
            output_dir.mkdir(parents=True, exist_ok=True)

    def write(self, result: Any) -> None:
        self.count += 1
        self._progress()
        if self.fmt is DetectFormat.json:
            body = json.dumps(result.to_dict(), ensure_ascii=False)
        elif result.extraction is None:
            return
        else:
            extraction = result.extraction
            body = {DetectFormat.text: extraction.text, DetectFormat.markdown: extraction.markdown,
                    DetectFormat.html: extraction.html}[self.fmt] or ""
            if extraction.comments:
                body = self._with_comments(body, extraction.comments)
        if self.output_dir is not None:
            (self.output_dir / self._file_name(result.source)).write_text(body + "\n", encoding="utf-8")
            return
        if self.fmt is not DetectFormat.json and self.several:
            head = (f"==> {result.source} <==" if self.fmt is DetectFormat.text
                    else f"<!-- {result.source.replace('--', '- -')} -->")
            body = ("\n" if self.written else "") + head + "\n" + body
        typer.echo(body)
        self.written += 1

    def _with_comments(self, body: str, comments: str) -> str:
        """``body`` (the content) and the page's reader comments after it, set off as the format allows."""
        if self.fmt is DetectFormat.markdown:
            return f"{body}\n\n---\n\n{text_markdown(comments)}"
        if self.fmt is DetectFormat.html:
            return f"{body}\n<hr>\n{text_html(comments)}"
        return f"{body}\n\n{comments}"

    def _file_name(self, source: str) -> str:
        """The file of ``source``'s output: its name without the extension (a URL's path, made safe), with this
        format's suffix; ``-2``, ``-3`` … where two inputs share a name."""
        stem = Path(source.split("?", 1)[0].rstrip("/")).name if source != "-" else "stdin"
        stem = re.sub(r"[^\w.-]+", "_", Path(stem).stem)[:100] or "page"
        name, n = stem, 1
        while name in self.names:
            n += 1
            name = f"{stem}-{n}"
        self.names.add(name)
        return name + OUTPUT_SUFFIXES[self.fmt.value]

    def _progress(self) -> None:
        if self.bar is None and self.count == PROGRESS_MIN_PAGES and sys.stderr.isatty() and (
                self.output_dir is not None or not sys.stdout.isatty()):
            from tqdm import tqdm

            self.bar = tqdm(initial=self.count, unit=" page", file=sys.stderr, leave=False, dynamic_ncols=True)
        elif self.bar is not None:
            self.bar.update(1)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


sites_app = typer.Typer(
    cls=TyperGroup,
    invoke_without_command=True,
    no_args_is_help=False,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    help="List stored templates; `fce sites show SITE`, `fce sites delete SITE`.",
)
app.add_typer(sites_app, name="sites")


@sites_app.callback(invoke_without_command=True)
def sites(
    ctx: typer.Context,
    store: StoreOpt = None,
    fmt: Annotated[Format, typer.Option(
        "--format", metavar="text|json", help="text table, or json (one object per line).")] = Format.text,
) -> None:
    """List stored sites: version, learned_at, pages learned from, layouts, content paths, and how the templates
    fare — fits and fallbacks since learning, the recent fit rate and whether the site is stale (relearn it)."""
    if ctx.invoked_subcommand is not None:
        if store is not None:
            _state(ctx).store_url = store
        return
    from fce.service import site_rows

    target = _state(ctx).store(store)
    rows = site_rows(target)
    if fmt is Format.json:
        for row in rows:
            typer.echo(json.dumps(row, ensure_ascii=False))
        return
    if not rows:
        typer.echo(f"fce: no templates in {target.url}", err=True)
        return
    header = {"site": "SITE", "version": "VERSION", "learned_at": "LEARNED_AT", "n_pages": "PAGES",
              "layouts": "LAYOUTS", "content_paths": "PATHS", "fits": "FITS", "fallbacks": "FALLBACKS",
              "overruled": "OVERRULED", "recent_fit_rate": "RECENT_FIT", "stale": "STALE"}

    def cells(r: dict[str, Any]) -> dict[str, Any]:
        rate = r["recent_fit_rate"]
        return {**r, "content_paths": len(r["content_paths"]) if r["content_paths"] is not None else None,
                "layouts": (f"{len(r['layouts'])}(" + "+".join(str(x["n_pages"]) for x in r["layouts"]) + ")")
                if r["layouts"] is not None else None,
                "recent_fit_rate": "-" if rate is None else f"{rate:.2f}/{r['recent']}",
                "stale": "stale" if r["stale"] else "-"}

    table = [header] + [{**cells(r), "site": printable_site(r["site"])} for r in rows]  # (a stored name is data)
    widths = {k: max(len(str(r[k] if r[k] is not None else "?")) for r in table) for k in header}
    for r in table:
        line = (str(r[k] if r[k] is not None else "?").ljust(widths[k]) for k in header)
        typer.echo("  ".join(line).rstrip())


@sites_app.command("show")
def sites_show(
    ctx: typer.Context,
    site: Annotated[str, typer.Argument(help="The site (example.com).")],
    store: StoreOpt = None,
) -> None:
    """Print a site's stored template as indented JSON."""
    names = stored_site_names(site)
    target = _state(ctx).store(store)
    name, record = next(((n, r) for n in names if (r := target.get(n)) is not None), (names[0], None))
    if record is None:
        raise TemplateNotFoundError(f"no template stored in {target.url}", source=name)
    try:
        typer.echo(json.dumps(json.loads(record.payload), indent=2, ensure_ascii=False))
    except ValueError:
        typer.echo(record.payload)  # print what is stored even when it is not JSON: it is what the user asked


@sites_app.command("delete")
def sites_delete(
    ctx: typer.Context,
    site: Annotated[str, typer.Argument(help="The site (example.com).")],
    store: StoreOpt = None,
) -> None:
    """Delete a site's stored template."""
    names = stored_site_names(site)
    target = _state(ctx).store(store)
    name = next((n for n in names if target.delete(n)), None)
    if name is None:
        raise TemplateNotFoundError(f"no template stored in {target.url}", source=names[0])
    typer.echo(f"deleted {name} from {target.url}")


@app.command()
def methods() -> None:
    """List the single-page extraction methods (for `detect --method` and `--fallback`)."""
    from fce.methods import available_methods

    for info in available_methods():
        params = ", ".join(f"{k}={v}" for k, v in info.params.items()) or "none"
        default = "  [default fallback]" if info.name == DEFAULT_FALLBACK else ""
        typer.echo(f"{info.name}{default}\n  {info.description}\n  paper: {info.paper}\n  params: {params}")
    from fce._accel import NO_ACCEL_ENV, PURE_PYTHON_MODULES, runs_compiled
    from fce.blocks import ACCELERATED
    from fce.features import FEATURES_COMPILED
    from fce.methods.mainblock import COMPILED
    from fce.parse import SCANS_COMPILED

    # (what, compiled?, where the compiled code is, why it would not run)
    parts = (
        ("segmentation (all methods and templates)", ACCELERATED, "fce._segment", "pure Python",
         "fce._segment not built"),
        ("byte checks of the parse (encoding, control bytes, prefixes)", SCANS_COMPILED, "fce._scan", "Python",
         "fce._scan not built"),
        ("block vectors and similar blocks (learning)", FEATURES_COMPILED, "fce._features", "Python",
         "fce._features not built"),
        ("subtree and template sums, boilerplate mask (per page)", runs_compiled("fce.kernels"), "fce/kernels.py",
         "Python", "not compiled at install"),
        ("mainblock scoring (the fallback and guided detection)", COMPILED, "fce/methods/mainblock.py", "Python",
         "not compiled at install"),
        ("metadata, markdown and HTML output",
         all(runs_compiled(name) for name in PURE_PYTHON_MODULES if name.startswith(("fce.metadata", "fce.render"))),
         "fce/metadata.py, fce/render/", "Python", "not compiled at install"),
    )
    for what, compiled, where, python, missing in parts:
        typer.echo(f"{what}: " + (f"compiled ({where})" if compiled
                                  else f"{python} ({missing}, or {NO_ACCEL_ENV} set; same output, slower)"))
    from lxml import etree

    from fce.blocks import sax_available

    version = ".".join(map(str, etree.LIBXML_VERSION))
    typer.echo("block tree made while parsing (detection, learning): " + (
        f"on (libxml2 {version}'s parse events; no lxml tree built)" if sax_available() else
        f"off (libxml2 {version} is not a checked version, or the segmentation is not compiled; same output, "
        f"slower)"))


@app.command()
def show(
    ctx: typer.Context,
    page: Annotated[str, typer.Argument(
        metavar="PAGE", show_default=False, help="One page: an http(s) URL, an HTML file, or - for standard input.")],
    out: Annotated[str, typer.Option(
        "--out", "-o", metavar="FILE", show_default=False, help="Where to write the overlay HTML.")],
    site: Annotated[str | None, typer.Option(
        metavar="SITE", help="The page's site; default: its URL, canonical link or og:url.")] = None,
    method: Annotated[str | None, typer.Option(
        metavar="NAME", help="Show what this single-page method keeps instead (no template store used).")] = None,
    store: StoreOpt = None,
    mode: Annotated[str, typer.Option(
        metavar="guided|rules", help="How the template is applied (as `fce detect --mode`).")] = "guided",
    fallback: Annotated[str, typer.Option(
        metavar="NAME", help="Method for a page without a (fitting) template.")] = DEFAULT_FALLBACK,
    png: Annotated[str | None, typer.Option(
        metavar="FILE", show_default=False,
        help="Also write a PNG screenshot of the whole overlay page (1280 px wide, cut at 16,384 px), through a "
             "headless Chromium (exit 16 if none).")] = None,
    max_bytes: MaxBytesOpt = MAX_PAGE_BYTES,
    timeout: TimeoutOpt = DEFAULT_TIMEOUT,
    page_timeout: PageTimeoutOpt = DEFAULT_PAGE_TIMEOUT,
) -> None:
    """Write the page with every block outlined in the colour of its fate (content, noise by path, noise by
    similarity, fallback), its path on hover, and a side panel with the extracted text and the fit score.

    The HTML is self-contained: the page's scripts, frames and external resources are removed.
    """
    from pathlib import Path

    from fce.blocks import DEFAULT_PATH_STYLE
    from fce.detect import DETECTION_MODES
    from fce.errors import SourceError
    from fce.limits import run_limited
    from fce.pipeline import Extractor
    from fce.show import explain, render_html, render_png
    from fce.sites import site_of
    from fce.sources import read_pages

    if method is not None and site is not None:
        raise typer.BadParameter("give --site or --method, not both", param_hint="--method")
    if mode not in DETECTION_MODES:
        raise typer.BadParameter(f"must be one of {', '.join(DETECTION_MODES)}", param_hint="--mode")
    inputs = list(read_pages([page], allow_stdin=True, max_bytes=max_bytes, fetch=FetchOptions(timeout=timeout)))
    if len(inputs) != 1:
        raise SourceError(f"names {len(inputs)} pages; `fce show` takes one page", source=page)
    # (its block tree made while parsing, as every command's: that walk finds a tag of too many attributes before
    # the lxml tree the picture is drawn on is built)
    parsed = run_limited(page_timeout or None, lambda: inputs[0].parse(max_bytes=max_bytes, blocks=DEFAULT_PATH_STYLE),
                         source=page)
    detector = None
    if method is None:
        extractor = Extractor(_state(ctx).store(store), fallback=fallback, mode=mode)
        detector = extractor.detector(site_of(parsed, site))
    overlay = explain(parsed, detector, method=method, site=site_of(parsed, site), fallback=fallback, mode=mode,
                      timeout=page_timeout or None)
    text = run_limited(page_timeout or None, lambda: render_html(parsed, overlay, title=page), source=page)
    try:
        Path(out).write_text(text, encoding="utf-8")
    except OSError as exc:
        raise SourceError(f"cannot write ({exc.strerror or exc})", source=out) from None
    if png is not None:
        render_png(text, png)
    ex = overlay.extraction
    fit = "-" if ex.fit is None else f"{ex.fit:.3f}"
    counts = " · ".join(f"{k} {v}" for k, v in overlay.counts().items() if v)
    typer.echo(f"{out}: method {ex.method}, fit {fit}; blocks: {counts}" + (f"; {png}" if png else ""))


@app.command()
def serve(
    ctx: typer.Context,
    store: StoreOpt = None,
    host: Annotated[str | None, typer.Option(
        metavar="HOST", show_default=False, help="Address to bind. Default: 127.0.0.1 (loopback only).")] = None,
    port: Annotated[int | None, typer.Option(
        min=0, max=65535, metavar="PORT", show_default=False, help="Port to bind. Default: 8080.")] = None,
    max_body: Annotated[int | None, typer.Option(
        "--max-body", metavar="SIZE", parser=_size, show_default=False,
        help="Largest request body (bytes, or with K/M/G); larger requests get 413. Default: 32M.")] = None,
    timeout: TimeoutOpt = DEFAULT_TIMEOUT,
    page_timeout: PageTimeoutOpt = DEFAULT_PAGE_TIMEOUT,
    log_level: Annotated[str, typer.Option(metavar="LEVEL", help="uvicorn's log level.")] = "info",
    workers: Annotated[int, typer.Option(
        min=1, metavar="N", help="Worker processes on the one port (extraction is CPU-bound: up to one per core); "
                                 "each opens the store itself, so memory:// needs 1.")] = 1,
    token: Annotated[str | None, typer.Option(
        envvar="FCE_SERVE_TOKEN", metavar="TOKEN", show_default=False, show_envvar=True,
        help="Bearer token that writes (POST /learn) need, at least 16 characters; prefer the environment "
             "variable, which other users cannot see. Without one, writes are refused.")] = None,
    allow_private_urls: Annotated[bool, typer.Option(
        "--allow-private-urls",
        help="Also fetch URLs on loopback, private and link-local addresses (refused by default: the server "
             "would otherwise read its own network for whoever can reach it).")] = False,
) -> None:
    """Serve the HTTP API: POST /extract, POST /learn, GET /sites, GET /healthz; OpenAPI at /openapi.json.

    Needs the serve extra: pip install 'fastcontentextractor[serve]'.

    \b
    Example (a token for writes, kept out of the command line):
        export FCE_SERVE_TOKEN=$(python -c 'import secrets; print(secrets.token_urlsafe())')
        fce serve
    """
    try:
        from fce.serve import (
            DEFAULT_HOST,
            DEFAULT_MAX_BODY,
            DEFAULT_PORT,
            MIN_TOKEN_LENGTH,
            create_app,
            run,
            serve_workers,
        )
    except ImportError as exc:
        missing = f" ({exc.name} is missing)" if exc.name else ""
        raise MissingExtraError(f"fce serve needs FastAPI and uvicorn{missing}, which are not installed: "
                                f"{install_hint('serve')}", extra="serve") from None
    token = token or None  # an empty FCE_SERVE_TOKEN is no token
    if token is not None and len(token) < MIN_TOKEN_LENGTH:  # (the message never quotes the token)
        raise typer.BadParameter(f"must have at least {MIN_TOKEN_LENGTH} characters, such as the output of "
                                 "python -c 'import secrets; print(secrets.token_urlsafe())'", param_hint="--token")
    target = _state(ctx).store(store)
    target.ping()  # fail now, not on the first request
    host = host or DEFAULT_HOST
    port = DEFAULT_PORT if port is None else port
    body = DEFAULT_MAX_BODY if max_body is None else max_body
    notes = ["writes need the token" if token else "writes refused: no --token"]
    if allow_private_urls:
        notes.append("private URLs allowed")
    if workers > 1:
        url = store or _state(ctx).store_url  # as given (target.url masks a password)
        if target.url.startswith("memory:"):
            raise typer.BadParameter("a memory:// store lives in one process: use sqlite:/// or redis:// with "
                                     "--workers", param_hint="--workers")
        typer.echo(f"fce: serving {target.url} on http://{host}:{port} with {workers} workers "
                   f"({'; '.join(notes)}; OpenAPI: /openapi.json)", err=True)
        serve_workers(url, workers=workers, host=host, port=port, max_body=body, page_timeout=page_timeout or None,
                      fetch_timeout=timeout, log_level=log_level, token=token,
                      allow_private_urls=allow_private_urls)
        return
    api = create_app(target, max_body=body, page_timeout=page_timeout or None, fetch=FetchOptions(timeout=timeout),
                     token=token, allow_private_urls=allow_private_urls)
    typer.echo(f"fce: serving {target.url} on http://{host}:{port} ({'; '.join(notes)}; OpenAPI: /openapi.json)",
               err=True)
    run(api, host=host, port=port, log_level=log_level)


# ``fce eval`` lives with the evaluation harness, which owns its options, and ``fce ingest`` with the ingestion
# pipeline: both are LAZY_COMMANDS of the group, imported when asked for.


def main(argv: list[str] | None = None) -> None:
    """The command line: what the ``fce`` command and ``python -m fce`` run (:mod:`fce._entry`, which sets up the
    process first)."""
    app(args=argv, prog_name="fce")
