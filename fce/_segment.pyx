# cython: language_level=3, boundscheck=False, wraparound=False, initializedcheck=False
"""The loop of :func:`fce.blocks.segment_element` over libxml2's nodes, compiled (optional accelerator).

The pure-Python segmentation asks lxml for every element of the page (``iterwalk`` builds a Python proxy object
per element, ``el.tag``/``el.text``/``el.tail``/``el.get`` each cross into C and back) and measured at about
85 % Python bookkeeping (bench/README.md, "Profile"). This module reads the same tree in C through lxml's public
C API (``lxml.includes.etreepublic``: the element's ``_c_node``) — element nodes, their text nodes and their
attributes, the fields libxml2 documents in ``tree.h`` — and keeps each block's parent, depth, counts and the
range of its parts in C arrays (:class:`_Builder`). That builder is what :class:`fce.blocks.BlockTree` holds: it
reads the tree column-wise from it (:meth:`_Builder.columns`, :meth:`_Builder.children`, :meth:`_Builder.pieces`)
and asks for the ``Block`` tuples (:meth:`_Builder.blocks`) only when some code reads blocks — detection and
``mainblock`` do not, and building and freeing the tuples, own texts and parts was half of segmentation's time.
Python objects made by the walk: tag names (once per distinct name), paths (once per distinct parent path, tag,
id and class: a cache of whole paths keyed by libxml2's bytes, in front of :mod:`fce.blocks`' step cache) and
text pieces (whitespace-only runs, most of a page's text, from a table of ready strings); when the blocks are
asked for, own texts (the piece itself when it is one already collapsed) and the tuples. The visibility test
(``fce.blocks.is_hidden``) runs in C too, for the style pattern it implements.

It must give exactly what the Python loop gives — the Python loop is the definition, and ``tests/test_blocks.py``
checks both against the reference segmentation — including the walk's quirks: only element nodes are visited
(lxml's ``iterwalk`` yields neither comments nor processing instructions), an element's text and tail are its run
of adjacent text nodes (``_collectText``), so text after a comment or processing instruction is not part of any
tail, exactly as in the Python loop; a skipped element's subtree is not entered but its tail is kept.

Both walks also record, per block, where the inline elements of ``fce.blocks.MARK_TAGS`` start and end among its
parts (``fce.blocks.Mark``: C structs, a link's href copied as bytes, decoded only when the marks are read), and
inside ``<pre>`` the source of the text pieces whose line breaks the pieces have as spaces: what a structured output
(``fce.render``) reads.

The same walk also runs without a tree (:func:`segment_bytes`, at the end of this module): on the events libxml2's
HTML parser gives its SAX handler while it parses a page's bytes, so that lxml's tree is never built nor freed
(``fce.parse.parse_page(data, blocks=…)``). That part calls libxml2, lxml's own copy of it, through function
pointers looked up in lxml's ``etree`` module at import (:data:`SAX_AVAILABLE` says whether they were found and
the version is a checked one), so the module still links against nothing but Python; the lxml headers are needed
at build time only. Every set and table comes from :mod:`fce.blocks` through :func:`configure`, so the constants
live in one place (the visibility test checks that the pattern it is given is the one it implements, and leaves
any other to ``is_hidden``).
"""

from cpython.bytes cimport PyBytes_AS_STRING
from cpython.unicode cimport PyUnicode_DecodeUTF8
from libc.string cimport strlen, strcmp, memcmp, memcpy, strspn, strcspn, strstr

import sys

cimport lxml.includes.etreepublic as cetree
from lxml.includes cimport tree
from lxml.includes.tree cimport xmlNode, xmlAttr, const_xmlChar
from cpython.ref cimport PyObject, Py_DECREF, Py_INCREF
from cpython.tuple cimport PyTuple_New, PyTuple_SET_ITEM, PyTuple_GET_ITEM
from cpython.list cimport PyList_GET_ITEM
from cpython.sequence cimport PySequence_Fast_ITEMS
from cpython.type cimport PyType_IsSubtype
from cpython cimport array
import array
from cpython.unicode cimport Py_UCS1, Py_UCS2
from libc.stdint cimport uintptr_t, uint64_t
from libc.stdlib cimport malloc, calloc, realloc, free
from libc.string cimport memset

import re as _re

from lxml import etree as _etree  # the C API is imported from the loaded lxml.etree module

cetree.import_lxml__etree()

cdef const char* _EMPTY = b""  # the value of an attribute written without one (and an empty class)
cdef array.array _LONGS = array.array("l")  # the type of the integer columns and sums (array.clone's template)

cdef extern from "Python.h":
    void PyObject_GC_UnTrack(void* op)
    ctypedef struct _TypeAlloc "PyTypeObject":  # the one slot of a type object used here
        PyObject* (*tp_alloc)(_TypeAlloc*, Py_ssize_t)
    int PyUnicode_2BYTE_KIND
    int PyUnicode_4BYTE_KIND
    bint Py_UNICODE_ISSPACE(Py_UCS4 ch)
    object PyUnicode_FromKindAndData(int kind, const void* buffer, Py_ssize_t size)
    int PyUnicode_1BYTE_KIND
    int PyUnicode_KIND(object s)
    void* PyUnicode_DATA(object s)
    Py_UCS4 PyUnicode_READ(int kind, void* data, Py_ssize_t index)
    Py_ssize_t PyUnicode_GET_LENGTH(object s)

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
    K_MARK = 16       # K_MARK + n: an inline element that makes marks of kind n (fce.blocks.MARK_KINDS[n]); the
                      # kinds above are all below it, so ``kind >= K_MARK`` tells it

cdef enum:
    # mark kinds at most: the walk over parse events keeps an open element's mark kind in four bits of its flags
    MAX_MARK_KINDS = 16

# set by configure()
cdef object _block_tags = None
cdef object _skipped = None
cdef object _form_tags = None
cdef object _media_tags = None
cdef dict _upper = None
cdef dict _steps = None
cdef object _make_step = None
cdef object _block_type = None  # fce.blocks.Block
cdef object _mark_type = None  # fce.blocks.Mark
cdef object _is_hidden = None  # fce.blocks.is_hidden
cdef object _never_hidden = frozenset()  # tags never tested (html, body)
cdef bint _hidden_in_c = False  # whether the walk tests visibility itself (_hidden)
cdef bytes _aria_exception = b""  # fce.blocks.ARIA_HIDDEN_EXCEPTION, UTF-8
cdef tuple _skip_classes = ()  # fce.blocks.SKIP_LINK_CLASSES, UTF-8
cdef bytes _skip_part = b""  # fce.blocks.SKIP_LINK_NAME_PART, UTF-8, lower-case
cdef dict _mark_codes = {}  # tag -> n, for the tags of fce.blocks.MARK_TAGS but the link's (<a>: K_A)
cdef tuple _mark_kinds = ()  # fce.blocks.MARK_KINDS: the kind of a mark by its n
cdef int _link_code = -1  # the n of the link kind
cdef str _PRE = None  # fce.blocks.PREFORMATTED_TAG, interned (as tags are: compared by address)

#: The style pattern (``re.IGNORECASE | re.ASCII``) that :func:`_style_hides` implements: the walk tests
#: visibility in C only while ``fce.blocks.HIDDEN_STYLE`` is this one.
C_HIDDEN_STYLE = r"display[ \t\n\r\f]*:[ \t\n\r\f]*none|visibility[ \t\n\r\f]*:[ \t\n\r\f]*hidden"
cdef dict _kinds = {}          # tag name (bytes) -> (tag str, kind, name bytes)
cdef dict _ns_kinds = {}       # tag of an element in a namespace ("{uri}name") -> (tag str, kind, name bytes)

# (tag, kind) by the address of the node's name: libxml2's parsers intern element names in a dictionary that lxml
# shares between the documents of a thread, so a site's few dozen names come back at the same addresses page after
# page. Direct-mapped; a slot is used only when its name is still the same string, so a freed and reused address
# cannot mislead it.
DEF NAME_SLOTS = 1024

cdef struct NameSlot:
    const_xmlChar* name  # the address of the node's name
    const char* spelled  # the name, as the _kinds entry holds it
    PyObject* tag        # borrowed from the _kinds entry (they live until configure() runs again)
    int kind

cdef NameSlot _slots[NAME_SLOTS]


def configure(block_tags, skipped_tags, form_field_tags, media_tags, dict upper, dict steps, make_step, block_type,
              mark_type, is_hidden, never_hidden, Py_ssize_t path_cache_size, hidden_style, str aria_exception,
              mark_tags, tuple mark_kinds, str preformatted_tag, skip_link_classes, str skip_link_name_part):
    """Give the walk fce.blocks' tag sets, its table of upper-case path steps, its shared qualified-step cache, the
    function that fills it, the Block and Mark types, the visibility test, the tags it never applies to, the bound
    of the path cache (``fce.blocks.PATH_CACHE_SIZE``; the cache is emptied), the visibility test's style pattern
    and ARIA exception (``HIDDEN_STYLE``, ``ARIA_HIDDEN_EXCEPTION``): the walk tests visibility itself when the
    pattern is the one it implements (:data:`C_HIDDEN_STYLE`), and asks ``is_hidden`` otherwise; and the inline
    elements that make marks, tag -> kind (``MARK_TAGS``; ``a`` makes a ``link`` mark when it has an ``href``), with
    the kinds (``MARK_KINDS``), the block inside which the source of text pieces is kept
    (``PREFORMATTED_TAG``), and what makes a link a skip link (``SKIP_LINK_CLASSES``, ``SKIP_LINK_NAME_PART``)."""
    global _block_tags, _skipped, _form_tags, _media_tags, _upper, _steps, _make_step, _kinds, _block_type
    global _is_hidden, _never_hidden, _paths_limit, _hidden_in_c, _aria_exception, _ns_kinds, _mark_type
    global _mark_codes, _mark_kinds, _link_code, _PRE, _skip_classes, _skip_part
    if len(mark_kinds) > MAX_MARK_KINDS or "link" not in mark_kinds or mark_tags.get("a") != "link":
        raise ValueError(f"at most {MAX_MARK_KINDS} mark kinds, one of them 'link', the kind of 'a'")
    if (block_tags | skipped_tags) & set(mark_tags) or not set(mark_tags.values()) <= set(mark_kinds):
        raise ValueError("a tag that makes marks neither delimits blocks nor is skipped, and has a known kind")
    _mark_kinds = mark_kinds
    _PRE = sys.intern(preformatted_tag)
    _link_code = mark_kinds.index("link")
    _mark_codes = {tag: mark_kinds.index(kind) for tag, kind in mark_tags.items() if tag != "a"}
    _hidden_in_c = (getattr(hidden_style, "pattern", None) == C_HIDDEN_STYLE
                    and getattr(hidden_style, "flags", None) == _re.IGNORECASE | _re.ASCII)
    _aria_exception = aria_exception.encode("utf-8")
    _skip_classes = tuple(name.encode("utf-8") for name in sorted(skip_link_classes))
    if not skip_link_name_part or not skip_link_name_part.isascii() or skip_link_name_part.lower() != skip_link_name_part:
        raise ValueError("the skip link's name part is lower-case ASCII")
    _skip_part = skip_link_name_part.encode("ascii")
    if path_cache_size < 1:
        raise ValueError("path_cache_size must be at least 1")
    _paths_clear()
    _paths_limit = path_cache_size
    _is_hidden, _never_hidden = is_hidden, frozenset(never_hidden)
    if not (isinstance(block_type, type) and issubclass(block_type, tuple) and len(block_type._fields) == 14):
        raise TypeError("block_type must be fce.blocks.Block, a named tuple of 14 fields")
    _block_type = block_type
    if not (isinstance(mark_type, type) and issubclass(mark_type, tuple) and len(mark_type._fields) == 5):
        raise TypeError("mark_type must be fce.blocks.Mark, a named tuple of 5 fields")
    _mark_type = mark_type
    _block_tags, _skipped, _form_tags, _media_tags = block_tags, skipped_tags, form_field_tags, media_tags
    if block_tags & skipped_tags:
        raise ValueError("a tag cannot both delimit blocks and be skipped")
    _upper, _steps, _make_step = upper, steps, make_step
    memset(_slots, 0, sizeof(_slots))
    _kinds = {}
    _ns_kinds = {}


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
    elif tag in _mark_codes:
        kind = K_MARK + <int>_mark_codes[tag]
    return (sys.intern(tag), kind, tag.encode("utf-8"))  # (interned: the walk tells <pre> by its address)


cdef inline bint _same_string(const char* a, const char* b) noexcept nogil:
    """``strcmp(a, b) == 0`` inline (tag and attribute names are a few bytes long: cheaper than the call)."""
    while a[0] == b[0]:
        if a[0] == 0:
            return True
        a += 1
        b += 1
    return False


cdef inline int _kind_of(xmlNode* node, PyObject** tag) except -1:
    """The kind of an element node (``Kind``), and in ``tag`` its tag spelled as lxml spells ``el.tag``
    (``{uri}name`` in a namespace), borrowed from the table of kinds."""
    if node.ns is NULL or node.ns.href is NULL:
        return _kind_of_name(node.name, tag)
    return _kind_of_new(node, tag)


