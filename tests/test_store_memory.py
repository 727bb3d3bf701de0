"""Memory backend: what differs from the shared contract (tests/test_store_contract.py)."""

from __future__ import annotations

import pickle

import pytest

from templates_store import MemoryStore, open_store
from tests._store import stored


def test_each_open_store_is_a_fresh_store() -> None:
    first, second = open_store("memory://"), open_store("memory://")
    first.put("example.com", "x")
    assert second.get("example.com") is None
    assert isinstance(first, MemoryStore) and first.url == "memory://"


def test_pickling_copies_the_templates() -> None:
    store = MemoryStore()
    store.put("example.com", "x", ttl=60)
    copy = pickle.loads(pickle.dumps(store))
    assert copy.get("example.com") == store.get("example.com")
    copy.put("example.com", "changed")
    assert stored(store, "example.com").payload == "x"  # independent from then on
    assert copy.put("other.org", "y") == 1  # the copy has a working lock


def test_data_survives_close() -> None:
    with MemoryStore() as store:
        store.put("example.com", "x")
    assert stored(store, "example.com").payload == "x"


def test_default_ttl_in_url() -> None:
    assert MemoryStore(default_ttl=1.5).url == "memory://?ttl=1.5"
    assert open_store("memory://?ttl=1.5").default_ttl == 1.5
    with pytest.raises(ValueError):
        MemoryStore(default_ttl=0)
