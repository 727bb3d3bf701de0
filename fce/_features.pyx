# cython: language_level=3, boundscheck=False, wraparound=False, initializedcheck=False
"""The compiled parts of :mod:`fce.features` (optional accelerator): term hashing and the similar pairs of a set
of blocks. Learning spent most of its time in the two (bench/README.md, "Learning: term hashing and the similarity
search").

:func:`hashed_terms` gives what scikit-learn's ``HashingVectorizer`` (as :mod:`fce.features` configures it:
lower-cased, terms ``\\b\\w+\\b``, MurmurHash3 of each term's UTF-8 bytes with seed 0, the absolute value
modulo the number of features, counts, no sign, no norm) gives for a list of texts, as the arrays of a CSR matrix
with sorted indices and no duplicates. scikit-learn's path makes a Python string per term, hashes it and sorts the
matrix afterwards; here each term is hashed where it lies in the lower-cased text's UTF-8 bytes. The term pattern
``\\b\\w+\\b`` of Python's ``re`` finds the maximal runs of word characters, and a word character is one for
which ``str.isalnum()`` is true, or ``_``: that is the test here (CPython's ``Py_UNICODE_ISALNUM``, the function
``re`` calls).

:func:`self_similar` finds the pairs of rows whose cosine is above the similarity threshold: the pairs of
``similar_pairs(X, X)``, exactly, with an index of each row's rarer terms instead of the product of every two
rows that share a word.

``tests/test_features.py`` compares :func:`hashed_terms` with ``HashingVectorizer`` on hypothesis-generated text
(any code point, surrogates included) and on the block texts of generated sites, :func:`murmurhash3_32` with
scikit-learn's, and :func:`self_similar` with the sparse product on random and near-threshold vectors.
"""

import numpy as np

from cpython.unicode cimport Py_UNICODE_ISALNUM
from libc.math cimport sqrt
from libc.stdlib cimport free, malloc, qsort
from libc.string cimport memcpy, memset
from cpython.list cimport PyList_GET_ITEM
from libc.stdint cimport int32_t, int64_t, uint8_t, uint32_t

cdef extern from "Python.h":
    const char* PyUnicode_AsUTF8AndSize(object text, Py_ssize_t* size) except NULL
    bint PyUnicode_IS_ASCII(object text)
    const void* PyUnicode_DATA(object text)


cdef inline uint32_t _rotl(uint32_t x, int r) noexcept nogil:
    return (x << r) | (x >> (32 - r))


cdef int32_t _murmur(const uint8_t* data, Py_ssize_t n, uint32_t seed) noexcept nogil:
    """MurmurHash3_x86_32 (Austin Appleby's reference, public domain), as scikit-learn's ``murmurhash3_32``."""
    cdef uint32_t c1 = 0xcc9e2d51U
    cdef uint32_t c2 = 0x1b873593U
    cdef uint32_t h = seed
    cdef uint32_t k
    cdef Py_ssize_t i
    cdef Py_ssize_t blocks = n // 4
    for i in range(blocks):
        k = (<uint32_t>data[4 * i] | (<uint32_t>data[4 * i + 1] << 8) | (<uint32_t>data[4 * i + 2] << 16)
             | (<uint32_t>data[4 * i + 3] << 24))
        k *= c1
        k = _rotl(k, 15)
        k *= c2
        h ^= k
        h = _rotl(h, 13)
        h = h * 5 + 0xe6546b64U
    cdef const uint8_t* tail = data + blocks * 4
    cdef int rest = n & 3
    k = 0
    if rest == 3:
        k ^= <uint32_t>tail[2] << 16
    if rest >= 2:
        k ^= <uint32_t>tail[1] << 8
    if rest >= 1:
        k ^= tail[0]
        k *= c1
        k = _rotl(k, 15)
        k *= c2
        h ^= k
    h ^= <uint32_t>n
    h ^= h >> 16
    h *= 0x85ebca6bU
    h ^= h >> 13
    h *= 0xc2b2ae35U
    h ^= h >> 16
    return <int32_t>h


cdef inline int32_t _bucket(int32_t h, int32_t n_features) noexcept nogil:
    # scikit-learn's FeatureHasher: abs(h) % n_features, with abs(-2**31) defined as 2**31 - 1 would not be
    if h == -2147483648:
        return (2147483647 - (n_features - 1)) % n_features
    return (h if h >= 0 else -h) % n_features