cdef inline int _kind_of_name(const_xmlChar* name, PyObject** tag) except -1:
    """:func:`_kind_of` of an element without a namespace, by its name (as libxml2's dictionary holds it)."""
    cdef NameSlot* slot = &_slots[(<uintptr_t>name >> 3) % NAME_SLOTS]
    if slot.name == name and _same_string(<const char*>name, slot.spelled):
        tag[0] = slot.tag
        return slot.kind
    return _kind_of_new_name(name, tag)


cdef int _kind_of_new(xmlNode* node, PyObject** tag) except -1:
    """:func:`_kind_of` for a name not in its slot: classified once per distinct name, then slotted."""
    cdef str full
    cdef tuple entry
    if node.ns is not NULL and node.ns.href is not NULL:
        full = "{%s}%s" % (node.ns.href.decode("utf-8"), (<bytes>node.name).decode("utf-8"))
        entry = _ns_kinds.get(full)
        if entry is None:
            entry = _ns_kinds[full] = _classify(full)
        tag[0] = <PyObject*>entry[0]
        return entry[1]
    return _kind_of_new_name(node.name, tag)


cdef int _kind_of_new_name(const_xmlChar* c_name, PyObject** tag) except -1:
    cdef bytes name = <bytes>c_name
    cdef tuple entry = _kinds.get(name)
    cdef NameSlot* slot
    if entry is None:
        entry = _kinds[name] = _classify(name.decode("utf-8"))
    slot = &_slots[(<uintptr_t>c_name >> 3) % NAME_SLOTS]
    slot.name = c_name
    slot.spelled = PyBytes_AS_STRING(<bytes>entry[2])
    slot.tag = <PyObject*>entry[0]
    slot.kind = entry[1]
    tag[0] = slot.tag
    return slot.kind


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


cdef enum:
    # indentation between tags is most of the text of a page: a whitespace-only run of at most this many bytes
    # (after the translation to spaces) comes from a table of ready strings instead of being decoded. Measured on
    # the 90 held-out msv-big9 speed pages: 55,675 of the 79,590 text runs are whitespace only, 98.9 % of them at
    # most 128 bytes long (97.3 % at most 64)
    SPACE_RUNS = 128
    # the scratch buffer of translated text is kept between runs up to this size; a larger one (a huge text run
    # with line breaks) is given back after its run, so that one such page does not keep its size allocated
    SCRATCH_KEPT = 1 << 16

cdef tuple _spaces = tuple([" " * n for n in range(SPACE_RUNS + 1)])  # n spaces, n ≤ SPACE_RUNS
cdef char* _scratch = NULL  # the translated bytes of a text run with line breaks or tabs (no Python code runs
cdef Py_ssize_t _scratch_cap = 0  # between filling and decoding it)


cdef const char* _WS_BYTES = b" \n\r\t\f\v"  # a space, then the bytes that _WS_TABLE turns into one


cdef inline bint _is_ws_byte(char c) noexcept nogil:
    """A byte that _WS_TABLE turns into a space."""
    return c == b'\n' or c == b'\r' or c == b'\t' or c == b'\f' or c == b'\v'


cdef char* _scratch_for(Py_ssize_t size) except NULL:
    global _scratch, _scratch_cap
    cdef char* grown
    if size > _scratch_cap:
        grown = <char*>realloc(_scratch, max(size, 2 * _scratch_cap))
        if grown is NULL:
            raise MemoryError()
        _scratch = grown
        _scratch_cap = max(size, 2 * _scratch_cap)
    return _scratch


cdef str _collect_text(xmlNode* node):
    """The run of text nodes starting at ``node`` (lxml's ``el.text`` / ``el.tail``), line breaks and tabs turned
    into spaces (``fce.blocks._WS_TABLE``), or None when the run is empty."""
    cdef xmlNode* first = _text_or_skip(node)
    cdef xmlNode* cur
    cdef xmlNode* after
    cdef Py_ssize_t total = 0, k, length, i
    cdef char* buf
    cdef char c
    cdef const char* src
    if first is NULL:
        return None
    after = _text_or_skip(first.next)
    if after is NULL:  # one text node (nearly always)
        if first.content is NULL:
            return None
        src = <const char*>first.content
        return _piece(src, strlen(src))
    cur = first
    while cur is not NULL:
        if cur.content is not NULL:
            total += strlen(<const char*>cur.content)
        cur = _text_or_skip(cur.next)
    if total == 0:
        return None
    buf = _scratch_for(total)
    k = 0
    cur = first
    while cur is not NULL:
        if cur.content is not NULL:
            src = <const char*>cur.content
            length = strlen(src)
            for i in range(length):
                c = src[i]
                buf[k] = b' ' if _is_ws_byte(c) else c
                k += 1
        cur = _text_or_skip(cur.next)
    try:
        return PyUnicode_DecodeUTF8(buf, total, NULL)
    finally:
        if _scratch_cap > SCRATCH_KEPT:
            _scratch_release()


cdef str _source_text(xmlNode* node):
    """The run of text nodes starting at ``node`` as written (:func:`_collect_text` without the translation of
    line breaks and tabs): what a ``<pre>`` shows."""
    cdef list contents = []
    node = _text_or_skip(node)
    while node is not NULL:
        if node.content is not NULL:
            contents.append(<bytes>node.content)
        node = _text_or_skip(node.next)
    return b"".join(contents).decode("utf-8")


cdef str _piece(const char* src, Py_ssize_t length):
    """The text piece of one text node's content (``length`` bytes of UTF-8 followed by a NUL, none among them):
    line breaks and tabs turned into spaces, or None when it is empty. A run of whitespace alone comes from the
    table of ready strings."""
    cdef Py_ssize_t i
    cdef char* buf
    cdef char c
    if length == 0:
        return None
    if <Py_ssize_t>strspn(src, _WS_BYTES) == length:  # only whitespace: as many spaces
        if length <= SPACE_RUNS:
            return <str>(<tuple>_spaces)[length]
    elif <Py_ssize_t>strcspn(src, _WS_BYTES + 1) == length:  # nothing to translate
        return PyUnicode_DecodeUTF8(src, length, NULL)
    buf = _scratch_for(length)
    for i in range(length):
        c = src[i]
        buf[i] = b' ' if _is_ws_byte(c) else c
    try:
        return PyUnicode_DecodeUTF8(buf, length, NULL)
    finally:
        if _scratch_cap > SCRATCH_KEPT:
            _scratch_release()


cdef void _scratch_release() noexcept:
    global _scratch, _scratch_cap
    free(_scratch)
    _scratch = NULL
    _scratch_cap = 0


cdef class _ElementOf:
    """Python proxies of nodes, for the rare cases the walk asks lxml: an attribute value split over several nodes,
    and the visibility test (``fce.blocks.is_hidden``) of an element with a ``style``, ``hidden`` or
    ``aria-hidden`` attribute."""
    cdef cetree._Document doc
    cdef bytes joined  # the last href split over several nodes, as lxml joins it (UTF-8; :func:`_href`)

    def __cinit__(self, cetree._Element root):
        self.doc = root._doc

    cdef object proxy(self, xmlNode* node):
        return cetree.elementFactory(self.doc, node)


# -- the qualified-path cache ---------------------------------------------------------------------------------------
# A block's path is its parent's path, ".", and its step (``fce.blocks._UPPER[tag]``, or in the qualified style
# ``fce.blocks._qualified_step((tag, id, class))``). The pages of a site repeat the same few hundred paths, so the
# path itself is cached, keyed by the parent's path object and the raw bytes libxml2 holds for the tag name, ``id``
# and ``class``: a block whose path is known costs one hash of those bytes — no id/class decoded to str, no key
# tuple, no string concatenation. Every cached path object is the parent of its children's keys, so a site's paths
# are shared objects. An entry holds a reference to its parent path, so a parent's address cannot be reused while
# an entry names it. Open addressing, never deleting but all at once: at most ``fce.blocks.PATH_CACHE_SIZE``
# entries (cleared when full, as the step cache is).

cdef struct PathEntry:
    PyObject* parent     # the parent block's path (a held reference); NULL: the slot is empty
    PyObject* path       # a held reference
    char* key            # the qualified flag, the tag name, id and class as libxml2 holds them (malloc'd)
    Py_ssize_t key_len
    uint64_t hash

cdef PathEntry* _paths_table = NULL
cdef Py_ssize_t _paths_cap = 0      # a power of two, or 0 before the first entry
cdef Py_ssize_t _paths_count = 0
cdef Py_ssize_t _paths_limit = 0    # fce.blocks.PATH_CACHE_SIZE, from configure()
cdef char* _key = NULL              # the key of the block being looked up
cdef Py_ssize_t _key_cap = 0

cdef enum:
    # slots first allocated, 40 KB (grown ×2 whenever half full: a site's ~1,200 paths take 4,096 slots)
    PATHS_FIRST_CAP = 1024
    # key bytes after the tag name: an absent attribute, or a value (terminated by NUL, which libxml2's strings
    # cannot hold)
    KEY_ABSENT = 1
    KEY_VALUE = 2


cdef void _paths_clear() noexcept:
    global _paths_count
    cdef Py_ssize_t i
    for i in range(_paths_cap):
        if _paths_table[i].parent is not NULL:
            Py_DECREF(<object>_paths_table[i].parent)
            Py_DECREF(<object>_paths_table[i].path)
            free(_paths_table[i].key)
    if _paths_cap:
        memset(_paths_table, 0, _paths_cap * sizeof(PathEntry))
    _paths_count = 0


cdef inline uint64_t _hash_key(PyObject* parent, const char* key, Py_ssize_t length) noexcept nogil:
    """A multiply-xorshift hash of the key, eight bytes at a time, started from the parent's address."""
    cdef uint64_t h = (<uint64_t><uintptr_t>parent) * 0x9E3779B97F4A7C15ULL, word
    cdef Py_ssize_t i = 0
    while i + 8 <= length:
        memcpy(&word, key + i, 8)
        h = (h ^ word) * 0xFF51AFD7ED558CCDULL
        h ^= h >> 32
        i += 8
    word = <uint64_t>length << 56
    memcpy(&word, key + i, length - i)  # the last 0–7 bytes, below the length byte
    h = (h ^ word) * 0xC4CEB9FE1A85EC53ULL
    return h ^ (h >> 29)


cdef inline PyObject* _paths_find(PyObject* parent, const char* key, Py_ssize_t length, uint64_t h) noexcept:
    """The cached path (borrowed) or NULL."""
    cdef Py_ssize_t i
    cdef PathEntry* e
    if _paths_cap == 0:
        return NULL
    i = <Py_ssize_t>(h & <uint64_t>(_paths_cap - 1))
    while True:
        e = &_paths_table[i]
        if e.parent is NULL:
            return NULL
        if e.hash == h and e.parent == parent and e.key_len == length and memcmp(e.key, key, length) == 0:
            return e.path
        i = (i + 1) & (_paths_cap - 1)


cdef int _paths_grow() except -1:
    global _paths_table, _paths_cap
    cdef Py_ssize_t cap = 2 * _paths_cap if _paths_cap else PATHS_FIRST_CAP, i, j
    cdef PathEntry* table = <PathEntry*>calloc(cap, sizeof(PathEntry))
    if table is NULL:
        raise MemoryError()
    for i in range(_paths_cap):
        if _paths_table[i].parent is not NULL:
            j = <Py_ssize_t>(_paths_table[i].hash & <uint64_t>(cap - 1))
            while table[j].parent is not NULL:
                j = (j + 1) & (cap - 1)
            table[j] = _paths_table[i]
    free(_paths_table)
    _paths_table, _paths_cap = table, cap
    return 0


cdef int _paths_add(PyObject* parent, char* key, Py_ssize_t length, uint64_t h, str path) except -1:
    """Cache ``path`` under (parent, key); takes ownership of ``key`` (malloc'd)."""
    global _paths_count
    cdef Py_ssize_t i
    if _paths_find(parent, key, length, h) is not NULL:  # added meanwhile (make_step ran Python code)
        free(key)
        return 0
    if _paths_count >= _paths_limit:
        _paths_clear()
    if 2 * (_paths_count + 1) > _paths_cap:
        try:
            _paths_grow()
        except MemoryError:
            free(key)
            raise
    i = <Py_ssize_t>(h & <uint64_t>(_paths_cap - 1))
    while _paths_table[i].parent is not NULL:
        i = (i + 1) & (_paths_cap - 1)
    Py_INCREF(<object>parent)
    Py_INCREF(path)
    _paths_table[i].parent = parent
    _paths_table[i].path = <PyObject*>path
    _paths_table[i].key = key
    _paths_table[i].key_len = length
    _paths_table[i].hash = h
    _paths_count += 1
    return 0


cdef char* _key_room(Py_ssize_t size) except NULL:
    """``_key`` with room for ``size`` bytes."""
    global _key, _key_cap
    cdef char* grown
    if size > _key_cap:
        grown = <char*>realloc(_key, max(size, 2 * _key_cap, 256))
        if grown is NULL:
            raise MemoryError()
        _key = grown
        _key_cap = max(size, 2 * _key_cap, 256)
    return _key


