# cython: language_level=3, boundscheck=False, wraparound=False, initializedcheck=False
"""Byte scans of :mod:`fce.parse` and :mod:`fce.metadata`, compiled (optional accelerator): the checks a page's
bytes pass before they are handed to libxml2 as they are (``fce.parse._parse_from_bytes``), in fewer passes and
without a copy, and the metadata's searches of the markup.

:func:`scan` answers what the byte-level parse needs of every byte: whether the bytes are strict UTF-8 (then the
page is read as UTF-8, without the windows-1252 fallback), hold no NUL and no control character in a prefix, and
are all ASCII (then a page labelled with an ASCII-compatible single-byte codec reads as its bytes too). These were
a UTF-8 check, a ``translate`` copy of the prefix, ``memmem`` for NUL and ``bytes.isascii``. Now: glibc's
``memchr`` for NUL; the prefix's control bytes tested without a copy, in chunks of ``CHUNK`` bytes whose test the C
compiler turns into vector instructions; the bytes skipped in such chunks while they are ASCII; and from the first
chunk that is not, the old UTF-8 check (ASCII eight bytes at a time, other characters one at a time) to the end.
Going back to chunks after a run of ASCII was faster on the mostly-ASCII evaluation pages but up to twice as slow
as before on text with an accent every few words (the chunk tests that fail, or the bookkeeping of the run, cost
more than they save there), so it is not done: the scan is no slower than the checks it replaces on any page we
measured (bench/README.md, "The byte-level checks of the parse"). Accepted as UTF-8 is exactly what CPython's
strict decoder accepts: the well-formed byte sequences of the Unicode Standard, Table 3-7 (no overlong forms, no
surrogates U+D800–DFFF, nothing above U+10FFFF).

:func:`binds_prefix` is ``fce.parse._FOREIGN_PREFIX_LOOSE`` (``xmlns:[^=]*=[^"']*["'](uri|…)["']``) tried where
``xmlns:`` occurs, found by a chunked test for an ``x`` with a ``:`` five bytes on (glibc's ``memmem`` took 2–3
times as long on the msv-big9 pages), and followed in C instead of a regex call per occurrence.

:func:`meta_charset` is ``fce.parse._META_CHARSET``'s search (``<meta[^>]+?charset…``) over a page's first bytes,
with the ``<`` found by ``memchr`` and the rest compared in C.

:func:`find` is ``bytes.find``, for :mod:`fce.metadata`'s searches of the body window: Python's search steps through
the bytes comparing each place with the needle's last byte (2–4 bytes a nanosecond on HTML); here the places where
the needle's two rarest bytes stand are tested a chunk at a time (about 20 bytes a nanosecond), a single byte is
``memchr``.

:func:`find_caseless` is the same search with the needle's ASCII letters in either case (a byte ORed with 0x20
compared with the lowercase letter; any other byte compared as it is): :mod:`fce.metadata` finds the head's tags
with it (``</head``, ``<meta``, ``<title``), where a regular expression's search stepped through every ``<`` of the
head (about a byte a nanosecond). :func:`meta_pairs` is ``fce.metadata._META.findall`` (each ``<meta>``'s key and
content) tried where :func:`find_caseless` finds ``<meta``, and followed in C, its lazy skips of other attributes
taken one more at a time as the regex backtracks (the pattern cost about 0.4 µs a tag).

``tests/test_parse.py`` checks each against its Python version in ``fce.parse`` (``find``: against ``bytes.find``;
``find_caseless``: against re's caseless search of the needle; ``meta_pairs``: against ``fce.metadata``'s pattern)
and against ``bytes.decode`` and the regexes, on every byte around the chunk boundaries and on hypothesis-generated
input.
"""

from libc.stdint cimport uint64_t
from libc.string cimport memchr, memcmp, memcpy, memset

