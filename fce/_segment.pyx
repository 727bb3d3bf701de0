# cython: language_level=3, boundscheck=False, wraparound=False, initializedcheck=False
"""The loop of :func:`fce.blocks.segment_element` over libxml2's nodes, compiled (optional accelerator).

The pure-Python segmentation asks lxml for every element of the page (``iterwalk`` builds a Python proxy object
per element, ``el.tag``/``el.text``/``el.tail``/``el.get`` each cross into C and back) and measured at about
85 % Python bookkeeping (bench/README.md, "Profile"). This module reads the same tree in C through lxml's public
C API (``lxml.includes.etreepublic``: the element's ``_c_node``) — element nodes, their text nodes and their
attributes, the fields libxml2 documents in ``tree.h`` — and builds the same builders (paths, tags, parents,
depths, parts, counts, children) that :func:`fce.blocks._freeze` turns into blocks. Python objects are made only
for what ends up in a block: tag names (once per distinct name), path steps (through :mod:`fce.blocks`' shared
cache), and text pieces.

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
from cpython.ref cimport PyObject
from libc.stdint cimport uintptr_t
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
cdef dict _kinds = {}          # tag name (bytes) -> (tag str, kind, name bytes)

# (tag, kind) by the address of the node's name: libxml2's parsers intern element names in a dictionary that lxml
# shares between the documents of a thread, so a site's few dozen names come back at the same addresses page after
# page. Direct-mapped; an entry is used only when its name is still the same string (strcmp), so a freed and
# reused address cannot mislead it.
DEF NAME_SLOTS = 1024
cdef const_xmlChar* _slot_name[NAME_SLOTS]
cdef PyObject* _slot_entry[NAME_SLOTS]  # borrowed from _kinds' values, which live until configure() runs again


def configure(block_tags, skipped_tags, form_field_tags, media_tags, dict upper, dict steps, make_step):
    """Give the walk fce.blocks' tag sets, its table of upper-case path steps, its shared qualified-step cache and
    the function that fills it."""
    global _block_tags, _skipped, _form_tags, _media_tags, _upper, _steps, _make_step, _kinds
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
    """Python proxies for the rare attribute lxml has to assemble (a value split over several nodes)."""
    cdef cetree._Document doc

    def __cinit__(self, cetree._Element root):
        self.doc = root._doc

    cdef object proxy(self, xmlNode* node):
        return cetree.elementFactory(self.doc, node)


def segment_builders(cetree._Element root, bint qualified):
    """The builders of ``fce.blocks.segment_element(root, …)`` for an element root:
    ``(paths, tags, parents, depths, parts, counts, children)``."""
    cdef xmlNode* top = root._c_node
    cdef xmlNode* node
    cdef xmlNode* up
    cdef list paths = ["HTML"], tags = ["html"], parents = [-1], depths = [0]
    cdef list parts = [[]], counts = [[0, 0, 0, 0, 0, 0]], children = [[]]
    cdef list cur_parts = parts[0]
    cdef list cur_counts = counts[0]
    cdef Py_ssize_t current = 0, idx, link_depth = 0
    cdef int kind
    cdef str tag, text, step
    cdef tuple entry
    cdef dict steps = _steps
    cdef object make_step = _make_step
    cdef object key
    cdef _ElementOf owner = _ElementOf(root)

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
                current = parents[current]
                cur_parts = parts[current]
                cur_counts = counts[current]
            elif kind == K_A and link_depth and _attr_present(up, b"href"):
                link_depth -= 1
            if up is top:
                _tail(up, cur_parts, cur_counts, link_depth)
                break
            _tail(up, cur_parts, cur_counts, link_depth)
            node = _next_element(up.next)
            up = up.parent
            continue
        entry = _tag_of(node)
        tag = entry[0]
        kind = entry[1]
        if kind == K_BLOCK:
            idx = len(paths)
            if qualified:
                key = (tag, _attr_value(node, b"id", owner), _attr_value(node, b"class", owner))
                step = steps.get(key)
                if step is None:
                    step = make_step(key)
                paths.append(paths[current] + "." + step)
            else:
                paths.append(paths[current] + "." + _upper[tag])
            tags.append(tag)
            parents.append(current)
            depths.append(depths[current] + 1)
            cur_parts.append(idx)
            (<list>children[current]).append(idx)
            cur_parts = []
            parts.append(cur_parts)
            cur_counts = [0, 0, 0, 0, 1 if tag == "iframe" else 0, 0]
            counts.append(cur_counts)
            children.append([])
            current = idx
        elif kind == K_SCRIPT or kind == K_FORM or kind == K_MEDIA or kind == K_SKIP:
            if kind == K_SCRIPT:
                cur_counts[2] += 1
            elif kind == K_FORM:
                cur_counts[3] += 1
            elif kind == K_MEDIA:
                cur_counts[1] += 1
            # not entered; its end comes at once (its tail is kept)
            _tail(node, cur_parts, cur_counts, link_depth)
            node = _next_element(node.next)
            continue
        elif kind == K_A:
            if _attr_present(node, b"href"):
                cur_counts[0] += 1
                link_depth += 1
        elif kind == K_IMG:
            cur_counts[1] += 1
        elif kind == K_INPUT:
            cur_counts[3] += 1
        elif kind == K_BR:
            cur_parts.append("\n")
        text = _collect_text(node.children)
        if text is not None:
            cur_parts.append(text)
            if link_depth:
                cur_counts[5] += len(" ".join(text.split()))
        # enter the element
        up = node
        node = _next_element(node.children)
    return paths, tags, parents, depths, parts, counts, children


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


cdef inline void _tail(xmlNode* node, list cur_parts, list cur_counts, Py_ssize_t link_depth) except *:
    cdef str text = _collect_text(node.next)
    if text is not None:
        cur_parts.append(text)
        if link_depth:
            cur_counts[5] += len(" ".join(text.split()))


cdef extern from "Python.h":
    bint Py_UNICODE_ISSPACE(Py_UCS4 ch)
    object PyUnicode_FromKindAndData(int kind, const void* buffer, Py_ssize_t size)
    int PyUnicode_4BYTE_KIND
    int PyUnicode_KIND(object s)
    void* PyUnicode_DATA(object s)
    Py_UCS4 PyUnicode_READ(int kind, void* data, Py_ssize_t index)

from libc.stdlib cimport malloc, free


def own_texts(list parts, list children):
    """Own text of every block: its text pieces joined, whitespace collapsed to single spaces and stripped —
    ``" ".join("".join(pieces).split())`` (``str.split()`` splits on ``Py_UNICODE_ISSPACE``, as here)."""
    cdef list out = []
    cdef list block_parts
    cdef Py_ssize_t total, n, i, length
    cdef Py_UCS4* buf = NULL
    cdef Py_ssize_t cap = 0
    cdef Py_UCS4 ch
    cdef bint pending
    cdef int kind
    cdef void* data
    cdef object piece
    try:
        for block_parts in parts:
            total = 0
            for piece in block_parts:
                if type(piece) is str:
                    total += len(<str>piece)
            if total == 0:
                out.append("")
                continue
            if total > cap:
                free(buf)
                cap = max(total, 2 * cap)
                buf = <Py_UCS4*>malloc(cap * sizeof(Py_UCS4))
                if buf is NULL:
                    cap = 0
                    raise MemoryError()
            n = 0
            pending = False
            for piece in block_parts:
                if type(piece) is not str:
                    continue
                kind = PyUnicode_KIND(piece)
                data = PyUnicode_DATA(piece)
                length = len(<str>piece)
                for i in range(length):
                    ch = PyUnicode_READ(kind, data, i)
                    if Py_UNICODE_ISSPACE(ch):
                        pending = n > 0
                    else:
                        if pending:
                            buf[n] = 32
                            n += 1
                            pending = False
                        buf[n] = ch
                        n += 1
            out.append(PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, buf, n) if n else "")
    finally:
        free(buf)
    return out