cdef inline bint _attr_text(xmlAttr* attr, const char** value) noexcept:
    """The value of an attribute held as one text node (or as none, ""), in ``value``; False when it is split over
    several nodes (then lxml joins them)."""
    cdef xmlNode* child = attr.children
    value[0] = b""
    if child is NULL:
        return True
    if child.next is not NULL or not _is_text(child):
        return False
    if child.content is not NULL:
        value[0] = <const char*>child.content
    return True


cdef inline char* _put_value(char* at, const char* value, Py_ssize_t length) noexcept:
    """Write an attribute to a key: KEY_ABSENT, or KEY_VALUE, the value and its NUL. Returns the end."""
    if value is NULL:
        at[0] = KEY_ABSENT
        return at + 1
    at[0] = KEY_VALUE
    memcpy(at + 1, value, length + 1)
    return at + length + 2


cdef str _path_of(str parent, xmlNode* node, str tag, bint qualified, _ElementOf owner):
    """The path of a block element under a block whose path is ``parent`` (from the cache, or made and cached)."""
    cdef const char* ident = NULL  # NULL: absent
    cdef const char* classes = NULL
    cdef const char* attr_name
    cdef bint cacheable = True
    cdef xmlAttr* attr
    cdef str step
    if qualified:  # the first id and class attributes without a namespace, as lxml's el.get finds them
        attr = node.properties
        while attr is not NULL:
            if attr.ns is NULL:
                attr_name = <const char*>attr.name
                if ident is NULL and attr_name[0] == b'i' and _same_string(attr_name, b"id"):
                    cacheable = _attr_text(attr, &ident)
                elif classes is NULL and attr_name[0] == b'c' and _same_string(attr_name, b"class"):
                    cacheable = _attr_text(attr, &classes)
                if not cacheable:
                    break
            attr = attr.next
    if cacheable:
        return _path_from(parent, <const char*>node.name, ident, classes, tag, qualified)
    # a value split over several nodes (lxml joins them): made, not cached
    triple = (tag, _attr_value(node, b"id", owner), _attr_value(node, b"class", owner))
    step = _steps.get(triple)
    if step is None:
        step = _make_step(triple)
    return sys.intern(parent + "." + step)


cdef str _path_from(str parent, const char* name, const char* ident, const char* classes, str tag,
                    bint qualified):
    """The path of a block named ``name`` (with, for qualified paths, its id and class values; NULL: absent)
    under a block whose path is ``parent``: from the cache, or made and cached."""
    cdef Py_ssize_t length, name_len = strlen(name), id_len = 0, class_len = 0
    cdef char* at
    cdef uint64_t h = 0
    cdef PyObject* found
    cdef char* key
    cdef str step, path
    if ident is not NULL:
        id_len = strlen(ident)
    if classes is not NULL:
        class_len = strlen(classes)
    # the key: the style, the tag name and its NUL, then (qualified) id and class as _put_value writes them
    at = _key_room(name_len + id_len + class_len + 6)
    at[0] = qualified
    memcpy(at + 1, name, name_len + 1)
    at += name_len + 2
    if qualified:
        at = _put_value(at, ident, id_len)
        at = _put_value(at, classes, class_len)
    length = at - _key
    h = _hash_key(<PyObject*>parent, _key, length)
    found = _paths_find(<PyObject*>parent, _key, length, h)
    if found is not NULL:
        return <str>found
    key = <char*>malloc(length)  # copied before any Python code runs (another thread could reuse _key)
    if key is NULL:
        raise MemoryError()
    memcpy(key, _key, length)
    try:
        if qualified:
            triple = (tag, None if ident is NULL else PyUnicode_DecodeUTF8(ident, id_len, NULL),
                      None if classes is NULL else PyUnicode_DecodeUTF8(classes, class_len, NULL))
            step = _steps.get(triple)
            if step is None:
                step = _make_step(triple)
        else:
            step = _upper[tag]
        # interned: a template's paths are interned too (fce.detect.Detector), so that looking a block's path up in
        # them compares two pointers, not the strings (and does not pull the template's strings into the cache)
        path = sys.intern(parent + "." + step)
    except BaseException:
        free(key)
        raise
    _paths_add(<PyObject*>parent, key, length, h, path)
    return path


def path_cache_size():
    """(entries, bound) of the path cache, for the tests."""
    return _paths_count, _paths_limit


# -- the walk ---------------------------------------------------------------------------------------------------------

cdef struct BlockInfo:
    Py_ssize_t parent
    Py_ssize_t depth
    Py_ssize_t n_children
    Py_ssize_t n_parts   # text pieces and sub-blocks
    Py_ssize_t n_texts   # text pieces
    Py_ssize_t part_start  # the parts of the block and of its sub-blocks, at any depth, are the builder's parts
    Py_ssize_t part_end    # [part_start, part_end): the walk appends them while the block is open
    Py_ssize_t end       # one past the block's last descendant (0 while the block is open)
    Py_ssize_t mark_start  # the marks of the block and of its sub-blocks are the builder's marks
    Py_ssize_t mark_end    # [mark_start, mark_end): the walk appends them while the block is open
    long counts[6]  # links, images, scripts, forms, iframes, link_chars (fce.blocks.Block's count fields)
    bint pre        # the block is a <pre> or inside one: its text pieces' source is kept where it has line breaks
    bint breaks     # a line break (<br>: a "\n" text piece) among its parts


cdef enum:
    # marks and bytes of hrefs first allocated (then doubled): on the 90 held-out msv-big9 speed pages a page has
    # 224 marks (median; 464 at the 90th percentile) and 10.5 KB of hrefs (18.6 KB), so most pages grow each once
    FIRST_MARKS = 256
    FIRST_HREF_BYTES = 8192


cdef struct MarkInfo:  # fce.blocks.Mark
    Py_ssize_t block
    Py_ssize_t at        # the block's parts before the mark
    Py_ssize_t href      # where the link's href starts in the builder's href bytes (NUL-terminated); -1: none
    int kind             # fce.blocks.MARK_KINDS[kind]
    bint opens


cdef struct Part:
    Py_ssize_t owner     # the block whose parts it is in
    PyObject* text       # a text piece (a reference held by the builder), or NULL: the sub-block ``child``
    Py_ssize_t child