cdef enum:
    # Bytes per chunk of the vectorised tests. Measured on the 90 msv-big9 speed pages, median µs per page of
    # binds_prefix (and of an earlier scan): 32 bytes 5.4 (7.4), 64 bytes 4.6 (5.8), 128 bytes 4.2–4.3 (5.4–5.7),
    # 256 bytes 4.0 (5.4); 64, 128 and 256 were within the noise for this scan on the evaluation pages.
    CHUNK = 128

#: The control bytes of ``fce.parse._CONTROL_BYTES`` — 0x01–0x08, 0x0B, 0x0E–0x1A, 0x1C–0x1F — as bits of a word
#: (bit c for byte c; the tests compare :func:`scan` with ``fce.parse._has_control_bytes`` on every byte).
cdef unsigned int CONTROL_BITS = 0xF7FFC9FE
#: The high bit of each byte of a word: a word of eight ASCII bytes has none of them.
cdef uint64_t HIGH_BITS = 0x8080808080808080ULL


cdef inline bint _is_control(unsigned char c) noexcept nogil:
    return c < 0x20 and (CONTROL_BITS >> c) & 1


cdef bint _has_control(const unsigned char* s, Py_ssize_t n) noexcept nogil:
    """Whether one of the ``n`` bytes at ``s`` is a control byte (or NUL), by chunks the compiler vectorises."""
    cdef Py_ssize_t i = 0
    cdef unsigned char bad = 0, c
    cdef int k
    while i + CHUNK <= n:
        for k in range(CHUNK):
            c = s[i + k]
            bad |= (c < 0x09) | (c == 0x0B) | (<unsigned char>(c - 0x0E) < 13) | (<unsigned char>(c - 0x1C) < 4)
        if bad:
            return True
        i += CHUNK
    while i < n:
        if s[i] == 0 or _is_control(s[i]):
            return True
        i += 1
    return False


cdef inline bint _chunk_ascii(const unsigned char* s) noexcept nogil:
    """Whether the CHUNK bytes at ``s`` are ASCII (a reduction the compiler vectorises)."""
    cdef unsigned char high = 0
    cdef int k
    for k in range(CHUNK):
        high |= s[k]
    return (high & 0x80) == 0


cdef int _utf8(const unsigned char* s, Py_ssize_t n) noexcept nogil:
    """2 when the ``n`` bytes at ``s`` are ASCII, 1 when they are UTF-8 with other characters, 0 when they are not
    UTF-8: ASCII eight bytes at a time, other characters one at a time."""
    cdef Py_ssize_t i = 0, length
    cdef uint64_t word
    cdef unsigned char c, c1, lo, hi
    cdef bint ascii = True
    while i < n:
        if i + 8 <= n:
            memcpy(&word, s + i, 8)
            if (word & HIGH_BITS) == 0:
                i += 8
                continue
        c = s[i]
        if c < 0x80:
            i += 1
            continue
        ascii = False
        if c < 0xC2:  # a continuation byte first, or an overlong two-byte form (C0, C1)
            return 0
        if c < 0xE0:
            if i + 1 >= n or (s[i + 1] & 0xC0) != 0x80:
                return 0
            i += 2
            continue
        if c > 0xF4:
            return 0
        # the bytes of the sequence: 3 below F0, else 4; its second byte's range (Table 3-7): E0 A0–BF (no
        # overlong), ED 80–9F (no surrogates), F0 90–BF (no overlong), F4 80–8F (nothing above U+10FFFF),
        # else 80–BF
        length = 3 if c < 0xF0 else 4
        if i + length > n:
            return 0
        c1 = s[i + 1]
        lo = 0xA0 if c == 0xE0 else 0x90 if c == 0xF0 else 0x80
        hi = 0x9F if c == 0xED else 0x8F if c == 0xF4 else 0xBF
        if c1 < lo or c1 > hi or (s[i + 2] & 0xC0) != 0x80 or (length == 4 and (s[i + 3] & 0xC0) != 0x80):
            return 0
        i += length
    return 2 if ascii else 1


