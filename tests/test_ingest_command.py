"""fce.ingest.command: ``fce ingest`` options, output and errors (through a Typer app holding only it)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner, Result

from fce.errors import StoreFailure
from fce.ingest.command import ingest_command
from tests.test_ingest_corpus import MAX_BYTES, Crawl, build_crawl, check_rows, rows_of


@pytest.fixture(scope="module")
def crawl(tmp_path_factory: pytest.TempPathFactory) -> Crawl:
    return build_crawl(tmp_path_factory.mktemp("crawl"))


def app() -> typer.Typer:
    """As fce/cli.py registers it: ``app.command("ingest")(ingest_command)``."""
    cli = typer.Typer(add_completion=False, pretty_exceptions_enable=False, rich_markup_mode=None)
    cli.command("ingest")(ingest_command)

    @cli.callback()
    def _root() -> None:
        """fce"""

    return cli


def invoke(*args: str) -> Result:
    return CliRunner().invoke(app(), ["ingest", *args])


def test_ingest_then_rerun(crawl: Crawl, tmp_path: Path) -> None:
    store = f"sqlite:///{tmp_path / 't.db'}"
    out = tmp_path / "out"
    args = ["--out", str(out), "--store", store, "--max-bytes", "195K", "--workers", "0", "--no-progress",
            *map(str, crawl.files)]
    result = invoke(*args)
    assert result.exit_code == 0, result.output
    assert f"records:   {crawl.records} in" in result.output
    assert "domains:   3 sampled, 2 learned" in result.output
    check_rows(crawl, rows_of(out))
    again = invoke(*args)
    assert again.exit_code == 0 and "(0 done, 2 already complete, 0 not completed)" in again.output


def test_learn_only_and_detect_only(crawl: Crawl, tmp_path: Path) -> None:
    store = f"sqlite:///{tmp_path / 't.db'}"
    common = ["--store", store, "--max-bytes", str(MAX_BYTES), "--workers", "0", "--no-progress"]
    learned = invoke("--out", str(tmp_path / "a"), "--learn-only", *common, *map(str, crawl.files))
    assert learned.exit_code == 0 and "2 learned" in learned.output and "records:" not in learned.output
    detected = invoke("--out", str(tmp_path / "b"), "--detect-only", *common, *map(str, crawl.files))
    assert detected.exit_code == 0, detected.output
    rows = rows_of(tmp_path / "b")
    check_rows(crawl, rows)
    assert json.loads(next((tmp_path / "b").glob("*.manifest.json")).read_text())["done"] is True


@pytest.mark.parametrize(("args", "message"), [
    (["--learn-only", "--detect-only"], "not both"),
    (["--scheduler", "tcp://127.0.0.1:1"], "--engine dask"),
    (["--engine", "dask", "--workers", "0"], "--engine local"),
    (["--k", "10", "--min-pages", "20"], "cannot exceed"),
    (["--max-bytes", "lots"], "not a positive size"),
    (["--engine", "spark"], "spark"),
    (["--engine", "dask"], "memory://"),
])
def test_usage_errors(args: list[str], message: str, tmp_path: Path) -> None:
    result = invoke("--out", str(tmp_path), "--store", "memory://", *args, str(tmp_path))
    assert result.exit_code == 2 and message in result.output


def test_unreachable_store_is_a_store_failure(crawl: Crawl, tmp_path: Path) -> None:
    result = invoke("--out", str(tmp_path), "--store", "redis://127.0.0.1:1/0?retries=0&socket_connect_timeout=0.2",
                    "--no-progress", str(crawl.files[0]))
    assert isinstance(result.exception, StoreFailure) and result.exception.exit_code == 13
    assert "redis://127.0.0.1:1/0" in str(result.exception)


def test_help_lists_the_options() -> None:
    result = invoke("--help")
    for option in ("--engine", "--scheduler", "--store", "--out", "--learn-only", "--detect-only", "--k",
                   "--max-bytes", "--timeout", "--workers"):
        assert option in result.output


def test_comments_option_fills_the_rows_comments(crawl: Crawl, tmp_path: Path) -> None:
    out = tmp_path / "out"
    result = invoke("--out", str(out), "--store", "memory://", "--detect-only", "--comments", "--workers", "0",
                    "--no-progress", str(crawl.files[0]))
    assert result.exit_code == 0, result.output
    rows = [row for row in rows_of(out) if row["status"] in ("ok", "fallback")]
    assert rows and all(isinstance(row["comments"], str) for row in rows)