cdef class _Builder:
    """The walk's growing C arrays: one BlockInfo per block, the parts of all blocks in document order (their
    text pieces referenced), and the paths and tags of the blocks."""
    cdef BlockInfo* items
    cdef Py_ssize_t size, cap
    cdef Part* parts
    cdef Py_ssize_t n_parts, parts_cap
    cdef list paths, tags
    cdef list indices  # list(range(size)), made on first use (_indices)
    cdef list kids     # per block the tuple of its sub-blocks, made on first use (children)
    cdef list own      # per block its own text, made on first use (texts)
    # the marks (fce.blocks.Mark) in document order, and the hrefs of the links, copied as bytes: decoding them
    # (a str per link, a few hundred a page) would cost the walk more than all of its marks; they are decoded when
    # the marks are read (for the few blocks a structured output renders)
    cdef MarkInfo* marks_
    cdef Py_ssize_t n_marks, marks_cap
    cdef char* hrefs
    cdef Py_ssize_t hrefs_len, hrefs_cap
    cdef list raw      # (block, part, source text) of the pieces inside a <pre> whose source has line breaks or tabs
    # the text of each <script> whose attributes name application/ld+json, in document order (fce.metadata reads
    # them instead of searching the page's text for them; set by the event walk, None on the tree walk)
    cdef readonly list linked_data

    def __cinit__(self):
        self.cap = 256
        self.items = <BlockInfo*>malloc(self.cap * sizeof(BlockInfo))
        self.parts_cap = 1024
        self.parts = <Part*>malloc(self.parts_cap * sizeof(Part))
        if self.items is NULL or self.parts is NULL:
            raise MemoryError()
        self.paths = []
        self.tags = []

    def __dealloc__(self):
        cdef Py_ssize_t i
        if self.parts is not NULL:
            for i in range(self.n_parts):
                if self.parts[i].text is not NULL:
                    Py_DECREF(<object>self.parts[i].text)
        free(self.parts)
        free(self.items)
        free(self.marks_)
        free(self.hrefs)

    cdef Part* _part(self, Py_ssize_t owner) except NULL:
        cdef Part* grown
        cdef Part* part
        if self.n_parts == self.parts_cap:
            grown = <Part*>realloc(self.parts, 2 * self.parts_cap * sizeof(Part))
            if grown is NULL:
                raise MemoryError()
            self.parts = grown
            self.parts_cap *= 2
        part = &self.parts[self.n_parts]
        part.owner = owner
        part.text = NULL
        self.n_parts += 1
        self.items[owner].n_parts += 1
        return part

    cdef int text(self, Py_ssize_t owner, str text) except -1:
        """Append a text piece to the parts of block ``owner``."""
        self._part(owner).text = <PyObject*>text
        Py_INCREF(text)
        self.items[owner].n_texts += 1
        return 0

    cdef Py_ssize_t add(self, Py_ssize_t parent, str path, str tag) except -1:
        """Append a block under ``parent`` (-1: the root) to the blocks and to its parent's parts; its index."""
        cdef BlockInfo* grown
        cdef BlockInfo* info
        cdef Py_ssize_t idx = self.size
        if self.size == self.cap:
            grown = <BlockInfo*>realloc(self.items, 2 * self.cap * sizeof(BlockInfo))
            if grown is NULL:
                raise MemoryError()
            self.items = grown
            self.cap *= 2
        info = &self.items[idx]
        memset(info, 0, sizeof(BlockInfo))
        info.parent = parent
        info.pre = <PyObject*>tag == <PyObject*>_PRE  # (tags are interned)
        self.size += 1
        if parent >= 0:
            info.depth = self.items[parent].depth + 1
            info.pre |= self.items[parent].pre
            self.items[parent].n_children += 1
            self._part(parent).child = idx
        info.part_start = self.n_parts  # (_part grows the parts array only: ``info`` still points into items)
        info.mark_start = self.n_marks
        self.paths.append(path)
        self.tags.append(tag)
        return idx

    cdef inline void close(self, Py_ssize_t idx) noexcept:
        """The end of block ``idx``: its sub-blocks and parts are all in."""
        self.items[idx].part_end = self.n_parts
        self.items[idx].mark_end = self.n_marks
        self.items[idx].end = self.size

    cdef inline int mark(self, Py_ssize_t block, int kind, bint opens, const char* href) except -1:
        """Append a mark of ``kind`` that opens or closes here, among the parts of ``block``; ``href``: a link's
        (NUL-terminated UTF-8, copied), or NULL."""
        cdef MarkInfo* grown
        cdef MarkInfo* m
        cdef Py_ssize_t length
        cdef char* more
        if self.n_marks == self.marks_cap:
            self.marks_cap = 2 * self.marks_cap if self.marks_cap else FIRST_MARKS
            grown = <MarkInfo*>realloc(self.marks_, self.marks_cap * sizeof(MarkInfo))
            if grown is NULL:
                raise MemoryError()
            self.marks_ = grown
        m = &self.marks_[self.n_marks]
        m.block = block
        m.at = self.items[block].n_parts
        m.kind = kind
        m.opens = opens
        m.href = -1
        if href is not NULL:
            length = strlen(href) + 1
            if self.hrefs_len + length > self.hrefs_cap:
                self.hrefs_cap = max(2 * self.hrefs_cap, self.hrefs_len + length, FIRST_HREF_BYTES)
                more = <char*>realloc(self.hrefs, self.hrefs_cap)
                if more is NULL:
                    raise MemoryError()
                self.hrefs = more
            memcpy(self.hrefs + self.hrefs_len, href, length)
            m.href = self.hrefs_len
            self.hrefs_len += length
        self.n_marks += 1
        return 0

    cdef int source(self, Py_ssize_t block, str piece, str source) except -1:
        """Keep the source of the text piece just appended to ``block`` (inside a ``<pre>``) where it differs from
        the piece (line breaks and tabs, which the piece has as spaces)."""
        if source != piece:
            if self.raw is None:
                self.raw = []
            self.raw.append((block, self.items[block].n_parts - 1, source))
        return 0

    def marks(self, Py_ssize_t index, only, bint links=True):
        """``fce.blocks.BlockTree.marks``: the marks of block ``index`` and its sub-blocks (of those in ``only``
        but ``index``, when given; without the links' unless ``links``), in document order, as ``fce.blocks.Mark``
        values, allocated as ``tuple.__new__(Mark, row)`` allocates them (as :func:`_freeze` makes the blocks).
        Those of the subtree are the marks appended while its root was open: no other is read."""
        cdef Py_ssize_t k, end
        cdef MarkInfo* m
        cdef list out = []
        cdef list indices = self._indices()
        cdef _TypeAlloc* mark_type = <_TypeAlloc*><PyObject*>_mark_type
        cdef PyObject* raw
        cdef object mark
        if index < 0 or index >= self.size:
            raise IndexError(index)
        end = self.items[index].end
        for k in range(self.items[index].mark_start, self.items[index].mark_end):
            m = &self.marks_[k]
            if index <= m.block < end and (links or m.kind != _link_code) and (
                    only is None or m.block == index or <object>PyList_GET_ITEM(indices, m.block) in only):
                raw = mark_type.tp_alloc(mark_type, 5)
                if raw is NULL:
                    raise MemoryError()
                mark = <object>raw
                Py_DECREF(mark)  # (``mark`` holds the reference tp_alloc returned)
                _set(mark, 0, <object>PyList_GET_ITEM(indices, m.block))
                _set(mark, 1, m.at)
                _set(mark, 2, <object>PyTuple_GET_ITEM(_mark_kinds, m.kind))
                _set(mark, 3, True if m.opens else False)
                _set(mark, 4, None if m.href < 0 else PyUnicode_DecodeUTF8(self.hrefs + m.href,
                                                                           strlen(self.hrefs + m.href), NULL))
                out.append(mark)
        return out

    def preformatted(self, Py_ssize_t index):
        """``fce.blocks.BlockTree.preformatted``: (block, part) -> source text, for block ``index``'s subtree."""
        cdef Py_ssize_t end
        if index < 0 or index >= self.size:
            raise IndexError(index)
        end = self.items[index].end
        return {(k, at): text for k, at, text in self.raw or () if index <= k < end}

    def block_parts(self, Py_ssize_t index):
        """``fce.blocks.BlockTree.parts``: the parts of block ``index`` (``Block.parts``), made without the blocks:
        its stretch of the builder's parts, each sub-block's passed over by jumping to its end."""
        cdef Py_ssize_t k, stop, n = 0, c
        cdef Part* part
        cdef list indices = self._indices()
        if index < 0 or index >= self.size:
            raise IndexError(index)
        out = PyTuple_New(self.items[index].n_parts)
        k = self.items[index].part_start
        stop = self.items[index].part_end
        while k < stop:
            part = &self.parts[k]
            if part.text is not NULL:
                _set(out, n, <object>part.text)
                k += 1
            else:
                c = part.child
                _set(out, n, <object>PyList_GET_ITEM(indices, c))
                k = self.items[c].part_end
            n += 1
        return out

    def line_breaks(self, Py_ssize_t index, only):
        """``fce.blocks.BlockTree.line_breaks``: the blocks of block ``index``'s subtree (of those in ``only`` but
        ``index``, when given) with a line break (``<br>``: a ``"\\n"`` text piece; no other piece is one, the walk
        turns a text's line breaks into spaces) among their parts, in document order: the walk noted them."""
        cdef Py_ssize_t k, end
        cdef list out = []
        cdef list indices = self._indices()
        if index < 0 or index >= self.size:
            raise IndexError(index)
        end = self.items[index].end
        for k in range(index, end):
            if self.items[k].breaks and (only is None or k == index or <object>PyList_GET_ITEM(indices, k) in only):
                out.append(<object>PyList_GET_ITEM(indices, k))
        return out

    # -- the tree column-wise (fce.blocks.BlockTree over a compiled segmentation) --------------------------------

    def __len__(self):
        return self.size

    def blocks(self):
        """The Block tuples (``fce.blocks.BlockTree.blocks``), built now."""
        return _freeze(self)

    cdef list _indices(self):
        """``list(range(size))``, made once: a block's index is one int object wherever it appears."""
        if self.indices is None:
            self.indices = list(range(self.size))
        return self.indices

    def columns(self):
        """``(paths, tags, parents, depths, ends, text_lengths, commas, link_chars)`` — ``fce.blocks.Columns``: the
        builder's lists of paths and tags, an ``array('l')`` of each integer field (filled in C: no int object per
        block). A text length is that of the block's own text (``len(Block.text)``), counted without building it."""
        cdef Py_ssize_t n = self.size, i
        cdef array.array parents = array.clone(_LONGS, n, zero=False), depths = array.clone(_LONGS, n, zero=False)
        cdef array.array ends = array.clone(_LONGS, n, zero=False), link_chars = array.clone(_LONGS, n, zero=False)
        cdef array.array lengths = array.clone(_LONGS, n, zero=False), commas = array.clone(_LONGS, n, zero=False)
        cdef BlockInfo* info
        cdef Py_ssize_t* counted = <Py_ssize_t*>calloc(2 * n + 1, sizeof(Py_ssize_t))
        if counted is NULL:
            raise MemoryError()
        try:
            _own_text_counts(self, counted, counted + n)
            for i in range(n):
                info = &self.items[i]
                parents.data.as_longs[i] = info.parent
                depths.data.as_longs[i] = info.depth
                ends.data.as_longs[i] = info.end
                lengths.data.as_longs[i] = counted[i]
                commas.data.as_longs[i] = counted[n + i]
                link_chars.data.as_longs[i] = info.counts[5]
        finally:
            free(counted)
        return self.paths, self.tags, parents, depths, ends, lengths, commas, link_chars

    def texts(self):
        """Per block its own text (``Block.text``: :func:`_own_text` of its text pieces), made once; the blocks
        built later hold the same strings. Without a parts tuple per block: the text pieces are grouped by block
        (a counting sort of their positions) into one array that :func:`_own_text` reads a block's stretch of."""
        cdef Py_ssize_t n = self.size, k, i, at
        cdef Py_ssize_t* start
        cdef PyObject** pieces
        cdef list out
        cdef _Scratch scratch
        if self.own is not None:
            return self.own
        out = [""] * n
        start = <Py_ssize_t*>malloc((n + 1) * sizeof(Py_ssize_t))
        pieces = <PyObject**>malloc((self.n_parts + 1) * sizeof(PyObject*))  # borrowed from the parts
        scratch.buf = NULL
        scratch.cap = 0
        if start is NULL or pieces is NULL:
            free(start)
            free(pieces)
            raise MemoryError()
        try:
            at = 0
            for i in range(n):  # block i's text pieces go to pieces[start[i]:start[i] + n_texts]
                start[i] = at
                at += self.items[i].n_texts
            for k in range(self.n_parts):  # (start[i] advances while filling, and is moved back below)
                if self.parts[k].text is not NULL:
                    i = self.parts[k].owner
                    pieces[start[i]] = self.parts[k].text
                    start[i] += 1
            for i in range(n):
                if self.items[i].n_texts:
                    start[i] -= self.items[i].n_texts
                    out[i] = _own_text(&pieces[start[i]], self.items[i].n_texts, &scratch)
        finally:
            free(start)
            free(pieces)
            free(scratch.buf)
        self.own = out
        return out

    def count_rows(self, tuple positions):
        """Per block the tuple of its counts at ``positions`` (indices into ``Block``'s count fields, ``n_links``
        … ``link_chars``: 0–5); one shared tuple for the blocks whose counts there are all 0 (most of them)."""
        cdef Py_ssize_t n = self.size, i, j, m = len(positions)
        cdef int* at = <int*>malloc((m + 1) * sizeof(int))
        cdef tuple row
        cdef bint zero
        cdef list out
        if at is NULL:
            raise MemoryError()
        try:
            for j in range(m):
                at[j] = positions[j]
                if at[j] < 0 or at[j] > 5:
                    raise ValueError(f"a count position is 0-5, not {at[j]}")
            zeros = (0,) * m
            out = [zeros] * n
            for i in range(n):
                zero = True
                for j in range(m):
                    if self.items[i].counts[at[j]]:
                        zero = False
                        break
                if zero:
                    continue
                row = PyTuple_New(m)
                for j in range(m):
                    _set(row, j, self.items[i].counts[at[j]])
                out[i] = row
        finally:
            free(at)
        return out

    def child_indices(self, Py_ssize_t index):
        """The tuple of block ``index``'s sub-blocks (``children()[index]``), made alone: a sub-block's next sibling
        is its subtree's end, so this reads only the sub-blocks, and code that needs a few blocks' children does not
        make every block's."""
        cdef Py_ssize_t n, j, k
        cdef list indices
        cdef tuple out
        if index < 0 or index >= self.size:
            raise IndexError(index)
        if self.kids is not None:
            return <object>PyList_GET_ITEM(self.kids, index)
        n = self.items[index].n_children
        if n == 0:
            return ()
        indices = self.indices  # (None until the blocks or all children are made: then ints are made here)
        out = PyTuple_New(n)
        j = index + 1
        for k in range(n):
            _set(out, k, <object>PyList_GET_ITEM(indices, j) if indices is not None else j)
            j = self.items[j].end
        return out

    def children(self):
        """Per block, the tuple of its sub-blocks' indices (``Block.children``), made once: the blocks built by
        :meth:`blocks` hold the same tuples. They hold only ints, so the cyclic GC need not track them."""
        cdef Py_ssize_t n = self.size, i, up
        cdef list indices, out
        cdef Py_ssize_t* fill
        if self.kids is not None:
            return self.kids
        indices = self._indices()
        out = [()] * n
        fill = <Py_ssize_t*>calloc(n + 1, sizeof(Py_ssize_t))
        if fill is NULL:
            raise MemoryError()
        try:
            for i in range(n):
                if self.items[i].n_children:
                    out[i] = PyTuple_New(self.items[i].n_children)
            for i in range(1, n):  # sub-blocks in document order: indices ascend
                up = self.items[i].parent
                _set(<object>PyList_GET_ITEM(out, up), fill[up], <object>PyList_GET_ITEM(indices, i))
                fill[up] += 1
            for i in range(n):
                if self.items[i].n_children:
                    PyObject_GC_UnTrack(PyList_GET_ITEM(out, i))
        finally:
            free(fill)
        self.kids = out
        return out

    def pieces(self, Py_ssize_t index, keep, list visited, inline_tags):
        """``fce.blocks.BlockTree.pieces``: the text pieces of block ``index`` with its sub-blocks in document
        order, a line break around every non-inline block; sub-blocks whose index ``keep`` refuses are left out
        (with theirs); the indices of the blocks whose text went in appended to ``visited`` (when not None)."""
        return self._pieces(index, keep, visited, inline_tags)

    cdef list _pieces(self, Py_ssize_t index, keep, list visited, inline_tags):
        """:meth:`pieces`: one pass over the builder's parts from the block's first to its last: those of a block
        and its sub-blocks are contiguous (appended while it was open), so a refused sub-block is passed over by
        jumping to its end."""
        cdef list out = []
        cdef list indices = self.indices  # None: ints made here (the shared list is made with blocks or children)
        cdef list tags = self.tags
        cdef Py_ssize_t k, stop, c, top = 0
        cdef Part* part
        cdef Py_ssize_t* stack
        cdef str sep
        if index < 0 or index >= self.size:
            raise IndexError(index)
        stack = <Py_ssize_t*>malloc((self.items[index].end - index + 1) * sizeof(Py_ssize_t))
        if stack is NULL:
            raise MemoryError()
        try:
            if visited is not None:
                visited.append(<object>PyList_GET_ITEM(indices, index) if indices is not None else index)
            sep = "" if <object>PyList_GET_ITEM(tags, index) in inline_tags else "\n"
            out.append(sep)
            stack[0] = index
            k = self.items[index].part_start
            stop = self.items[index].part_end
            while k < stop:
                while self.items[stack[top]].part_end <= k:  # blocks whose parts are all out: their closing break
                    out.append("" if <object>PyList_GET_ITEM(tags, stack[top]) in inline_tags else "\n")
                    top -= 1
                part = &self.parts[k]
                if part.text is not NULL:
                    out.append(<object>part.text)
                    k += 1
                    continue
                c = part.child
                if keep is not None and not keep(<object>PyList_GET_ITEM(indices, c) if indices is not None else c):
                    k = self.items[c].part_end
                    continue
                if visited is not None:
                    visited.append(<object>PyList_GET_ITEM(indices, c) if indices is not None else c)
                out.append("" if <object>PyList_GET_ITEM(tags, c) in inline_tags else "\n")
                top += 1
                stack[top] = c
                k = self.items[c].part_start
            while top >= 0:
                out.append("" if <object>PyList_GET_ITEM(tags, stack[top]) in inline_tags else "\n")
                top -= 1
        finally:
            free(stack)
        return out


cdef enum:  # what _enter says of an element that is not a block
    ENTERED = 0   # its children are walked
    PASSED = 1    # not entered (skipped: script, form field, media, …); its end comes at once, its tail is kept
    LINKED = 2    # entered, and a link opens (an <a href>)


cdef inline int _enter(_Builder b, Py_ssize_t current, int kind, const char* href) except -1:
    """The counts, text and mark an element of ``kind`` that is not a block adds to block ``current`` as it
    starts, and whether it is entered (fce.blocks.segment_element's branches, in their order; ``href``: an
    ``<a>``'s, NULL when it has none). Shared by the walk over the tree and the walk over parse events."""
    if kind == K_SCRIPT:
        b.items[current].counts[2] += 1
        return PASSED
    if kind == K_FORM:
        b.items[current].counts[3] += 1
        return PASSED
    if kind == K_MEDIA:
        b.items[current].counts[1] += 1
        return PASSED
    if kind == K_SKIP:
        return PASSED
    if kind == K_A:
        if href is not NULL:  # <a name=…> is an anchor, not a link
            b.items[current].counts[0] += 1
            b.mark(current, _link_code, True, href)
            return LINKED
    elif kind >= K_MARK:
        b.mark(current, kind - K_MARK, True, NULL)
    elif kind == K_IMG:
        b.items[current].counts[1] += 1
    elif kind == K_INPUT:
        b.items[current].counts[3] += 1
    elif kind == K_BR:
        b.text(current, "\n")
        b.items[current].breaks = True
    return ENTERED