def murmurhash3_32(bytes data, unsigned int seed=0):
    """The signed 32-bit MurmurHash3 of ``data`` (for the tests: it must equal scikit-learn's)."""
    return _murmur(<const uint8_t*><const char*>data, len(data), seed)


#: Per byte of ASCII text: its lowercase (``str.lower`` of an ASCII character), and whether it is a word character
#: (``\\w`` of the token pattern: letters, digits, "_").
cdef uint8_t _ASCII_LOWER[256]
cdef uint8_t _ASCII_WORD[256]
for _b in range(256):
    _ASCII_LOWER[_b] = _b + 32 if 65 <= _b <= 90 else _b
    _ASCII_WORD[_b] = 48 <= _b <= 57 or 65 <= _b <= 90 or 97 <= _b <= 122 or _b == 95


cdef inline bint _is_word(Py_UCS4 ch) noexcept:
    if ch < 128:
        return _ASCII_WORD[ch]
    return Py_UNICODE_ISALNUM(ch)


cdef int _compare_int64(const void* a, const void* b) noexcept nogil:
    cdef int64_t x = (<const int64_t*>a)[0], y = (<const int64_t*>b)[0]
    return (x > y) - (x < y)


#: Rows up to this long are sorted by insertion (most blocks have a few terms); longer ones by a radix sort (8 bits a
#: pass), so that one huge block (a 10 MB page of text in one element) costs linear time, not n². It replaced
#: ``qsort``, whose call per comparison was most of the hashing of long blocks.
DEF SHORT_ROW = 32


ctypedef fused _sortable:
    int32_t
    int64_t


cdef inline void _insertion_sort(_sortable* a, Py_ssize_t n) noexcept nogil:
    """Sort ``a[:n]`` in increasing order by insertion (for the short rows: most of them)."""
    cdef Py_ssize_t i, j
    cdef _sortable v
    for i in range(1, n):
        v = a[i]
        j = i - 1
        while j >= 0 and a[j] > v:
            a[j + 1] = a[j]
            j -= 1
        a[j + 1] = v


cdef void _sort(int32_t* a, int32_t* spare, Py_ssize_t n, int passes) noexcept nogil:
    """Sort a row's buckets (``0 ≤ a[i] < 2**(8 * passes)``) in increasing order; ``spare`` holds ``n`` values."""
    cdef Py_ssize_t i, j, total, c
    cdef int32_t v
    cdef Py_ssize_t count[256]
    cdef int32_t* src = a
    cdef int32_t* dst = spare
    cdef int32_t* swap
    cdef int p, shift = 0
    if n > SHORT_ROW:
        for p in range(passes):  # least significant byte first; each pass stable
            memset(count, 0, sizeof(count))
            for i in range(n):
                count[(src[i] >> shift) & 255] += 1
            total = 0
            for j in range(256):
                c = count[j]
                count[j] = total
                total += c
            for i in range(n):
                v = src[i]
                dst[count[(v >> shift) & 255]] = v
                count[(v >> shift) & 255] += 1
            swap = src
            src = dst
            dst = swap
            shift += 8
        if src != a:
            memcpy(a, src, n * sizeof(int32_t))
        return
    _insertion_sort(a, n)


cdef Py_ssize_t _hash_words(str low, const uint8_t* utf8, int32_t n_features, int32_t* out):
    """The buckets of the word-character runs of ``low`` (whose UTF-8 bytes are ``utf8``), in text order."""
    cdef Py_ssize_t n = 0
    cdef Py_ssize_t at = 0  # byte offset of the character read
    cdef Py_ssize_t start = -1  # byte offset where the current run began
    cdef Py_UCS4 ch
    for ch in low:
        if _is_word(ch):
            if start < 0:
                start = at
        elif start >= 0:
            out[n] = _bucket(_murmur(utf8 + start, at - start, 0), n_features)
            n += 1
            start = -1
        at += 1 if ch < 0x80 else 2 if ch < 0x800 else 3 if ch < 0x10000 else 4
    if start >= 0:
        out[n] = _bucket(_murmur(utf8 + start, at - start, 0), n_features)
        n += 1
    return n


