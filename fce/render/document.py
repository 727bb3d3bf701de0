# cython: annotation_typing=False
"""The document of extracted blocks (:func:`structure`): headings, paragraphs, lists, tables, code and quotes, with
their inline marks, read from the block tree (:mod:`fce.render` has the overview)."""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Callable, Collection, Sequence
from typing import TYPE_CHECKING, NamedTuple, TypeAlias

from fce.blocks import INLINE_BLOCK_TAGS, PREFORMATTED_TAG, BlockTree, Mark, joiner, tuple_maker

try:
    import cython
except ModuleNotFoundError:  # Cython is a build requirement only: plain Python then (fce._cython_shim)
    from fce import _cython_shim as cython

if TYPE_CHECKING:
    from fce.extraction import ExtractedBlock

__all__ = ["BREAK", "Code", "Heading", "Inline", "ListBlock", "Node", "Paragraph", "Quote", "Rule", "Span", "Table",
           "paragraphs", "structure"]

# -- the nodes ---------------------------------------------------------------------------------------------------------


class _Break:
    """A line break inside a paragraph (``<br>``)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "BREAK"


#: The line break of inline content (one object: compared by identity).
BREAK = _Break()


class Span(NamedTuple):
    """Inline content of one mark kind (:data:`fce.blocks.MARK_KINDS`); ``href`` a link's."""

    kind: str
    children: Inline
    href: str | None = None


#: Inline content: words and single spaces (``str``), line breaks (:data:`BREAK`) and spans. It never starts or ends
#: with a space or a break, nor does a span's.
Inline: TypeAlias = tuple[str | _Break | Span, ...]

# The nodes are named tuples, as fce.blocks.Block is: a page's document has hundreds of them, and making a frozen
# dataclass costs twice as much.


class Paragraph(NamedTuple):
    inline: Inline


class Heading(NamedTuple):
    level: int  # 1-6
    inline: Inline


class ListBlock(NamedTuple):
    ordered: bool
    items: tuple[tuple[Node, ...], ...]
    implicit: bool = False  # made of list items outside a list (consecutive ones join it)


class Table(NamedTuple):
    """Rows of cells, each cell's inline content; ``header``: the first row is a header row (``<th>`` cells or
    ``<thead>``). All rows have the same number of cells."""

    rows: tuple[tuple[Inline, ...], ...]
    header: bool
    caption: tuple[Node, ...] = ()


class Code(NamedTuple):
    """A ``<pre>``: its text with the line breaks and indentation of the source."""

    text: str


class Quote(NamedTuple):
    children: tuple[Node, ...]


class Rule(NamedTuple):
    """A thematic break (``<hr>``)."""


Node: TypeAlias = Paragraph | Heading | ListBlock | Table | Code | Quote | Rule


#: ``tuple.__new__`` (:func:`fce.blocks.tuple_maker`): the nodes and spans, made from C (a named tuple's constructor
#: is a Python function, a frame per node; most nodes are paragraphs, a page's document has dozens).
_new_node = tuple_maker()


@cython.ccall
def _paragraph(inline: Inline) -> Paragraph:
    """``Paragraph(inline)``, made from C (:data:`_new_node`)."""
    return _new_node(Paragraph, (inline,))  # type: ignore[no-any-return]


HEADING_LEVELS = {"h1": 1, "h2": 2, "h3": 3, "h4": 4, "h5": 5, "h6": 6}
LIST_TAGS = {"ul": False, "menu": False, "ol": True}  # tag -> ordered
_TABLE_SECTIONS = frozenset({"thead", "tbody", "tfoot"})
_CELLS = frozenset({"td", "th"})
#: A table narrower or shorter than this is taken for layout (a page's columns, a box around an article), not
#: data: written as its cells' content.
MIN_TABLE_ROWS = 2
MIN_TABLE_COLUMNS = 2
#: A table one of whose cells holds more paragraphs (or headings) than this is taken for layout too (a 2000s page's
#: columns of text in a table, a forum post beside its date), unless it has a data table's marks, after
#: Readability.js's ``_markDataTables``: a header row (``<th>`` cells, ``<thead>``, or a row of bold cells), a
#: caption, DATA_TABLE_MIN_ROWS rows or more than LAYOUT_TABLE_MAX_COLUMNS columns. On the 3,231 pages of
#: ``../shared/data`` this writes 16 of 214 markdown tables as paragraphs: menus, sidebars, columns of text, posts,
#: a bulleted list set as a table; the price, dosage and listing tables whose cells hold two lines stay tables.
MAX_CELL_PARAGRAPHS = 1
DATA_TABLE_MIN_ROWS = 10
LAYOUT_TABLE_MAX_COLUMNS = 4


