"""``fce/fingerprint.py``: the simhash of a text, as Python and compiled (one source), against its definition."""

from __future__ import annotations

import importlib.util
import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fce import fingerprint as fp
from fce.extraction import ExtractedBlock, Extraction
from fce.fingerprint import NEAR_DUPLICATE_BITS, SHINGLE_WORDS, distance, fingerprint, near_duplicates, simhash


def _source_module():  # type: ignore[no-untyped-def]
    """``fce/fingerprint.py`` run as Python, beside the installed (compiled where built) module."""
    spec = importlib.util.spec_from_file_location("fce_fingerprint_source",
                                                  Path(fp.__file__).with_name("fingerprint.py"))
    module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module


SOURCE = _source_module()
MASK = (1 << 64) - 1


def _definition(text: str) -> int | None:
    """The fingerprint as the module's docstring defines it, written out plainly: words, FNV-1a, SplitMix64,
    a +1/−1 count per bit."""
    def mix(z: int) -> int:
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9 & MASK
        z = (z ^ (z >> 27)) * 0x94D049BB133111EB & MASK
        return z ^ (z >> 31)

    def fnv(word: str) -> int:
        h = 0xCBF29CE484222325
        for ch in word:
            h = (h ^ ord(ch)) * 0x100000001B3 & MASK
        return h

    words: list[str] = []
    current = ""
    for ch in text.lower():
        if any(start <= ord(ch) <= end for start, end in fp.UNSPACED_SCRIPTS):
            words += [current, ch] if current else [ch]
            current = ""
        elif ch.isalnum():
            current += ch
        elif current:
            words.append(current)
            current = ""
    if current:
        words.append(current)
    if not words:
        return None
    hashes = [fnv(w) for w in words]
    width = min(SHINGLE_WORDS, len(hashes))
    votes = [0] * 64
    for first in range(len(hashes) - width + 1):
        shingle = 0
        for h in hashes[first:first + width]:
            shingle = mix(shingle ^ h)
        for b in range(64):
            votes[b] += 1 if shingle >> b & 1 else -1
    return sum(1 << b for b in range(64) if votes[b] > 0)


_TEXT = st.text(alphabet=st.one_of(st.characters(), st.sampled_from(" .,\n\tabcXYZ019中文カナไทย")), max_size=400)


@settings(max_examples=300, deadline=None)
@given(text=_TEXT)
def test_the_installed_module_and_the_source_give_the_definition(text):
    expected = _definition(text)
    assert simhash(text) == expected
    assert SOURCE.simhash(text) == expected


@settings(max_examples=300, deadline=None)
@given(text=_TEXT, chunk=st.integers(1, 12))
def test_texts_read_a_few_words_at_a_time_give_the_definition(text, chunk):
    # a long text is read in chunks (fingerprint._CHUNK_CHARS): words and shingles across a chunk's end count once
    saved = fp._CHUNK_CHARS, SOURCE._CHUNK_CHARS
    fp._CHUNK_CHARS = SOURCE._CHUNK_CHARS = chunk
    try:
        assert simhash(text) == SOURCE.simhash(text) == _definition(text)
    finally:
        fp._CHUNK_CHARS, SOURCE._CHUNK_CHARS = saved


def test_long_texts_count_every_feature():
    # more features than the one-byte lanes hold at once (255): the counts are carried over, not wrapped
    rng = random.Random(7)
    words = ["".join(rng.choice("abcdefghij") for _ in range(rng.randint(1, 3))) for _ in range(3000)]
    text = " ".join(words)
    assert simhash(text) == _definition(text) == SOURCE.simhash(text)


def test_a_pinned_fingerprint():
    # the fingerprint is stable across processes, machines and versions: a change of its constants shows here
    assert fingerprint("The quick brown fox jumps over the lazy dog.") == "d8ae2e5720dc6721"


@pytest.mark.parametrize("text", ["", "   \n", "!!! ... ---", "\u200b"])
def test_a_text_without_words_has_no_fingerprint(text):
    assert simhash(text) is None and fingerprint(text) is None


def test_case_punctuation_and_spacing_do_not_count():
    assert fingerprint("Hello, World! How are you?") == fingerprint("hello world\n how   are you")


def test_unspaced_scripts_are_read_character_by_character():
    assert fingerprint("中文测试页面") == fingerprint("中 文 测 试 页 面")
    assert fingerprint("中文测试页面") != fingerprint("中文测验页面")
    assert fingerprint("ภาษาไทย") == fingerprint("ภ า ษ า ไ ท ย")


def _article(seed: int, words: int = 400) -> list[str]:
    rng = random.Random(seed)
    vocabulary = [f"w{k}" for k in range(2000)]
    return [rng.choice(vocabulary) for _ in range(words)]


def test_small_edits_stay_near_and_other_texts_are_far():
    words = _article(1)
    edited = list(words)
    edited[100] = "changed"
    edited.insert(250, "inserted")
    del edited[300]
    original, copy = fingerprint(" ".join(words)), fingerprint(" ".join(edited))
    assert near_duplicates(original, copy)
    assert distance(original, copy) <= NEAR_DUPLICATE_BITS
    for seed in range(2, 12):
        assert not near_duplicates(original, fingerprint(" ".join(_article(seed))))
    # the order of the words counts, not only which words there are
    shuffled = list(words)
    random.Random(3).shuffle(shuffled)
    assert not near_duplicates(original, fingerprint(" ".join(shuffled)))


def test_distance_reads_hex_and_ints():
    assert distance("ff", "0f") == 4 == distance(0xFF, 0x0F)
    assert distance(fingerprint("a b c"), fingerprint("a b c")) == 0
    assert not near_duplicates(None, "00") and not near_duplicates("00", None)
    assert near_duplicates("00", "07") and not near_duplicates("00", "0f")
    assert near_duplicates("00", "0f", max_bits=4)


def test_an_extraction_carries_its_fingerprint():
    result = Extraction.from_blocks((ExtractedBlock("HTML.BODY.P", "Some main text of the page.", 2),),
                                    method="mainblock")
    assert result.fingerprint == fingerprint("Some main text of the page.")
    assert result.to_dict()["fingerprint"] == result.fingerprint
    assert Extraction(text="").to_dict()["fingerprint"] is None