cdef Py_ssize_t _hash_ascii(const uint8_t* text, Py_ssize_t length, uint8_t* low, int32_t n_features,
                            int32_t* out) noexcept nogil:
    """:func:`_hash_words` of an ASCII text, read byte by byte: lowercased into ``low`` (``length`` bytes), then the
    word-character runs hashed. The same buckets as lowercasing with ``str.lower`` and reading code points."""
    cdef Py_ssize_t n = 0, at, start = -1
    for at in range(length):
        low[at] = _ASCII_LOWER[text[at]]
    for at in range(length):
        if _ASCII_WORD[low[at]]:
            if start < 0:
                start = at
        elif start >= 0:
            out[n] = _bucket(_murmur(low + start, at - start, 0), n_features)
            n += 1
            start = -1
    if start >= 0:
        out[n] = _bucket(_murmur(low + start, length - start, 0), n_features)
        n += 1
    return n


def hashed_terms(list texts, int n_features):
    """``(data, indices, indptr)`` of the CSR matrix of hashed term counts of ``texts``: float32 counts, int32
    buckets in increasing order within a row, int32 row starts.

    An ASCII text is lowercased and split byte by byte (:func:`_hash_ascii`); any other is lowercased by
    ``str.lower`` (which may change its length) and read by code point (:func:`_hash_words`)."""
    if n_features <= 0:
        raise ValueError(f"n_features must be positive, not {n_features}")
    cdef Py_ssize_t n_texts = len(texts)
    cdef Py_ssize_t capacity = 0, longest = 0, widest = 0
    cdef Py_ssize_t row, n, i, size
    cdef list lows = [None if PyUnicode_IS_ASCII(<str?>text) else (<str>text).lower() for text in texts]
    for row in range(n_texts):
        low = lows[row]
        size = len(<str>texts[row]) if low is None else len(<str>low)
        capacity += (size + 1) // 2  # a word and the character after it: at most one per two
        if (size + 1) // 2 > widest:
            widest = (size + 1) // 2
        if low is None and size > longest:
            longest = size
    if capacity > 2147483647:
        raise OverflowError("more terms than a CSR matrix with int32 indices holds")
    indptr_array = np.empty(n_texts + 1, dtype=np.int32)
    indices_array = np.empty(max(capacity, 1), dtype=np.int32)
    data_array = np.empty(max(capacity, 1), dtype=np.float32)
    scratch_array = np.empty(max(longest, 1), dtype=np.uint8)  # the lowercased bytes of an ASCII text
    cdef int passes = 1
    while passes < 4 and (n_features - 1) >> (8 * passes):
        passes += 1
    spare_array = np.empty(max(widest, 1), dtype=np.int32)  # the radix sort's other half
    cdef int32_t[::1] spare = spare_array
    cdef int32_t[::1] indptr = indptr_array
    cdef int32_t[::1] indices = indices_array
    cdef float[::1] data = data_array
    cdef uint8_t[::1] scratch = scratch_array
    cdef Py_ssize_t nnz = 0
    cdef const uint8_t* utf8
    cdef bytes passed
    cdef int32_t* words
    indptr[0] = 0
    for row in range(n_texts):
        low = lows[row]
        # the row's buckets go where its entries will be, then are sorted and merged in place
        words = &indices[nnz]
        if low is None:
            text = texts[row]
            n = _hash_ascii(<const uint8_t*>PyUnicode_DATA(text), len(<str>text), &scratch[0], n_features, words)
        else:
            try:
                utf8 = <const uint8_t*>PyUnicode_AsUTF8AndSize(low, &size)
            except UnicodeEncodeError:
                # a lone surrogate: never part of a word; written as the three bytes its code point would take,
                # it keeps every word's bytes and offsets as they are (scikit-learn encodes each word on its own)
                passed = (<str>low).encode("utf-8", "surrogatepass")
                utf8 = <const uint8_t*><const char*>passed
            n = _hash_words(low, utf8, n_features, words)
        _sort(words, &spare[0], n, passes)
        size = 0
        i = 0
        while i < n:
            words[size] = words[i]
            data[nnz + size] = 1
            i += 1
            while i < n and words[i] == words[size]:
                data[nnz + size] += 1
                i += 1
            size += 1
        nnz += size
        indptr[row + 1] = <int32_t>nnz
    return data_array[:nnz], indices_array[:nnz], indptr_array


