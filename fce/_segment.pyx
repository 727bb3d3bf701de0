# cython: language_level=3, boundscheck=False, wraparound=False, initializedcheck=False
"""The loop of :func:`fce.blocks.segment_element` over libxml2's nodes, compiled (optional accelerator).

The pure-Python segmentation asks lxml for every element of the page (``iterwalk`` builds a Python proxy object
per element, ``el.tag``/``el.text``/``el.tail``/``el.get`` each cross into C and back) and measured at about
85 % Python bookkeeping (bench/README.md, "Profile"). This module reads the same tree in C through lxml's public
C API (``lxml.includes.etreepublic``: the element's ``_c_node``) — element nodes, their text nodes and their
attributes, the fields libxml2 documents in ``tree.h`` — keeps each block's parent, depth and counts in a C
array, and builds the ``Block`` tuples at the end. Python objects are made only for what ends up in a block: tag
names (once per distinct name), paths and their steps (through :mod:`fce.blocks`' shared cache), text pieces,
own texts and the tuples.

It must give exactly what the Python loop gives — the Python loop is the definition, and ``tests/test_blocks.py``
checks both against the reference segmentation — including the walk's quirks: only element nodes are visited
(lxml's ``iterwalk`` yields neither comments nor processing instructions), an element's text and tail are its run
of adjacent text nodes (``_collectText``), so text after a comment or processing instruction is not part of any
tail, exactly as in the Python loop; a skipped element's subtree is not entered but its tail is kept.

No libxml2 function is called (the module reads struct fields only), so it links against nothing but Python; the
lxml headers are needed at build time only. Every set and table comes from :mod:`fce.blocks` through
:func:`configure`, so the constants live in one place.
"""

from cpython.bytes cimport PyBytes_FromStringAndSize, PyBytes_AS_STRING
from cpython.unicode cimport PyUnicode_DecodeUTF8
from libc.string cimport strlen, strcmp

cimport lxml.includes.etreepublic as cetree
from lxml.includes cimport tree
from lxml.includes.tree cimport xmlNode, xmlAttr, const_xmlChar
from cpython.ref cimport PyObject, Py_DECREF, Py_INCREF
from cpython.tuple cimport PyTuple_New, PyTuple_SET_ITEM
from libc.stdint cimport uintptr_t
from libc.stdlib cimport malloc, calloc, realloc, free
from libc.string cimport memset

from lxml import etree as _etree  # the C API is imported from the loaded lxml.etree module

cetree.import_lxml__etree()

# what a tag is to the walk (the branches of fce.blocks.segment_element, in their order)
cdef enum Kind:
    K_OTHER = 0
    K_BLOCK = 1
    K_SCRIPT = 2      # skipped, counted as a script
    K_FORM = 3        # skipped, counted as a form field
    K_MEDIA = 4       # skipped, counted as an image
    K_SKIP = 5        # skipped, not counted
    K_A = 6
    K_IMG = 7
    K_INPUT = 8
    K_BR = 9

# set by configure()
cdef object _block_tags = None
cdef object _skipped = None
cdef object _form_tags = None
cdef object _media_tags = None
cdef dict _upper = None
cdef dict _steps = None
cdef object _make_step = None
cdef object _block_type = None  # fce.blocks.Block
cdef object _is_hidden = None  # fce.blocks.is_hidden
cdef object _never_hidden = frozenset()  # tags never tested (html, body)
cdef dict _kinds = {}          # tag name (bytes) -> (tag str, kind, name bytes)

# (tag, kind) by the address of the node's name: libxml2's parsers intern element names in a dictionary that lxml
# shares between the documents of a thread, so a site's few dozen names come back at the same addresses page after
# page. Direct-mapped; an entry is used only when its name is still the same string (strcmp), so a freed and
# reused address cannot mislead it.
DEF NAME_SLOTS = 1024
cdef const_xmlChar* _slot_name[NAME_SLOTS]
cdef PyObject* _slot_entry[NAME_SLOTS]  # borrowed from _kinds' values, which live until configure() runs again