# -- from the block tree to the document -------------------------------------------------------------------------------


def paragraphs(text: str) -> tuple[Node, ...]:
    """Plain text as paragraphs, one per non-blank line (an extraction whose blocks are not in the page's block
    tree, such as one read from a ``<noscript>``)."""
    return tuple(Paragraph((" ".join(line.split()),)) for line in text.split("\n") if line.strip())


def structure(tree: BlockTree, blocks: Sequence[ExtractedBlock],
              covered: Collection[int] | None = None, *, links: bool = True, exact: bool = False) -> tuple[Node, ...]:
    """The document of the extracted ``blocks`` (in their order): each block with those of its sub-blocks whose
    index is in ``covered`` (the blocks whose text went into the extraction: ``TemplateMatch.covered``, or what
    ``select_main`` appends), every sub-block when ``covered`` is None. The text is always the block's own
    (``block.text``): where ``covered`` does not give it, the block is read with all its sub-blocks if that does,
    else it is its text, one paragraph a line (an index of another tree, a method that wrote its own text).
    ``links=False``: no link spans (their text is inline content as any other), for an output that does not write
    links: a paragraph whose only marks are links is then the tree's plain text, read by the compiled walk
    (markdown without links is a third cheaper on link-dense pages: ``bench/output_bench.py``). ``exact``: the
    caller knows each block's text to be its render with ``covered`` (``tree.render(block.index,
    covered.__contains__)``: an extraction whose renders covered disjoint subtrees,
    :func:`fce.blocks.disjoint_subtrees`), which is then not rendered to check (the check is about a sixth of
    an output's time on the median page: ``bench/output_bench.py``)."""
    kept = None if covered is None else frozenset(covered)
    out: list[Node] = []
    for block in blocks:
        keep = _keep_for(tree, block, kept, exact)
        if keep is _TEXT_ONLY:
            out.extend([_paragraph((line,)) for line in block.text.split("\n") if line])
        else:
            out.extend(_Reader(tree, block.index, keep, links).read(block.text))  # type: ignore[arg-type]
    return tuple(out)


#: What :func:`_keep_for` says of a block that is written as its plain text.
_TEXT_ONLY = object()


def _keep_for(tree: BlockTree, block: ExtractedBlock, covered: frozenset[int] | None, exact: bool) -> object:
    """The blocks (``covered``, or None: all) whose text the tree renders as ``block``'s, or :data:`_TEXT_ONLY`;
    ``exact``: ``covered`` does, as the caller knows (not rendered to check)."""
    if not 0 <= block.index < len(tree):
        return _TEXT_ONLY
    if exact and covered is not None:
        return covered
    if tree.render(block.index, None if covered is None else covered.__contains__) == block.text:
        return covered
    if covered is not None and tree.render(block.index) == block.text:
        return None
    return _TEXT_ONLY


#: :func:`fce.blocks.join_pieces`, called with no wrapper in between: a page's document joins dozens of runs.
join_pieces = joiner()

#: Stand-ins for the marks in a run of text pieces: lone surrogates, which no text decoded from a page can hold (a
#: run's whitespace is collapsed on the joined string, at C speed, around them).
_OPEN_MARK = "\ud800"
_CLOSE_MARK = "\ud801"
_TOKENS = re.compile("([\ud800\ud801\n])")


class _TableState:
    """A table being read: its rows (cells' inline content, whether all are ``<th>``, whether in ``<thead>``), its
    caption, everything it holds as plain nodes (what it is written as when it cannot be a :class:`Table`), and
    whether it still can be one."""

    __slots__ = ("caption", "columns_of_text", "nodes", "ok", "row", "row_th", "rows", "section")

    def __init__(self) -> None:
        self.rows: list[tuple[tuple[Inline, ...], bool, bool]] = []
        self.caption: list[Node] = []
        self.nodes: list[Node] = []
        self.ok = True
        self.row: list[Inline] | None = None
        self.row_th = True
        self.section: str | None = None
        self.columns_of_text = False  # a cell holds several paragraphs

    def node(self) -> list[Node]:
        rows = self.rows
        if not self.ok or len(rows) < MIN_TABLE_ROWS:
            return self.nodes
        width = len(rows[0][0])
        if width < MIN_TABLE_COLUMNS or any(len(cells) != width for cells, _, _ in rows):
            return self.nodes
        header = rows[0][1] or rows[0][2]
        if (self.columns_of_text and not header and not self.caption and len(rows) < DATA_TABLE_MIN_ROWS
                and width <= LAYOUT_TABLE_MAX_COLUMNS and not _bold_row(rows[0][0])):
            return self.nodes
        return [Table(tuple(cells for cells, _, _ in rows), header, tuple(self.caption))]


