# cython: infer_types=False, annotation_typing=False, boundscheck=False, wraparound=False
"""Content fingerprints: a 64-bit simhash of an extraction's text, to find the same content at other URLs.

A crawl holds the same article many times: syndicated copies, print, AMP and mobile variants, one URL captured on
several dates. A search engine indexes it once. Two fingerprints a few bits apart (:data:`NEAR_DUPLICATE_BITS`)
are the same content, with small edits at most; the fingerprint of the *main content* is what makes that work:
the pages of a site share their menus, footers and teasers, which the page's whole text would fingerprint too.

The fingerprint is Charikar's simhash (STOC 2002) as Manku, Jain and Das Sarma use it to find near-duplicate web
pages ("Detecting near-duplicates for web crawling", WWW 2007: 64 bits, a distance of at most 3 bits): every
feature of the text is hashed to 64 bits, and bit *b* of the fingerprint is set where more than half of the
features have bit *b* set. The features are the text's shingles of :data:`SHINGLE_WORDS` words (Broder's
shingles), so that the order of the words counts, not only which words there are. Words are the maximal runs of
letters and digits (``str.isalnum``) of the lower-cased text; in scripts written without spaces between words
(:data:`UNSPACED_SCRIPTS`), each character is a word. A word is hashed with 64-bit FNV-1a over its code points, a
shingle by mixing its words' hashes with the SplitMix64 finalizer (Steele, Lea and Flood, OOPSLA 2014), which
spreads every input bit over the 64 output bits. The fingerprint depends on the text alone: the same in every
process, on every machine, in every version that keeps these constants.

Measured on the four per-site sets (``python -m bench.fingerprint_bench``): docs/fingerprints.md.

Written once, in Cython's pure Python mode (:data:`fce._accel.PURE_PYTHON_MODULES`): ``setup.py`` compiles it
where the install has a C compiler, and it runs as the plain Python it is otherwise. The 64-bit arithmetic is
masked to 64 bits, which the compiled module's unsigned C integers do by themselves.
"""

from __future__ import annotations

from array import array

try:
    import cython
except ModuleNotFoundError:  # Cython is a build requirement only: plain Python then (fce._cython_shim)
    from fce import _cython_shim as cython

__all__ = ["FINGERPRINT_BITS", "NEAR_DUPLICATE_BITS", "SHINGLE_WORDS", "UNSPACED_SCRIPTS", "distance", "fingerprint",
           "near_duplicates", "simhash"]

#: Bits of a fingerprint (Manku et al.'s 64).
FINGERPRINT_BITS = 64
#: Fingerprints at most this many bits apart are near-duplicates (Manku et al.: 3 of 64 bits, chosen on 8 billion
#: pages). Measured on the per-site sets' 10,628 pairs of pages of one site: docs/fingerprints.md.
NEAR_DUPLICATE_BITS = 3
#: Words per shingle. Measured on the same pairs (docs/fingerprints.md): with single words, 4 pairs of different
#: texts came within 3 bits; with 2 to 5 words, none; 3 and 4 words found 10 of the 11 copies, 2 and 5 words 9.
SHINGLE_WORDS = 3
#: The code point ranges of scripts written without spaces between words, whose characters are words each: Thai,
#: Lao, Myanmar, Khmer, Hiragana and Katakana, CJK ideographs (unified, extension A, compatibility, extensions
#: B and up).
UNSPACED_SCRIPTS = ((0x0E00, 0x0EFF), (0x1000, 0x109F), (0x1780, 0x17FF), (0x3040, 0x30FF), (0x3400, 0x4DBF),
                    (0x4E00, 0x9FFF), (0xF900, 0xFAFF), (0x20000, 0x3134F))
#: Below this code point no character is of :data:`UNSPACED_SCRIPTS` (one comparison for most characters).
_UNSPACED_FROM = min(start for start, _ in UNSPACED_SCRIPTS)
#: Per ASCII character, 1 for the letters and digits (``str.isalnum``).
_ASCII_WORD = bytearray(chr(c).isalnum() for c in range(128))
#: :data:`UNSPACED_SCRIPTS` flat, as unsigned integers the compiled loop reads as C integers.
_UNSPACED_BOUNDS = array("Q", [bound for pair in UNSPACED_SCRIPTS for bound in pair])


def fingerprint(text: str) -> str | None:
    """The fingerprint of ``text`` as 16 hexadecimal digits (:func:`simhash`), or None: no word in it."""
    value = simhash(text)
    return None if value is None else f"{value:016x}"


