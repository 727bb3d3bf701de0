"""``fce eval`` end to end on a tiny package, through a Typer app registering the command as fce.cli does."""

from __future__ import annotations

import csv
import importlib.util
import json
import re
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from fce.errors import SourceError, UnknownMethodError
from fce.evaluation.command import eval_command
from fce.evaluation.report import read_rows
from fce.pipeline import DEFAULT_FALLBACK
from tests.sitegen import generate_site, write_site

SITE = "cli.example.com"
N_PAGES = 22


def _app() -> typer.Typer:
    app = typer.Typer()

    @app.callback()
    def main() -> None:
        """A group, so ``eval`` is a subcommand as in fce.cli."""

    app.command("eval")(eval_command)
    return app


@pytest.fixture(scope="module")
def package(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("pkg") / "tiny"
    write_site(generate_site(SITE, N_PAGES, seed=5), root / SITE)
    return root


def _run(*args: str) -> tuple[int, str, BaseException | None]:
    result = CliRunner().invoke(_app(), ["eval", *args])
    return result.exit_code, result.output, result.exception


def test_eval_end_to_end_writes_rows_summary_and_plots(package: Path, tmp_path: Path) -> None:
    out, summary, plots = tmp_path / "rows.tsv", tmp_path / "summary.tsv", tmp_path / "plots"
    code, output, exc = _run(
        str(package), "--method", "density", "--method", "plain", "--template", "--out", str(out),
        "--summary", str(summary), "--plots", str(plots), "--no-progress", "--by-site", "--table2",
    )  # fmt: skip
    assert exc is None and code == 0, output
    rows = read_rows(out)
    assert len(rows) == 4 * N_PAGES  # the template mode brings fce without a template (the fallback) beside it
    assert {r.method for r in rows} == {"density", "plain", "mainblock", "template"}
    assert "the template mode beside fce without a template (mainblock)" in output
    assert all(r.fold is not None for r in rows if r.method == "template")
    assert all(r.status.startswith("ok|") for r in rows if r.method == "template")
    with summary.open(encoding="utf-8") as fh:
        lines = list(csv.DictReader(fh, delimiter="\t"))
    assert {line["measure"] for line in lines} >= {"word", "char", "block"}
    assert {line["site"] for line in lines} == {"", SITE}
    assert sorted(p.suffix for p in plots.iterdir()) and all(p.suffix == ".png" for p in plots.iterdir())
    for text in ("word F1 per dataset and method", "block F1 (BF)", "time per page", "template:", "Table II",
                 "NBT/NB/PerTime", "wall time"):  # fmt: skip
        assert text in output
    assert re.search(rf"sitegen +{re.escape(SITE)} +template", output.split("word F1 per site")[1])  # --by-site


def test_eval_jsonl_and_default_method(package: Path, tmp_path: Path) -> None:
    out = tmp_path / "rows.jsonl"
    code, output, exc = _run(str(package), "--out", str(out), "--no-progress", "--measure", "lcsequence")
    assert exc is None and code == 0, output
    rows = read_rows(out)
    assert {r.method for r in rows} == {DEFAULT_FALLBACK} and len(rows) == N_PAGES
    assert "lcsequence F1 per dataset" in output


METADATA_PAGE = """<html lang="en"><head><title>Harbour plan approved</title>
<meta name="author" content="Jane Doe"></head><body><h1>Harbour plan approved</h1>
<p>The council approved the harbour plan on Thursday, after a long debate about its cost and its timetable.</p>
</body></html>"""


def test_eval_scores_metadata_where_pages_expect_it(package: Path, tmp_path: Path) -> None:
    assert "expected_metadata" not in _run(str(package), "--no-progress")[1]  # (the generated site: none)
    site = tmp_path / "meta" / "example.com"
    site.mkdir(parents=True)
    (site / "a.html").write_text(METADATA_PAGE, encoding="utf-8")
    (site / "a.txt").write_text("Harbour plan approved\nThe council approved the harbour plan.", encoding="utf-8")
    (site / "a.json").write_text(json.dumps({"url": "https://example.com/a", "expected_metadata": {
        "title": "Harbour plan approved", "byline": "By Jane Doe", "lang": "en"}}), encoding="utf-8")
    peers = ("--peer", "trafilatura") if importlib.util.find_spec("trafilatura") else ()
    code, output, exc = _run(str(site.parent), str(package), "--no-progress", *peers)
    assert exc is None and code == 0, output
    table = output.split("metadata of the 1 pages with expected_metadata", 1)[1].splitlines()[1:]
    assert table[0].split()[:3] == ["field", "fce", "acc"]
    assert ("trafilatura" in table[0]) == bool(peers)
    rows = {line.split()[0]: line.split() for line in table[1:]}
    assert rows["title"][1] == rows["authors"][1] == rows["language"][1] == "100.0%"
    assert rows["published"][-1] == "0"  # (not expected: not scored)


def test_eval_user_errors(package: Path, tmp_path: Path) -> None:
    code, _, exc = _run(str(package), "--method", "nope", "--no-progress")
    assert isinstance(exc, UnknownMethodError)
    code, _, exc = _run(str(package), "--peer", "nope", "--no-progress")
    assert isinstance(exc, UnknownMethodError)
    empty = tmp_path / "empty"
    empty.mkdir()
    code, _, exc = _run(str(empty), "--no-progress")
    assert isinstance(exc, SourceError)
    code, output, exc = _run(str(package), "--measure", "nope", "--no-progress")
    assert code == 2 and "measure" in output


def test_eval_one_layout_learns_with_the_papers_learner(package: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from fce.evaluation import harness

    used: list[str] = []
    for name in ("LayoutLearner", "TemplateLearner"):
        real = getattr(harness, name)

        def fit(self, pages, _n=name, _r=real):
            used.append(_n)
            return _r.fit(self, pages)

        monkeypatch.setattr(harness, name, type(name, (real,), {"fit": fit}))
    for flag, expected in (((), "LayoutLearner"), (("--one-layout",), "TemplateLearner")):
        used.clear()
        code, output, exc = _run(str(package), "--template", "--method", "plain", "--no-progress", *flag)
        assert exc is None and code == 0, output
        assert used and set(used) == {expected}