def _bold_row(cells: tuple[Inline, ...]) -> bool:
    """Whether a row is a header written in bold cells: at least two cells hold text, each all in one ``<b>``."""
    filled = [cell for cell in cells if cell]
    return len(filled) >= 2 and all(len(cell) == 1 and isinstance(cell[0], Span) and cell[0].kind == "strong"
                                    for cell in filled)


@cython.cclass
class _Reader:
    """The document of one extracted block's subtree, read in one pass: text pieces and marks go to the current run
    of text (marks as :data:`_OPEN_MARK` / :data:`_CLOSE_MARK`), which a block boundary ends as paragraphs of the
    innermost container (``sink``); headings, lists, tables, ``<pre>`` and quotes make their nodes. Marks open
    when a run ends open again at the start of the next one."""

    # (compiled, an extension type: its attributes are C fields, read without a dictionary lookup; the walk reads
    # them for every text piece it renders)
    root: int = cython.declare(cython.Py_ssize_t)
    kept: frozenset[int] | None = cython.declare(object)  # the blocks covered (None: all)
    parts_of: Callable[[int], tuple[str | int, ...]] = cython.declare(object)  # a block's parts (BlockTree.parts)
    text_of: Callable[[int], str] = cython.declare(object)  # a block's text, with the blocks kept (BlockTree.render)
    tags: list[str] = cython.declare(list)
    ends: Sequence[int] = cython.declare(object)
    sources: dict[tuple[int, int], str] = cython.declare(dict)
    marks: dict[int, list[Mark]] = cython.declare(dict)
    special: list[int] = cython.declare(list)
    chunks: list[str] = cython.declare(list)  # the run: text pieces, "\n" for <br>, mark stand-ins
    open: list[tuple[str, str | None]] = cython.declare(list)  # the marks open now, outermost first
    run_open: list[tuple[str, str | None]] = cython.declare(list)  # those open when the run started
    run_marks: list[tuple[str, str | None]] = cython.declare(list)  # those opened in the run
    ignored: dict[str, int] = cython.declare(dict)  # marks inside one of their kind or inside code, by kind
    sink: list[Node] = cython.declare(list)  # where the nodes go
    flat: bool = cython.declare(cython.bint)  # inside a heading: sub-blocks and line breaks are spaces
    items: list[tuple[Node, ...]] | None = cython.declare(object)  # the innermost list's items (None: not in one)
    bare: _TableState | None = cython.declare(object)  # the table whose rows (not a cell) are being read

    @cython.locals(marks=dict, block=object)
    def __init__(self, tree: BlockTree, root: int, covered: frozenset[int] | None, links: bool = True) -> None:
        self.root = root
        self.kept = covered
        self.parts_of = tree.part_reader()
        self.text_of = tree.renderer(None if covered is None else covered.__contains__)
        self.tags = tree.columns.tags
        self.ends = tree.columns.ends
        self.sources = tree.preformatted(root)
        marks = self.marks = {}
        for mark in tree.marks(root, covered, links=links):
            # (Mark.block, read by position from the tuple it is: compiled, indexing a tuple's subclass calls the
            # type's __getitem__, a plain tuple's reads the item)
            block = cython.cast(tuple, mark, typecheck=False)[0]
            bucket = marks.get(block)
            if bucket is None:
                marks[block] = [mark]
            else:
                bucket.append(mark)
        # the blocks with marks or line breaks, in order: a subtree without any (nor a structural tag) is its plain
        # text, one paragraph a line (:meth:`plain`)
        self.special = sorted({*self.marks, *tree.line_breaks(root, covered)})
        self.chunks = []
        self.open = []
        self.run_open = []
        self.run_marks = []
        self.ignored = {}
        self.sink = []
        self.flat = False
        self.items = None
        self.bare = None

    def read(self, text: str | None = None) -> list[Node]:
        """The nodes of the root block; ``text``: its plain text, when known."""
        out = self.sink = []
        if self.plain(self.root):
            if text is None:
                text = self.text_of(self.root)
            out.extend([_paragraph((line,)) for line in text.split("\n") if line])
            return out
        self.block(self.root)
        self.flush()
        return out

    @cython.ccall
    @cython.locals(i=cython.Py_ssize_t, end=cython.Py_ssize_t, at=cython.Py_ssize_t, k=cython.Py_ssize_t,
                   special=list, tags=list, structural=frozenset)
    def plain(self, i: int) -> bool:
        """Whether block ``i`` is a container of paragraphs to its last sub-block: no mark in it or around it, no
        line break, no tag read otherwise (:data:`_STRUCTURAL_TAGS`), outside a heading or a table's rows. Then
        its paragraphs are the lines of its plain text (``BlockTree.render``, compiled where built)."""
        if self.open or self.flat or self.bare is not None:
            return False
        end = self.ends[i]
        special = self.special
        if special:  # (none in most subtrees read without links)
            at = bisect_left(special, i)
            if at < len(special) and special[at] < end:
                return False
        if not cython.compiled:
            return _STRUCTURAL_TAGS.isdisjoint(self.tags[i:end])
        tags = self.tags  # (compiled: a loop over the subtree's tags, no slice of them, no bound method made)
        structural = _STRUCTURAL_TAGS
        for k in range(i, end):
            if tags[k] in structural:
                return False
        return True

    @cython.ccall
    @cython.locals(k=cython.Py_ssize_t, n=cython.Py_ssize_t, at=cython.Py_ssize_t, parts=tuple, chunks=list,
                   tags=list, text=str, marks=list)
    def walk(self, i: int) -> None:
        """Feed block ``i``'s text pieces and marks to the run; a sub-block that is not inline ends the run before
        and after it (in a heading: a space). Written for speed: it runs for every block rendered."""
        parts = self.parts_of(i)
        marks = self.marks.get(i)
        chunks = self.chunks
        kept = self.kept
        tags = self.tags
        flat = self.flat
        if marks is None:
            k = n = 0
        else:
            k, n = 0, len(marks)
            next_at = cython.cast(tuple, marks[0], typecheck=False)[1]  # (Mark.at, as in __init__)
        for at, part in enumerate(parts):
            while k < n and next_at <= at:
                self.mark(marks[k])  # type: ignore[index]
                k += 1
                if k < n:
                    next_at = cython.cast(tuple, marks[k], typecheck=False)[1]  # type: ignore[index]
            if type(part) is str:
                # whitespace that would start a run is left out (it is none of the run's text): most pieces
                # between two blocks are that, and a run of them alone ended for nothing
                text = part  # type: ignore[assignment]
                if chunks or not text.isspace():
                    chunks.append(text)
            elif kept is None or part in kept:
                tag = tags[part]  # type: ignore[index]
                if tag in INLINE_BLOCK_TAGS:
                    self.walk(part)  # type: ignore[arg-type]
                elif flat:
                    chunks.append(" ")
                    self.walk(part)  # type: ignore[arg-type]
                    chunks.append(" ")
                else:
                    if chunks:
                        self.flush()
                    if tag in _STRUCTURAL_TAGS:
                        self.block(part)  # type: ignore[arg-type]
                    elif self.plain(part):  # type: ignore[arg-type]
                        text = self.text_of(part)  # type: ignore[arg-type]
                        if "\n" in text:
                            for line in text.split("\n"):
                                if line:
                                    self.sink.append(_paragraph((line,)))
                        elif text:  # (most: a paragraph)
                            self.sink.append(_paragraph((text,)))
                    else:
                        self.walk(part)  # type: ignore[arg-type]
                    if chunks:
                        self.flush()
        while k < n:
            self.mark(marks[k])  # type: ignore[index]
            k += 1

    @cython.ccall
    @cython.locals(j=cython.Py_ssize_t, opened=list, fields=tuple)
    def mark(self, mark: Mark) -> None:
        fields = cython.cast(tuple, mark, typecheck=False)  # (read by position, as in __init__)
        kind, opens, href = fields[2], fields[3], fields[4]
        opened = self.open
        if opens:
            for k, _ in opened:  # (a loop, not any(): a compiled method takes no generator)
                if k == kind or k == "code":
                    self.ignored[kind] = self.ignored.get(kind, 0) + 1
                    return
            entry = (kind, href)
            opened.append(entry)
            self.run_marks.append(entry)
            self.chunks.append(_OPEN_MARK)
            return
        if self.ignored and self.ignored.get(kind):  # (empty but where elements of a kind nest, or in code)
            self.ignored[kind] -= 1
            return
        if opened and opened[-1][0] == kind:  # (most closes: the innermost, no slice of the marks inside it)
            del opened[-1]
            self.chunks.append(_CLOSE_MARK)
            return
        for j in range(len(opened) - 1, -1, -1):
            if opened[j][0] == kind:  # (not the innermost only where elements overlap: those inside open again)
                inside = opened[j + 1:]
                del opened[j:]
                self.chunks.append(_CLOSE_MARK * (len(inside) + 1))
                for entry in inside:
                    opened.append(entry)
                    self.run_marks.append(entry)
                    self.chunks.append(_OPEN_MARK)
                return

    @cython.ccall
    @cython.locals(chunks=list, run_open=list, run_marks=list, pieces=list)
    def take(self) -> list[Inline]:
        """The run as paragraphs (one line when :attr:`flat`); a new run starts."""
        chunks = self.chunks
        if not chunks:
            return []
        run_open, run_marks = self.run_open, self.run_marks
        self.run_open, self.run_marks = list(self.open), []
        if run_open or run_marks:
            pieces = [_OPEN_MARK * len(run_open), *chunks, _CLOSE_MARK * len(self.open)]
            chunks.clear()
            return _marked(pieces, run_open + run_marks, self.flat)
        text = "".join(chunks)
        chunks.clear()
        return _unmarked(text, self.flat)

    @cython.ccall
    def flush(self) -> None:
        """End the run: its paragraphs go to the sink."""
        if not self.chunks:  # (no run: what follows has nothing to read)
            return
        if self.run_open or self.run_marks or self.bare is not None:
            for inline in self.take():
                self.emit(_paragraph(inline))
            return
        chunks = self.chunks  # (most runs: no mark, no line break; a paragraph, or only spaces)
        if "\n" in chunks:
            self.sink.extend(map(_paragraph, _unmarked("".join(chunks), self.flat)))
        else:
            words = join_pieces(chunks)  # (the plain text's collapse of whitespace: compiled where built)
            if words:
                self.sink.append(_paragraph((words,)))
        chunks.clear()

    @cython.ccall
    def emit(self, node: Node) -> None:
        if self.bare is not None:  # between a table's rows: it is no markdown table
            self.bare.ok = False
        sink = self.sink
        # (type(...) is: the nodes are of these classes, not of subclasses; isinstance of another class than the
        # object's looks further, for every paragraph)
        if (sink and type(node) is ListBlock and node.implicit and type(sink[-1]) is ListBlock
                and sink[-1].implicit):
            sink[-1] = _new_node(ListBlock, (False, sink[-1].items + node.items, True))  # (implicit)
        else:
            sink.append(node)

    @cython.ccall
    def block(self, i: int) -> None:
        """Read block ``i`` (its boundaries have ended the runs around it)."""
        tag = self.tags[i]
        if tag in HEADING_LEVELS:
            self.flat = True
            self.walk(i)
            line = self.take()
            self.flat = False
            if line:
                self.emit(_new_node(Heading, (HEADING_LEVELS[tag], line[0])))
        elif tag in LIST_TAGS:
            self.list_(i, LIST_TAGS[tag])
        elif tag == "li":
            self.item(i)
        elif tag == "table":
            self.table_(i)
        elif tag in _TABLE_SECTIONS and self.bare is not None and self.bare.section is None:
            self.bare.section = tag
            self.walk(i)
            self.bare.section = None
        elif tag == "tr" and self.bare is not None and self.bare.row is None:
            self.row(i, self.bare)
        elif tag in _CELLS and self.bare is not None and self.bare.row is not None:
            self.cell(i, self.bare)
        elif tag == "caption" and self.bare is not None and self.bare.row is None:
            caption = self.inside(i, None)
            self.bare.caption.extend(caption)
            self.bare.nodes.extend(caption)
        elif tag == PREFORMATTED_TAG:
            text = self.preformatted(i)
            if text:
                self.emit(_new_node(Code, (text,)))
        elif tag == "blockquote":
            inner = self.inside(i, None)
            if inner:
                self.emit(_new_node(Quote, (tuple(inner),)))
        elif tag == "hr":
            self.emit(_new_node(Rule, ()))
        else:
            self.walk(i)

    @cython.ccall
    def inside(self, i: int, items: list[tuple[Node, ...]] | None) -> list[Node]:
        """The nodes of block ``i`` read as a container of its own (a list item, a quote, a cell), in the list whose
        ``items`` are given (or in none)."""
        saved = self.sink, self.items, self.bare
        out = self.sink = []
        self.items, self.bare = items, None
        self.walk(i)
        self.flush()
        self.sink, self.items, self.bare = saved
        return out

    @cython.ccall
    def list_(self, i: int, ordered: bool) -> None:
        """A list: its items; what is not in an item (text, other blocks) an item of its own."""
        saved = self.sink, self.items, self.bare
        items: list[tuple[Node, ...]] = []
        loose = self.sink = []
        self.items, self.bare = items, None
        self.walk(i)
        self.flush()
        if loose:
            items.append(tuple(loose))
        self.sink, self.items, self.bare = saved
        if items:
            self.emit(_new_node(ListBlock, (ordered, tuple(items), False)))

    @cython.ccall
    def item(self, i: int) -> None:
        items = self.items
        if items is None:  # outside a list: a list of its own, joined by the items that follow it
            inner = self.inside(i, None)
            if inner:
                self.emit(_new_node(ListBlock, (False, (tuple(inner),), True)))  # (implicit)
            return
        if self.sink:  # what came before it in the list, outside an item
            items.append(tuple(self.sink))
            self.sink.clear()
        inner = self.inside(i, None)
        if inner:
            items.append(tuple(inner))

    @cython.ccall
    def table_(self, i: int) -> None:
        state = _TableState()
        saved = self.sink, self.items, self.bare
        self.sink, self.items, self.bare = state.nodes, None, state
        self.walk(i)
        self.flush()
        self.sink, self.items, self.bare = saved
        for node in state.node():
            self.emit(node)

    @cython.ccall
    def row(self, i: int, state: _TableState) -> None:
        state.row, state.row_th = [], True
        self.walk(i)
        self.flush()
        state.rows.append((tuple(state.row), state.row_th, state.section == "thead"))
        state.row = None

    @cython.ccall
    def cell(self, i: int, state: _TableState) -> None:
        nodes = self.inside(i, None)
        state.nodes.extend(nodes)
        if not state.ok:  # (no table: its cells' content is all it is written as, in state.nodes)
            return
        line = one_line(nodes)
        if len(nodes) > MAX_CELL_PARAGRAPHS:
            state.columns_of_text = True
        if line is None:
            state.ok = False
        elif state.row is not None:
            state.row.append(line)
            state.row_th = state.row_th and self.tags[i] == "th"

    def preformatted(self, i: int) -> str:
        """The text of a ``<pre>`` (and its sub-blocks) with the line breaks and indentation of the source;
        blank lines at either end left out (its marks are not read: code is code)."""
        out: list[str] = []
        self._source(i, out)
        text = "".join(out).replace("\r\n", "\n").replace("\r", "\n")
        return _EDGE_BLANK_LINES.sub("", text).rstrip()

    def _source(self, i: int, out: list[str]) -> None:
        sources = self.sources
        kept = self.kept
        for at, part in enumerate(self.parts_of(i)):
            if type(part) is str:
                out.append(sources.get((i, at), part))  # type: ignore[arg-type]
            elif kept is None or part in kept:
                inline = self.tags[part] in INLINE_BLOCK_TAGS  # type: ignore[index]
                if not inline:
                    out.append("\n")
                self._source(part, out)  # type: ignore[arg-type]
                if not inline:
                    out.append("\n")


