"""fce.layouts: grouping pages by structure, several layouts per site, the layout choice, staleness and relearning,
on generated sites with two or three layouts and a redesign."""

from __future__ import annotations

from functools import cache

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fce import layouts
from fce.blocks import blocks_of
from fce.evaluation.measures import word_f
from fce.layouts import (
    LAYOUT_DISTANCE,
    STALE_FIT_RATE,
    STALE_MIN_RECENT,
    LayoutChoice,
    SiteDetector,
    group_pages,
    is_stale,
    page_paths,
    profile_match,
)
from fce.learn import LayoutLearner
from fce.parse import parse_page
from fce.pipeline import Extractor, extract, learn_site
from fce.service import relearn_stale, save_template, site_rows
from templates_store import MemoryStore, SiteCounters
from tests.sitegen import SiteStyle, generate_mixed_site, generate_site

SITE = "mix.test"
#: A live blog that shares the article's story container (the CMS's), under chrome of its own.
LIVE = SiteStyle(live_blog=True, theme="live", theme_keep=("article-page", "page-wrap", "main", "story",
                                                            "story-body"), comments_rate=0.0)
THREE = (SiteStyle(), LIVE, SiteStyle(layout="table"))


@cache
def mixed(n: int = 45, styles: tuple[SiteStyle, ...] = THREE, seed: int = 3):
    return tuple((g, parse_page(g.html, url=g.url)) for g in generate_mixed_site(SITE, n, styles, seed=seed))


@cache
def redesign():
    """30 pages of the old look (2005-era tables), then 20 of the new (div), one site."""
    old = generate_site(SITE, 30, seed=5, style=SiteStyle(layout="table"))
    new = generate_site(SITE, 50, seed=5)[30:]
    return tuple((g, parse_page(g.html, url=g.url)) for g in [*old, *new])


def _wf(record, pages, **kw) -> list[float]:
    return [word_f(extract(p, record, **kw).text, g.gold).f1 for g, p in pages]


# --- grouping -----------------------------------------------------------------------------------------------


def test_group_pages_finds_the_layouts_largest_first():
    pages = mixed()[:30]
    labels = group_pages([page_paths(blocks_of(p)) for _, p in pages])
    truth = [i % 3 for i in range(30)]
    # one group per layout, whatever their numbering
    assert len(set(labels.tolist())) == 3
    assert all(len({t for t, lab in zip(truth, labels, strict=True) if lab == g}) == 1 for g in set(labels))
    assert labels[0] == 0  # equal sizes: the group of the first page first


def test_group_pages_edge_cases():
    assert group_pages([]).tolist() == []
    assert group_pages([frozenset({"a"})]).tolist() == [0]
    assert group_pages([frozenset(), frozenset()]).tolist() == [0, 0]
    sets = [frozenset({"a", "b"}), frozenset({"x", "y"}), frozenset({"a", "b", "c"}), frozenset({"x", "y"})]
    assert group_pages(sets).tolist() == [0, 1, 0, 1]
    assert group_pages(sets, distance=1.0).tolist() == [0, 1, 0, 1]  # groups at distance 1.0 or more stay apart
    assert group_pages(sets, distance=1.01).tolist() == [0, 0, 0, 0]
    assert 0 < LAYOUT_DISTANCE < 1