def distance(a: str | int, b: str | int) -> int:
    """The number of bits in which two fingerprints differ (given as :func:`fingerprint` or :func:`simhash` gives
    them)."""
    return ((int(a, 16) if isinstance(a, str) else a) ^ (int(b, 16) if isinstance(b, str) else b)).bit_count()


def near_duplicates(a: str | int | None, b: str | int | None, max_bits: int = NEAR_DUPLICATE_BITS) -> bool:
    """Whether two fingerprints are of the same content, with small edits at most: at most ``max_bits`` apart
    (False where either is None: a text without words is no one's copy)."""
    return a is not None and b is not None and distance(a, b) <= max_bits


@cython.locals(chunk=str, n=cython.Py_ssize_t, capacity=cython.Py_ssize_t, count=cython.Py_ssize_t,
               carried=cython.Py_ssize_t, words=cython.Py_ssize_t, first=cython.Py_ssize_t, j=cython.Py_ssize_t,
               b=cython.int, width=cython.Py_ssize_t, features=cython.Py_ssize_t, pending=cython.int,
               shingle=cython.ulonglong, value=cython.ulonglong, one=cython.ulonglong, hashes=cython.ulonglong[:],
               ones=cython.longlong[:], lanes=cython.ulonglong[:], spread=cython.ulonglong[:],
               word=cython.ulonglong[:], start=cython.Py_ssize_t, stop=cython.Py_ssize_t)
def simhash(text: str) -> int | None:
    """The 64-bit simhash of ``text``'s :data:`SHINGLE_WORDS`-word shingles (of its words, all of them, where it has
    fewer), or None: no word in it."""
    n = len(text)
    if not n:
        return None
    width = SHINGLE_WORDS
    # The text is lower-cased and read a chunk at a time, of _CHUNK_CHARS characters up to the next space or line
    # break (where lower-casing needs no context from beyond: Greek's final sigma), so that a long text's copy and
    # buffers stay small (str.lower() of a text that is not ASCII takes 12 bytes a character while it runs). The
    # hashes of a chunk's words go after the last width - 1 of the chunk before (whose shingles end in this one); a
    # chunk of k characters ends at most k + 1 words (the word before its first character, which may be one of
    # its own).
    hash_buffer = array("Q")
    word_buffer = array("Q", [0, 0])  # the word read when a chunk ends: its hash so far, whether there is one
    word = word_buffer
    # Each feature's bits are counted 8 at a time: byte j of a shingle adds its 8 bits to 8 one-byte counters packed
    # in lanes[j] (_SPREAD), which go to ones before they can overflow.
    ones_buffer = array("q", [0]) * FINGERPRINT_BITS
    ones = ones_buffer
    lanes_buffer = array("Q", [0]) * 8
    lanes = lanes_buffer
    spread = _SPREAD
    pending = 0
    words = 0
    carried = 0
    start = 0
    while start < n:
        stop = _chunk_end(text, start + _CHUNK_CHARS)
        chunk = text[start:stop].lower()
        start = stop
        capacity = len(chunk) + width + 1
        if len(hash_buffer) < capacity:  # (a new buffer, with the hashes carried over)
            hash_buffer = hash_buffer[:carried] + array("Q", [0]) * (capacity - carried)
        hashes = hash_buffer
        count = _word_hashes(chunk, hashes, carried, word)
        if start >= n and word[1]:  # the text's last word
            hashes[count] = word[0]
            count += 1
        words += count - carried
        for first in range(count - width + 1):
            shingle = 0
            for j in range(first, first + width):
                shingle = _mix(shingle ^ hashes[j])
            for j in range(8):
                lanes[j] += spread[(shingle >> (8 * j)) & 255]
            pending += 1
            if pending == _LANE_MAX:
                _add_lanes(lanes, ones)
                pending = 0
        carried = min(count, width - 1)
        for j in range(carried):
            hashes[j] = hashes[count - carried + j]
    if not words:
        return None
    if words < width:  # one feature: the words there are
        shingle = 0
        for j in range(words):
            shingle = _mix(shingle ^ hashes[j])
        for j in range(8):
            lanes[j] += spread[(shingle >> (8 * j)) & 255]
    _add_lanes(lanes, ones)
    features = words - width + 1 if words >= width else 1
    value = 0
    one = 1
    for b in range(FINGERPRINT_BITS):
        if 2 * ones[b] > features:
            value |= one << b
    return value