def configure(block_tags, skipped_tags, form_field_tags, media_tags, dict upper, dict steps, make_step, block_type,
              is_hidden, never_hidden):
    """Give the walk fce.blocks' tag sets, its table of upper-case path steps, its shared qualified-step cache, the
    function that fills it, the Block type, the visibility test and the tags it never applies to."""
    global _block_tags, _skipped, _form_tags, _media_tags, _upper, _steps, _make_step, _kinds, _block_type
    global _is_hidden, _never_hidden
    _is_hidden, _never_hidden = is_hidden, frozenset(never_hidden)
    if not (isinstance(block_type, type) and issubclass(block_type, tuple) and len(block_type._fields) == 14):
        raise TypeError("block_type must be fce.blocks.Block, a named tuple of 14 fields")
    _block_type = block_type
    _block_tags, _skipped, _form_tags, _media_tags = block_tags, skipped_tags, form_field_tags, media_tags
    if block_tags & skipped_tags:
        raise ValueError("a tag cannot both delimit blocks and be skipped")
    _upper, _steps, _make_step = upper, steps, make_step
    _kinds = {}
    memset(_slot_name, 0, sizeof(_slot_name))
    memset(_slot_entry, 0, sizeof(_slot_entry))


cdef tuple _classify(str tag):
    cdef int kind = K_OTHER
    if tag in _block_tags:
        kind = K_BLOCK
    elif tag in _skipped:
        if tag == "script":
            kind = K_SCRIPT
        elif tag in _form_tags:
            kind = K_FORM
        elif tag in _media_tags:
            kind = K_MEDIA
        else:
            kind = K_SKIP
    elif tag == "a":
        kind = K_A
    elif tag == "img":
        kind = K_IMG
    elif tag == "input":
        kind = K_INPUT
    elif tag == "br":
        kind = K_BR
    return (tag, kind, tag.encode("utf-8"))


cdef inline tuple _tag_of(xmlNode* node):
    """(tag, kind) of an element node; the tag spelled as lxml spells ``el.tag`` (``{uri}name`` in a namespace)."""
    cdef bytes name
    cdef str tag
    cdef tuple entry
    if node.ns is not NULL and node.ns.href is not NULL:
        tag = "{%s}%s" % (node.ns.href.decode("utf-8"), (<bytes>node.name).decode("utf-8"))
        return _classify(tag)
    cdef size_t slot = (<uintptr_t>node.name >> 3) % NAME_SLOTS
    if _slot_name[slot] == node.name and _slot_entry[slot] is not NULL:
        entry = <tuple>_slot_entry[slot]
        if strcmp(<const char*>node.name, <const char*><bytes>entry[2]) == 0:
            return entry
    name = <bytes>node.name
    entry = _kinds.get(name)
    if entry is None:
        entry = _classify(name.decode("utf-8"))
        _kinds[name] = entry
    _slot_name[slot] = node.name
    _slot_entry[slot] = <PyObject*>entry
    return entry


cdef inline bint _is_text(xmlNode* node) noexcept nogil:
    return node.type == tree.XML_TEXT_NODE or node.type == tree.XML_CDATA_SECTION_NODE


cdef inline xmlNode* _text_or_skip(xmlNode* node) noexcept nogil:
    """lxml's ``_textNodeOrSkip``: the node if it is text, past XInclude markers, else NULL."""
    while node is not NULL:
        if _is_text(node):
            return node
        if node.type == tree.XML_XINCLUDE_START or node.type == tree.XML_XINCLUDE_END:
            node = node.next
            continue
        return NULL
    return NULL


cdef inline xmlNode* _next_element(xmlNode* node) noexcept nogil:
    while node is not NULL and node.type != tree.XML_ELEMENT_NODE:
        node = node.next
    return node