def segment(cetree._Element root, bint qualified):
    """The segmentation of ``fce.blocks.segment_element(root, …)`` for an element root, as the walk left it: the
    object ``fce.blocks.BlockTree`` reads column-wise and turns into ``Block`` tuples only when asked."""
    return _walk(root, qualified)


cdef _Builder _walk(cetree._Element root, bint qualified):
    cdef xmlNode* top = root._c_node
    cdef xmlNode* node
    cdef xmlNode* up
    cdef _Builder b = _Builder()
    cdef Py_ssize_t current, idx, link_depth = 0
    cdef int kind, entered
    cdef str tag, text
    cdef PyObject* tagp
    cdef _ElementOf owner = _ElementOf(root)

    current = b.add(-1, "HTML", "html")
    text = _collect_text(top.children)
    if text is not None:
        b.text(current, text)
    node = _next_element(top.children)
    up = top
    while True:
        if node is NULL:
            # the end of ``up``: all of its children have been walked
            kind = _kind_of(up, &tagp)
            if kind == K_BLOCK:
                if current == 0:
                    break  # the document root's end: its tail is not in the page
                b.close(current)
                current = b.items[current].parent  # the block that was open when this one opened
            elif kind == K_A and link_depth and _attr_present(up, b"href"):
                link_depth -= 1
                b.mark(current, _link_code, False, NULL)
            elif kind >= K_MARK and up is not top:  # (the root's start made no mark: its end makes none)
                b.mark(current, kind - K_MARK, False, NULL)
            _tail(b, up, current, link_depth)
            if up is top:
                break
            node = _next_element(up.next)
            up = up.parent
            continue
        kind = _kind_of(node, &tagp)
        tag = <str>tagp  # a reference of its own (Python code may run below)
        if node.properties is not NULL and _hides(node, tag, kind == K_A, owner):
            # not shown (fce.blocks.is_hidden): neither text nor counts; its tail is kept
            _tail(b, node, current, link_depth)
            node = _next_element(node.next)
            continue
        if kind == K_BLOCK:
            idx = b.add(current, _path_of(<str>b.paths[current], node, tag, qualified, owner), tag)
            if tag == "iframe":
                b.items[idx].counts[4] = 1
            current = idx
        else:
            entered = _enter(b, current, kind, _href(node, owner) if kind == K_A else NULL)
            if entered == PASSED:  # not entered; its end comes at once (its tail is kept)
                _tail(b, node, current, link_depth)
                node = _next_element(node.next)
                continue
            if entered == LINKED:
                link_depth += 1
        text = _collect_text(node.children)
        if text is not None:
            b.text(current, text)
            if b.items[current].pre:
                b.source(current, text, _source_text(node.children))
            if link_depth:
                b.items[current].counts[5] += _collapsed_len(text)
        up = node  # enter the element
        node = _next_element(node.children)
    while current >= 0:  # the document root, and any block the walk ended inside of
        b.close(current)
        current = b.items[current].parent
    return b


cdef inline int _tail(_Builder b, xmlNode* node, Py_ssize_t current, Py_ssize_t link_depth) except -1:
    cdef str text = _collect_text(node.next)
    if text is not None:
        b.text(current, text)
        if b.items[current].pre:
            b.source(current, text, _source_text(node.next))
        if link_depth:
            b.items[current].counts[5] += _collapsed_len(text)
    return 0


cdef inline void _set(object tup, Py_ssize_t i, object value) noexcept:
    """Fill slot ``i`` of a new tuple (PyTuple_SET_ITEM steals the reference it is given)."""
    Py_INCREF(value)
    PyTuple_SET_ITEM(tup, i, value)


def new_tuple(type cls, tuple items):
    """``tuple.__new__(cls, items)`` for a subclass ``cls`` of tuple (a named tuple: a node of the structured
    output), allocated as :func:`_freeze` allocates the blocks (the type's ``tp_alloc``, filled in place), without
    the call through ``tuple.__new__``'s wrapper and its checks (a call of that cost thrice the allocation)."""
    cdef Py_ssize_t k, n = len(items)
    cdef _TypeAlloc* alloc
    cdef PyObject* raw
    cdef object out
    if not PyType_IsSubtype(cls, tuple):
        raise TypeError(f"{cls.__name__} is not a subclass of tuple")
    alloc = <_TypeAlloc*><PyObject*>cls
    raw = alloc.tp_alloc(alloc, n)
    if raw is NULL:
        raise MemoryError()
    out = <object>raw
    Py_DECREF(out)  # (``out`` holds the reference tp_alloc returned)
    for k in range(n):
        _set(out, k, <object>PyTuple_GET_ITEM(items, k))
    return out


cdef tuple _freeze(_Builder b):
    """The Block tuples. Each is allocated as ``tuple.__new__(Block, row)`` allocates it (the type's ``tp_alloc``)
    and filled in place, without the row tuple; its ``children`` tuple is the builder's (:meth:`_Builder.children`)
    and its ``parts`` tuple is allocated at its final size and filled from the walk's array, its ``text`` the
    builder's (:meth:`_Builder.texts`); a block's index is one int object wherever it appears."""
    cdef Py_ssize_t n = b.size, i, j, owner
    cdef BlockInfo* info
    cdef Part* part
    cdef _TypeAlloc* block_type = <_TypeAlloc*><PyObject*>_block_type
    cdef PyObject* raw
    cdef object block, item
    cdef tuple out = PyTuple_New(n)
    cdef list indices = b._indices()
    cdef list kids = b.children()
    cdef list paths = b.paths, tags = b.tags
    cdef list texts = b.texts()
    cdef Py_ssize_t* fill = <Py_ssize_t*>calloc(n + 1, sizeof(Py_ssize_t))  # parts filled, per block
    cdef PyObject** own = <PyObject**>malloc((n + 1) * sizeof(PyObject*))   # borrowed parts tuples
    if fill is NULL or own is NULL:
        free(fill)
        free(own)
        raise MemoryError()
    try:
        for i in range(n):
            info = &b.items[i]
            raw = block_type.tp_alloc(block_type, 14)
            if raw is NULL:
                raise MemoryError()
            PyTuple_SET_ITEM(out, i, <object>raw)  # ``out`` owns the reference tp_alloc returned
            block = <object>raw
            PyObject_GC_UnTrack(raw)  # see below
            _set(block, 0, <object>PyList_GET_ITEM(indices, i))
            _set(block, 1, <object>PyList_GET_ITEM(paths, i))
            _set(block, 2, <object>PyList_GET_ITEM(tags, i))
            _set(block, 3, <object>PyList_GET_ITEM(indices, info.parent) if info.parent >= 0 else -1)
            _set(block, 4, info.depth)
            _set(block, 5, <object>PyList_GET_ITEM(kids, i))
            item = PyTuple_New(info.n_parts)
            own[i] = <PyObject*>item
            _set(block, 6, item)
            for j in range(6):
                _set(block, 8 + j, info.counts[j])
        for i in range(b.n_parts):
            part = &b.parts[i]
            owner = part.owner
            if part.text is not NULL:
                item = <object>part.text
            else:
                item = <object>PyList_GET_ITEM(indices, part.child)
            _set(<object>own[owner], fill[owner], item)
            fill[owner] += 1
        for i in range(n):
            _set(<object>PyTuple_GET_ITEM(out, i), 7, <object>PyList_GET_ITEM(texts, i))
            # a block holds only strings, ints and tuples of them: it can never be part of a reference cycle, so
            # the cyclic GC need not track it (CPython untracks such tuples itself, at its next collection)
            PyObject_GC_UnTrack(own[i])
        PyObject_GC_UnTrack(<PyObject*>out)
    finally:
        free(fill)
        free(own)
    return out


# -- own text ---------------------------------------------------------------------------------------------------------

cdef struct _Scratch:
    void* buf
    Py_ssize_t cap  # bytes


ctypedef fused _char:
    Py_UCS1
    Py_UCS2
    Py_UCS4


cdef bint _latin1_space[256]  # Py_UNICODE_ISSPACE of U+0000…U+00FF, filled at import
cdef int _c
for _c in range(256):
    _latin1_space[_c] = Py_UNICODE_ISSPACE(_c) != 0  # (0 or 1: the counts add it)


cdef inline bint _ready_spaces(object piece) noexcept:
    """Whether a text piece is one of the ready whitespace runs of :func:`_collect_text` (spaces only; not the
    empty string, which is ``_spaces[0]`` too)."""
    cdef Py_ssize_t length = PyUnicode_GET_LENGTH(piece)
    return 0 < length <= SPACE_RUNS and PyTuple_GET_ITEM(_spaces, length) == <PyObject*>piece


cdef Py_ssize_t _collapsed_len(str text) noexcept:
    """``len(" ".join(text.split()))`` without building it: the characters of the words and one per gap
    (:func:`_count_piece` of ``text`` alone)."""
    cdef Py_ssize_t n = 0, commas = 0
    cdef char in_word = 0
    cdef int kind = PyUnicode_KIND(text)
    if _ready_spaces(text):
        return 0
    if kind == PyUnicode_1BYTE_KIND:
        _count_piece(<Py_UCS1*>PyUnicode_DATA(text), PyUnicode_GET_LENGTH(text), &in_word, &n, &commas)
    elif kind == PyUnicode_2BYTE_KIND:
        _count_piece(<Py_UCS2*>PyUnicode_DATA(text), PyUnicode_GET_LENGTH(text), &in_word, &n, &commas)
    else:
        _count_piece(<Py_UCS4*>PyUnicode_DATA(text), PyUnicode_GET_LENGTH(text), &in_word, &n, &commas)
    return n


cdef Py_ssize_t _collapse(_char* buf, PyObject** parts, Py_ssize_t count, bint lines) noexcept:
    """Write the text pieces among the ``count`` objects at ``parts`` to ``buf`` with whitespace runs collapsed to
    one space and none at either end; a space is written only when a non-space follows it. With ``lines``, a line
    break ends a line (each line collapsed so, an empty one left out; a line break last where the last line was not
    empty), else it is whitespace as any other. Returns the length written."""
    cdef Py_ssize_t n = 0, line_start = 0, i, k, length
    cdef unsigned int pending = 0, space, word
    cdef int kind
    cdef void* data
    cdef Py_UCS1* latin1
    cdef Py_UCS4 ch
    cdef object piece
    for k in range(count):
        piece = <object>parts[k]
        if type(piece) is not str:
            continue
        if _ready_spaces(piece):
            pending = n > line_start
            continue
        kind = PyUnicode_KIND(piece)
        data = PyUnicode_DATA(piece)
        latin1 = <Py_UCS1*>data
        length = PyUnicode_GET_LENGTH(piece)
        for i in range(length):
            if kind == PyUnicode_1BYTE_KIND:  # (the compiler takes this test out of the loop)
                ch = latin1[i]
                space = _latin1_space[ch]
            else:
                ch = PyUnicode_READ(kind, data, i)
                space = Py_UNICODE_ISSPACE(ch) != 0
            if lines and ch == 10:  # "\n": the line ends; an empty one leaves nothing
                pending = 0
                if n > line_start:
                    buf[n] = 10
                    n += 1
                    line_start = n
                continue
            # Without a branch on the character (one on every space was mispredicted every few characters, as in
            # _count_piece): a word's character is written after the space pending before it, if any; both are
            # written anyway, and kept by moving on past them. Neither write goes past the pieces' length: a space
            # kept was paid for by a whitespace character not written.
            word = space ^ 1
            buf[n] = 32
            n += pending & word
            buf[n] = <_char>ch
            n += word
            pending = space & (n > line_start)
    return n


cdef bint _collapsed(str text) noexcept:
    """Whether ``" ".join(text.split())`` is ``text`` itself: no whitespace but single spaces between words."""
    cdef int kind = PyUnicode_KIND(text)
    cdef void* data = PyUnicode_DATA(text)
    cdef Py_UCS1* latin1 = <Py_UCS1*>data
    cdef Py_ssize_t i, length = PyUnicode_GET_LENGTH(text)
    cdef Py_UCS4 ch
    cdef bint after_space = True  # a space at the start is not collapsed
    for i in range(length):
        ch = latin1[i] if kind == PyUnicode_1BYTE_KIND else PyUnicode_READ(kind, data, i)
        if ch == 32:
            if after_space:
                return False
            after_space = True
        elif (_latin1_space[ch] if ch < 256 else Py_UNICODE_ISSPACE(ch)):
            return False
        else:
            after_space = False
    return not after_space