#: The tags :meth:`_Reader.block` reads otherwise than as a container of paragraphs.
_STRUCTURAL_TAGS = frozenset({*HEADING_LEVELS, *LIST_TAGS, "li", "table", *_TABLE_SECTIONS, "tr", *_CELLS, "caption",
                              PREFORMATTED_TAG, "blockquote", "hr"})
_EDGE_BLANK_LINES = re.compile(r"\A(?:[^\S\n]*\n)+")


@cython.ccall
@cython.locals(out=list)
def one_line(nodes: list[Node]) -> Inline | None:
    """The inline content of a table cell's nodes, paragraphs and headings joined by spaces; None if it holds
    anything else."""
    out: list[str | _Break | Span] = []
    for node in nodes:
        if not isinstance(node, (Paragraph, Heading)):
            return None
        if out:
            out.append(" ")
        for item in node.inline:  # (a loop, not a generator: called for every table cell)
            out.append(" " if item is BREAK else item)
    return tuple(out)


@cython.ccall
def _unmarked(text: str, flat: bool) -> list[Inline]:
    """Paragraphs of a run without marks: whitespace collapsed as the plain text collapses it (``str.split``), a
    line break a :data:`BREAK`, two in a row a new paragraph. (Whole strings at a time: compiled where built.)"""
    if "\n" not in text:
        words = join_pieces([text])
        return [(words,)] if words else []
    if flat:
        words = join_pieces([text.replace("\n", " ")])
        return [(words,)] if words else []
    out: list[Inline] = []
    for paragraph in _PARAGRAPH_BREAK.split(text):
        lines = join_pieces([paragraph])  # (lines collapsed, empty ones dropped)
        if "\n" in lines:
            out.append(_with_breaks(lines.split("\n")))
        elif lines:
            out.append((lines,))
    return out