def count_table(list rows, Py_ssize_t width):
    """The ``(len(rows), width)`` float64 array of ``rows`` (each a sequence of ``width`` numbers): what
    ``np.asarray(rows, dtype=np.float64)`` makes of a list of count tuples, without NumPy's look at every item's
    type (a tenth of a millisecond per thousand blocks)."""
    cdef Py_ssize_t n = len(rows), i, f
    out = np.empty((n, width), dtype=np.float64)
    cdef double[:, ::1] table = out
    cdef tuple row
    for i in range(n):
        item = rows[i]
        row = item if type(item) is tuple else tuple(item)
        if len(row) != width:
            raise ValueError(f"row {i} has {len(row)} counts, not {width}")
        for f in range(width):
            table[i, f] = <double>row[f]
    return out


def index_of(list items, dict table):
    """Per item its number in ``table`` (a dict of item → 0, 1, …), items not yet in it added with the next
    number; as int64. ``fce.features.index_of``."""
    cdef Py_ssize_t n = len(items), i
    out = np.empty(n, dtype=np.int64)
    cdef int64_t[::1] ids = out
    for i in range(n):
        item = items[i]
        k = table.get(item)
        if k is None:
            k = len(table)
            table[item] = k
        ids[i] = k
    return out


def unit_rows(list texts, const double[:, ::1] counts, int n_features):
    """``(data, indices, indptr)`` of :func:`fce.features.block_vectors`: the hashed term counts of each text
    (:func:`hashed_terms`), then its ``counts`` in the columns from ``n_features`` on (zeros left out), each row
    divided by its L2 norm as scikit-learn's ``normalize`` divides it: squares taken in float32 and summed in
    double, each weight divided by the square root in double and stored in float32; a row of zeros stays as it
    is."""
    if counts.shape[0] != len(texts):
        raise ValueError(f"{counts.shape[0]} rows of counts for {len(texts)} texts")
    term_data, term_indices, term_indptr = hashed_terms(texts, n_features)
    cdef const float[::1] tdata = term_data
    cdef const int32_t[::1] tindices = term_indices
    cdef const int32_t[::1] tindptr = term_indptr
    cdef Py_ssize_t n = counts.shape[0]
    cdef Py_ssize_t n_counts = counts.shape[1]
    cdef Py_ssize_t nnz = tindptr[n] + n * n_counts if n else 0
    if nnz > 2147483647:
        raise OverflowError("more entries than a CSR matrix with int32 indices holds")
    data_array = np.empty(max(nnz, 1), dtype=np.float32)
    indices_array = np.empty(max(nnz, 1), dtype=np.int32)
    indptr_array = np.empty(n + 1, dtype=np.int32)
    cdef float[::1] data = data_array
    cdef int32_t[::1] indices = indices_array
    cdef int32_t[::1] indptr = indptr_array
    cdef Py_ssize_t row, k, f, at = 0, first
    cdef float value
    cdef double norm
    indptr[0] = 0
    for row in range(n):
        first = at
        for k in range(tindptr[row], tindptr[row + 1]):
            data[at] = tdata[k]
            indices[at] = tindices[k]
            at += 1
        for f in range(n_counts):
            value = <float>counts[row, f]
            if value != 0:
                data[at] = value
                indices[at] = <int32_t>(n_features + f)
                at += 1
        norm = 0.0
        for k in range(first, at):
            norm += data[k] * data[k]
        if norm != 0.0:
            norm = sqrt(norm)
            for k in range(first, at):
                data[k] = <float>(data[k] / norm)
        indptr[row + 1] = <int32_t>at
    return data_array[:at], indices_array[:at], indptr_array

cdef int _sort_by_frequency(int32_t* pos, const int32_t* columns, const int32_t* df, Py_ssize_t n) except -1 nogil:
    """Order a row's positions ``pos`` (``pos[i]`` is ``pos[0] + i`` on entry) by their column's frequency ``df``,
    most frequent first, ties by position: one 64-bit key per entry, sorted by insertion up to
    :data:`SHORT_ROW` entries (most rows), else by ``qsort``. (Which of two equally frequent terms comes first
    changes which of them is indexed, never which pairs are found.)"""
    cdef Py_ssize_t i
    cdef int32_t first = pos[0]
    cdef int64_t* keys
    if n <= 1:
        return 0
    keys = <int64_t*>malloc(n * sizeof(int64_t))
    if keys is NULL:
        with gil:
            raise MemoryError()
    for i in range(n):
        keys[i] = ((<int64_t>(2147483647 - df[columns[first + i]])) << 32) | <int64_t>i
    if n > SHORT_ROW:
        qsort(keys, n, sizeof(int64_t), _compare_int64)
    else:
        _insertion_sort(keys, n)
    for i in range(n):
        pos[i] = first + <int32_t><uint32_t>keys[i]  # (the low half: the position)
    free(keys)
    return 0