cdef str _own_text(PyObject** parts, Py_ssize_t count, _Scratch* scratch):
    """A block's own text from the ``count`` objects at ``parts`` (its text pieces, and sub-block indices, which are
    passed over): the pieces joined, whitespace collapsed to single spaces and stripped —
    ``" ".join("".join(pieces).split())`` (``str.split()`` splits on ``Py_UNICODE_ISSPACE``, as here). Ready
    whitespace runs (:func:`_collect_text`) only separate words; when one other piece remains and it is already
    collapsed, it is the text itself; otherwise the text is written in the narrowest kind of string its pieces
    have. ``scratch`` is a buffer reused from block to block (freed by the caller)."""
    cdef Py_ssize_t total = 0, n, size, others = 0, spaces = 0
    cdef int kind = PyUnicode_1BYTE_KIND, piece_kind
    cdef object piece
    cdef str single = None
    cdef void* grown
    cdef Py_ssize_t k
    for k in range(count):
        piece = <object>parts[k]
        if type(piece) is not str:
            continue
        if _ready_spaces(piece):
            spaces += 1
            continue
        others += 1
        single = <str>piece
        total += PyUnicode_GET_LENGTH(piece)
        piece_kind = PyUnicode_KIND(piece)
        if piece_kind > kind:
            kind = piece_kind
    if others == 0:
        return ""
    if others == 1 and _collapsed(single):
        return single
    size = (total + spaces) * kind  # each ready run writes at most one space
    if size > scratch.cap:
        grown = realloc(scratch.buf, max(size, 2 * scratch.cap))
        if grown is NULL:
            raise MemoryError()
        scratch.buf = grown
        scratch.cap = max(size, 2 * scratch.cap)
    if kind == PyUnicode_1BYTE_KIND:
        n = _collapse(<Py_UCS1*>scratch.buf, parts, count, False)
    elif kind == PyUnicode_2BYTE_KIND:
        n = _collapse(<Py_UCS2*>scratch.buf, parts, count, False)
    else:
        n = _collapse(<Py_UCS4*>scratch.buf, parts, count, False)
    return PyUnicode_FromKindAndData(kind, scratch.buf, n) if n else ""


cdef int _own_text_counts(_Builder b, Py_ssize_t* lengths, Py_ssize_t* commas) except -1:
    """Per block, ``len(own text)`` and ``own text.count(",")`` (:func:`_own_text`) without building the texts: one
    pass over all text pieces in document order, each block's pieces fed to its own count (whitespace runs are one
    space between words, none at either end: a space is counted when a word follows it)."""
    cdef Py_ssize_t n = b.size, k, o
    cdef char* in_word = <char*>calloc(n + 1, 1)
    cdef Part* part
    cdef object piece
    cdef int kind
    if in_word is NULL:
        raise MemoryError()
    try:
        for k in range(b.n_parts):
            part = &b.parts[k]
            if part.text is NULL:
                continue
            o = part.owner
            piece = <object>part.text
            if _ready_spaces(piece):
                in_word[o] = 0  # a whitespace run (most pieces): it only ends the word before it
                continue
            kind = PyUnicode_KIND(piece)
            if kind == PyUnicode_1BYTE_KIND:
                _count_piece(<Py_UCS1*>PyUnicode_DATA(piece), PyUnicode_GET_LENGTH(piece), &in_word[o],
                             &lengths[o], &commas[o])
            elif kind == PyUnicode_2BYTE_KIND:
                _count_piece(<Py_UCS2*>PyUnicode_DATA(piece), PyUnicode_GET_LENGTH(piece), &in_word[o],
                             &lengths[o], &commas[o])
            else:
                _count_piece(<Py_UCS4*>PyUnicode_DATA(piece), PyUnicode_GET_LENGTH(piece), &in_word[o],
                             &lengths[o], &commas[o])
    finally:
        free(in_word)
    return 0


cdef inline void _count_piece(_char* data, Py_ssize_t length, char* in_word, Py_ssize_t* count,
                              Py_ssize_t* commas) noexcept:
    """One piece's part of :func:`_own_text_counts` for its block (``in_word``: the block's last character so far
    was a non-space), read as the characters it is stored as. Without a branch per character (a branch on every
    space was mispredicted every few characters: the count took 1 ns a character): the piece's non-space
    characters, its word starts (a non-space after a space, or after the block's last character if that was a
    space) and its commas are summed, and the block's length grows by the non-spaces and one space before each
    word but its first."""
    cdef Py_ssize_t i, nonspace = 0, starts = 0, c = 0
    cdef unsigned int space, before = not in_word[0]  # whether the character before is a space (or none)
    cdef Py_UCS4 ch
    for i in range(length):
        ch = data[i]
        if _char is Py_UCS1:
            space = _latin1_space[ch]
        else:
            space = _latin1_space[ch] if ch < 256 else (Py_UNICODE_ISSPACE(ch) != 0)
        nonspace += space ^ 1
        starts += before & (space ^ 1)
        c += ch == 44  # ","
        before = space
    if starts:
        count[0] += nonspace + starts - (count[0] == 0)  # (the block's first word has no space before it)
    else:
        count[0] += nonspace
    commas[0] += c
    in_word[0] = not before


def own_texts(list parts):
    """Own text of every block given its parts (:func:`_own_text`), for the tests."""
    cdef list out = []
    cdef _Scratch scratch
    cdef tuple block_parts
    scratch.buf = NULL
    scratch.cap = 0
    try:
        for p in parts:
            block_parts = tuple(p)
            out.append(_own_text(PySequence_Fast_ITEMS(block_parts), len(block_parts), &scratch))
    finally:
        free(scratch.buf)
    return out


cdef bint _hides(xmlNode* node, str tag, bint anchor, _ElementOf owner) except -1:
    """``fce.blocks.is_hidden`` of an element with attributes (``tag not in never_hidden`` first); ``anchor``: it is
    an ``<a>``."""
    cdef int hidden
    if _hidden_in_c:
        hidden = _hidden(node, anchor)
        if hidden == 0:
            return False
        if tag in _never_hidden:
            return False
        if hidden == 1:
            return True
    elif not (anchor or _may_hide(node)) or tag in _never_hidden:
        return False
    return _is_hidden(owner.proxy(node))  # the pattern is not C_HIDDEN_STYLE, or a value is split over nodes


cdef enum:  # which attribute of those fce.blocks.is_hidden reads (_visibility_attr)
    V_NONE = 0
    V_HIDDEN = 1   # hidden
    V_ARIA = 2     # aria-hidden
    V_STYLE = 3    # style
    V_CLASS = 4    # class
    V_HREF = 5     # href (a skip link's)
    V_ID = 6       # id (a skip link's)
    V_COUNT = 7


cdef inline int _visibility_attr(const char* name) noexcept:
    """Which of the attributes ``fce.blocks.is_hidden`` reads ``name`` is (``V_…``)."""
    if name[0] == b'h':
        if _same_string(name, b"hidden"):
            return V_HIDDEN
        return V_HREF if _same_string(name, b"href") else V_NONE
    if name[0] == b'i':
        return V_ID if _same_string(name, b"id") else V_NONE
    if name[0] == b'a':
        return V_ARIA if _same_string(name, b"aria-hidden") else V_NONE
    if name[0] == b's':
        return V_STYLE if _same_string(name, b"style") else V_NONE
    if name[0] == b'c':
        return V_CLASS if _same_string(name, b"class") else V_NONE
    return V_NONE


cdef int _hidden_by(const char* aria, const char* classes, const char* style) noexcept:
    """``fce.blocks.is_hidden`` of an element without a ``hidden`` attribute, from the values of its first
    ``aria-hidden``, ``class`` and ``style`` attributes (NULL: absent): ``aria-hidden="true"`` unless the class
    holds the ARIA exception; a style matching :data:`C_HIDDEN_STYLE`."""
    if aria is not NULL and strcmp(aria, b"true") == 0:
        if strstr(classes if classes is not NULL else _EMPTY, <const char*>_aria_exception) is NULL:
            return 1
    if style is not NULL:
        return _style_hides(style)
    return 0


cdef int _skip_link(const char* href, const char* ident, const char* classes) noexcept:
    """``fce.blocks.is_skip_link``: a link within the page (``href`` ``#`` and more) with a class name of
    ``SKIP_LINK_CLASSES`` (class tokens: runs of anything but HTML's ASCII whitespace), or an id or class holding ``SKIP_LINK_NAME_PART`` (ASCII case-insensitively)."""
    cdef const char* name
    cdef const char* p
    cdef const char* end
    cdef Py_ssize_t n
    if href is NULL or href[0] != b'#' or href[1] == 0:
        return 0
    if classes is not NULL:
        p = classes
        while True:
            p += strspn(p, b" \t\n\f\r")
            if p[0] == 0:
                break
            n = strcspn(p, b" \t\n\f\r")
            for item in _skip_classes:
                name = <const char*>PyBytes_AS_STRING(item)
                if <Py_ssize_t>strlen(name) == n and memcmp(p, name, n) == 0:
                    return 1
            p += n
    return _holds_part(ident) or _holds_part(classes)


cdef inline int _holds_part(const char* p) noexcept:
    """Whether the value ``p`` (NULL: absent) holds ``SKIP_LINK_NAME_PART``, ASCII case-insensitively."""
    cdef const char* part = <const char*>_skip_part
    if p is NULL:
        return 0
    while p[0] != 0:
        if (p[0] | 0x20) == part[0] and _word(p, part) is not NULL:
            return 1
        p += 1
    return 0


cdef int _hidden(xmlNode* node, bint anchor) noexcept:
    """``fce.blocks.is_hidden`` in C: 1 hidden, 0 shown, -1 to be asked of Python (a value it needs is split over
    several nodes). Hidden: a ``hidden`` attribute, or what :func:`_hidden_by` finds, or, for an ``<a>``
    (``anchor``), what :func:`_skip_link` finds. Attributes in a namespace do not count (lxml's ``el.get(name)``);
    the first of a name does."""
    cdef xmlAttr* attr = node.properties
    cdef xmlAttr* found[V_COUNT]
    cdef const char* values[V_COUNT]
    cdef int which, k, hidden
    memset(found, 0, sizeof(found))
    while attr is not NULL:
        if attr.ns is NULL:
            which = _visibility_attr(<const char*>attr.name)
            if which == V_HIDDEN:
                return 1
            if which != V_NONE and found[which] is NULL:
                found[which] = attr
        attr = attr.next
    for k in range(V_ARIA, (V_ID if anchor else V_CLASS) + 1):
        values[k] = NULL
        if found[k] is not NULL and not _attr_text(found[k], &values[k]):
            return -1
    hidden = _hidden_by(values[V_ARIA], values[V_CLASS], values[V_STYLE])
    if hidden or not anchor:
        return hidden
    return _skip_link(values[V_HREF], values[V_ID], values[V_CLASS])


cdef inline const char* _css_space(const char* p) noexcept:
    """Past ``[ \t\n\r\f]*``."""
    while p[0] == b' ' or p[0] == b'\t' or p[0] == b'\n' or p[0] == b'\r' or p[0] == b'\f':
        p += 1
    return p


cdef inline const char* _word(const char* p, const char* word) noexcept:
    """Past ``word`` (lower-case ASCII letters) matched ASCII case-insensitively at ``p``, or NULL. ``c | 0x20`` is
    a lower-case letter only for the letters of either case (and UTF-8's bytes of non-ASCII characters are all
    ≥ 0x80), so this is ``re.IGNORECASE | re.ASCII``."""
    while word[0] != 0:
        if (p[0] | 0x20) != word[0]:
            return NULL
        p += 1
        word += 1
    return p


cdef inline bint _declares(const char* p, const char* prop, const char* value) noexcept:
    """Whether ``prop[ \t\n\r\f]*:[ \t\n\r\f]*value`` matches at ``p``."""
    p = _word(p, prop)
    if p is NULL:
        return False
    p = _css_space(p)
    if p[0] != b':':
        return False
    return _word(_css_space(p + 1), value) is not NULL


cdef bint _style_hides(const char* style) noexcept:
    """``HIDDEN_STYLE.search(style) is not None`` for :data:`C_HIDDEN_STYLE`, over the value's UTF-8 bytes."""
    cdef const char* p = style
    cdef char c
    while p[0] != 0:
        c = p[0] | 0x20
        if c == b'd' and _declares(p, b"display", b"none"):
            return True
        if c == b'v' and _declares(p, b"visibility", b"hidden"):
            return True
        p += 1
    return False


cdef inline bint _may_hide(xmlNode* node) noexcept:
    """Whether the element has one of the attributes fce.blocks.is_hidden reads (``style``, ``hidden``,
    ``aria-hidden``): only then is the Python test asked (when the walk does not test visibility itself)."""
    cdef xmlAttr* attr = node.properties
    cdef const char* name
    while attr is not NULL:
        if attr.ns is NULL:
            name = <const char*>attr.name
            if _same_string(name, b"style") or _same_string(name, b"hidden") or _same_string(name, b"aria-hidden"):
                return True
        attr = attr.next
    return False


