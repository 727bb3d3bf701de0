"""The evaluation harness: folds, template mode without leaks, one row per document, determinism, Table II."""

from __future__ import annotations

import math
from collections import Counter
from pathlib import Path

import pytest

from fce import LayoutLearner, TemplateLearner, parse_page
from fce.blocks import blocks_of
from fce.detect import Detector
from fce.errors import SourceError, UnknownMethodError
from fce.evaluation import harness
from fce.evaluation.harness import (
    TEMPLATE_METHOD,
    ce_vs_fastce,
    evaluate,
    fold_plan,
    render_table2,
    render_timing,
    strip_wrapper,
)
from fce.evaluation.measures import BLOCK, TEXT_MEASURES, WORD
from fce.evaluation.packages import iter_documents
from tests.sitegen import generate_site, write_site

BIG = "news.example.com"
SMALL = "small.example.org"
N_BIG = 24


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A dataset ``sitegen`` with a 24-page site and a 3-page site holding a missing gold, an empty gold and a
    page that is not HTML."""
    root = tmp_path_factory.mktemp("data") / "sitegen"
    write_site(generate_site(BIG, N_BIG, seed=1), root / BIG)
    small = write_site(generate_site(SMALL, 3, seed=2), root / SMALL)
    small[0].with_suffix(".txt").unlink()
    small[1].with_suffix(".txt").write_text("  \n", encoding="utf-8")
    (root / SMALL / "broken.html").write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(200))
    (root / SMALL / "broken.txt").write_text("some gold\n", encoding="utf-8")
    return root


@pytest.fixture(scope="module")
def template_run(data: Path) -> harness.EvalResult:
    return evaluate([data], methods=["density"], template=True, progress=False)


# --- fold_plan ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("n", "folds", "min_learn", "max_learn", "k", "learn_sizes"),
    [
        (40, 5, 20, 30, 5, {30}),  # 32 outside each fold, capped at 30
        (30, 5, 20, 30, 5, {24}),
        (24, 5, 20, 30, 6, {20}),  # 5 folds would leave 19: raised to 6
        (21, 5, 20, 30, 21, {20}),  # leave-one-out
        (10, 2, 3, 30, 2, {5}),
    ],
)
def test_fold_plan_shapes(n: int, folds: int, min_learn: int, max_learn: int, k: int, learn_sizes: set) -> None:
    ids = [f"p{i:02d}" for i in range(n)]
    plan = fold_plan(ids, key="d/s", folds=folds, min_learn=min_learn, max_learn=max_learn)
    assert len(plan) == k
    assert all(f.n_folds == k for f in plan)
    assert {len(f.learn) for f in plan} == learn_sizes
    tested = [i for f in plan for i in f.test]
    assert sorted(tested) == ids  # every page scored exactly once
    assert max(len(f.test) for f in plan) - min(len(f.test) for f in plan) <= 1
    for f in plan:
        assert not set(f.learn) & set(f.test)  # never learned from and scored in one fold
        assert len(set(f.learn)) == len(f.learn)


def test_fold_plan_too_small_site_and_bad_parameters() -> None:
    assert fold_plan([f"p{i}" for i in range(4)], key="k") == []  # too small: 5 pages at least by default
    assert fold_plan([f"p{i}" for i in range(20)], key="k", min_learn=20) == []
    with pytest.raises(ValueError):
        fold_plan(["a"] * 30, key="k")
    with pytest.raises(ValueError):
        fold_plan([], key="k", folds=1)
    with pytest.raises(ValueError):
        fold_plan([], key="k", min_learn=2)
    with pytest.raises(ValueError):
        fold_plan([], key="k", min_learn=20, max_learn=10)


def test_fold_plan_is_seeded_by_key_not_by_input_order() -> None:
    ids = [f"p{i:02d}" for i in range(40)]
    a = fold_plan(ids, key="d/s")
    assert fold_plan(list(reversed(ids)), key="d/s") == a
    assert fold_plan(ids, key="d/other") != a


# --- strip_wrapper ------------------------------------------------------------------------------------------


def test_strip_wrapper_removes_cleaneval_wrapper_and_reads_encoding() -> None:
    page = b'<text id="http://x.org/a" title="A" encoding="iso-8859-1">\n<html><body>x</body></html>\n</text>\n'
    body, charset = strip_wrapper(page)
    assert body.strip() == b"<html><body>x</body></html>"
    assert charset == "iso-8859-1"


def test_strip_wrapper_leaves_other_pages_alone() -> None:
    page = b"<html><body><p>some <text>inline</text></p></body></html>"
    assert strip_wrapper(page) == (page, None)


# --- template mode ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("layouts", [True, False], ids=["layouts", "one-layout"])
def test_template_mode_never_scores_a_page_it_learned_from(data: Path, monkeypatch: pytest.MonkeyPatch,
                                                           layouts: bool) -> None:
    learned: list[set[str]] = []
    base = LayoutLearner if layouts else TemplateLearner  # layouts: what `fce learn` stores (the default)

    class SpyLearner(base):  # type: ignore[valid-type,misc]
        def fit(self, pages):  # type: ignore[no-untyped-def]
            learned.append({Path(p.source).stem for p in pages})
            return super().fit(pages)

    monkeypatch.setattr(harness, base.__name__, SpyLearner)
    result = evaluate([data / BIG], methods=[], template=True, progress=False, layouts=layouts, min_learn=20)
    assert len(learned) == len(result.folds) == 6  # 24 pages: 5 folds raised to 6 so 20 remain to learn from
    scored_by_fold: dict[int, set[str]] = {}
    for row in result.rows:
        assert row.fold is not None
        scored_by_fold.setdefault(row.fold, set()).add(row.doc_id)
    for record, seen in zip(result.folds, learned, strict=True):
        assert seen == set(record.learned)
        assert not seen & scored_by_fold[record.fold]
        assert scored_by_fold[record.fold] == set(record.scored)
        assert len(seen) >= harness.MIN_LEARN_PAGES
    assert sorted(r.doc_id for r in result.rows) == sorted(p.stem for p in (data / BIG).glob("*.html"))


def test_every_document_yields_one_row_per_method(data: Path, template_run: harness.EvalResult) -> None:
    docs = list(iter_documents([data]))
    rows = template_run.rows
    assert len(rows) == 2 * len(docs)
    assert Counter((r.doc_id, r.method) for r in rows) == Counter(
        (d.doc_id, m) for d in docs for m in ("density", TEMPLATE_METHOD)
    )
    assert template_run.methods == ("density", TEMPLATE_METHOD)
    status = {(r.doc_id, r.method): r.status for r in rows if r.site == SMALL}
    by_status = Counter(status.values())
    assert by_status["skipped"] == 4  # the small site cannot be cross-validated
    assert by_status["missing_gold"] == 1 and by_status["empty_gold"] == 1 and by_status["error"] == 1
    broken = next(r for r in rows if r.doc_id == "broken" and r.method == "density")
    assert broken.measures == {} and "NotHTMLError" in (broken.error or "")
    assert [s.site for s in template_run.skipped] == [SMALL]


def test_template_rows_carry_fold_extractor_and_block_f(template_run: harness.EvalResult) -> None:
    rows = [r for r in template_run.rows if r.method == TEMPLATE_METHOD and r.site == BIG]
    assert len(rows) == N_BIG
    for row in rows:
        assert row.fold is not None and row.ms > 0
        assert row.status.startswith("ok|")
        assert row.status.split("|")[1].split(":")[0] == row.extractor
        assert set(row.measures) == {*TEXT_MEASURES, BLOCK}
        assert all(0.0 <= v <= 1.0 for prf in row.measures.values() for v in (prf.precision, prf.recall, prf.f1))
    # a generated site fits its template
    assert sum(r.extractor == TEMPLATE_METHOD for r in rows) >= N_BIG // 2
    mean_word = sum(r.measures[WORD].f1 for r in rows) / len(rows)
    mean_block = sum(r.measures[BLOCK].f1 for r in rows) / len(rows)
    assert mean_word > 0.8 and mean_block > 0.6
    density = [r for r in template_run.rows if r.method == "density"]
    assert all(BLOCK not in r.measures for r in density)


def test_summaries_and_timing(template_run: harness.EvalResult) -> None:
    summary = template_run.summary(WORD)
    assert [s.method for s in summary] == ["density", TEMPLATE_METHOD]
    # the 3-page site has one scored page: one gold is missing, one empty, one page broken
    assert summary[0].n == N_BIG + 1
    assert summary[1].n == N_BIG
    timing = {t.method: t for t in template_run.timing}
    assert timing[TEMPLATE_METHOD].pages == N_BIG
    assert timing[TEMPLATE_METHOD].learn_seconds > 0
    assert math.isnan(timing["density"].learn_seconds)
    assert "density" in render_timing(template_run.timing)
    assert sum(template_run.extractors().values()) == N_BIG


def test_evaluation_is_deterministic(data: Path, template_run: harness.EvalResult) -> None:
    again = evaluate([data], methods=["density"], template=True, progress=False, workers=2)

    def key(result: harness.EvalResult) -> list[tuple]:
        return [(r.dataset, r.site, r.doc_id, r.method, r.fold, r.status, r.measures) for r in result.rows]

    assert key(again) == key(template_run)
    assert [(f.fold, f.learned, f.scored) for f in again.folds] == [
        (f.fold, f.learned, f.scored) for f in template_run.folds
    ]


def test_unknown_names_fail_before_any_page_is_read(tmp_path: Path) -> None:
    with pytest.raises(UnknownMethodError):
        evaluate([tmp_path / "nowhere"], methods=["no-such-method"], progress=False)
    with pytest.raises(UnknownMethodError):
        evaluate([tmp_path / "nowhere"], peers=["no-such-peer"], progress=False)
    with pytest.raises(SourceError):
        evaluate([tmp_path / "nowhere"], progress=False)


# --- covered blocks -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", ["guided", "rules"])
def test_covered_blocks_hold_exactly_the_extracted_text(data: Path, mode: str) -> None:
    paths = sorted((data / BIG).glob("*.html"))
    pages = [parse_page(p.read_bytes()) for p in paths[:20]]
    detector = Detector(TemplateLearner(BIG).fit(pages).template_, mode=mode)
    for path in paths[20:]:
        page = parse_page(path.read_bytes())
        match = detector.match(page)
        tree = blocks_of(page, detector.path_style)
        covered = match.covered
        assert match.blocks
        assert {b.index for b in match.blocks} <= covered
        own = "".join(tree[i].text for i in covered)
        extracted = "".join(b.text for b in match.blocks)
        assert Counter(own.replace(" ", "")) == Counter(extracted.replace(" ", "").replace("\n", ""))


# --- Table II -----------------------------------------------------------------------------------------------


def test_ce_vs_fastce_numbers_are_sane(data: Path) -> None:
    lines, skipped = ce_vs_fastce([data], progress=False)
    assert [s.site for s in skipped] == [SMALL]
    (line,) = lines
    assert line.site == BIG and line.n_pages == N_BIG
    assert line.ce_comparison == "pairwise"
    # the merged comparison compares fewer blocks (the repeated navigation once) and finds the same labels
    (merged,), _ = ce_vs_fastce([data], progress=False, comparison="merged")
    assert merged.ce_comparison == "merged"
    assert merged.ce_num_block_temp < line.ce_num_block_temp
    assert merged.ce_num_block == line.ce_num_block and merged.ce_wf == line.ce_wf
    with pytest.raises(ValueError, match="comparison"):
        ce_vs_fastce([data], progress=False, comparison="some")
    assert harness.MIN_LEARN_PAGES <= line.n_learn <= harness.MAX_LEARN_PAGES
    assert line.n_detect == N_BIG - line.n_learn > 0
    assert 0 <= line.fastce_num_block_temp <= line.ce_noise_blocks <= line.ce_num_block_temp
    assert 0 < line.fastce_num_block <= line.ce_num_block
    assert line.ce_ms_per_page > 0 and line.fastce_ms_per_page > 0
    assert 0 < line.ce_segment_ms < line.ce_ms_per_page
    assert 0 < line.fastce_segment_ms < line.fastce_ms_per_page
    assert line.improvement == pytest.approx(100 * line.ce_ms_per_page / line.fastce_ms_per_page)
    assert 0.0 <= line.fastce_wf <= 1.0 and 0.5 < line.ce_wf <= 1.0
    table = render_table2(lines)
    assert BIG in table and "%" in table