cdef class _Pairs:
    """A growing list of int32 pairs."""
    cdef int32_t[::1] first
    cdef int32_t[::1] second
    cdef Py_ssize_t size

    def __cinit__(self, Py_ssize_t capacity):
        self.first = np.empty(max(capacity, 16), dtype=np.int32)
        self.second = np.empty(max(capacity, 16), dtype=np.int32)
        self.size = 0

    cdef void add(self, int32_t a, int32_t b):
        if self.size == self.first.shape[0]:
            self.first = np.concatenate([self.first, np.empty(self.size, dtype=np.int32)])
            self.second = np.concatenate([self.second, np.empty(self.size, dtype=np.int32)])
        self.first[self.size] = a
        self.second[self.size] = b
        self.size += 1


def self_similar(const int32_t[::1] indptr, const int32_t[::1] indices, const float[::1] data, Py_ssize_t n_cols,
                 double threshold, double margin):
    """The pairs ``(i, j)`` of rows of a CSR matrix whose dot product is above ``threshold``, as the arrays
    ``rows, cols`` (int32): both orders of every pair, and ``(i, i)`` where it holds.

    The rows must have norm 1 (or 0), weights ≥ 0, and increasing column indices below ``n_cols``. The pairs are
    those of ``fce.features.similar_pairs(X, X, threshold)``, found without summing the product of every two rows
    that share a term (all-pairs similarity search with prefix filtering: Bayardo, Ma and Srikant, "Scaling up all
    pairs similarity search", WWW 2007):

    * each row is entered in the postings of its rarer terms only: its columns taken most frequent first form a
      prefix while their squared weights sum to less than ``(threshold - margin)²``, and the columns after it are
      indexed. Two rows whose dot product is above the threshold share an indexed column of each, since a row's
      prefix contributes at most its norm to any dot product with a row of norm 1;
    * a row's candidates are the rows in the postings of its columns (those after it: the dot product is the same
      both ways). Each is verified by summing the products of the shared columns in increasing column order, in
      float32, as the sparse product sums them, and compared in float32 as NumPy compares the product: a pair is
      kept exactly when the product would keep it. ``margin`` covers float32 rounding in the bound.

    """
    cdef Py_ssize_t n = indptr.shape[0] - 1
    cdef Py_ssize_t nnz = indptr[n]
    cdef Py_ssize_t i, j, k, p, a, a_end
    cdef int32_t col, other
    cdef float dot
    cdef float limit = <float>threshold
    cdef double bound = threshold - margin
    cdef double prefix_limit = bound * bound if bound > 0 else -1.0
    cdef double norm2
    cdef bint in_suffix

    # the columns that occur, numbered 0, 1, … as met, through an open-addressing table of twice the entries' size
    # (not an array over all ``n_cols``: hashed terms span 2**20 columns, and zeroing or faulting in that 4 MB per
    # call, with glibc's adaptive mmap threshold, made a site's whole learning ~25 % slower: README, "Speed")
    cdef int shift = 32
    cdef Py_ssize_t cap = 1
    while cap < 2 * nnz or cap < 16:
        cap <<= 1
        shift -= 1
    keys_array = np.full(cap, -1, dtype=np.int32)
    cdef int32_t[::1] keys = keys_array
    slot_array = np.empty(cap, dtype=np.int32)
    cdef int32_t[::1] slot = slot_array
    cdef uint32_t h
    cdef uint32_t table_mask = <uint32_t>(cap - 1)
    column_array = np.empty(max(nnz, 1), dtype=np.int32)
    cdef int32_t[::1] column = column_array
    cdef int32_t n_used = 0
    for k in range(nnz):
        col = indices[k]
        if col < 0 or col >= n_cols:
            raise ValueError(f"column index {col} is outside 0..{n_cols - 1}")
        h = (<uint32_t>col * <uint32_t>2654435761u) >> shift  # Fibonacci hashing: the product's top bits
        while keys[h] != -1 and keys[h] != col:
            h = (h + 1) & table_mask
        if keys[h] == -1:
            keys[h] = col
            slot[h] = n_used
            n_used += 1
        column[k] = slot[h]
    del keys_array, slot_array
    n_cols = n_used
    df_array = np.zeros(max(n_cols, 1), dtype=np.int32)
    cdef int32_t[::1] df = df_array
    for k in range(nnz):
        df[column[k]] += 1
    # which entries are indexed: per row, its positions by frequency; the prefix, then the rest
    order_array = np.empty(max(nnz, 1), dtype=np.int32)
    cdef int32_t[::1] order = order_array
    indexed_array = np.zeros(max(nnz, 1), dtype=np.uint8)
    cdef uint8_t[::1] indexed = indexed_array
    start_array = np.zeros(max(n_cols, 1) + 1, dtype=np.int32)
    cdef int32_t[::1] start = start_array
    for i in range(n):
        a, a_end = indptr[i], indptr[i + 1]
        for k in range(a, a_end):
            order[k] = <int32_t>k
        if a_end > a:
            _sort_by_frequency(&order[a], &column[0], &df[0], a_end - a)
        norm2 = 0.0
        in_suffix = False
        for p in range(a, a_end):
            k = order[p]
            if not in_suffix:
                norm2 += <double>data[k] * <double>data[k]
                in_suffix = norm2 >= prefix_limit
            if in_suffix:
                indexed[k] = 1
                start[column[k] + 1] += 1
    for k in range(1, start.shape[0]):
        start[k] += start[k - 1]
    postings_array = np.empty(max(start[start.shape[0] - 1], 1), dtype=np.int32)
    cdef int32_t[::1] postings = postings_array
    fill_array = np.array(start_array[:start_array.shape[0] - 1])
    cdef int32_t[::1] fill = fill_array
    for i in range(n):  # rows in increasing order, so each posting list is sorted
        for k in range(indptr[i], indptr[i + 1]):
            if indexed[k]:
                postings[fill[column[k]]] = <int32_t>i
                fill[column[k]] += 1

    seen_array = np.full(max(n, 1), -1, dtype=np.int64)
    cdef int64_t[::1] seen = seen_array
    candidates_array = np.empty(max(n, 1), dtype=np.int32)
    cdef int32_t[::1] candidates = candidates_array
    cdef Py_ssize_t n_candidates
    cdef _Pairs pairs = _Pairs(n)
    weights_array = np.zeros(max(n_cols, 1), dtype=np.float32)  # row i's weights, by column
    cdef float[::1] weights = weights_array
    for i in range(n):
        n_candidates = 0
        for k in range(indptr[i], indptr[i + 1]):
            col = column[k]
            for p in range(start[col], start[col + 1]):
                other = postings[p]
                if other >= i and seen[other] != i:
                    seen[other] = i
                    candidates[n_candidates] = other
                    n_candidates += 1
        for k in range(indptr[i], indptr[i + 1]):
            weights[column[k]] = data[k]
        for p in range(n_candidates):
            j = candidates[p]
            dot = 0
            for k in range(indptr[j], indptr[j + 1]):
                # in increasing column order (row j's storage order); a column row i lacks adds 0, which leaves a
                # sum of products unchanged
                dot = dot + weights[column[k]] * data[k]
            if dot > limit:
                pairs.add(<int32_t>i, <int32_t>j)
        for k in range(indptr[i], indptr[i + 1]):
            weights[column[k]] = 0
    rows = np.asarray(pairs.first[:pairs.size])
    cols = np.asarray(pairs.second[:pairs.size])
    off = rows != cols
    return np.concatenate([rows, cols[off]]), np.concatenate([cols, rows[off]])


