"""Peer adapters: each turns page bytes into the main text; missing packages name the extra."""

from __future__ import annotations

import dataclasses
import importlib.util

import pytest

from fce.errors import UnknownMethodError
from fce.evaluation import peers
from fce.evaluation.measures import word_f
from fce.evaluation.peers import PEERS, PEERS_EXTRA, PeerUnavailableError, get_peer, peer_names, run_peer
from tests.sitegen import generate_site


@pytest.fixture(scope="module")
def page() -> tuple[bytes, str]:
    generated = generate_site("peers.example.com", 1, seed=3)[0]
    return generated.html, generated.gold


def _installed(name: str) -> bool:
    return importlib.util.find_spec(PEERS[name].module.split(".")[0]) is not None


@pytest.mark.parametrize("name", sorted(PEERS))
def test_peer_extracts_the_article(name: str, page: tuple[bytes, str]) -> None:
    if not _installed(name):
        pytest.skip(f"{PEERS[name].package} not installed")
    html, gold = page
    text = run_peer(name, html)
    assert isinstance(text, str)
    assert word_f(text, gold).recall > 0.5  # each finds most of a plain news article


@pytest.mark.parametrize("name", sorted(PEERS))
def test_peer_takes_a_declared_charset(name: str) -> None:
    if not _installed(name):
        pytest.skip(f"{PEERS[name].package} not installed")
    article = "<p>Caf\u00e9 cr\u00e8me et cr\u00eape, une longue phrase qui fait un paragraphe de texte.</p>" * 8
    html = f"<html><head><title>t</title></head><body><article>{article}</article></body></html>"
    text = run_peer(name, html.encode("cp1252"), "windows-1252")
    assert "\ufffd" not in text


def test_names() -> None:
    assert peer_names() == ["boilerpy3", "justext", "readability", "resiliparse", "trafilatura",
                            "trafilatura-precision"]


def test_unknown_peer() -> None:
    with pytest.raises(UnknownMethodError, match="unknown peer"):
        get_peer("nope")


def test_missing_package_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    fake = dataclasses.replace(PEERS["trafilatura"], module="fce_no_such_module_xyz")
    monkeypatch.setitem(peers.PEERS, "trafilatura", fake)
    with pytest.raises(PeerUnavailableError, match=r"pip install 'fastcontentextractor\[peers\]'") as info:
        get_peer("trafilatura")
    assert isinstance(info.value, ImportError) and isinstance(info.value, UnknownMethodError)
    assert info.value.exit_code == 17 and info.value.extra == PEERS_EXTRA == "peers"
