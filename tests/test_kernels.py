"""``fce/kernels.py``: the loops over a block tree's columns, as Python and compiled (one source)."""

from __future__ import annotations

import importlib.util
import random
from array import array
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fce import kernels
from fce._accel import runs_compiled
from fce.kernels import CONTENT_BIT, COUNT_SHIFT, KNOWN_BIT


def _source_module():  # type: ignore[no-untyped-def]
    """``fce/kernels.py`` run as Python, beside the compiled module."""
    spec = importlib.util.spec_from_file_location("fce_kernels_source", Path(kernels.__file__).with_name("kernels.py"))
    module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module


SOURCE = _source_module()
MODULES = [pytest.param(SOURCE, id="source"), pytest.param(kernels, id="installed")]


@st.composite
def _trees(draw):  # type: ignore[no-untyped-def]
    """Columns of a random tree in pre-order: parents, tags, own-text lengths, commas, link characters, paths."""
    n = draw(st.integers(1, 40))
    parents = [-1] + [draw(st.integers(0, i - 1)) for i in range(1, n)]
    tags = [draw(st.sampled_from(["div", "p", "a", "span", "li"])) for _ in range(n)]
    lengths = [draw(st.sampled_from([0, 0, 3, 80, 10**6])) for _ in range(n)]
    commas = [draw(st.integers(0, 5)) for _ in range(n)]
    links = [draw(st.integers(0, 80)) for _ in range(n)]
    paths = [draw(st.sampled_from(["HTML", "HTML.BODY", "HTML.BODY.P", "HTML.BODY.DIV", "HTML.BODY.DIV.P"]))
             for _ in range(n)]
    return parents, tags, lengths, commas, links, paths


def _codes(rng: random.Random, paths: list[str]) -> dict[str, int]:
    return {p: rng.randint(0, 3) << COUNT_SHIFT | rng.choice([0, KNOWN_BIT]) | rng.choice([0, CONTENT_BIT])
            for p in set(paths) if rng.random() < 0.8}


@settings(max_examples=200, deadline=None)
@given(tree=_trees(), seed=st.integers(0, 1000))
def test_the_installed_kernels_give_what_the_definition_gives(tree, seed):
    # the definition, written out with plain lists and sets, against the module as installed (compiled where built)
    parents, tags, lengths, commas, links, paths = tree
    inline = frozenset({"a", "span"})
    chars, linked, para, counted = list(lengths), list(links), list(lengths), list(commas)
    for i in range(len(parents) - 1, 0, -1):
        up = parents[i]
        chars[up] += chars[i]
        linked[up] += linked[i]
        if tags[i] in inline:
            para[up] += para[i]
            counted[up] += counted[i]
    longs = [array("l", column) for column in (parents, lengths, commas, links)]
    got = kernels.subtree_sums(longs[0], tags, longs[1], longs[2], longs[3], inline)
    assert [column.tolist() for column in got] == [chars, linked, para, counted]
    assert all(isinstance(column, array) and column.typecode == "l" for column in got)

    rng = random.Random(seed)
    tables = [_codes(rng, paths) for _ in range(3)]
    merged = {p: tuple(t.get(p, 0) for t in tables) for t in tables for p in t}
    texty = {p for p, n in zip(paths, lengths, strict=True) if n}
    for t, codes in enumerate(tables):
        want = (sum(n for p, n in zip(paths, lengths, strict=True) if codes.get(p, 0) & KNOWN_BIT), sum(lengths),
                sum(codes.get(p, 0) >> COUNT_SHIFT for p in texty), len(texty),
                sum(n for p, n in zip(paths, lengths, strict=True) if codes.get(p, 0) & 3 == 3))
        assert kernels.templates_sums(paths, longs[1], merged, 3)[t] == want
        below = [False] * len(paths)
        for i in range(len(paths) - 1, 0, -1):
            if codes.get(paths[i], 0) & CONTENT_BIT or below[i]:
                below[parents[i]] = True
        mask = [codes.get(p, 0) & 3 == KNOWN_BIT and not b for p, b in zip(paths, below, strict=True)]
        assert kernels.template_mask(paths, longs[0], codes) == mask


@pytest.mark.skipif(not runs_compiled("fce.kernels"), reason="the compiled module is not built (or FCE_NO_ACCEL)")
@settings(max_examples=100, deadline=None)
@given(tree=_trees(), seed=st.integers(0, 1000))
def test_the_source_gives_what_the_compiled_module_gives(tree, seed):
    parents, tags, lengths, commas, links, paths = tree
    longs = [array("l", column) for column in (parents, lengths, commas, links)]
    inline = frozenset({"a"})
    assert (SOURCE.subtree_sums(longs[0], tags, longs[1], longs[2], longs[3], inline)
            == kernels.subtree_sums(longs[0], tags, longs[1], longs[2], longs[3], inline))
    codes = _codes(random.Random(seed), paths)
    merged = {p: (c, 0) for p, c in codes.items()}
    assert SOURCE.templates_sums(paths, longs[1], merged, 2) == kernels.templates_sums(paths, longs[1], merged, 2)
    assert SOURCE.template_mask(paths, longs[0], codes) == kernels.template_mask(paths, longs[0], codes)


@pytest.mark.parametrize("module", MODULES)
def test_columns_that_do_not_fit_are_refused(module):
    longs = array("l", [0, 0])
    with pytest.raises(ValueError, match="same length"):
        module.subtree_sums(array("l", [-1, 0]), ["div"], longs, longs, longs, frozenset())
    with pytest.raises(ValueError, match="comes before"):
        module.subtree_sums(array("l", [-1, 1]), ["div", "p"], longs, longs, longs, frozenset())
    with pytest.raises(ValueError, match="same length"):
        module.templates_sums(["HTML"], longs, {}, 1)
    with pytest.raises(ValueError, match="same length"):
        module.template_mask(["HTML", "HTML.BODY"], array("l", [-1]), {})


@pytest.mark.parametrize("module", MODULES)
def test_empty_columns(module):
    none = array("l")
    assert module.subtree_sums(none, [], none, none, none, frozenset()) == (none, none, none, none)
    assert module.templates_sums([], none, {}, 2) == [(0, 0, 0, 0, 0), (0, 0, 0, 0, 0)]
    assert module.template_mask([], none, {}) == []