def _grouped_by_scikit_learn(path_sets, distance):  # type: ignore[no-untyped-def]
    """group_pages computed with scikit-learn's clustering (the reference it must match), relabelled the same."""
    from sklearn.cluster import AgglomerativeClustering
    from sklearn.metrics import pairwise_distances
    from sklearn.preprocessing import MultiLabelBinarizer

    n = len(path_sets)
    matrix = MultiLabelBinarizer(sparse_output=False).fit_transform([sorted(s) for s in path_sets]).astype(bool)
    empty = ~matrix.any(axis=1)
    dist = pairwise_distances(matrix, metric="jaccard") if matrix.shape[1] else np.zeros((n, n))
    dist[np.ix_(empty, empty)] = 0.0
    dist = np.nan_to_num(dist, nan=1.0)
    raw = AgglomerativeClustering(n_clusters=None, metric="precomputed", linkage="average",
                                  distance_threshold=distance).fit_predict(dist)
    sizes = np.bincount(raw)
    first = {int(label): int(np.flatnonzero(raw == label)[0]) for label in np.unique(raw)}
    order = sorted(first, key=lambda label: (-sizes[label], first[label]))
    relabel = {old: new for new, old in enumerate(order)}
    return [relabel[int(x)] for x in raw]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.frozensets(st.sampled_from("abcdefgh"), max_size=6), min_size=2, max_size=14),
       st.sampled_from([0.0, 0.25, 0.5, 0.6, 2 / 3, 0.7, 0.75, 0.8, 1.0, 1.01]))
def test_group_pages_cuts_as_scikit_learn_did(path_sets, distance):
    # eight paths make many distances land exactly on the thresholds (1/2, 2/3, 3/4, ...): a merge at the threshold
    # is undone, as scikit-learn undid it
    assert group_pages(path_sets, distance=distance).tolist() == _grouped_by_scikit_learn(path_sets, distance)


@settings(max_examples=300, deadline=None)
@given(st.integers(1, 12), st.integers(0, 40), st.floats(0.0, 1.0), st.integers(0, 2**31))
def test_jaccard_distances_are_pdists(n_rows, n_cols, density, seed):
    from scipy.spatial.distance import pdist

    matrix = np.random.default_rng(seed).random((n_rows, n_cols)) < density
    want = np.nan_to_num(pdist(matrix, metric="jaccard"), nan=0.0)
    got = layouts.jaccard_distances(matrix)
    assert got.dtype == want.dtype and got.shape == want.shape
    assert got.tobytes() == want.tobytes()  # the same bits, not just close


def test_group_pages_on_a_mixed_site_as_scikit_learn_did():
    path_sets = [page_paths(blocks_of(p)) for _, p in mixed()]
    assert group_pages(path_sets).tolist() == _grouped_by_scikit_learn(path_sets, LAYOUT_DISTANCE)


# --- learning -----------------------------------------------------------------------------------------------


def test_one_template_degrades_on_a_mixed_site_layouts_do_not():
    pages = mixed()
    learn, test = [p for _, p in pages[:33]], pages[33:]
    one = learn_site(learn, SITE, layouts=False)
    layouts = learn_site(learn, SITE)
    assert len(one.layouts) == 1 and len(layouts.layouts) == 3
    for mode in ("guided", "rules"):
        one_wf, layout_wf = _wf(one, test, mode=mode), _wf(layouts, test, mode=mode)
        # the live blog's standing introduction sits on the article's paragraph path: in one template that
        # path is mostly noise, so articles lose their paragraphs
        assert np.mean(one_wf) < 0.9 and min(one_wf) < 0.5, (mode, one_wf)
        assert np.mean(layout_wf) > 0.97 and min(layout_wf) > 0.9, (mode, layout_wf)


def test_layout_learner_is_sklearn_style_and_order_independent():
    pages = [p for _, p in mixed()[:33]]
    learner = LayoutLearner(SITE, min_layout_pages=4)
    assert learner.min_layout_pages == 4 and learner.template_params is None
    assert learner.fit(pages) is learner
    again = LayoutLearner(SITE, min_layout_pages=4).fit(list(reversed(pages)))

    def strip(record):
        data = record.to_dict()
        data["learned_at"] = None
        for layout in data["layouts"]:
            layout["learned_at"] = None
        return data

    assert strip(learner.model_) == strip(again.model_)
    # labels_ follow the given order: page i and page 32 - i taught the same layout
    assert learner.labels_.tolist() == list(reversed(again.labels_.tolist()))
    assert sorted(np.bincount(learner.labels_).tolist()) == [11, 11, 11]
    assert learner.n_pages_ == 33


