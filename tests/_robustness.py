"""Shared checks of the robustness tests: is an extraction sound for its page, is an error well formed.

A *sound* result invents nothing: its words appear in the page's visible text, in the same order (a result read
from the page's ``<noscript>``, as a page shows itself without scripts, in the text with the ``<noscript>``'s).
Words are :func:`fce.evaluation.measures.words`. The page's words are taken text node by text node (outside the
subtrees fce never reads, ``fce.blocks.SKIPPED_TAGS``), so where an extraction joins two text nodes without a
space (``foo<b>bar</b>`` → ``foobar``) one output word spans several page words; :func:`is_word_subsequence`
allows that.
"""

from __future__ import annotations

from collections.abc import Sequence

from fce.blocks import SKIPPED_TAGS
from fce.errors import FceError
from fce.evaluation.measures import words
from fce.extraction import Extraction
from fce.parse import Page

__all__ = ["assert_one_line_error", "is_sound", "is_word_subsequence", "page_words", "visible_texts"]


def visible_texts(page: Page, *, noscript: bool = False) -> list[str]:
    """The page's text nodes in document order, without those inside :data:`fce.blocks.SKIPPED_TAGS` (``noscript``:
    with those of ``<noscript>``)."""
    skipped = SKIPPED_TAGS - {"noscript"} if noscript else SKIPPED_TAGS
    out: list[str] = []
    stack = [page.root]  # iterative: pages of the corpus nest thousands of levels deep
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            out.append(item)
            continue
        tag = item.tag if isinstance(item.tag, str) else ""
        if tag.lower() in skipped:
            if item.tail:
                out.append(item.tail)
            continue
        pending: list[object] = []
        if item.text:
            pending.append(item.text)
        pending.extend(item)
        if item is not page.root and item.tail:
            pending.append(item.tail)
        stack.extend(reversed(pending))
    return out


def page_words(page: Page, *, noscript: bool = False) -> list[str]:
    return [word for text in visible_texts(page, noscript=noscript) for word in words(text)]


def is_sound(extraction: Extraction, page: Page, visible: Sequence[str]) -> bool:
    """Whether ``extraction`` invents nothing: its words are a subsequence of ``visible`` (:func:`page_words` of
    ``page``), or of the page's words with its ``<noscript>``'s where it was read from them."""
    if extraction.info.get("noscript"):
        visible = page_words(page, noscript=True)
    return is_word_subsequence(words(extraction.text), visible)


def is_word_subsequence(output: Sequence[str], page: Sequence[str]) -> bool:
    """True when every output word equals one page word or several consecutive ones joined, in page order.

    Greedy earliest match is exact here: two matches of one word cannot nest (the inner one would be shorter).
    """
    j = 0
    for word in output:
        while True:
            if j >= len(page):
                return False
            if word.startswith(page[j]):
                k, joined = j, ""
                while k < len(page) and len(joined) < len(word) and word.startswith(joined + page[k]):
                    joined += page[k]
                    k += 1
                if joined == word:
                    j = k
                    break
            j += 1
    return True


def assert_one_line_error(error: FceError, source: str | None = None) -> None:
    """The error's message is one line and names its input."""
    message = str(error)
    assert message and "\n" not in message and "Traceback" not in message, message
    if source is not None:
        assert message.startswith(f"{source}: "), message