#: Two line breaks with nothing but whitespace between: a new paragraph.
_PARAGRAPH_BREAK = re.compile(r"\n\s*\n")


def _with_breaks(lines: list[str]) -> Inline:
    out: list[str | _Break | Span] = [BREAK] * (2 * len(lines) - 1)
    out[::2] = lines
    return tuple(out)


@cython.ccall
@cython.locals(pieces=list)
def _marked(pieces: list[str], marks: list[tuple[str, str | None]], flat: bool) -> list[Inline]:
    """Paragraphs of a run with marks, given as its text pieces (the k-th :data:`_OPEN_MARK` opens ``marks[k]``, a
    :data:`_CLOSE_MARK` closes the innermost open): as :func:`_unmarked`, spaces kept outside spans, spans without
    a word left out; spans open at a paragraph's end open again in the next. (A line break is a piece of its own:
    text pieces have theirs as spaces. Without one, the pieces are collapsed where they lie, not joined first.)"""
    if "\n" in pieces:
        if not flat:
            return _marked_lines("".join(pieces), marks, flat)
        pieces = [" " if piece == "\n" else piece for piece in pieces]
    line = _marked_line(join_pieces(pieces), marks)
    return [line] if line else []


@cython.ccall
@cython.locals(text=str, k=cython.Py_ssize_t, pos=cython.Py_ssize_t, end=cython.Py_ssize_t, at=cython.Py_ssize_t,
               start=cython.Py_ssize_t, stop=cython.Py_ssize_t, next_open=cython.Py_ssize_t,
               next_close=cython.Py_ssize_t, space=cython.bint, spaced=cython.bint, marks=list, root=list,
               children=list, stack=list, pending=list, inner=list)