def test_the_canonical_key_is_the_same_compiled_or_not(monkeypatch):
    # the compiled stream and the Python one are the same bytes: the same digest (and so the same order of pages,
    # whichever is installed); the pages' text holds curly quotes, accents and a character above the BMP; the key
    # is pinned: stored templates' page order depends on it (four SHA-1 updates per block)
    import hashlib

    from fce import features

    trees = [blocks_of(p) for _, p in mixed()[:12]]
    html = "<html><body><p class=\"é\">Café “crème” \U0001F600 naïve</p><div>x\ud800y</div></body></html>"
    trees.append(blocks_of(parse_page(html)))
    keys = [layouts._canonical_key(t) for t in trees]
    for tree, key in zip(trees, keys, strict=True):
        digest = hashlib.sha1(usedforsecurity=False)
        for block in tree.blocks:
            for piece in (block.path.encode("utf-8", "surrogatepass"), b"\0",
                          block.text.encode("utf-8", "surrogatepass"), b"\1"):
                digest.update(piece)
        assert digest.hexdigest() == key
    monkeypatch.setattr(features, "_FEATURES", None)
    assert [layouts._canonical_key(t) for t in trees] == keys
    assert len(set(keys)) == len(keys)


def test_small_groups_are_left_out_and_no_group_means_one_template():
    pages = [p for _, p in mixed(45, (SiteStyle(), SiteStyle(layout="table")))[:12]]
    learner = LayoutLearner(SITE, min_layout_pages=7).fit(pages)  # two groups of 6: neither is a layout
    assert len(learner.model_.layouts) == 1 and learner.labels_.tolist() == [0] * 12
    odd = [p for _, p in generate_site_pages(10)] + [pages[1], pages[3]]  # 10 articles, 2 table pages
    learner = LayoutLearner(SITE).fit(odd)
    assert len(learner.model_.layouts) == 1 and learner.labels_.tolist() == [0] * 10 + [-1, -1]
    assert learner.model_.n_pages == 12 and learner.model_.layouts[0].n_pages == 10
    with pytest.raises(ValueError, match="min_layout_pages"):
        LayoutLearner(SITE, min_layout_pages=1).fit(pages)


def generate_site_pages(n: int):
    return [(g, parse_page(g.html, url=g.url)) for g in generate_site(SITE, n, seed=3)]


# --- choosing a layout --------------------------------------------------------------------------------------


def test_the_choice_of_layout_is_the_pages_own_and_deterministic():
    pages = mixed()
    layouts = learn_site([p for _, p in pages[:33]], SITE)
    detector = SiteDetector(layouts)
    own = {}
    for i, (_, page) in enumerate(pages[33:], start=33):
        choice = detector.choose(blocks_of(page))
        assert choice.layout >= 0 and choice.fit > 0.9 and 0.5 < choice.match <= 1.0
        own.setdefault(i % 3, set()).add(choice.layout)
        assert SiteDetector(layouts).choose(blocks_of(page)) == choice  # same page, same choice
        result = extract(page, layouts)
        assert result.info["layout"] == choice.layout and result.fit == choice.fit
    assert sorted(min(v) for v in own.values()) == [0, 1, 2] and all(len(v) == 1 for v in own.values())


def test_ties_go_to_the_first_layout_and_a_foreign_page_to_none():
    pages = [p for _, p in generate_site_pages(12)]
    template = learn_site(pages[:8], SITE, layouts=False).layouts[0]
    twice = type(learn_site(pages[:8], SITE))(site=SITE, layouts=(template, template), n_pages=16,
                                               learned_at="x")
    choice = SiteDetector(twice).choose(blocks_of(pages[10]))
    assert choice.layout == 0
    foreign = parse_page(b"<html><body><table><tr><td>" + b"Other words here. " * 40 + b"</td></tr></table>"
                         b"</body></html>")
    none = SiteDetector(twice).choose(blocks_of(foreign))
    assert none == LayoutChoice(-1, none.fit, none.match, 0) and none.fit < 0.5
    assert SiteDetector(twice).choose(blocks_of(foreign), min_fit=0.0).layout == 0  # the caller's threshold
    result = extract(foreign, twice)
    assert result.fallback_reason == "low-fit" and result.info["layout"] is None
    forced = extract(foreign, SiteDetector(twice, min_fit=0.9), fallback=None, min_fit=0.0)
    assert forced.method == "template" and forced.info["layout"] == 0