cdef int _scan(const unsigned char* s, Py_ssize_t n, Py_ssize_t stop) noexcept nogil:
    """2: ASCII, 1: UTF-8 with non-ASCII characters, 0: neither, or a NUL, or a control byte before ``stop``."""
    cdef Py_ssize_t i = 0
    if memchr(s, 0, n) != NULL or _has_control(s, stop if stop < n else n):
        return 0
    while i + CHUNK <= n and _chunk_ascii(s + i):
        i += CHUNK
    return _utf8(s + i, n - i)  # (a character never starts in an ASCII chunk and ends in the next)


def scan(const unsigned char[::1] data not None, Py_ssize_t control_stop):
    """What the byte-level parse needs to know of ``data`` (bytes, or any contiguous byte buffer), without a copy:
    ``"ascii"`` when every byte is ASCII, ``"utf-8"`` when ``data`` is strict UTF-8 with non-ASCII characters,
    and None when it is not UTF-8, holds a NUL, or holds a control byte (0x01–0x08, 0x0B, 0x0E–0x1A, 0x1C–0x1F)
    in ``data[:control_stop]`` (``control_stop`` ≥ 0)."""
    cdef Py_ssize_t n = data.shape[0]
    cdef int kind
    if control_stop < 0:
        raise ValueError("control_stop must be >= 0")
    if n == 0:
        return "ascii"
    with nogil:
        kind = _scan(&data[0], n, control_stop)
    return "ascii" if kind == 2 else "utf-8" if kind == 1 else None


cdef Py_ssize_t _find_xmlns(const unsigned char* s, Py_ssize_t n, Py_ssize_t start) noexcept nogil:
    """Where ``xmlns:`` first occurs at or after ``start``, or -1. A chunk of positions is tested at once for an
    ``x`` with a ``:`` five bytes on (vectorised; the pair is rare in HTML), and only a chunk with one is searched."""
    cdef Py_ssize_t i = start, j
    cdef unsigned char hit
    cdef int k
    while i + CHUNK + 5 <= n:
        hit = 0
        for k in range(CHUNK):
            hit |= (s[i + k] == b"x") & (s[i + k + 5] == b":")
        if hit:
            for j in range(i, i + CHUNK):
                if s[j] == b"x" and memcmp(s + j, b"xmlns:", 6) == 0:
                    return j
        i += CHUNK
    while i + 6 <= n:
        if s[i] == b"x" and memcmp(s + i, b"xmlns:", 6) == 0:
            return i
        i += 1
    return -1


cdef bint _uri_at(const unsigned char* s, Py_ssize_t n, Py_ssize_t p, tuple uris):
    """Whether one of ``uris`` followed by a quote is at ``p``."""
    cdef Py_ssize_t m
    cdef bytes uri
    for uri in uris:
        m = len(uri)
        if p + m < n and memcmp(s + p, <const char*>uri, m) == 0 and (s[p + m] == b'"' or s[p + m] == b"'"):
            return True
    return False


def binds_prefix(const unsigned char[::1] data not None, tuple uris not None):
    """Whether ``xmlns:[^=]*=[^"']*["'](uri|…)["']`` matches somewhere in ``data``, ``uris`` being a tuple of
    bytes (taken literally).

    Neither class can hold the character after it, so at an ``xmlns:`` the pattern's repeats end at the first
    ``=`` after it, then at the first quote after that, as the regex's backtracking would find; occurrences that
    reach the same ``=``, or the same quote, as one that failed fail too and are passed over, so that no byte is
    scanned twice (a regex call per occurrence rescans to the next ``=``: quadratic time on ``xmlns:`` repeated)."""
    cdef Py_ssize_t n = data.shape[0], at, eq, quote = -1
    cdef const unsigned char* s
    cdef object uri
    for uri in uris:
        if type(uri) is not bytes:
            raise TypeError("uris must be bytes")
    if n == 0:
        return False
    s = &data[0]
    at = _find_xmlns(s, n, 0)
    while at >= 0:
        eq = at + 6
        while eq < n and s[eq] != b"=":
            eq += 1
        if eq >= n:
            return False  # no "=" after this xmlns:, nor after a later one
        if eq > quote:  # (else the first quote after it is the one the previous try found, and failed at)
            quote = eq + 1
            while quote < n and s[quote] != b'"' and s[quote] != b"'":
                quote += 1
            if quote >= n:
                return False  # no quote after this "=", nor after a later one
            if _uri_at(s, n, quote + 1, uris):
                return True
        at = _find_xmlns(s, n, eq + 1)  # an xmlns: before this "=" would reach it too
    return False