def _marked_line(text: str, marks: list[tuple[str, str | None]]) -> Inline:
    """:func:`_marked` of one line, its whitespace collapsed already: the text between two marks is read at once, a
    span made when it closes."""
    root: list = []
    children = root  # of the innermost open span (or the line)
    stack: list[tuple[str, str | None, list, list]] = []  # open spans: kind, href, children, the parent's children
    pending: list[tuple[str, str | None]] = []  # opened, holding no word yet
    k = 0
    space = False
    pos, end = 0, len(text)
    next_open, next_close = text.find(_OPEN_MARK), text.find(_CLOSE_MARK)
    while pos < end:
        if next_open < 0:
            at = end if next_close < 0 else next_close
        else:
            at = next_open if next_close < 0 or next_open < next_close else next_close
        if at > pos:
            # the words between the two marks: a space at either end at most (the text is collapsed), left out
            # where it lies, no slice made to strip
            start, stop = pos, at
            if text[start] == " ":
                start += 1
            if stop > start and text[stop - 1] == " ":
                stop -= 1
            if stop > start:
                spaced = (space or start > pos) and root  # (a space before the words)
                if pending:
                    if spaced:
                        _append(children, " ")
                    for kind, href in pending:
                        inner: list = []
                        stack.append((kind, href, inner, children))
                        children.append(None)  # (the span, when it closes)
                        children = inner
                    pending.clear()
                    _append(children, text[start:stop])
                elif spaced:  # (the space and the words in one string: with the space the text has, if it has one)
                    _append(children, text[pos:stop] if start > pos else " " + text[start:stop])
                else:
                    _append(children, text[start:stop])
                space = stop < at
            else:
                space = True
        if at == end:
            break
        if at == next_open:
            pending.append(marks[k])
            k += 1
            next_open = text.find(_OPEN_MARK, at + 1)
        else:
            if pending:
                pending.pop()
            elif stack:
                children = _close_span(stack)
            next_close = text.find(_CLOSE_MARK, at + 1)
        pos = at + 1
    while stack:
        _close_span(stack)
    return tuple(root)


