"""Per-page rows, their files, summaries and the console table (fce.evaluation.report)."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from fce.evaluation.measures import BLOCK, CHAR, PRF, WORD
from fce.evaluation.packages import GoldStatus
from fce.evaluation.report import (
    FIXED_COLUMNS,
    EvalRow,
    Summary,
    kilobytes,
    read_jsonl,
    read_rows,
    read_tsv,
    render_by_type,
    render_table,
    summarise,
    write_jsonl,
    write_rows,
    write_summary_tsv,
    write_tsv,
)


def _row(site: str, doc_id: str, f1: float | None, *, ms: float, kb: float, method: str = "fce") -> EvalRow:
    measures = {} if f1 is None else {WORD: PRF(f1, f1, f1)}
    status = GoldStatus.OK if f1 is not None else GoldStatus.MISSING
    return EvalRow("d", site, doc_id, method, None, measures, ms, kb, status)


@pytest.fixture
def rows() -> list[EvalRow]:
    return [
        EvalRow(
            "cleaneval",
            "a.com",
            "dev-1",
            "fce",
            0,
            {WORD: PRF(0.5, 2 / 3, 4 / 7), CHAR: PRF(1.0, 0.1, 2 / 11), BLOCK: PRF(1.0, 1.0, 1.0)},
            12.345678,
            kilobytes(20_480),
            GoldStatus.OK,
        ),
        EvalRow("cleaneval", "b.com", "final-2", "trafilatura", None, {}, 3.0, 1.5, GoldStatus.MISSING),
        EvalRow("msv-big9", "cnn.com", "2005_x y", "fce", 3, {WORD: PRF(0.0, 0.0, 0.0)}, 0.1, 0.2, "error"),
    ]


def test_kilobytes() -> None:
    assert kilobytes(20_480) == 20.48


def test_tsv_round_trip(rows: list[EvalRow], tmp_path: Path) -> None:
    path = write_tsv(rows, tmp_path / "rows.tsv")
    assert read_tsv(path) == rows
    lines = path.read_text(encoding="utf-8").splitlines()
    assert lines[0].split("\t") == [
        *FIXED_COLUMNS,
        *("char_p", "char_r", "char_f1", "word_p", "word_r", "word_f1", "block_p", "block_r", "block_f1"),
    ]
    assert len(lines) == 4
    # the row without measures has empty cells, fold None is an empty cell
    cells = lines[2].split("\t")
    assert cells[:8] == ["cleaneval", "b.com", "final-2", "trafilatura", "", "missing_gold", "3.0", "1.5"]
    assert cells[8:] == [""] * 9


def test_jsonl_round_trip(rows: list[EvalRow], tmp_path: Path) -> None:
    path = write_jsonl(rows, tmp_path / "rows.jsonl")
    assert read_jsonl(path) == rows
    assert len(path.read_text(encoding="utf-8").splitlines()) == 3


def test_rows_dispatch_on_suffix(rows: list[EvalRow], tmp_path: Path) -> None:
    for name in ("r.tsv", "r.jsonl"):
        assert read_rows(write_rows(rows, tmp_path / name)) == rows
    assert (tmp_path / "r.jsonl").read_text(encoding="utf-8").startswith("{")
    assert (tmp_path / "r.tsv").read_text(encoding="utf-8").startswith("dataset\t")


def test_nan_time_survives_both_formats(tmp_path: Path) -> None:
    row = EvalRow("d", "s", "p", "m", None, {}, math.nan, math.nan, "timeout")
    for back in (
        read_tsv(write_tsv([row], tmp_path / "r.tsv")),
        read_jsonl(write_jsonl([row], tmp_path / "r.jsonl")),
    ):
        assert math.isnan(back[0].ms) and math.isnan(back[0].kb) and back[0].status == "timeout"


def test_read_tsv_rejects_other_files(tmp_path: Path) -> None:
    path = tmp_path / "other.tsv"
    path.write_text("a\tb\n1\t2\n", encoding="utf-8")
    with pytest.raises(ValueError):
        read_tsv(path)
    empty = tmp_path / "empty.tsv"
    empty.write_text("", encoding="utf-8")
    assert read_tsv(empty) == []


def _summary_rows() -> list[EvalRow]:
    # site s1: F1 1.0 and 0.5; site s2: F1 0.0; one unscored page (no gold) that still counts for time
    return [
        _row("s1", "1", 1.0, ms=10.0, kb=1.0),
        _row("s1", "2", 0.5, ms=20.0, kb=2.0),
        _row("s2", "3", 0.0, ms=30.0, kb=3.0),
        _row("s2", "4", None, ms=40.0, kb=4.0),
    ]


def test_summary_per_dataset() -> None:
    (s,) = summarise(_summary_rows())
    assert (s.dataset, s.site, s.method, s.measure) == ("d", None, "fce", WORD)
    assert (s.n, s.n_pages, s.n_sites) == (3, 4, 2)
    assert s.f1 == pytest.approx(0.5)  # (1 + 0.5 + 0) / 3
    assert s.precision == pytest.approx(0.5) and s.recall == pytest.approx(0.5)
    assert s.f1_site_macro == pytest.approx(0.375)  # (0.75 + 0) / 2
    assert s.f1_std == pytest.approx(0.5)  # sample: sqrt((0.25 + 0 + 0.25) / 2)
    assert s.ms_per_page == pytest.approx(25.0)  # (10 + 20 + 30 + 40) / 4
    assert s.s_per_kb == pytest.approx(0.01)  # 0.1 s / 10 kB


def test_summary_per_site() -> None:
    s1, s2 = summarise(_summary_rows(), by_site=True)
    assert (s1.site, s1.n, s1.n_pages) == ("s1", 2, 2)
    assert s1.f1 == s1.f1_site_macro == pytest.approx(0.75)
    assert s1.f1_std == pytest.approx(math.sqrt(0.125))  # sqrt((0.25² + 0.25²) / 1)
    assert s1.ms_per_page == pytest.approx(15.0)
    assert (s2.site, s2.n, s2.n_pages) == ("s2", 1, 2)
    assert s2.f1 == 0.0 and math.isnan(s2.f1_std)  # one page: no estimated spread
    assert s2.s_per_kb == pytest.approx(0.07 / 7)


def test_summary_of_an_absent_measure_is_nan() -> None:
    (s,) = summarise(_summary_rows(), measure=CHAR)
    assert s.n == 0 and s.n_pages == 4 and math.isnan(s.f1) and math.isnan(s.f1_site_macro)
    assert s.ms_per_page == pytest.approx(25.0)


def test_summaries_are_grouped_and_sorted() -> None:
    rows = [
        _row("s1", "1", 1.0, ms=1.0, kb=1.0, method="zeta"),
        _row("s1", "1", 0.0, ms=1.0, kb=1.0, method="alpha"),
    ]
    assert [s.method for s in summarise(rows)] == ["alpha", "zeta"]


def test_render_table() -> None:
    table = render_table(summarise(_summary_rows()))
    # fixed width: text left-aligned, numbers right-aligned; no site column in a dataset summary
    assert table == (
        "dataset  method  measure  n  sites      P      R     F1  F1 site  F1 std  ms/page      s/kB\n"
        "-------  ------  -------  -  -----  -----  -----  -----  -------  ------  -------  --------\n"
        "d        fce     word     3      2  0.500  0.500  0.500    0.375   0.500     25.0  1.00e-02\n"
    )


def test_render_table_by_site_and_nan() -> None:
    table = render_table(summarise(_summary_rows(), by_site=True))
    lines = table.splitlines()
    assert lines[0].split()[:2] == ["dataset", "site"]
    assert lines[3].split()[1] == "s2"
    assert lines[3].split()[10] == "-"  # F1 std of one page


def test_write_summary_tsv(tmp_path: Path) -> None:
    path = write_summary_tsv(summarise(_summary_rows(), by_site=True), tmp_path / "summary.tsv")
    lines = path.read_text(encoding="utf-8").splitlines()
    assert lines[0].split("\t") == list(Summary.__dataclass_fields__)
    assert lines[1].split("\t")[:5] == ["d", "s1", "fce", "word", "2"]
    assert len(lines) == 3


def test_a_table_per_page_type_where_the_pages_say_their_type():
    from fce.evaluation.harness import HarnessRow

    def typed(doc_id: str, method: str, f1: float, page_type: str | None) -> HarnessRow:
        return HarnessRow("wcxb", "s", doc_id, method, None, {WORD: PRF(f1, f1, f1)}, 1.0, 1.0, "ok",
                          page_type=page_type)

    rows = [typed("1", "fce", 0.9, "article"), typed("1", "peer", 0.7, "article"),
            typed("2", "fce", 0.5, "forum"), typed("2", "peer", 0.6, "forum"), typed("3", "fce", 0.4, None)]
    lines = render_by_type(rows).splitlines()
    assert lines[0].split() == ["dataset", "page", "type", "pages", "fce", "peer"]
    assert [line.split() for line in lines[2:]] == [["wcxb", "(all)", "2", "0.700", "0.650"],
                                                   ["wcxb", "article", "1", "0.900", "0.700"],
                                                   ["wcxb", "forum", "1", "0.500", "0.600"]]
    assert render_by_type([_row("a.com", "1", 0.5, ms=1, kb=1)]) == ""  # no page types: no table