cdef inline bint _is_space(unsigned char c) noexcept nogil:
    return c == b" " or 0x09 <= c <= 0x0D  # the regex's \s for bytes: space, \t \n \v \f \r


cdef inline bint _is_name(unsigned char c) noexcept nogil:
    return (b"a" <= (c | 0x20) <= b"z") or b"0" <= c <= b"9" or c == b"_" or c == b":" or c == b"." or c == b"-"


cdef Py_ssize_t _charset_name(const unsigned char* s, Py_ssize_t stop, Py_ssize_t r, Py_ssize_t* end) noexcept nogil:
    """Where ``charset\\s*=\\s*["']?\\s*([A-Za-z0-9_:.\\-]+)`` (ASCII letters in any case) matching at ``r`` has
    its name (and, in ``end``, where the name ends), or -1. Every repeat is greedy and no backtracking can help: a
    repeat never holds what follows it, and giving back the optional quote leaves a quote where the name must
    start."""
    cdef Py_ssize_t t = r + 7
    if t > stop or not _same_at(s + r, <const unsigned char*>b"charset", 7, True):
        return -1
    while t < stop and _is_space(s[t]):
        t += 1
    if t >= stop or s[t] != b"=":
        return -1
    t += 1
    while t < stop and _is_space(s[t]):
        t += 1
    if t < stop and (s[t] == b'"' or s[t] == b"'"):
        t += 1
    while t < stop and _is_space(s[t]):
        t += 1
    end[0] = t
    while end[0] < stop and _is_name(s[end[0]]):
        end[0] += 1
    return t if end[0] > t else -1


def meta_charset(const unsigned char[::1] data not None, Py_ssize_t stop):
    """The charset name of ``<meta[^>]+?charset\\s*=\\s*["']?\\s*([A-Za-z0-9_:.\\-]+)`` (ASCII letters in any case:
    ``fce.parse._META_CHARSET``) searched in ``data[:stop]`` (``stop`` ≥ 0), as bytes, or None. The regex tries
    its lazy ``[^>]+?`` one byte longer at a time at every ``<meta`` in Python's regex engine; here the bytes after
    ``<`` found by ``memchr`` are compared in C."""
    cdef Py_ssize_t n = data.shape[0], p = 0, r, name = -1, end = 0
    cdef const unsigned char* s
    cdef const void* at
    if stop < 0:
        raise ValueError("stop must be >= 0")
    if stop > n:
        stop = n
    if stop == 0:
        return None
    s = &data[0]
    with nogil:
        while p + 5 < stop:  # "<meta", one byte of [^>]+? and "charset" come before a name
            at = memchr(s + p, b"<", stop - p)
            if at is NULL:
                break
            p = <const unsigned char*>at - s
            if p + 5 < stop and _same_at(s + p + 1, <const unsigned char*>b"meta", 4, True):
                r = p + 5  # [^>]+? : one more byte (not ">") before each try
                while r < stop and s[r] != b">":
                    r += 1
                    name = _charset_name(s, stop, r, &end)
                    if name >= 0:
                        break
                if name >= 0:
                    break
            p += 1
    if name < 0:
        return None
    return bytes(data[name:end])