@cython.ccall
@cython.locals(stack=list, inner=list, parent=list)
def _close_span(stack: list[tuple[str, str | None, list, list]]) -> list:
    """Make the innermost open span, in its place in its parent's children; the parent's children."""
    kind, href, inner, parent = stack.pop()
    parent[-1] = _new_node(Span, (kind, tuple(inner), href))  # (Span(...), made from C)
    return parent


@cython.ccall
@cython.locals(token=str, words=str, k=cython.Py_ssize_t, breaks=cython.Py_ssize_t, space=cython.bint,
               flat=cython.bint, marks=list, out=list, root=list, stack=list, pending=list, span=list)
def _marked_lines(text: str, marks: list[tuple[str, str | None]], flat: bool) -> list[Inline]:
    """:func:`_marked` of a run with line breaks, token by token."""
    out: list[Inline] = []
    root: list = []
    stack: list[list] = [["", None, root]]  # the paragraph, then its open spans: [kind, href, children]
    pending: list[tuple[str, str | None]] = []  # opened, holding no word yet
    k = 0
    space = False
    breaks = 0
    for token in _tokens(text):
        if not token:
            continue
        if token == _OPEN_MARK:
            pending.append(marks[k])
            k += 1
        elif token == _CLOSE_MARK:
            if pending:
                pending.pop()
            elif len(stack) > 1:
                stack.pop()
        elif token == "\n":
            if flat:
                space = True
            elif breaks or root:
                breaks += 1
                space = False
        else:
            words = join_pieces([token])  # (" ".join(token.split()): a token holds no line break)
            if not words:
                space = True
                continue
            if breaks:
                if breaks > 1:  # a new paragraph: the spans open go on in it
                    pending[:0] = [(kind, href) for kind, href, _ in stack[1:]]
                    out.append(_frozen(root))
                    root = []
                    stack = [["", None, root]]
                else:
                    stack[-1][2].append(BREAK)
                breaks = 0
            elif (space or token[0].isspace()) and root:
                _append(stack[-1][2], " ")
            for kind, href in pending:
                span: list = [kind, href, []]
                stack[-1][2].append(span)
                stack.append(span)
            pending = []
            _append(stack[-1][2], words)
            space = token[-1].isspace()
    if root:
        out.append(_frozen(root))
    return out


