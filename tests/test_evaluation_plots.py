"""PNG charts of fce.evaluation.plots (skipped without matplotlib)."""

from __future__ import annotations

from pathlib import Path

import pytest

from fce.evaluation.measures import CHAR, PRF, WORD
from fce.evaluation.plots import plot_all, plot_f1_by_site, plot_precision_recall, plot_time
from fce.evaluation.report import EvalRow, summarise

pytest.importorskip("matplotlib")

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def _rows() -> list[EvalRow]:
    rows = []
    for dataset in ("cleaneval", "msv-big9/sub"):  # a "/" in a name must not become a directory
        for s, site in enumerate(("a.com", "b.org", "c.net")):
            for method, quality in (("fce", 0.9), ("trafilatura", 0.8), ("all-text", 0.4)):
                for page in range(3):
                    f1 = max(0.0, quality - 0.1 * s - 0.05 * page)
                    prf = PRF(min(1.0, f1 + 0.05), f1, f1)
                    rows.append(
                        EvalRow(
                            dataset,
                            site,
                            f"p{page}",
                            method,
                            None,
                            {WORD: prf, CHAR: prf},
                            1.0 + page,
                            5.0,
                            "ok",
                        )
                    )
    rows.append(EvalRow("cleaneval", "d.io", "x", "fce", None, {}, 2.0, 1.0, "missing_gold"))
    return rows


def _assert_pngs(paths: list[Path], out_dir: Path) -> None:
    assert paths
    for path in paths:
        assert path.parent == out_dir
        data = path.read_bytes()
        assert data.startswith(PNG_SIGNATURE) and len(data) > 2000


def test_plot_all(tmp_path: Path) -> None:
    out = tmp_path / "plots"
    paths = plot_all(_rows(), out, measures=(WORD, CHAR))
    # per dataset: F1-by-site and precision/recall for two measures, plus time
    assert sorted(p.name for p in paths) == sorted(
        [
            "f1_by_site_cleaneval_word.png",
            "f1_by_site_cleaneval_char.png",
            "f1_by_site_msv-big9_sub_word.png",
            "f1_by_site_msv-big9_sub_char.png",
            "precision_recall_cleaneval_word.png",
            "precision_recall_cleaneval_char.png",
            "precision_recall_msv-big9_sub_word.png",
            "precision_recall_msv-big9_sub_char.png",
            "time_cleaneval.png",
            "time_msv-big9_sub.png",
        ]
    )
    _assert_pngs(paths, out)


def test_single_method_single_site(tmp_path: Path) -> None:
    rows = [EvalRow("d", "s", "p", "fce", None, {WORD: PRF(1.0, 1.0, 1.0)}, 0.0, 1.0, "ok")]
    paths = plot_f1_by_site(summarise(rows, by_site=True), tmp_path)
    paths += plot_precision_recall(summarise(rows), tmp_path)
    paths += plot_time(rows, tmp_path)  # a zero time: linear scale
    assert len(paths) == 3
    _assert_pngs(paths, tmp_path)


def test_many_sites_are_capped(tmp_path: Path) -> None:
    rows = [
        EvalRow("d", f"site{i:03d}", "p", "fce", None, {WORD: PRF(0.5, 0.5, 0.5)}, 1.0, 1.0, "ok")
        for i in range(200)
    ]
    (path,) = plot_f1_by_site(summarise(rows, by_site=True), tmp_path, max_sites=10)
    _assert_pngs([path], tmp_path)


def test_nothing_to_plot(tmp_path: Path) -> None:
    rows = [EvalRow("d", "s", "p", "fce", None, {}, float("nan"), 1.0, "missing_gold")]
    assert plot_all(rows, tmp_path) == []