#: The bytes of HTML, most common first (counted over every tenth evaluation page); a byte not listed is rarer than
#: all of them. :func:`find` looks for a needle by its two rarest bytes.
cdef bytes COMMON_BYTES = (b' etaisonr"lcd-p/hm.>\n<=ug\t0bf1wv:2y_,3x5;\\k49678\'A)(CSTjI&\r}{BEMzLNF'
                           b"DRqPOUGWH[]QV%+!#YZJX?K$|")
#: Per byte, how common it is: 0 for the bytes not in COMMON_BYTES, else one more than the rarer ones after it.
cdef unsigned char _COMMONNESS[256]


cdef void _rank_bytes() noexcept:
    cdef Py_ssize_t k, n = len(COMMON_BYTES)
    cdef const unsigned char* common = COMMON_BYTES
    memset(_COMMONNESS, 0, 256)
    for k in range(n):
        _COMMONNESS[common[k]] = <unsigned char>(n - k)


_rank_bytes()


cdef Py_ssize_t _find_pair(const unsigned char* s, Py_ssize_t start, Py_ssize_t stop, const unsigned char* p,
                           Py_ssize_t m, bint caseless) noexcept nogil:
    """Where the ``m`` bytes at ``p`` (1 ≤ m ≤ stop - start) first occur in ``s[start:stop]``, or -1: the
    positions where the needle's two rarest bytes stand at their offsets are found CHUNK at a time (a test the
    compiler vectorises), then compared whole. ``caseless``: the needle's letters (``p`` lowercase) in either case
    (a byte ORed with _fold of the needle's byte)."""
    cdef Py_ssize_t k, i1 = 0, i2 = -1, pos = start, last = stop - m  # (the last place the needle can start)
    cdef unsigned char b1, b2, f1 = 0, f2 = 0, hit
    for k in range(1, m):
        if _COMMONNESS[p[k]] < _COMMONNESS[p[i1]]:
            i1 = k
    for k in range(m):
        if k != i1 and (i2 < 0 or _COMMONNESS[p[k]] < _COMMONNESS[p[i2]]):
            i2 = k
    if i2 < 0:
        i2 = i1  # (a needle of one byte)
    b1, b2 = p[i1], p[i2]
    if caseless:
        f1, f2 = _fold(b1), _fold(b2)
    while pos + CHUNK <= last + 1:
        hit = 0
        for k in range(CHUNK):
            hit |= ((s[pos + k + i1] | f1) == b1) & ((s[pos + k + i2] | f2) == b2)
        if hit:
            for k in range(pos, pos + CHUNK):
                if (s[k + i1] | f1) == b1 and (s[k + i2] | f2) == b2 and _same_at(s + k, p, m, caseless):
                    return k
        pos += CHUNK
    while pos <= last:
        if (s[pos + i1] | f1) == b1 and (s[pos + i2] | f2) == b2 and _same_at(s + pos, p, m, caseless):
            return pos
        pos += 1
    return -1


cdef inline unsigned char _fold(unsigned char lower) noexcept nogil:
    """What to OR a byte with before comparing it with ``lower``: 0x20 for a letter (a byte ORed with 0x20 is a
    lowercase letter only if it is that letter in either case), 0 for any other byte (0x1C ORed with 0x20 is "<")."""
    return 0x20 if b"a" <= lower <= b"z" else 0


cdef inline bint _same_at(const unsigned char* s, const unsigned char* p, Py_ssize_t m, bint caseless) noexcept nogil:
    cdef Py_ssize_t k
    if not caseless:
        return memcmp(s, p, m) == 0
    for k in range(m):
        if (s[k] | _fold(p[k])) != p[k]:
            return False
    return True