cdef const char* _href(xmlNode* node, _ElementOf owner) except? NULL:
    """The ``href`` of an ``<a>`` as lxml's ``el.get("href")`` reads it (UTF-8, valid until the next call), or
    NULL when it has none."""
    cdef xmlAttr* attr = node.properties
    cdef const char* value
    while attr is not NULL:
        if attr.ns is NULL and _same_string(<const char*>attr.name, b"href"):
            if _attr_text(attr, &value):
                return value
            owner.joined = (<str>_attr_value(node, b"href", owner)).encode("utf-8")  # lxml joins the nodes
            return owner.joined
        attr = attr.next
    return NULL


cdef inline bint _attr_present(xmlNode* node, const char* name) noexcept:
    cdef xmlAttr* attr = node.properties
    while attr is not NULL:
        if attr.ns is NULL and _same_string(<const char*>attr.name, name):
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

def join_pieces(pieces):
    """``fce.blocks.join_pieces``: the pieces joined, whitespace runs inside each line collapsed to one space
    (``str.split()``'s whitespace, ``Py_UNICODE_ISSPACE``), lines stripped, empty lines dropped. Written in the
    narrowest kind of string the pieces have, each piece read where it lies (no joined copy first); one piece
    that is already collapsed, with no line break, among empty ones and line breaks is the text itself."""
    return _join_pieces(pieces if type(pieces) is list else list(pieces))


def render_block(_Builder builder, keep, inline_tags, Py_ssize_t index):
    """``fce.blocks.BlockTree.render`` of block ``index`` without ``visited``: its pieces joined, in one call (the
    block last, for ``functools.partial`` to bind the rest: ``fce.blocks.BlockTree.renderer``)."""
    return _join_pieces(builder._pieces(index, keep, None, inline_tags))


cdef str _join_pieces(list items):
    """:func:`join_pieces` of a list."""
    cdef Py_ssize_t count = len(items), total = 0, n, k, length, texts = 0
    cdef int kind = PyUnicode_1BYTE_KIND, piece_kind
    cdef object piece
    cdef PyObject* text = NULL
    cdef void* buf
    cdef PyObject** at = PySequence_Fast_ITEMS(items)
    for k in range(count):
        piece = <object>at[k]
        if type(piece) is not str:
            raise TypeError(f"sequence item {k}: expected str instance, {type(piece).__name__} found")
        length = PyUnicode_GET_LENGTH(piece)
        total += length
        piece_kind = PyUnicode_KIND(piece)
        if piece_kind > kind:
            kind = piece_kind
        if length > 1 or (length == 1 and PyUnicode_READ(piece_kind, PyUnicode_DATA(piece), 0) != 10):
            texts += 1  # (a piece that is neither "" nor a line break)
            text = at[k]
    if total == 0:
        return ""
    # one piece among line breaks, already collapsed, is the text itself: the render of a paragraph of one text
    # piece (between the line breaks that bound its block), and a run of one piece
    if texts == 1 and _collapsed(<str>text):
        return <str>text
    buf = malloc(total * kind)
    if buf is NULL:
        raise MemoryError()
    try:
        if kind == PyUnicode_1BYTE_KIND:
            n = _collapse(<Py_UCS1*>buf, at, count, True)
            if n and (<Py_UCS1*>buf)[n - 1] == 10:
                n -= 1
        elif kind == PyUnicode_2BYTE_KIND:
            n = _collapse(<Py_UCS2*>buf, at, count, True)
            if n and (<Py_UCS2*>buf)[n - 1] == 10:
                n -= 1
        else:
            n = _collapse(<Py_UCS4*>buf, at, count, True)
            if n and (<Py_UCS4*>buf)[n - 1] == 10:
                n -= 1
        return PyUnicode_FromKindAndData(kind, buf, n) if n else ""
    finally:
        free(buf)


# -- segmentation from the parser's events, without a tree (segment_bytes) -------------------------------------------
#
# libxml2's HTML parser builds its tree from the events it gives its SAX handler: an element's start (with its
# attributes), its end, and runs of characters. Given the same events, the walk above can be made as they come, and
# the tree never built or freed (building and freeing it was ~0.45 of lxml's parse; the parse without them ~0.43×).
# The events do not depend on the tree: with and without it, they were the same on all 1,972 evaluation pages.
#
# What the tree adds that the walk reads is reproduced from the events: an element's children are the elements
# started between its start and its end (an end closes the element open last, whatever its name: libxml2's tree
# builder pops its current node), and its text runs are the characters between two element events (the tree
# builder joins them into one text node; NUL bytes end a node's content, as C strings do). The repairs parse_page
# makes to some trees are not reproduced: a page that would need one (a <noframes>, a body left in <head>), or that
# libxml2's tree builder would have stopped (too deep: the parser alone does not), is given back to the tree path.

cdef extern from "libxml/parser.h":
    ctypedef void (*_start_f)(void*, const_xmlChar*, const_xmlChar**) noexcept
    ctypedef void (*_end_f)(void*, const_xmlChar*) noexcept
    ctypedef void (*_chars_f)(void*, const_xmlChar*, int) noexcept
    ctypedef void (*_doc_f)(void*) noexcept
    ctypedef void (*_subset_f)(void*, const_xmlChar*, const_xmlChar*, const_xmlChar*) noexcept
    ctypedef struct _Sax "xmlSAXHandler":
        _subset_f internalSubset
        _doc_f startDocument
        _doc_f endDocument
        _start_f startElement
        _end_f endElement
        _chars_f characters
        _chars_f ignorableWhitespace
        void* processingInstruction
        void* comment
        void* cdataBlock
    ctypedef struct _Ctxt "xmlParserCtxt":
        _Sax* sax
        void* _private

cdef extern from "libxml/xmlerror.h":
    ctypedef struct _Error "xmlError":
        int code
        char* message

ctypedef _Ctxt* (*_new_ctxt_f)() noexcept
ctypedef void* (*_read_memory_f)(_Ctxt*, const char*, int, const char*, const char*, int) noexcept
ctypedef void (*_free_ctxt_f)(_Ctxt*) noexcept
ctypedef void (*_free_doc_f)(void*) noexcept
ctypedef void (*_stop_f)(_Ctxt*) noexcept
ctypedef void (*_error_f)(void*, const _Error*) noexcept
ctypedef void (*_set_error_f)(_Ctxt*, _error_f, void*) noexcept

cdef _new_ctxt_f _new_ctxt = NULL
cdef _read_memory_f _read_memory = NULL
cdef _free_ctxt_f _free_ctxt = NULL
cdef _free_doc_f _free_doc = NULL
cdef _stop_f _stop_parser = NULL
cdef _set_error_f _set_error_handler = NULL

#: The libxml2 versions (major, minor) on which the events were checked to build lxml's trees (see above and
#: tests/test_blocks.py); on another one, segment_bytes gives every page back to the tree path.
SAX_LIBXML2_VERSIONS = ((2, 14),)

#: The parse options of fce's lxml parser (fce.parse._parser: recover, no network, compact text nodes, no default
#: doctype, huge_tree), as libxml2 takes them.
DEF _OPTIONS = 1 | 2048 | 65536 | 4 | 0x80000

#: The message of libxml2's error for a tree deeper than it accepts (fce.parse._DEPTH_ERROR).
cdef const char* _DEPTH_ERROR = b"Excessive depth"

#: libxml2's tree builder stops a tree at 2,048 open elements (with huge_tree); without the tree the parser goes
#: on, so the walk gives a page back (to parse_page's tree path, which flattens it) at this many, a little before.
DEF _MAX_OPEN = 2000

# the walk's open elements, as flags
DEF F_BLOCK = 1   # a block: its end closes the current block
DEF F_LINK = 2    # an <a href>: its end ends a link
DEF F_MARK = 4    # an element that makes marks: its end closes one, of the kind in the bits from MARK_SHIFT up
DEF MARK_SHIFT = 3
#: The JSON-LD scripts kept for fce.metadata: as many as it reads (fce.metadata.JSON_LD_MAX_SCRIPTS), each up to
#: four bytes a character of its JSON_LD_MAX_CHARS (a longer one is dropped, as fce.metadata skips a longer one).
DEF LINKED_DATA_MAX_SCRIPTS = 24
DEF LINKED_DATA_MAX_BYTES = 4 * 1024 * 1024 + 4


def _bind_libxml2():
    """libxml2's functions, from lxml's own copy of it (the wheels link it into ``lxml.etree``): True when all
    are there and the version is one of :data:`SAX_LIBXML2_VERSIONS`."""
    global _new_ctxt, _read_memory, _free_ctxt, _free_doc, _stop_parser, _set_error_handler
    if tuple(_etree.LIBXML_VERSION[:2]) not in SAX_LIBXML2_VERSIONS:
        return False
    try:
        import ctypes

        lib = ctypes.CDLL(_etree.__file__)
        address = {name: ctypes.cast(getattr(lib, name), ctypes.c_void_p).value for name in (
            "htmlNewParserCtxt", "htmlCtxtReadMemory", "htmlFreeParserCtxt", "xmlFreeDoc", "xmlStopParser",
            "xmlCtxtSetErrorHandler")}
    except (OSError, AttributeError, ImportError):
        return False
    if not all(address.values()):
        return False
    _new_ctxt = <_new_ctxt_f><uintptr_t>address["htmlNewParserCtxt"]
    _read_memory = <_read_memory_f><uintptr_t>address["htmlCtxtReadMemory"]
    _free_ctxt = <_free_ctxt_f><uintptr_t>address["htmlFreeParserCtxt"]
    _free_doc = <_free_doc_f><uintptr_t>address["xmlFreeDoc"]
    _stop_parser = <_stop_f><uintptr_t>address["xmlStopParser"]
    _set_error_handler = <_set_error_f><uintptr_t>address["xmlCtxtSetErrorHandler"]
    return True


#: Whether :func:`segment_bytes` can run here (libxml2's functions found, a checked version).
SAX_AVAILABLE = _bind_libxml2()


cdef int _append(char** buf, Py_ssize_t* used, Py_ssize_t* cap, const_xmlChar* ch, int length,
                 Py_ssize_t spare) except -1:
    """``ch[:length]`` appended to the buffer ``*buf`` (``*used`` bytes of ``*cap``), grown (doubled) where it would
    leave less than ``spare`` bytes after it."""
    cdef char* grown
    cdef Py_ssize_t size
    if used[0] + length + spare > cap[0]:
        size = max(2 * cap[0], used[0] + length + spare)
        grown = <char*>realloc(buf[0], size)
        if grown is NULL:
            raise MemoryError()
        buf[0] = grown
        cap[0] = size
    memcpy(buf[0] + used[0], ch, length)
    used[0] += length
    return 0