cdef extern from "Python.h":
    object PyBytes_FromStringAndSize(const char* data, Py_ssize_t size)
    char* PyBytes_AS_STRING(object data)


cdef Py_ssize_t _utf8_size(object s, list encoded) except -1:
    """Bytes of ``s`` in UTF-8 (surrogates passed); the encoding of a string that is not ASCII appended to
    ``encoded``."""
    if type(s) is not str:
        raise TypeError("paths and texts must be str")
    if PyUnicode_IS_ASCII(s):
        return len(<str>s)
    raw = (<str>s).encode("utf-8", "surrogatepass")
    encoded.append(raw)
    return len(<bytes>raw)


cdef inline Py_ssize_t _put_utf8(char* out, object s, list encoded, Py_ssize_t* k) noexcept:
    """Write what :func:`_utf8_size` measured of ``s`` at ``out`` (``k``: the next of ``encoded``); its size."""
    cdef Py_ssize_t length
    cdef object raw
    if PyUnicode_IS_ASCII(s):
        length = len(<str>s)
        memcpy(out, PyUnicode_DATA(s), length)
        return length
    raw = <object>PyList_GET_ITEM(encoded, k[0])
    k[0] += 1
    length = len(<bytes>raw)
    memcpy(out, PyBytes_AS_STRING(raw), length)
    return length