cdef inline bint _has_ws(const char* src) noexcept nogil:
    """Whether a UTF-8 string holds a character that _WS_TABLE turns into a space (all ASCII)."""
    cdef char c
    while True:
        c = src[0]
        if c == 0:
            return False
        if c == b'\n' or c == b'\r' or c == b'\t' or c == b'\f' or c == b'\v':
            return True
        src += 1


cdef str _collect_text(xmlNode* node):
    """The run of text nodes starting at ``node`` (lxml's ``el.text`` / ``el.tail``), line breaks and tabs turned
    into spaces (``fce.blocks._WS_TABLE``), or None when the run is empty."""
    cdef xmlNode* first = _text_or_skip(node)
    cdef xmlNode* cur
    cdef xmlNode* after
    cdef Py_ssize_t total = 0, k, length, i
    cdef char* buf
    cdef char c
    cdef bytes data
    cdef const char* src
    if first is NULL:
        return None
    after = _text_or_skip(first.next)
    if after is NULL:  # one text node (nearly always): decoded in place when nothing needs translating
        if first.content is NULL or first.content[0] == 0:
            return None
        src = <const char*>first.content
        if not _has_ws(src):
            return PyUnicode_DecodeUTF8(src, strlen(src), NULL)
    cur = first
    while cur is not NULL:
        if cur.content is not NULL:
            total += strlen(<const char*>cur.content)
        cur = _text_or_skip(cur.next)
    if total == 0:
        return None
    data = PyBytes_FromStringAndSize(NULL, total)
    buf = PyBytes_AS_STRING(data)
    k = 0
    cur = first
    while cur is not NULL:
        if cur.content is not NULL:
            src = <const char*>cur.content
            length = strlen(src)
            for i in range(length):
                c = src[i]
                if c == b'\n' or c == b'\r' or c == b'\t' or c == b'\f' or c == b'\v':
                    buf[k] = b' '
                else:
                    buf[k] = c
                k += 1
        cur = _text_or_skip(cur.next)
    return PyUnicode_DecodeUTF8(buf, total, NULL)


cdef class _ElementOf:
    """Python proxies of nodes, for the rare cases the walk asks lxml: an attribute value split over several nodes,
    and the visibility test (``fce.blocks.is_hidden``) of an element with a ``style``, ``hidden`` or
    ``aria-hidden`` attribute."""
    cdef cetree._Document doc

    def __cinit__(self, cetree._Element root):
        self.doc = root._doc

    cdef object proxy(self, xmlNode* node):
        return cetree.elementFactory(self.doc, node)


cdef extern from "Python.h":
    void PyObject_GC_UnTrack(void* op)
    ctypedef struct _TypeAlloc "PyTypeObject":  # the one slot of a type object used here
        PyObject* (*tp_alloc)(_TypeAlloc*, Py_ssize_t)
    bint Py_UNICODE_ISSPACE(Py_UCS4 ch)
    object PyUnicode_FromKindAndData(int kind, const void* buffer, Py_ssize_t size)
    int PyUnicode_4BYTE_KIND
    int PyUnicode_KIND(object s)
    void* PyUnicode_DATA(object s)
    Py_UCS4 PyUnicode_READ(int kind, void* data, Py_ssize_t index)


cdef struct BlockInfo:
    Py_ssize_t parent
    Py_ssize_t depth
    Py_ssize_t n_children
    long counts[6]  # links, images, scripts, forms, iframes, link_chars (fce.blocks.Block's count fields)


