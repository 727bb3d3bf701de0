"""Structured output of an extraction: the extracted blocks as markdown or as clean semantic HTML.

The block tree keeps what a structured rendering needs: each block's tag (headings, lists, tables, ``<pre>``,
quotes), its parts in document order, the inline marks of :data:`fce.blocks.MARK_TAGS` (emphasis, strong, code,
links, …; :meth:`fce.blocks.BlockTree.marks`) and, inside ``<pre>``, the source of the text pieces
(:meth:`fce.blocks.BlockTree.preformatted`). :func:`to_markdown` and :func:`to_html` read them for the extracted
blocks only, in two steps: the blocks become a small document (:class:`Paragraph`, :class:`Heading`,
:class:`ListBlock`, :class:`Table`, :class:`Code`, :class:`Quote`, :class:`Rule`; :func:`structure`), which is then
written out. Both outputs hold exactly the words of the plain text (``Extraction.text``): the same text pieces in
the same order, only the separators differ (a space where the plain text breaks a line inside a heading or a table
cell, line breaks kept inside ``<pre>``).

Where the markup cannot say what the page said, the output says less, never other words: a table that cannot be a
GitHub-flavoured markdown table (a nested table, a list or code in a cell, rows of different lengths — row and
column spans —, text between rows, a single row or column: most likely layout) is written as its cells' content,
one after the other; emphasis whose markdown delimiters would not parse where they fall (``**"a"**b``) is left out.
"""

from fce.render.document import (
    BREAK,
    Code,
    Heading,
    Inline,
    ListBlock,
    Node,
    Paragraph,
    Quote,
    Rule,
    Span,
    Table,
    structure,
)
from fce.render.html import text_html, to_html
from fce.render.markdown import text_markdown, to_markdown

__all__ = ["BREAK", "Code", "Heading", "Inline", "ListBlock", "Node", "Paragraph", "Quote", "Rule", "Span", "Table",
           "structure", "text_html", "text_markdown", "to_html",
           "to_markdown"]