def test_profile_match():
    pages = [p for _, p in generate_site_pages(10)]
    template = learn_site(pages[:8], SITE, layouts=False).layouts[0]
    assert 0.8 < profile_match(page_paths(blocks_of(pages[9])), template) <= 1.0
    assert profile_match(frozenset({"HTML.BODY.X"}), template) == 0.0
    assert profile_match(frozenset(), template) == 0.0


# --- drift ----------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("recent", "stale"),
    [
        ("", False),
        ("0" * (STALE_MIN_RECENT - 1), False),  # too few to judge
        ("0" * STALE_MIN_RECENT, True),
        ("1" * STALE_MIN_RECENT, False),
        ("1000" * STALE_MIN_RECENT, False),  # exactly the threshold is not below it
        ("10000" * STALE_MIN_RECENT, True),
    ],
)
def test_is_stale(recent, stale):
    assert STALE_FIT_RATE == 0.25
    assert is_stale(SiteCounters(SITE, 1, recent.count("1"), recent.count("0"), recent)) is stale
    assert is_stale(None) is False


def test_a_redesign_is_flagged_stale_and_relearned():
    pages = redesign()
    old, new = [p for _, p in pages[:30]], pages[30:]
    store = MemoryStore()
    version = save_template(store, learn_site(old, SITE))
    extractor = Extractor(store)
    before = [extractor.extract(p) for _, p in new[:STALE_MIN_RECENT]]
    assert all(r.fallback_reason == "low-fit" for r in before)
    extractor.flush()
    (row,) = site_rows(store)
    assert (row["fallbacks"], row["recent_fit_rate"], row["stale"]) == (STALE_MIN_RECENT, 0.0, True)

    # relearning from the pages of the current run: only the stale site, only with enough pages
    run = {SITE: [p for _, p in new[:STALE_MIN_RECENT]], "other.test": [p for _, p in new[:3]]}
    too_few = relearn_stale(store, {SITE: run[SITE][:3]})
    assert [o.status for o in too_few] == ["too-few"] and store.get(SITE).version == version
    outcomes = relearn_stale(store, run)
    assert [(o.site, o.status) for o in outcomes] == [("mix.test", "relearned"), ("other.test", "no-template")]
    assert outcomes[0].version == version + 1 and outcomes[0].counters.recent_fit_rate == 0.0
    (row,) = site_rows(store)
    assert (row["version"], row["fits"], row["fallbacks"], row["stale"]) == (version + 1, 0, 0, False)
    after = Extractor(store)
    results = [after.extract(p) for _, p in new[STALE_MIN_RECENT:]]
    assert all(r.method == "template" for r in results)
    assert np.mean([word_f(r.text, g.gold).f1 for r, (g, _) in zip(results, new[STALE_MIN_RECENT:],
                                                                    strict=True)]) > 0.95
    after.flush()
    assert relearn_stale(store, run)[0].status == "fresh"


def test_relearn_leaves_a_record_replaced_meanwhile_alone():
    pages = redesign()
    store = MemoryStore()
    save_template(store, learn_site([p for _, p in pages[:30]], SITE))
    store.record(SITE, "0" * STALE_MIN_RECENT)
    real = store.counters

    def counters_then_someone_relearns(sites):
        found = real(sites)
        store.put(SITE, store.get(SITE).payload)  # another writer replaces the record
        return found

    store.counters = counters_then_someone_relearns  # type: ignore[method-assign]
    (outcome,) = relearn_stale(store, {SITE: [p for _, p in pages[30:40]]})
    assert (outcome.status, outcome.version) == ("conflict", 2)