cdef class _Infos:
    """A growable C array of BlockInfo, one per block (freed with the object)."""
    cdef BlockInfo* items
    cdef Py_ssize_t size, cap

    def __cinit__(self):
        self.cap = 256
        self.size = 0
        self.items = <BlockInfo*>malloc(self.cap * sizeof(BlockInfo))
        if self.items is NULL:
            raise MemoryError()

    def __dealloc__(self):
        free(self.items)

    cdef Py_ssize_t add(self, Py_ssize_t parent) except -1:
        """Append a block under ``parent`` (-1: the root); its index."""
        cdef BlockInfo* grown
        cdef BlockInfo* info
        if self.size == self.cap:
            grown = <BlockInfo*>realloc(self.items, 2 * self.cap * sizeof(BlockInfo))
            if grown is NULL:
                raise MemoryError()
            self.items = grown
            self.cap *= 2
        info = &self.items[self.size]
        memset(info, 0, sizeof(BlockInfo))
        info.parent = parent
        if parent >= 0:
            info.depth = self.items[parent].depth + 1
            self.items[parent].n_children += 1
        self.size += 1
        return self.size - 1


def segment_blocks(cetree._Element root, bint qualified):
    """The blocks of ``fce.blocks.segment_element(root, …)`` for an element root, as a tuple of ``Block``."""
    cdef xmlNode* top = root._c_node
    cdef xmlNode* node
    cdef xmlNode* up
    cdef _Infos infos = _Infos()
    cdef list paths = ["HTML"], tags = ["html"], parts = [[]]
    cdef list cur_parts = parts[0]
    cdef Py_ssize_t current, idx, link_depth = 0
    cdef int kind
    cdef str tag, text, step
    cdef tuple entry
    cdef dict steps = _steps
    cdef object make_step = _make_step
    cdef object key
    cdef _ElementOf owner = _ElementOf(root)

    current = infos.add(-1)
    text = _collect_text(top.children)
    if text is not None:
        cur_parts.append(text)
    node = _next_element(top.children)
    up = top
    while True:
        if node is NULL:
            # the end of ``up``: all of its children have been walked
            entry = _tag_of(up)
            kind = entry[1]
            if kind == K_BLOCK:
                if current == 0:
                    break  # the document root's end: its tail is not in the page
                current = infos.items[current].parent  # the block that was open when this one opened
                cur_parts = parts[current]
            elif kind == K_A and link_depth and _attr_present(up, b"href"):
                link_depth -= 1
            _tail(up, cur_parts, &infos.items[current].counts[5], link_depth)
            if up is top:
                break
            node = _next_element(up.next)
            up = up.parent
            continue
        entry = _tag_of(node)
        tag = entry[0]
        kind = entry[1]
        if node.properties is not NULL and _may_hide(node) and tag not in _never_hidden \
                and _is_hidden(owner.proxy(node)):
            # not shown (fce.blocks.is_hidden): neither text nor counts; its tail is kept
            _tail(node, cur_parts, &infos.items[current].counts[5], link_depth)
            node = _next_element(node.next)
            continue
        if kind == K_BLOCK:
            if qualified:
                key = (tag, _attr_value(node, b"id", owner), _attr_value(node, b"class", owner))
                step = steps.get(key)
                if step is None:
                    step = make_step(key)
                paths.append(paths[current] + "." + step)
            else:
                paths.append(paths[current] + "." + _upper[tag])
            tags.append(tag)
            idx = infos.add(current)
            if kind == K_BLOCK and tag == "iframe":
                infos.items[idx].counts[4] = 1
            cur_parts.append(idx)
            cur_parts = []
            parts.append(cur_parts)
            current = idx
        elif kind == K_SCRIPT or kind == K_FORM or kind == K_MEDIA or kind == K_SKIP:
            if kind == K_SCRIPT:
                infos.items[current].counts[2] += 1
            elif kind == K_FORM:
                infos.items[current].counts[3] += 1
            elif kind == K_MEDIA:
                infos.items[current].counts[1] += 1
            # not entered; its end comes at once (its tail is kept)
            _tail(node, cur_parts, &infos.items[current].counts[5], link_depth)
            node = _next_element(node.next)
            continue
        elif kind == K_A:
            if _attr_present(node, b"href"):  # <a name=…> is an anchor, not a link
                infos.items[current].counts[0] += 1
                link_depth += 1
        elif kind == K_IMG:
            infos.items[current].counts[1] += 1
        elif kind == K_INPUT:
            infos.items[current].counts[3] += 1
        elif kind == K_BR:
            cur_parts.append("\n")
        text = _collect_text(node.children)
        if text is not None:
            cur_parts.append(text)
            if link_depth:
                infos.items[current].counts[5] += len(" ".join(text.split()))
        up = node  # enter the element
        node = _next_element(node.children)
    return _freeze(infos, paths, tags, parts)


