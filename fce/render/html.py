# cython: annotation_typing=False
"""Clean semantic HTML of the document (:func:`to_html`)."""

from __future__ import annotations

import html
from collections.abc import Collection, Sequence
from typing import TYPE_CHECKING

from fce.render.document import (
    BREAK,
    Code,
    Heading,
    Inline,
    ListBlock,
    Node,
    Paragraph,
    Quote,
    Table,
    one_line,
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

__all__ = ["text_html", "to_html"]

#: The element of each mark kind but the link.
_HTML_TAGS = {"em": "em", "strong": "strong", "code": "code", "del": "del", "sub": "sub", "sup": "sup"}

# -- block elements ----------------------------------------------------------------------------------------------------


def to_html(tree: BlockTree, blocks: Sequence[ExtractedBlock], covered: Collection[int] | None = None, *,
            links: bool = True, url: str | None = None, exact: bool = False) -> str:
    """The extracted ``blocks`` as clean semantic HTML, one block element a line: ``<h1>``…, ``<p>``, ``<ul>`` /
    ``<ol>`` of ``<li>``, ``<table>`` (``<thead>`` where the first row is a header), ``<pre><code>``,
    ``<blockquote>``, ``<em>``, ``<strong>``, ``<code>``, ``<del>``, ``<sub>``, ``<sup>``, ``<br>``, and with ``links``
    (the default) ``<a href>`` (resolved against ``url``); text escaped, no attribute but ``href``. See
    :func:`structure` for ``covered`` and ``exact``."""
    written = Links(links, url)  # (one for the page: an href is resolved once)
    return "\n".join([_html_node(node, written) for node in structure(tree, blocks, covered, exact=exact)])


def text_html(text: str) -> str:
    """Plain ``text`` as HTML paragraphs, one per non-blank line, escaped
    (:func:`fce.render.document.paragraphs`)."""
    written = Links(False, None)
    return "\n".join([_html_node(node, written) for node in paragraphs(text)])


@cython.ccall
def _html_node(node: Node, links: Links) -> str:
    if type(node) is Paragraph:
        # (its inline content, read by position from the tuple the node is: compiled, no attribute lookup, and no
        # call of the type's __getitem__, which indexing a tuple's subclass makes)
        inline = cython.cast(tuple, node, typecheck=False)[0]
        if len(inline) == 1 and type(inline[0]) is str:  # (most nodes: a line of text)
            return "<p>" + _escape_text(inline[0]) + "</p>"
        return f"<p>{_html_inline(inline, links)}</p>"
    if isinstance(node, Heading):
        return f"<h{node.level}>{_html_inline(node.inline, links)}</h{node.level}>"
    if isinstance(node, ListBlock):
        tag = "ol" if node.ordered else "ul"
        return "\n".join([f"<{tag}>", *[_html_item(item, links) for item in node.items], f"</{tag}>"])
    if isinstance(node, Table):
        return _html_table(node, links)
    if isinstance(node, Code):
        return f"<pre><code>{html.escape(node.text, quote=False)}</code></pre>"
    if isinstance(node, Quote):
        return "\n".join(["<blockquote>", *[_html_node(n, links) for n in node.children], "</blockquote>"])
    return "<hr>"


@cython.ccall
def _html_item(item: tuple[Node, ...], links: Links) -> str:
    """A list item; its text without ``<p>`` where it is one paragraph, possibly followed by lists (a tight item,
    as markdown has it)."""
    first, rest = item[0], item[1:]
    if isinstance(first, Paragraph) and all([isinstance(n, ListBlock) for n in rest]):
        return "\n".join([f"<li>{_html_inline(first.inline, links)}", *[_html_node(n, links) for n in rest]]) + \
            "</li>"
    return "\n".join(["<li>", *[_html_node(n, links) for n in item], "</li>"])


@cython.ccall
def _html_table(node: Table, links: Links) -> str:
    out: list[str] = []
    caption = one_line(list(node.caption))
    if caption is None:  # a caption of more than text: before the table
        out.extend([_html_node(n, links) for n in node.caption])
    out.append("<table>")
    if caption:
        out.append(f"<caption>{_html_inline(caption, links)}</caption>")
    rows = node.rows
    if node.header:
        out.append("<thead>")
        out.append(_html_row(rows[0], "th", links))
        out.append("</thead>")
        rows = rows[1:]
    if rows:
        out.append("<tbody>")
        out.extend([_html_row(row, "td", links) for row in rows])
        out.append("</tbody>")
    out.append("</table>")
    return "\n".join(out)


@cython.ccall
def _html_row(cells: tuple[Inline, ...], tag: str, links: Links) -> str:
    return "<tr>" + "".join([f"<{tag}>{_html_inline(cell, links)}</{tag}>" for cell in cells]) + "</tr>"


@cython.ccall
@cython.locals(text=str)
def _escape_text(text: str) -> str:
    """``html.escape(text, quote=False)``, called from C where compiled (most inline content is one string: the
    call of the library's function cost more than its three replacements); most text has none of the three
    characters, searched for without a method call where compiled."""
    if "&" not in text and "<" not in text and ">" not in text:
        return text
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


@cython.ccall
@cython.locals(text=str)
def _escape_attribute(text: str) -> str:
    """``html.escape(text)``: :func:`_escape_text`, and the quotes (most hrefs have none)."""
    text = _escape_text(text)
    if '"' in text or "'" in text:
        text = text.replace('"', "&quot;").replace("'", "&#x27;")
    return text


@cython.ccall
@cython.locals(out=list, fields=tuple)
def _html_inline(inline: Inline, links: Links) -> str:
    out: list[str] = []
    for item in inline:
        if type(item) is str:
            out.append(_escape_text(item))  # type: ignore[arg-type]
        elif item is BREAK:
            out.append("<br>")
        else:
            # (a Span's fields, read by position from the tuple it is: no call of the type's __getitem__)
            fields = cython.cast(tuple, item, typecheck=False)
            kind, href = fields[0], fields[2]
            inner = _html_inline(fields[1], links)
            if kind == "link":
                href = links.href(href)
                out.append(inner if href is None else f'<a href="{_escape_attribute(href)}">{inner}</a>')
            else:
                tag = _HTML_TAGS[kind]
                out.append(f"<{tag}>{inner}</{tag}>")
    return "".join(out)