def find(bytes data not None, bytes needle not None, Py_ssize_t start, Py_ssize_t stop):
    """``data.find(needle, start, stop)``, a few times as fast on HTML: Python's search compares a byte per place
    with its last one, here the needle's two rarest bytes (by :data:`COMMON_BYTES`) are tested at CHUNK places at
    once, and a single byte is glibc's ``memchr``."""
    cdef Py_ssize_t n = len(data), m = len(needle)
    cdef const unsigned char* s = <const unsigned char*><const char*>data
    cdef const void* at
    if start < 0 or stop < 0 or m == 0 or start >= n:
        return data.find(needle, start, stop)  # (Python's reading of negative and empty bounds)
    if stop > n:
        stop = n
    if stop - start < m:
        return -1
    if m == 1:
        at = memchr(s + start, (<const unsigned char*><const char*>needle)[0], stop - start)
        return -1 if at is NULL else <const unsigned char*>at - s
    return _find_pair(s, start, stop, <const unsigned char*><const char*>needle, m, False)  # (too short to release the GIL)


def find_caseless(bytes data not None, bytes needle not None, Py_ssize_t start, Py_ssize_t stop):
    """:func:`find` with ASCII letters in either case: where ``needle`` (its letters lowercase) first occurs in
    ``data[start:stop]`` with its letters in any case, or -1 — what ``re.compile(re.escape(needle),
    re.IGNORECASE).search(data, start, stop)`` finds (``fce.metadata`` finds tags with it: ``<meta``, ``</head``)."""
    cdef Py_ssize_t n = len(data), m = len(needle)
    cdef const unsigned char* p = <const unsigned char*><const char*>needle
    cdef Py_ssize_t k
    for k in range(m):
        if b"A" <= p[k] <= b"Z":
            raise ValueError(f"the needle's letters must be lowercase: {needle!r}")
    if start < 0 or stop < 0 or m == 0:
        raise ValueError("find_caseless takes a needle and bounds of 0 or more")
    if stop > n:
        stop = n
    if stop - start < m:
        return -1
    return _find_pair(<const unsigned char*><const char*>data, start, stop, p, m, True)


# -- the head's <meta> keys and contents (fce.metadata._META, compiled) ------------------------------------------------


cdef inline Py_ssize_t _spaces(const unsigned char* s, Py_ssize_t p, Py_ssize_t stop) noexcept nogil:
    while p < stop and _is_space(s[p]):
        p += 1
    return p


cdef inline bint _word_at(const unsigned char* s, Py_ssize_t p, Py_ssize_t stop, const char* word,
                          Py_ssize_t m) noexcept nogil:
    return p + m <= stop and _same_at(s + p, <const unsigned char*>word, m, True)


cdef Py_ssize_t _skip_token(const unsigned char* s, Py_ssize_t p, Py_ssize_t stop) noexcept nogil:
    """One more attribute skipped (``(?:[^\\s<>]*+\\s++)``): where the next one starts, or -1 (none: a ``<`` or
    ``>`` or the end comes first)."""
    while p < stop and not (_is_space(s[p]) or s[p] == b"<" or s[p] == b">"):
        p += 1
    if p >= stop or not _is_space(s[p]):
        return -1
    return _spaces(s, p, stop)