cdef inline void _tail(xmlNode* node, list cur_parts, long* link_chars, Py_ssize_t link_depth) except *:
    cdef str text = _collect_text(node.next)
    if text is not None:
        cur_parts.append(text)
        if link_depth:
            link_chars[0] += len(" ".join(text.split()))


cdef inline void _set(object tup, Py_ssize_t i, object value):
    """Fill slot ``i`` of a new tuple (PyTuple_SET_ITEM steals the reference it is given)."""
    Py_INCREF(value)
    PyTuple_SET_ITEM(tup, i, value)


cdef tuple _freeze(_Infos infos, list paths, list tags, list parts):
    """The Block tuples. Each is allocated as ``tuple.__new__(Block, row)`` allocates it (the type's ``tp_alloc``)
    and filled in place, without the row tuple."""
    cdef Py_ssize_t n = infos.size, i, j, parent
    cdef BlockInfo* info
    cdef list children = []
    cdef list out = []
    cdef list block_parts
    cdef _TypeAlloc* block_type = <_TypeAlloc*><PyObject*>_block_type
    cdef PyObject* raw
    cdef object block
    cdef Py_ssize_t* fill = <Py_ssize_t*>calloc(n + 1, sizeof(Py_ssize_t))
    cdef Py_UCS4* buf = NULL
    cdef Py_ssize_t cap = 0
    if fill is NULL:
        raise MemoryError()
    try:
        for i in range(n):
            children.append(PyTuple_New(infos.items[i].n_children))
        for i in range(1, n):  # sub-blocks in document order: indices ascend
            parent = infos.items[i].parent
            _set(children[parent], fill[parent], i)
            fill[parent] += 1
        for i in range(n):
            info = &infos.items[i]
            block_parts = <list>parts[i]
            raw = block_type.tp_alloc(block_type, 14)
            if raw is NULL:
                raise MemoryError()
            block = <object>raw
            Py_DECREF(block)  # <object> took a second reference to what tp_alloc returned
            _set(block, 0, i)
            _set(block, 1, paths[i])
            _set(block, 2, tags[i])
            _set(block, 3, info.parent)
            _set(block, 4, info.depth)
            _set(block, 5, children[i])
            _set(block, 6, tuple(block_parts))
            _set(block, 7, _own_text(block_parts, &buf, &cap))
            for j in range(6):
                _set(block, 8 + j, info.counts[j])
            # a block holds only strings, ints and tuples of them: it can never be part of a reference cycle, so
            # the cyclic GC need not track it (CPython untracks such tuples itself, at its next collection)
            PyObject_GC_UnTrack(<PyObject*>block)
            PyObject_GC_UnTrack(<PyObject*>children[i])
            PyObject_GC_UnTrack(<PyObject*>block[6])
            out.append(block)
    finally:
        free(fill)
        free(buf)
    return tuple(out)


cdef inline Py_ssize_t _put(Py_UCS4* buf, Py_ssize_t n, Py_UCS4 ch, bint* pending, Py_ssize_t line_start) noexcept:
    """Append ``ch`` to the text in ``buf[:n]`` (the current line starting at ``line_start``) with whitespace runs
    collapsed to one space and none at the line's start; a space is written only when a non-space follows it, so
    lines end stripped. Returns the new length."""
    if Py_UNICODE_ISSPACE(ch):
        pending[0] = n > line_start
        return n
    if pending[0]:
        buf[n] = 32
        n += 1
        pending[0] = False
    buf[n] = ch
    return n + 1