def keyed_stream(list paths, list texts):
    """``b"".join(p.encode("utf-8", "surrogatepass") + b"\\0" + t.encode("utf-8", "surrogatepass") + b"\\1" for
    p, t in zip(paths, texts))`` — the bytes ``fce.layouts._canonical_key`` hashes — written into one buffer: an
    ASCII string (every path, most texts) is copied as it is stored, only the others are encoded."""
    cdef Py_ssize_t n = len(paths), i, k = 0, size = 0, at = 0
    cdef list encoded = []  # the UTF-8 bytes of the strings that are not ASCII, in order
    cdef char* out
    if len(texts) != n:
        raise ValueError("paths and texts must be of the same length")
    for i in range(n):
        size += _utf8_size(paths[i], encoded) + _utf8_size(texts[i], encoded) + 2
    stream = PyBytes_FromStringAndSize(NULL, size)
    out = PyBytes_AS_STRING(stream)
    for i in range(n):
        at += _put_utf8(out + at, <object>PyList_GET_ITEM(paths, i), encoded, &k)
        out[at] = 0
        at += _put_utf8(out + at + 1, <object>PyList_GET_ITEM(texts, i), encoded, &k) + 1
        out[at] = 1
        at += 1
    return stream


def similar_page_counts(const int32_t[::1] rows, const int32_t[::1] cols, const int64_t[::1] pages_indptr,
                        const int64_t[::1] pages, Py_ssize_t n_pages):
    """Per block ``i`` (``pages[pages_indptr[i]:pages_indptr[i + 1]]``: the distinct pages holding it), the number
    of pages holding ``i`` or a block ``j`` with ``(i, j)`` among the pairs ``rows, cols`` (as :func:`self_similar`
    gives them) — ``fce.content_extractor._page_occurrences``' sparse product, counted with a stamp per page."""
    cdef Py_ssize_t n = pages_indptr.shape[0] - 1, m = rows.shape[0], i, k, q, j
    cdef int64_t count
    if cols.shape[0] != m:
        raise ValueError("rows and cols must be of the same length")
    for k in range(m):
        if rows[k] < 0 or rows[k] >= n or cols[k] < 0 or cols[k] >= n:
            raise ValueError("a pair names a block that is not there")
    for k in range(pages.shape[0]):
        if pages[k] < 0 or pages[k] >= n_pages:
            raise ValueError("a page index is out of range")
    if n >= 0 and (pages_indptr[0] < 0 or pages_indptr[n] > pages.shape[0]):
        raise ValueError("pages_indptr does not index pages")
    for i in range(n):
        if pages_indptr[i + 1] < pages_indptr[i]:
            raise ValueError("pages_indptr must not decrease")
    out = np.zeros(n, dtype=np.int64)
    cdef int64_t[::1] counts = out
    # the pairs grouped by row (a counting sort)
    start_array = np.zeros(n + 1, dtype=np.int64)
    cdef int64_t[::1] start = start_array
    partner_array = np.empty(max(m, 1), dtype=np.int32)
    cdef int32_t[::1] partner = partner_array
    fill_array = np.empty(n, dtype=np.int64)
    cdef int64_t[::1] fill = fill_array
    stamp_array = np.full(max(n_pages, 1), -1, dtype=np.int64)
    cdef int64_t[::1] stamp = stamp_array
    with nogil:
        for k in range(m):
            start[rows[k] + 1] += 1
        for i in range(n):
            start[i + 1] += start[i]
            fill[i] = start[i]
        for k in range(m):
            partner[fill[rows[k]]] = cols[k]
            fill[rows[k]] += 1
        for i in range(n):
            count = 0
            for q in range(pages_indptr[i], pages_indptr[i + 1]):
                if stamp[pages[q]] != i:
                    stamp[pages[q]] = i
                    count += 1
            for k in range(start[i], start[i + 1]):
                j = partner[k]
                for q in range(pages_indptr[j], pages_indptr[j + 1]):
                    if stamp[pages[q]] != i:
                        stamp[pages[q]] = i
                        count += 1
            counts[i] = count
    return out