cdef Py_ssize_t _attribute(const unsigned char* s, Py_ssize_t p, Py_ssize_t stop, bint key,
                           Py_ssize_t* value) noexcept nogil:
    """``name|property|itemprop|http-equiv`` (``key``) or ``content``, then ``\\s*=\\s*`` and a value (quoted or bare)
    at ``p``: the position after it, its text's bounds in ``value[0:2]``; -1 where none is there."""
    cdef Py_ssize_t q = -1
    cdef const void* at
    cdef unsigned char c
    if key:
        if _word_at(s, p, stop, b"name", 4):
            q = p + 4
        elif _word_at(s, p, stop, b"property", 8) or _word_at(s, p, stop, b"itemprop", 8):
            q = p + 8
        elif _word_at(s, p, stop, b"http-equiv", 10):
            q = p + 10
    elif _word_at(s, p, stop, b"content", 7):
        q = p + 7
    if q < 0:
        return -1
    q = _spaces(s, q, stop)
    if q >= stop or s[q] != b"=":
        return -1
    q = _spaces(s, q + 1, stop)
    if q >= stop:
        return -1
    c = s[q]
    if c == b'"' or c == b"'":
        at = memchr(s + q + 1, c, stop - q - 1)
        if at is NULL:
            return -1
        value[0], value[1] = q + 1, <const unsigned char*>at - s
        return value[1] + 1
    p = q
    while q < stop and not (_is_space(s[q]) or s[q] == b'"' or s[q] == b"'" or s[q] == b"<" or s[q] == b">"):
        q += 1
    if q == p:
        return -1
    value[0], value[1] = p, q
    return q


cdef Py_ssize_t _meta_pair(const unsigned char* s, Py_ssize_t p, Py_ssize_t stop, bint key_first,
                           Py_ssize_t max_skipped, Py_ssize_t* spans) noexcept nogil:
    """One alternative of the pattern after ``<meta\\s++`` at ``p``: the first attribute (key or content, as
    ``key_first`` says) after the fewest skipped, then, after white space, the other after the fewest skipped (at
    most ``max_skipped`` each) — as the lazy skips of the pattern backtrack. The end of the match or -1; the
    values' bounds in ``spans[0:4]`` (first attribute's, second's)."""
    cdef Py_ssize_t t = p, u, a, b, i, j
    for i in range(max_skipped + 1):
        if t < 0:
            break
        a = _attribute(s, t, stop, key_first, spans)
        if a >= 0 and a < stop and _is_space(s[a]):
            u = _spaces(s, a, stop)
            for j in range(max_skipped + 1):
                if u < 0:
                    break
                b = _attribute(s, u, stop, not key_first, spans + 2)
                if b >= 0:
                    return b
                u = _skip_token(s, u, stop)
        t = _skip_token(s, t, stop)
    return -1


def meta_pairs(bytes data not None, Py_ssize_t start, Py_ssize_t stop, Py_ssize_t max_skipped):
    """``fce.metadata._META.findall(data, start, stop)`` as (key, content) pairs — the ``<meta>`` tags of a head that
    have a ``name``, ``property``, ``itemprop`` or ``http-equiv`` and a ``content``, in either order, read as the
    pattern reads them (its lazy skips of other attributes, a white-space-separated token at a time, at most
    ``max_skipped``: ``fce.metadata.META_MAX_SKIPPED``, which the pattern holds)."""
    cdef Py_ssize_t n = len(data), pos, p, end
    cdef const unsigned char* s = <const unsigned char*><const char*>data
    cdef Py_ssize_t spans[4]
    cdef list found = []
    if start < 0 or stop < 0 or max_skipped < 0:
        raise ValueError("meta_pairs takes bounds and a number of skips of 0 or more")
    if stop > n:
        stop = n
    pos = _find_pair(s, start, stop, <const unsigned char*>b"<meta", 5, True) if stop - start >= 5 else -1
    while pos >= 0:
        end = -1
        p = pos + 5
        if p < stop and _is_space(s[p]):
            p = _spaces(s, p, stop)
            end = _meta_pair(s, p, stop, True, max_skipped, spans)
            if end >= 0:
                found.append((data[spans[0]:spans[1]], data[spans[2]:spans[3]]))
            else:
                end = _meta_pair(s, p, stop, False, max_skipped, spans)
                if end >= 0:
                    found.append((data[spans[2]:spans[3]], data[spans[0]:spans[1]]))
        p = end if end >= 0 else pos + 1
        pos = _find_pair(s, p, stop, <const unsigned char*>b"<meta", 5, True) if stop - p >= 5 else -1
    return found