cdef str _own_text(list block_parts, Py_UCS4** bufp, Py_ssize_t* capp):
    """A block's own text: its text pieces joined, whitespace collapsed to single spaces and stripped —
    ``" ".join("".join(pieces).split())`` (``str.split()`` splits on ``Py_UNICODE_ISSPACE``, as here). ``bufp``
    and ``capp`` hold a scratch buffer reused from block to block (freed by the caller)."""
    cdef Py_ssize_t total = 0, n = 0, i, length
    cdef Py_UCS4* buf
    cdef bint pending = False
    cdef int kind
    cdef void* data
    cdef object piece
    for piece in block_parts:
        if type(piece) is str:
            total += len(<str>piece)
    if total == 0:
        return ""
    if total > capp[0]:
        free(bufp[0])
        capp[0] = max(total, 2 * capp[0])
        bufp[0] = <Py_UCS4*>malloc(capp[0] * sizeof(Py_UCS4))
        if bufp[0] is NULL:
            capp[0] = 0
            raise MemoryError()
    buf = bufp[0]
    for piece in block_parts:
        if type(piece) is not str:
            continue
        kind = PyUnicode_KIND(piece)
        data = PyUnicode_DATA(piece)
        length = len(<str>piece)
        for i in range(length):
            n = _put(buf, n, PyUnicode_READ(kind, data, i), &pending, 0)
    return PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, buf, n) if n else ""


def own_texts(list parts):
    """Own text of every block given its parts (:func:`_own_text`), for the tests."""
    cdef list out = []
    cdef Py_UCS4* buf = NULL
    cdef Py_ssize_t cap = 0
    try:
        for block_parts in parts:
            out.append(_own_text(block_parts, &buf, &cap))
    finally:
        free(buf)
    return out


cdef inline bint _may_hide(xmlNode* node) noexcept:
    """Whether the element has one of the attributes fce.blocks.is_hidden reads (``style``, ``hidden``,
    ``aria-hidden``): only then is the Python test asked."""
    cdef xmlAttr* attr = node.properties
    cdef const char* name
    while attr is not NULL:
        if attr.ns is NULL:
            name = <const char*>attr.name
            if strcmp(name, b"style") == 0 or strcmp(name, b"hidden") == 0 or strcmp(name, b"aria-hidden") == 0:
                return True
        attr = attr.next
    return False


cdef inline bint _attr_present(xmlNode* node, const char* name) noexcept:
    cdef xmlAttr* attr = node.properties
    while attr is not NULL:
        if attr.ns is NULL and strcmp(<const char*>attr.name, name) == 0:
            return True
        attr = attr.next
    return False


cdef object _attr_value(xmlNode* node, const char* name, _ElementOf owner):
    cdef xmlAttr* attr = node.properties
    cdef xmlNode* child
    while attr is not NULL:
        if attr.ns is NULL and strcmp(<const char*>attr.name, name) == 0:
            child = attr.children
            if child is NULL:
                return ""
            if child.next is NULL and _is_text(child):
                if child.content is NULL:
                    return ""
                return PyUnicode_DecodeUTF8(<const char*>child.content, strlen(<const char*>child.content), NULL)
            return owner.proxy(node).get(name.decode("ascii"))  # a value over several nodes: lxml joins it
        attr = attr.next
    return None


# -- rendering (fce.blocks.BlockTree.pieces and fce.blocks.join_pieces) ---------------------------------------------