@cython.ccall
@cython.locals(text=str, out=list, at=cython.Py_ssize_t, start=cython.Py_ssize_t, end=cython.Py_ssize_t,
               next_open=cython.Py_ssize_t, next_close=cython.Py_ssize_t, next_break=cython.Py_ssize_t)
def _tokens(text: str) -> list[str]:
    """``_TOKENS.split(text)``: the text between the mark stand-ins and line breaks, and each of them. Compiled, the
    next of each of the three found with ``str.find`` (the regex tested every character against its class, a loop
    over the characters read each through its string's kind: a tenth of a run's reading on text-dense pages);
    interpreted, the split."""
    if not cython.compiled:
        return _TOKENS.split(text)
    out = []
    start = 0
    end = len(text)
    next_open, next_close, next_break = _found(text, _OPEN_MARK, 0), _found(text, _CLOSE_MARK, 0), _found(text, "\n", 0)
    while True:
        at = min(next_open, next_close, next_break)
        if at == end:
            break
        out.append(text[start:at])
        if at == next_open:
            out.append(_OPEN_MARK)
            next_open = _found(text, _OPEN_MARK, at + 1)
        elif at == next_close:
            out.append(_CLOSE_MARK)
            next_close = _found(text, _CLOSE_MARK, at + 1)
        else:
            out.append("\n")
            next_break = _found(text, "\n", at + 1)
        start = at + 1
    out.append(text[start:])
    return out


@cython.cfunc
@cython.inline
@cython.locals(text=str, start=cython.Py_ssize_t, at=cython.Py_ssize_t)
@cython.returns(cython.Py_ssize_t)
def _found(text: str, sought: str, start: int) -> int:
    """Where ``sought`` is next in ``text`` from ``start`` on, or the text's length."""
    at = text.find(sought, start)
    return len(text) if at < 0 else at


@cython.ccall
@cython.locals(items=list)
def _append(items: list, text: str) -> None:
    """Append text to inline content, joined to the text before it."""
    if items and type(items[-1]) is str:
        items[-1] += text
    else:
        items.append(text)


@cython.ccall
@cython.locals(items=list, k=cython.Py_ssize_t)
def _frozen(items: list) -> Inline:
    """Inline content built as lists (a span: ``[kind, href, children]``) as tuples."""
    for k, item in enumerate(items):
        if type(item) is list:
            items[k] = _new_node(Span, (item[0], _frozen(item[2]), item[1]))  # (as in _close_span)
    return tuple(items)


