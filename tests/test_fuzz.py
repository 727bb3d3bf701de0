"""``scripts/fuzz.py`` on a small generated corpus: its cases run the template path, the fallback and every output
format, and a run reports what extracted the pages."""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

from tests.sitegen import generate_site

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def fuzz() -> Iterator[ModuleType]:
    spec = importlib.util.spec_from_file_location("fce_fuzz_script", ROOT / "scripts" / "fuzz.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # (its dataclasses look their module up there)
    try:
        spec.loader.exec_module(module)
        yield module
    finally:
        del sys.modules[spec.name]


def test_a_run_extracts_with_templates_and_without(fuzz: ModuleType, capsys: pytest.CaptureFixture[str]) -> None:
    learned = generate_site("learned.example", 8, seed=1)
    alone = generate_site("alone.example", 2, seed=2)  # too few pages to learn from: the fallback alone
    corpus = fuzz.Corpus(generated=tuple((p.url, p.html) for p in learned + alone), origin="test pages")
    assert corpus.site(0) == "learned.example" and corpus.site_pages("alone.example") == [8, 9]
    outcomes = fuzz.fuzz(corpus, cases=60, seed=5, workers=1, timeout=30.0, save=None)
    assert len(outcomes) == 60 and not [o for o in outcomes if o.kind == "FAILURE"]
    via = {o.via for o in outcomes if o.kind == "ok"}
    assert "template" in via and "mainblock:no-template" in via
    assert fuzz.site_template(corpus, "alone.example") is None
    assert fuzz.report(outcomes, seconds=1.0, workers=1, seed=5, origin=corpus.origin) == 0
    printed = capsys.readouterr().out
    assert "undocumented exceptions: 0" in printed and "extracted: " in printed and "template " in printed


def test_an_undocumented_exception_is_a_failure(fuzz: ModuleType, monkeypatch: pytest.MonkeyPatch) -> None:
    page = generate_site("one.example", 1, seed=3)[0]
    case = fuzz.Case(page.html, page.url, steps=["page 0"], site="one.example")

    def broken(*args: object, **kwargs: object) -> None:
        raise KeyError("a bug in a writer")

    monkeypatch.setattr(fuzz, "structured", broken)
    outcome = fuzz.run_case(case, 0, 30.0)
    assert outcome.kind == "FAILURE" and "KeyError" in outcome.error and outcome.via == ""
