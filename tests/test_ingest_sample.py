"""fce.ingest.sample: the bottom-k sample per domain is the same however the inputs are split or ordered."""

from __future__ import annotations

import random

import pytest

from fce.ingest.sample import Sampler, merge_samples, url_hash


def pages(n_domains: int = 4, per_domain: int = 50) -> list[tuple[str, str]]:
    return [(f"d{d}.com", f"https://d{d}.com/page/{i}") for d in range(n_domains) for i in range(per_domain)]


def sample_of(items: list[tuple[str, str]], k: int, input_index: int = 0):
    sampler = Sampler(k)
    for position, (domain, url) in enumerate(items):
        sampler.add(domain, url, input_index, position)
    return sampler.result()


def test_url_hash_is_stable() -> None:
    assert url_hash("https://example.com/") == url_hash("https://example.com/")
    assert url_hash("https://example.com/") == 0x14ba2eb79c27555b  # BLAKE2b: the same on every machine and run
    assert url_hash("https://example.com/a") != url_hash("https://example.com/b")
    assert 0 <= url_hash("\udcff lone surrogate") < 2**64


@pytest.mark.parametrize("k", [1, 5, 30])
def test_sample_does_not_depend_on_how_inputs_are_split(k: int) -> None:
    items = pages()
    whole = sample_of(items, k)
    rng = random.Random(7)
    for _ in range(5):
        shuffled = items[:]
        rng.shuffle(shuffled)
        cuts = sorted(rng.sample(range(1, len(items)), 4))
        parts = [shuffled[a:b] for a, b in zip([0, *cuts], [*cuts, len(items)], strict=True)]
        merged = merge_samples([sample_of(p, k) for p in reversed(parts)], k)
        assert {d: [e.url for e in entries] for d, entries in merged.entries.items()} == \
            {d: [e.url for e in entries] for d, entries in whole.entries.items()}
        assert merged.pages == whole.pages == {f"d{d}.com": 50 for d in range(4)}


def test_the_k_smallest_hashes_are_kept() -> None:
    items = pages(1, 100)
    sample = sample_of(items, 10)
    expected = sorted(url_hash(url) for _, url in items)[:10]
    assert [e.hash for e in sample.entries["d0.com"]] == expected


def test_a_url_seen_twice_counts_once_in_the_sample() -> None:
    first = sample_of([("a.com", "https://a.com/1"), ("a.com", "https://a.com/2")], 5, input_index=1)
    second = sample_of([("a.com", "https://a.com/1")], 5, input_index=0)
    merged = merge_samples([first, second], 5)
    assert [(e.url, e.input) for e in merged.entries["a.com"]] == sorted(
        [("https://a.com/1", 0), ("https://a.com/2", 1)], key=lambda x: url_hash(x[0]))
    assert merged.pages == {"a.com": 3}


def test_domains_with_enough_pages() -> None:
    sample = sample_of(pages(1, 3) + [("big.com", f"https://big.com/{i}") for i in range(40)], 30)
    assert sample.domains_with(20) == ["big.com"] and len(sample.entries["big.com"]) == 30
    with pytest.raises(ValueError):
        Sampler(0)