cdef class _EventWalk:
    """One parser context (a thread's) and the state of the walk over one page's events."""
    cdef _Ctxt* ctxt
    cdef _Builder b
    cdef bint qualified
    cdef Py_ssize_t current, link_depth
    cdef char* flags          # per open element (the root first): F_BLOCK, F_LINK, F_MARK and its kind
    cdef Py_ssize_t depth, flags_cap
    cdef Py_ssize_t skip      # open elements inside a skipped one (the skipped one included); 0: walking
    cdef bint started, done   # the root has started; it has ended (the rest of the page is not in it)
    cdef char* text           # the characters since the last element event
    cdef Py_ssize_t text_len, text_cap
    cdef bint give_back       # the page needs the tree path
    cdef bint long_tag        # ... because a start tag has more than max_attributes attributes
    cdef Py_ssize_t max_attributes
    cdef object error         # an exception raised inside a callback
    # what parse_page's repair of a body left in <head> looks at: whether the root's first <head> is open, has
    # been seen, and holds an element that may not stay in a head (fce.page.HEAD_TAGS); whether the root has a
    # <body> or a <frameset>
    cdef bint in_head, head_seen, head_foreign, body_seen
    # a JSON-LD script being read (its characters go to ``script``, whatever else reads them), and those read
    cdef bint in_script
    cdef char* script
    cdef Py_ssize_t script_len, script_cap
    cdef list linked

    def __cinit__(self):
        self.ctxt = _new_ctxt()
        if self.ctxt is NULL:
            raise MemoryError()
        self.ctxt.sax.startElement = _on_start
        self.ctxt.sax.endElement = _on_end
        self.ctxt.sax.characters = _on_characters
        self.ctxt.sax.ignorableWhitespace = _on_ignorable  # (as lxml's tree builder: dropped)
        self.ctxt.sax.comment = NULL  # remove_comments, remove_pis, no CDATA nodes (lxml's parser settings)
        self.ctxt.sax.processingInstruction = NULL
        self.ctxt.sax.cdataBlock = NULL
        self.ctxt.sax.startDocument = NULL  # no document, no DTD node
        self.ctxt.sax.endDocument = NULL
        self.ctxt.sax.internalSubset = NULL
        _set_error_handler(self.ctxt, _on_error, <void*>self)
        self.flags_cap = 256
        self.flags = <char*>malloc(self.flags_cap)
        self.text_cap = 4096
        self.text = <char*>malloc(self.text_cap)
        self.script_cap = 4096
        self.script = <char*>malloc(self.script_cap)
        if self.flags is NULL or self.text is NULL or self.script is NULL:
            raise MemoryError()

    def __dealloc__(self):
        if self.ctxt is not NULL:
            _free_ctxt(self.ctxt)
        free(self.flags)
        free(self.text)
        free(self.script)

    cdef _Builder run(self, bytes data, bint qualified):
        cdef void* doc
        self.b = _Builder()
        self.qualified = qualified
        self.current = -1
        self.link_depth = self.depth = self.skip = self.text_len = 0
        self.started = self.done = self.give_back = self.long_tag = False
        self.in_head = self.head_seen = self.head_foreign = self.body_seen = False
        self.in_script = False
        self.script_len = 0
        self.linked = []
        self.error = None
        self.ctxt._private = <void*>self
        try:
            doc = _read_memory(self.ctxt, PyBytes_AS_STRING(data), len(data), NULL, b"UTF-8", _OPTIONS)
            if doc is not NULL:
                _free_doc(doc)
        finally:
            self.ctxt._private = NULL
            if self.text_cap > SCRATCH_KEPT:  # a huge text run: its buffer is not kept for the thread's next page
                free(self.text)
                self.text_cap = 4096
                self.text = <char*>malloc(self.text_cap)
                if self.text is NULL:
                    raise MemoryError()
            if self.script_cap > SCRATCH_KEPT:
                free(self.script)
                self.script_cap = 4096
                self.script = <char*>malloc(self.script_cap)
                if self.script is NULL:
                    raise MemoryError()
        if self.error is not None:
            error, self.error = self.error, None
            raise error
        if self.give_back or not self.started or (self.head_foreign and not self.body_seen):
            self.b = None
            return None
        self._flush()
        while self.current >= 0:  # the root, and any block the parse ended inside of
            self.b.close(self.current)
            self.current = self.b.items[self.current].parent
        if self.in_script:  # the page ended inside the script
            self._end_script()
        self.b.linked_data = self.linked
        b, self.b = self.b, None
        return b

    cdef int _flush(self) except -1:
        """The characters since the last element event, as a text piece of the current block."""
        cdef Py_ssize_t length
        cdef str piece
        if self.text_len == 0:
            return 0
        self.text[self.text_len] = 0  # (room kept for it: see characters)
        length = strnlen(self.text, self.text_len)  # (a NUL ends a text node's content)
        self.text_len = 0
        piece = _piece(self.text, length)
        if piece is not None:
            self.b.text(self.current, piece)
            if self.b.items[self.current].pre:
                self.b.source(self.current, piece, PyUnicode_DecodeUTF8(self.text, length, NULL))
            if self.link_depth:
                self.b.items[self.current].counts[5] += _collapsed_len(piece)
        return 0

    cdef int _push(self, char flags) except -1:
        cdef char* grown
        if self.depth == self.flags_cap:
            grown = <char*>realloc(self.flags, 2 * self.flags_cap)
            if grown is NULL:
                raise MemoryError()
            self.flags = grown
            self.flags_cap *= 2
        self.flags[self.depth] = flags
        self.depth += 1
        return 0

    cdef int start(self, const_xmlChar* name, const_xmlChar** atts) except -1:
        cdef PyObject* tagp
        cdef int kind
        cdef str tag
        cdef Py_ssize_t idx
        cdef int entered
        cdef char flags = 0
        if atts is not NULL and _count_atts(atts) > self.max_attributes:
            # libxml2's tree builder is quadratic in a tag's attributes: the text is cut first (fce.parse); after
            # the root's end too, where the tree builder still adds the element (to the body)
            self.give_back = self.long_tag = True
            _stop_parser(self.ctxt)
            return 0
        if self.done:
            return 0
        if atts is not NULL and _same_string(<const char*>name, b"script") and _names_linked_data(atts):
            self.in_script = True
            self.script_len = 0
        if _same_string(<const char*>name, b"noframes") or self.depth + self.skip >= _MAX_OPEN:
            # parse_page may parse a <noframes>'s text as markup; libxml2's tree builder stops a tree this deep
            self.give_back = True
            _stop_parser(self.ctxt)
            return 0
        if self.skip:
            if self.in_head and self.skip == 1:  # an element child of the first <head>
                self._head_child(name)
            self.skip += 1
            return 0
        if not self.started:  # the root (fce.blocks: the document element, whatever its name)
            self.started = True
            self.current = self.b.add(-1, "HTML", "html")
            return self._push(F_BLOCK)
        self._flush()
        if self.depth == 1:  # a child of the root
            if _same_string(<const char*>name, b"body") or _same_string(<const char*>name, b"frameset"):
                self.body_seen = True
            elif _same_string(<const char*>name, b"head") and not self.head_seen:
                self.head_seen = True
                self.in_head = True
        elif self.in_head and self.depth == 2:
            self._head_child(name)
        kind = _kind_of_name(name, &tagp)
        tag = <str>tagp
        if (atts is not NULL and atts[0] is not NULL and _hidden_atts(atts, kind == K_A) and tag not in _never_hidden):
            self.skip = 1  # not shown: passed over with what is inside it (its tail is kept)
            return 0
        if kind == K_BLOCK:
            idx = self.b.add(self.current, _path_from(<str>self.b.paths[self.current], <const char*>name,
                                                      _att(atts, b"id") if self.qualified else NULL,
                                                      _att(atts, b"class") if self.qualified else NULL,
                                                      tag, self.qualified), tag)
            if tag == "iframe":
                self.b.items[idx].counts[4] = 1
            self.current = idx
            flags = F_BLOCK
        else:
            entered = _enter(self.b, self.current, kind, _att(atts, b"href") if kind == K_A else NULL)
            if entered == PASSED:
                self.skip = 1  # passed over with what is inside it (its tail is kept)
                return 0
            if entered == LINKED:
                self.link_depth += 1
                flags = F_LINK
            elif kind >= K_MARK:
                flags = F_MARK | ((kind - K_MARK) << MARK_SHIFT)
        return self._push(flags)

    cdef int _head_child(self, const_xmlChar* name) except -1:
        if not self.head_foreign and (<bytes>name).decode("utf-8") not in _HEAD_TAGS:
            self.head_foreign = True
        return 0

    cdef int _end_script(self) except -1:
        self.in_script = False
        if len(self.linked) < LINKED_DATA_MAX_SCRIPTS and self.script_len <= LINKED_DATA_MAX_BYTES:
            self.linked.append(PyUnicode_DecodeUTF8(self.script, self.script_len, "replace"))
        return 0

    cdef int end(self) except -1:
        cdef char flags
        if self.done:
            return 0
        if self.in_script:  # (a script has no element inside it: this is its end)
            self._end_script()
        if self.skip:
            self.skip -= 1
            if self.skip == 0 and self.in_head and self.depth == 1:  # the first <head> has ended
                self.in_head = False
            return 0
        if self.depth == 0:
            return 0
        self._flush()
        self.depth -= 1
        flags = self.flags[self.depth]
        if self.depth == 0:  # the root's end: its tail is not in the page
            self.done = True
            return 0
        if flags & F_BLOCK:
            self.b.close(self.current)
            self.current = self.b.items[self.current].parent
        elif flags & F_LINK and self.link_depth:
            self.link_depth -= 1
            self.b.mark(self.current, _link_code, False, NULL)
        elif flags & F_MARK:
            self.b.mark(self.current, (<unsigned char>flags) >> MARK_SHIFT, False, NULL)
        return 0

    cdef int characters(self, const_xmlChar* ch, int length) except -1:
        if self.in_script and length > 0 and self.script_len + length > LINKED_DATA_MAX_BYTES:
            self.script_len = LINKED_DATA_MAX_BYTES + 1  # too long: dropped at its end (and nothing more kept)
        elif self.in_script and length > 0:
            _append(&self.script, &self.script_len, &self.script_cap, ch, length, 0)
        if self.done or self.skip or not self.started or length <= 0:
            return 0
        return _append(&self.text, &self.text_len, &self.text_cap, ch, length, 1)  # (1: the NUL _flush ends it with)


cdef extern from "string.h":
    size_t strnlen(const char* s, size_t maxlen)


cdef bint _names_linked_data(const_xmlChar** atts) noexcept:
    """Whether an attribute value of the element names ``application/ld+json`` (what fce.metadata looks for)."""
    cdef Py_ssize_t k = 0
    while atts[k] is not NULL:
        if atts[k + 1] is not NULL and strstr(<const char*>atts[k + 1], b"application/ld+json") is not NULL:
            return True
        k += 2
    return False


#: fce.page.HEAD_TAGS (what may stay in <head>), set by configure_head_tags.
cdef object _HEAD_TAGS = frozenset()


def configure_head_tags(head_tags):
    """Give the event walk ``fce.page.HEAD_TAGS`` (the body-out-of-head repair it gives back to the tree path)."""
    global _HEAD_TAGS
    _HEAD_TAGS = frozenset(head_tags)


cdef inline const char* _att(const_xmlChar** atts, const char* name) noexcept:
    """The value of the first attribute ``name`` ("" for one without a value), or NULL when absent."""
    cdef Py_ssize_t i = 0
    if atts is NULL:
        return NULL
    while atts[i] is not NULL:
        if _same_string(<const char*>atts[i], name):
            return <const char*>atts[i + 1] if atts[i + 1] is not NULL else _EMPTY
        i += 2
    return NULL


cdef inline Py_ssize_t _count_atts(const_xmlChar** atts) noexcept:
    """The number of attributes the parser gives with a start tag (name and value pairs up to a NULL name)."""
    cdef Py_ssize_t i = 0
    while atts[i] is not NULL:
        i += 2
    return i // 2


cdef int _hidden_atts(const_xmlChar** atts, bint anchor) noexcept:
    """:func:`_hidden` of an element by its attributes as the parser gives them (the first of each name counts)."""
    cdef Py_ssize_t i = 0
    cdef const char* values[V_COUNT]
    cdef int which, hidden
    memset(values, 0, sizeof(values))
    while atts[i] is not NULL:
        which = _visibility_attr(<const char*>atts[i])
        if which == V_HIDDEN:
            return 1
        if which != V_NONE and values[which] is NULL:
            values[which] = <const char*>atts[i + 1] if atts[i + 1] is not NULL else _EMPTY
        i += 2
    hidden = _hidden_by(values[V_ARIA], values[V_CLASS], values[V_STYLE])
    if hidden or not anchor:
        return hidden
    return _skip_link(values[V_HREF], values[V_ID], values[V_CLASS])


# The callbacks run inside _read_memory, which _EventWalk.run calls holding the GIL: they touch Python objects
# without taking it again.

cdef inline _EventWalk _walk_of(void* ctx):
    return <_EventWalk>(<_Ctxt*>ctx)._private


cdef void _fail(_EventWalk walk, object error) noexcept:
    """Keep the exception a callback raised and stop the parser (it is raised when the parse returns)."""
    if walk.error is None:
        walk.error = error
    _stop_parser(walk.ctxt)


cdef void _on_start(void* ctx, const_xmlChar* name, const_xmlChar** atts) noexcept:
    cdef _EventWalk walk = _walk_of(ctx)
    try:
        walk.start(name, atts)
    except BaseException as error:
        _fail(walk, error)


cdef void _on_end(void* ctx, const_xmlChar* name) noexcept:
    cdef _EventWalk walk = _walk_of(ctx)
    try:
        walk.end()
    except BaseException as error:
        _fail(walk, error)


cdef void _on_characters(void* ctx, const_xmlChar* ch, int length) noexcept:
    cdef _EventWalk walk = _walk_of(ctx)
    try:
        walk.characters(ch, length)
    except BaseException as error:
        _fail(walk, error)


cdef void _on_ignorable(void* ctx, const_xmlChar* ch, int length) noexcept:
    pass


cdef void _on_error(void* data, const _Error* error) noexcept:
    cdef _EventWalk walk = <_EventWalk>data
    if error is not NULL and error.message is not NULL and strstr(error.message, _DEPTH_ERROR) is not NULL:
        walk.give_back = True  # the parse stopped there: the tree path flattens the page and parses it again


import threading as _threading

_walks = _threading.local()  # one parser context per thread (libxml2's contexts are not shared between threads)


#: What :func:`segment_bytes` returns for a page with a start tag of more attributes than it was allowed.
LONG_TAG = "long tag"


def segment_bytes(bytes data, bint qualified, Py_ssize_t max_attributes):
    """The segmentation of a page from its UTF-8 bytes, made from libxml2's parse events without building a tree:
    the same as ``segment(root, qualified)`` of the root that fce's lxml parser builds from ``data``, or None where
    the page needs that tree (see above) or this cannot run here (:data:`SAX_AVAILABLE`), or :data:`LONG_TAG`
    where a start tag has more than ``max_attributes`` attributes."""
    cdef _EventWalk walk
    if not SAX_AVAILABLE or not _hidden_in_c or len(data) > 2147483647:
        return None  # (_hidden_in_c: a visibility test other than the one in C needs the element: the tree path)
    walk = getattr(_walks, "walk", None)
    if walk is None:
        walk = _walks.walk = _EventWalk()
    walk.max_attributes = max_attributes
    result = walk.run(data, qualified)
    return LONG_TAG if walk.long_tag else result