def pieces(tuple blocks, Py_ssize_t index, keep, list visited, inline_tags):
    """``BlockTree.pieces``: the text pieces of ``blocks[index]`` with its sub-blocks in document order, a line
    break around every non-inline block; sub-blocks for which ``keep(block)`` is false left out; the indices of
    the blocks whose text went in appended to ``visited`` (when not None)."""
    cdef list out = []
    cdef list stack = [index]
    cdef object item, block
    cdef tuple parts
    cdef str sep
    cdef Py_ssize_t i
    while stack:
        item = stack.pop()
        if type(item) is str:
            out.append(item)
            continue
        block = blocks[<Py_ssize_t>item]
        if <Py_ssize_t>item != index and keep is not None and not keep(block):
            continue
        if visited is not None:
            visited.append(item)
        sep = "" if (<tuple>block)[2] in inline_tags else "\n"
        stack.append(sep)
        parts = <tuple>(<tuple>block)[6]
        for i in range(len(parts) - 1, -1, -1):
            stack.append(parts[i])
        stack.append(sep)
    return out


def join_pieces(pieces):
    """``fce.blocks.join_pieces``: the pieces joined, whitespace runs inside each line collapsed to one space
    (``str.split()``'s whitespace, ``Py_UNICODE_ISSPACE``), lines stripped, empty lines dropped."""
    cdef str text = "".join(pieces)
    cdef Py_ssize_t length = len(text), i, n = 0, line_start = 0
    cdef int kind = PyUnicode_KIND(text)
    cdef void* data = PyUnicode_DATA(text)
    cdef Py_UCS4 ch
    cdef bint pending = False
    cdef Py_UCS4* buf
    if length == 0:
        return ""
    buf = <Py_UCS4*>malloc(length * sizeof(Py_UCS4))
    if buf is NULL:
        raise MemoryError()
    try:
        for i in range(length):
            ch = PyUnicode_READ(kind, data, i)
            if ch == 10:  # "\n": the line ends; an empty one leaves nothing
                pending = False
                if n > line_start:
                    buf[n] = 10
                    n += 1
                    line_start = n
            else:
                n = _put(buf, n, ch, &pending, line_start)
        if n > 0 and buf[n - 1] == 10:
            n -= 1
        return PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, buf, n) if n else ""
    finally:
        free(buf)


def text_on_paths(tuple blocks, paths):
    """``(characters of own text on blocks whose path is in paths, characters of own text)`` — the two sums of
    ``fce.detect.Detector.fit_score``."""
    cdef Py_ssize_t known = 0, total = 0, n
    cdef object block
    for block in blocks:
        n = len(<str>(<tuple>block)[7])
        if n:
            total += n
            if (<tuple>block)[1] in paths:
                known += n
    return known, total


def subtree_sums(tuple blocks, inline_tags):
    """``fce.blocks.subtree_sums``: per block, characters of own text and of link text in its whole subtree, and
    characters and commas of its paragraph (own text plus inline sub-blocks), in one bottom-up pass."""
    cdef Py_ssize_t n = len(blocks), i, up, own
    cdef object block
    cdef str text
    cdef long* sums = <long*>calloc(4 * n + 1, sizeof(long))
    cdef long* chars = sums
    cdef long* links = sums + n
    cdef long* para = sums + 2 * n
    cdef long* commas = sums + 3 * n
    if sums is NULL:
        raise MemoryError()
    try:
        for i in range(n - 1, -1, -1):
            block = blocks[i]
            text = <str>(<tuple>block)[7]
            own = len(text)
            chars[i] += own
            links[i] += <long>(<tuple>block)[13]
            para[i] += own
            if own:
                commas[i] += text.count(",")
            up = <Py_ssize_t>(<tuple>block)[3]
            if up >= 0:
                chars[up] += chars[i]
                links[up] += links[i]
                if (<tuple>block)[2] in inline_tags:
                    para[up] += para[i]
                    commas[up] += commas[i]
        return ([chars[i] for i in range(n)], [links[i] for i in range(n)], [para[i] for i in range(n)],
                [commas[i] for i in range(n)])
    finally:
        free(sums)