#: Characters read at a time (to the next space or line break): a long text's buffer of hashes stays at about 2 MB.
_CHUNK_CHARS = 262144


def _chunk_end(text: str, at: int) -> int:
    """Where a chunk that reaches ``at`` ends: at the first space or line break from ``at`` on, or at the text's
    end."""
    if at >= len(text):
        return len(text)
    ends = [k for k in (text.find(" ", at), text.find("\n", at)) if k >= 0]
    return min(ends) if ends else len(text)


#: Per byte value, its 8 bits spread to the lowest bit of 8 one-byte lanes (bit i to bit 8i).
_SPREAD = array("Q", [sum(((v >> i) & 1) << (8 * i) for i in range(8)) for v in range(256)])
#: Features counted in the lanes before they are added up (a one-byte lane holds 255).
_LANE_MAX = 255


@cython.cfunc
@cython.inline
@cython.locals(lanes=cython.ulonglong[:], ones=cython.longlong[:], j=cython.int, i=cython.int)
def _add_lanes(lanes: array[int], ones: array[int]) -> None:
    """Add the counts of the lanes to ``ones`` and empty them."""
    for j in range(8):
        if lanes[j]:
            for i in range(8):
                ones[8 * j + i] += (lanes[j] >> (8 * i)) & 255
            lanes[j] = 0


@cython.cfunc
@cython.locals(chunk=str, ch=cython.Py_UCS4, code=cython.ulonglong, h=cython.ulonglong, prime=cython.ulonglong,
               offset=cython.ulonglong, mask=cython.ulonglong, least=cython.ulonglong, count=cython.Py_ssize_t,
               filled=cython.Py_ssize_t, in_word=cython.bint, alnum=cython.bint, hashes=cython.ulonglong[:],
               bounds=cython.ulonglong[:], ascii_word=cython.uchar[:], word=cython.ulonglong[:])
@cython.returns(cython.Py_ssize_t)
def _word_hashes(chunk: str, hashes: array[int], filled: int, word: array[int]) -> int:
    """Write the FNV-1a hashes of the words that end in ``chunk`` (of a lower-cased text) to ``hashes``, after its
    first ``filled``; the number of hashes in ``hashes``. ``word``: the word read when the chunk before ended (its
    hash so far, and 1 if there is one), and when this one ends."""
    prime = 0x100000001B3
    offset = 0xCBF29CE484222325
    mask = 0xFFFFFFFFFFFFFFFF
    least = _UNSPACED_FROM
    bounds = _UNSPACED_BOUNDS
    ascii_word = _ASCII_WORD
    count = filled
    h = word[0]
    in_word = word[1] != 0
    for ch in chunk:
        code = ord(ch)
        if code < 128:  # (most characters: a table, not Unicode's tests)
            alnum = ascii_word[code]
        elif code >= least and _unspaced(code, bounds):  # a word of its own
            if in_word:
                hashes[count] = h
                count += 1
                in_word = False
            hashes[count] = (offset ^ code) * prime & mask
            count += 1
            continue
        else:
            alnum = ch.isalnum()
        if alnum:
            if not in_word:
                h = offset
                in_word = True
            h = (h ^ code) * prime & mask
        elif in_word:
            hashes[count] = h
            count += 1
            in_word = False
    word[0] = h
    word[1] = 1 if in_word else 0
    return count


@cython.cfunc
@cython.inline
@cython.locals(code=cython.ulonglong, bounds=cython.ulonglong[:], k=cython.Py_ssize_t)
@cython.returns(cython.bint)
def _unspaced(code: int, bounds: array[int]) -> bool:
    """Whether code point ``code`` is of one of :data:`UNSPACED_SCRIPTS` (``bounds``: :data:`_UNSPACED_BOUNDS`)."""
    for k in range(0, len(bounds), 2):
        if bounds[k] <= code <= bounds[k + 1]:
            return True
    return False


@cython.cfunc
@cython.inline
@cython.locals(z=cython.ulonglong, mask=cython.ulonglong, first=cython.ulonglong, second=cython.ulonglong)
@cython.returns(cython.ulonglong)
def _mix(z: int) -> int:
    """The SplitMix64 finalizer: a bijection of 64-bit integers in which every input bit flips about half of the
    output bits."""
    mask = 0xFFFFFFFFFFFFFFFF
    first = 0xBF58476D1CE4E5B9
    second = 0x94D049BB133111EB
    z = (z ^ (z >> 30)) * first & mask
    z = (z ^ (z >> 27)) * second & mask
    return z ^ (z >> 31)
