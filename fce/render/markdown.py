# cython: annotation_typing=False
"""Markdown of the document (:func:`to_markdown`): CommonMark, with GitHub's tables and strike-through."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Collection, Iterator, Sequence
from typing import TYPE_CHECKING, Any, TypeAlias
from urllib.parse import quote

from fce.render.document import (
    BREAK,
    Code,
    Heading,
    Inline,
    ListBlock,
    Node,
    Paragraph,
    Quote,
    Span,
    Table,
    paragraphs,
    structure,
)
from fce.render.links import Links

try:
    import cython
except ModuleNotFoundError:  # Cython is a build requirement only: plain Python then (fce._cython_shim)
    from fce import _cython_shim as cython

if TYPE_CHECKING:
    from fce.blocks import BlockTree
    from fce.extraction import ExtractedBlock

__all__ = ["text_markdown", "to_markdown"]

# -- block elements ----------------------------------------------------------------------------------------------------


def to_markdown(tree: BlockTree, blocks: Sequence[ExtractedBlock], covered: Collection[int] | None = None, *,
                links: bool = False, url: str | None = None, exact: bool = False) -> str:
    """The extracted ``blocks`` as markdown (CommonMark, with GitHub's tables and strike-through): headings
    ``#``…, paragraphs, nested lists, tables, fenced code, quotes, ``*emphasis*``, ``**strong**``, `` `code` ``,
    ``~~deleted~~``, and with ``links`` the links ``[text](href)`` (relative ones resolved against ``url``). See
    :func:`structure` for ``covered`` and ``exact``."""
    return _markdown_nodes(structure(tree, blocks, covered, links=links, exact=exact), Links(links, url))


def text_markdown(text: str) -> str:
    """Plain ``text`` as markdown paragraphs, one per non-blank line, escaped
    (:func:`fce.render.document.paragraphs`)."""
    return _markdown_nodes(paragraphs(text), Links(False, None))


def _markdown_nodes(nodes: Sequence[Node], links: Links) -> str:
    return "\n".join(_md_sequence(nodes, links))


@cython.ccall
def _md_sequence(nodes: Sequence[Node], links: Links, *, tight: bool = False) -> list[str]:
    """The lines of consecutive nodes, a blank line between two (``tight``: none before a list that follows a
    paragraph, as in a list item); of two lists in a row the second takes the other bullet (the same would join
    them)."""
    lines: list[str] = []
    before: Node | None = None
    alternate = False
    for node in nodes:
        if type(node) is Paragraph:
            # (its inline content, read by position from the tuple the node is: compiled, no attribute lookup, and no
            # call of the type's __getitem__, which indexing a tuple's subclass makes)
            inline = cython.cast(tuple, node, typecheck=False)[0]
            if len(inline) == 1 and type(inline[0]) is str:  # (most nodes: a line of text)
                if lines:
                    lines.append("")
                lines.append(_md_text(inline[0]))  # type: ignore[arg-type]
                before = node
                continue
        alternate = (type(node) is ListBlock and type(before) is ListBlock  # (as in _Reader.emit)
                     and node.ordered == before.ordered and not alternate)
        out = _md_node(node, links, alternate)
        if not out:
            continue
        if lines and not (tight and type(node) is ListBlock and type(before) is Paragraph):
            lines.append("")
        lines.extend(out)
        before = node
    return lines


@cython.ccall
def _md_node(node: Node, links: Links, alternate: bool) -> list[str]:
    if isinstance(node, Paragraph):
        return _md_inline(node.inline, links).split("\n")
    if isinstance(node, Heading):
        return [f"{'#' * node.level} {_md_inline(node.inline, links, heading=True)}"]
    if isinstance(node, ListBlock):
        return _md_list(node, links, alternate)
    if isinstance(node, Table):
        return _md_table(node, links)
    if isinstance(node, Code):
        fence = "`" * max(FENCE, max(map(len, _BACKTICKS.findall(node.text)), default=0) + 1)
        return [fence, *node.text.split("\n"), fence]
    if isinstance(node, Quote):
        return [f"> {line}" if line else ">" for line in _md_sequence(node.children, links)]
    return [THEMATIC_BREAK]


#: The shortest code fence (CommonMark); a longer one where the code holds a run of backticks as long.
FENCE = 3
_BACKTICKS = re.compile(r"`+")
#: A thematic break that stays one as the first line of a list item of either bullet (``- ---`` and ``* ***`` are
#: breaks of the whole line).
THEMATIC_BREAK = "___"


@cython.ccall
def _md_list(node: ListBlock, links: Links, alternate: bool) -> list[str]:
    items: list[list[str]] = []
    for entry in node.items:
        body = _md_sequence(entry, links, tight=True)
        if not body:
            continue
        n = len(items) + 1
        marker = (f"{n}{')' if alternate else '.'}" if node.ordered else ("*" if alternate else "-"))
        pad = " " * (len(marker) + 1)
        items.append([f"{marker} {body[0]}", *[pad + line if line else "" for line in body[1:]]])
    loose = any(["" in item for item in items])  # a blank line in an item: blank lines between the items too
    lines: list[str] = []
    for item in items:
        if lines and loose:
            lines.append("")
        lines.extend(item)
    return lines


@cython.ccall
def _md_table(node: Table, links: Links) -> list[str]:
    lines = _md_sequence(node.caption, links)
    if lines:
        lines.append("")
    rows = [[_md_inline(cell, links, table=True) for cell in row] for row in node.rows]
    lines.append(_md_row(rows[0]))
    lines.append(_md_row(["---"] * len(rows[0])))
    lines.extend(map(_md_row, rows[1:]))
    return lines


@cython.ccall
def _md_row(cells: list[str]) -> str:
    return "| " + " | ".join(cells) + " |"


# inline markdown: a list of segments, each (text, role, span); delimiters that would not parse where they fall are
# found on the segments, their spans written as plain content, and the segments made again
_TEXT, _OPEN, _CLOSE, _BREAK_SEGMENT, _CODE = range(5)
#: A segment: its text, its role, the id of its span (None where it is text). (Tuples: a paragraph's segments are
#: made and freed at once, and a tuple is one allocation where a list is two.)
Segment: TypeAlias = tuple[str, int, Any]
_DELIMITERS = {"em": "*", "strong": "**", "del": "~~"}


@cython.ccall
def _md_text(text: str) -> str:
    """A paragraph of text alone."""
    text = _escape(text)
    return _LINE_START.sub(_escape_line_start, text) if text[0] in _LINE_STARTS else text


@cython.ccall
@cython.locals(k=cython.Py_ssize_t, n=cython.Py_ssize_t, line_start=cython.bint, segments=list, out=list,
               segment=tuple, text=str, plain=set)
def _md_inline(inline: Inline, links: Links, heading: bool = False, table: bool = False) -> str:
    """Inline content as markdown, line breaks as ``\\`` and a new line (a space in a heading or a table cell)."""
    if len(inline) == 1 and type(inline[0]) is str:  # (most paragraphs: text alone)
        if heading:
            return _closing_hashes(_escape(inline[0]))  # type: ignore[arg-type]
        return _escape(inline[0]) if table else _md_text(inline[0])  # type: ignore[arg-type]
    plain: set[int] = set()
    while True:
        segments: list[Segment] = []
        if not _md_segments(inline, links, plain, segments, heading or table, table):
            break  # (no emphasis, no code: links and text alone always parse)
        bad = _unparsable(segments)
        if not bad:
            break
        plain |= bad
    out: list[str] = []
    line_start = not (heading or table)  # (a heading's or a cell's text is not at the start of a line)
    n = len(segments)
    for k in range(n):
        segment = segments[k]
        text, role = segment[0], segment[1]
        if role == _TEXT:
            if line_start and text and (text[0] in "#>+=-" or text[0].isdecimal()):  # (what _LINE_START can match)
                text = _LINE_START.sub(_escape_line_start, text)
            if k + 1 < n and segments[k + 1][1] == _OPEN and segments[k + 1][0] == "[" and text.endswith("!"):
                text = text[:-1] + "\\!"  # (![…] would be an image)
        out.append(text)
        line_start = role == _BREAK_SEGMENT
    text = "".join(out)
    return _closing_hashes(text) if heading else text


@cython.ccall
@cython.locals(out=list, plain=set, flat=cython.bint, table=cython.bint, in_link=cython.bint, delimited=cython.bint,
               fields=tuple)
def _md_segments(inline: Inline, links: Links, plain: set[int], out: list[Segment], flat: bool, table: bool,
                 in_link: bool = False) -> bool:
    """Append the segments of ``inline`` to ``out`` (spans in ``plain`` as their content alone); whether there is
    emphasis or code among them (whose delimiters may not parse). (Called from C where compiled, a span's fields
    read by position: kind, children, href.)"""
    delimited = False
    for item in inline:
        if type(item) is str:
            out.append((_escape(item), _TEXT, None))  # type: ignore[arg-type]
        elif item is BREAK:
            out.append((" " if flat else "\\\n", _TEXT if flat else _BREAK_SEGMENT, None))
        else:
            span: Span = item  # type: ignore[assignment]
            fields = cython.cast(tuple, span, typecheck=False)  # (read by position: no call of Span's __getitem__)
            kind, children, href = fields[0], fields[1], fields[2]
            key = id(span)
            if key in plain:
                delimited |= _md_segments(children, links, plain, out, flat, table, in_link)
            elif kind == "code" and not (in_link and _BRACKETS.search(_code_text(span, table))):
                out.append((_code_span(_code_text(span, table)), _CODE, key))
                delimited = True
            elif kind == "link" and (href := links.href(href)) is not None:
                out.append(("[", _OPEN, key))
                delimited |= _md_segments(children, links, plain, out, flat, table, True)
                out.append((f"]({_destination(href)})", _CLOSE, key))
            elif kind in _DELIMITERS:
                delimiter = _DELIMITERS[kind]
                out.append((delimiter, _OPEN, key))
                _md_segments(children, links, plain, out, flat, table, in_link)
                out.append((delimiter, _CLOSE, key))
                delimited = True
            else:  # no markdown for it (sub, sup), or a link not written
                delimited |= _md_segments(children, links, plain, out, flat, table, in_link)
    return delimited


def _code_text(span: Span, table: bool) -> str:
    text = "".join(_plain_text(span.children))
    return text.replace("|", "\\|") if table else text  # (GitHub's tables split cells before reading code spans)


#: A bracket in a code span inside a link's text would end the text (``[`]:`](x)``: a reference definition).
_BRACKETS = re.compile(r"[\[\]]")


def _code_span(text: str) -> str:
    fence = "`" * (max(map(len, _BACKTICKS.findall(text)), default=0) + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def _plain_text(inline: Inline) -> Iterator[str]:
    for item in inline:
        if type(item) is str:
            yield item  # type: ignore[misc]
        elif item is BREAK:
            yield " "
        else:
            yield from _plain_text(item.children)  # type: ignore[union-attr]


@cython.locals(n=cython.Py_ssize_t, k=cython.Py_ssize_t, end=cython.Py_ssize_t, left=cython.bint, right=cython.bint,
               nested=cython.bint, around=list, bad=set, segments=list, segment=tuple, text=str)
def _unparsable(segments: list[Segment]) -> set[int]:
    """The spans whose delimiters would not be read as such where they fall: CommonMark's flanking rules for the
    run of ``*`` (or ``~``) a delimiter is in; delimiters of two spans of one kind in a run (``*a**b*``); of two
    spans in a run that can both open and close (the rule of three would pair them otherwise); a run that can both
    open and close inside a span of the same character (it would close that span: ``***1*1*1***``); a code span's
    fence next to a backtick."""
    bad: set[int] = set()
    n = len(segments)
    around: list[tuple[int, str]] = []  # the spans open, with their delimiter's character
    k = 0
    while k < n:
        segment = segments[k]
        text, role, key = segment[0], segment[1], segment[2]
        if role == _CODE:
            if _char_before(segments, k) == "`" or _char_after(segments, k) == "`":
                bad.add(key)
        if role not in (_OPEN, _CLOSE):
            k += 1
            continue
        if text[0] not in "*~":
            if role == _OPEN:
                around.append((key, text[0]))
            else:
                _close(around, key)
            k += 1
            continue
        end = k + 1  # the run: delimiters of the same character, one after the other
        while end < n and segments[end][1] in (_OPEN, _CLOSE) and segments[end][0][0] == text[0]:
            end += 1
        before, after = _char_before(segments, k), _char_after(segments, end - 1)
        left = after is not None and not _is_space(after) and (
            not _is_punct(after) or before is None or _is_space(before) or _is_punct(before))
        right = before is not None and not _is_space(before) and (
            not _is_punct(before) or after is None or _is_space(after) or _is_punct(after))
        if end == k + 1:  # (most runs: one delimiter; what the loops below do with a run of one, without its sets)
            nested = False
            if left and right:
                for key_, ch in around:  # (a loop, not any(): a compiled function takes no generator)
                    if ch == text[0] and key_ != key:
                        nested = True
                        break
            if nested or not (left if role == _OPEN else right):
                bad.add(key)
            if role == _OPEN:
                around.append((key, text[0]))
            else:
                _close(around, key)
            k = end
            continue
        run = segments[k:end]
        keys = {seg[2] for seg in run}
        closing = {_KINDS_OF[seg[0]] for seg in run if seg[1] == _CLOSE}
        nested = False
        if left and right:
            for key_, ch in around:
                if ch == text[0] and key_ not in keys:
                    nested = True
                    break
        for seg in run:
            if nested:
                bad.add(seg[2])
            elif seg[1] == _OPEN:
                if not left or (len(run) > 1 and (right or _KINDS_OF[seg[0]] in closing)):
                    bad.add(seg[2])
            elif not right:
                bad.add(seg[2])
        for seg in run:
            if seg[1] == _OPEN:
                around.append((seg[2], text[0]))
            else:
                _close(around, seg[2])
        k = end
    return bad


@cython.ccall
@cython.locals(around=list, j=cython.Py_ssize_t)
def _close(around: list[tuple[int, str]], key: int) -> None:
    """Take span ``key`` off the spans open (the innermost, nearly always)."""
    for j in range(len(around) - 1, -1, -1):
        if around[j][0] == key:
            del around[j]
            return


_KINDS_OF = {delimiter: kind for kind, delimiter in _DELIMITERS.items()}


@cython.ccall
@cython.locals(k=cython.Py_ssize_t, j=cython.Py_ssize_t, segments=list, text=str)
def _char_before(segments: list[Segment], k: int) -> str | None:
    for j in range(k - 1, -1, -1):
        text = segments[j][0]
        if text:
            return text[-1]
    return None


@cython.ccall
@cython.locals(k=cython.Py_ssize_t, j=cython.Py_ssize_t, segments=list, text=str)
def _char_after(segments: list[Segment], k: int) -> str | None:
    for j in range(k + 1, len(segments)):
        text = segments[j][0]
        if text:
            return text[0]
    return None


#: CommonMark's whitespace (Unicode Zs and the ASCII controls it names).
_MD_SPACE = frozenset("\t\n\x0b\x0c\r")


@cython.ccall
@cython.locals(ch=cython.Py_UCS4)
def _is_space(ch: str) -> bool:
    if ch < "\x80":  # (most characters: no call of unicodedata's)
        return ch in _ASCII_SPACE
    return ch in _MD_SPACE or unicodedata.category(ch) == "Zs"


@cython.ccall
@cython.locals(ch=cython.Py_UCS4)
def _is_punct(ch: str) -> bool:
    """CommonMark's punctuation: Unicode punctuation and symbols (ASCII's are all among them)."""
    if ch < "\x80":
        return ch in _ASCII_PUNCT
    return unicodedata.category(ch)[0] in "PS"


#: The ASCII characters :func:`_is_space` and :func:`_is_punct` accept, by their general rule.
_ASCII_SPACE = frozenset(ch for ch in map(chr, range(0x80)) if ch in _MD_SPACE or unicodedata.category(ch) == "Zs")
_ASCII_PUNCT = frozenset(ch for ch in map(chr, range(0x80)) if unicodedata.category(ch)[0] in "PS")


#: Characters that would start markup anywhere (CommonMark's inlines, GitHub's tables and strike-through), and an
#: ``&`` that would start an entity.
_SPECIAL_CHARS = "\\`*[]<|~"
_SPECIAL = re.compile("[" + re.escape(_SPECIAL_CHARS) + "]")
#: Each character of :data:`_SPECIAL` with its escape, the backslash first (the backslashes the others are given
#: are not escaped again).
_SPECIAL_ESCAPES = tuple((ch, "\\" + ch) for ch in _SPECIAL_CHARS)
_ENTITY = re.compile(r"&(?=#?\w+;)")
#: An ``_`` that is not between two letters or digits (there it cannot start or end emphasis).
_UNDERSCORE = re.compile(r"(?<![^\W_])_|_(?![^\W_])")
#: What would start a block at the start of a line: a heading, a quote, a list item (``-`` ``+`` ``1.`` ``1)``), a
#: setext underline or a thematic break (``*`` ``_`` are escaped anywhere).
_LINE_START = re.compile(r"^(?:([#>+=-])|(\d{1,9})(?=[.)]))")
_LINE_STARTS = frozenset("#>+=-0123456789")
#: Any character :func:`_escape` may escape (one search: most text has none).
_MAY_ESCAPE = re.compile(r"[\\`*\[\]<|~&_]")


#: Compiled, :func:`_may_escape` loops over a text shorter than this; a longer one is searched for each character.
#: Measured: the loop costs 0.55 ns a character, the ten searches 65 ns for up to a few hundred (even at 40).
MAY_ESCAPE_LOOP_CHARS = 40


@cython.ccall
@cython.locals(text=str, ch=cython.Py_UCS4)
def _may_escape(text: str) -> bool:
    """Whether ``text`` holds a character of :data:`_MAY_ESCAPE` (most paragraphs hold none). Compiled, a loop over
    the characters of a short text, a third of the search's time, and ``in`` for each character in a longer one
    (``memchr``); interpreted, the search (a loop of Python's costs more)."""
    if not cython.compiled:
        return _MAY_ESCAPE.search(text) is not None
    if len(text) < MAY_ESCAPE_LOOP_CHARS:
        for ch in text:
            if ch in "\\`*[]<|~&_":  # (the characters of _MAY_ESCAPE: a switch where compiled)
                return True
        return False
    return ("\\" in text or "`" in text or "*" in text or "[" in text or "]" in text or "<" in text or "|" in text
            or "~" in text or "&" in text or "_" in text)


#: A heading's last word of ``#`` alone (``## Item #`` would lose it as a closing sequence).
_CLOSING_HASHES = re.compile(r"(^| )(#+)$")


def _escape_line_start(match: re.Match[str]) -> str:
    return "\\" + match[1] if match[1] else match[2] + "\\"


def _closing_hashes(text: str) -> str:
    """A heading's text with a last word of ``#`` alone escaped (:data:`_CLOSING_HASHES`; most headings hold no
    ``#``: no substitution, whose template Python reads at each call)."""
    return _CLOSING_HASHES.sub(r"\1\\\2", text) if "#" in text else text


@cython.ccall
def _escape(text: str) -> str:
    if not _may_escape(text):  # (most text: one pass, none of the searches)
        return text
    if _SPECIAL.search(text) is not None:  # (most text has none: searched at C speed, no replacement made)
        for special, escaped in _SPECIAL_ESCAPES:  # (a few replacements: no call of Python's per match)
            if special in text:
                text = text.replace(special, escaped)
    if "&" in text:
        text = _ENTITY.sub(r"\\&", text)
    return _UNDERSCORE.sub(r"\\_", text) if "_" in text else text


def _destination(href: str) -> str:
    """A link destination that needs no brackets: spaces, brackets, parentheses, backslashes, pipes and control
    characters percent-encoded (other characters as they are)."""
    return quote(href, safe=_DESTINATION_SAFE)


_DESTINATION_SAFE = "".join(chr(c) for c in range(0x21, 0x7F) if chr(c) not in "<>()\\|`") + "".join(
    chr(c) for c in range(0xA0, 0x250))


