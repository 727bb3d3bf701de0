# cython: infer_types=False, boundscheck=False, wraparound=False
"""The loops over a block tree's columns (:class:`fce.blocks.Columns`) that run on every page: the subtree sums the
``mainblock`` scoring reads, and the sums and the boilerplate mask a site template's detection reads.

Written once, in Cython's pure Python mode: ``setup.py`` compiles this module where the install has a C compiler
(:data:`fce._accel.PURE_PYTHON_MODULES`), and it runs as the plain Python it is otherwise (``tests/test_kernels.py``
runs the source against the compiled module). The columns' integers are ``array('l')`` buffers, which the compiled
loops read as C ``long``; the bounds are checked once per call (``ValueError``), not per item.

A template's paths come as one table, path -> code (:func:`fce.detect.path_codes`): ``count << COUNT_SHIFT |
KNOWN_BIT | CONTENT_BIT``, the number of learning pages a path had text on, whether it was seen while learning, and
whether guided detection keeps it.
"""

from __future__ import annotations

from array import array
from collections.abc import Collection, Sequence

try:
    import cython
except ModuleNotFoundError:  # Cython is a build requirement only: plain Python then
    from fce import _cython_shim as cython

__all__ = ["CONTENT_BIT", "COUNT_SHIFT", "KNOWN_BIT", "subtree_sums", "template_mask", "templates_sums"]

#: The bits of a path's code: kept by guided detection (a path seen while learning that is not the site's
#: boilerplate, or a path of P), seen while learning (a known path); the bits above hold the number of learning
#: pages it had text on.
CONTENT_BIT = 1
KNOWN_BIT = 2
COUNT_SHIFT = 2


def subtree_sums(parents: Sequence[int], tags: list[str], lengths: Sequence[int], commas: Sequence[int],
                 link_chars: Sequence[int], inline_tags: Collection[str],
                 ) -> tuple[array[int], array[int], array[int], array[int]]:
    """One bottom-up pass over blocks in pre-order (every block after its ancestors): per block, characters of own
    text and of link text in its whole subtree, and characters and commas of its paragraph (its own text plus its
    sub-blocks of ``inline_tags``, at any depth through such blocks)."""
    n: cython.Py_ssize_t = len(tags)
    if len(parents) != n or len(lengths) != n or len(commas) != n or len(link_chars) != n:
        raise ValueError("the columns must be of the same length")
    chars = array("l", lengths)
    links = array("l", link_chars)
    para = array("l", lengths)
    para_commas = array("l", commas)
    up_of: cython.long[::1] = parents  # type: ignore[assignment]
    total: cython.long[::1] = chars  # type: ignore[assignment]
    linked: cython.long[::1] = links  # type: ignore[assignment]
    own: cython.long[::1] = para  # type: ignore[assignment]
    counted: cython.long[::1] = para_commas  # type: ignore[assignment]
    i: cython.Py_ssize_t
    up: cython.Py_ssize_t
    for i in range(n - 1, 0, -1):
        up = up_of[i]
        if up < 0 or up >= i:
            raise ValueError("a block's parent comes before it")
        total[up] += total[i]
        linked[up] += linked[i]
        if tags[i] in inline_tags:
            own[up] += own[i]
            counted[up] += counted[i]
    return chars, links, para, para_commas


def templates_sums(paths: list[str], lengths: Sequence[int], merged: dict[str, tuple[int, ...]],
                   n_tables: int) -> list[tuple[int, int, int, int, int]]:
    """For each of ``n_tables`` path tables, given as one: path -> the tuple of its code in each table
    (:func:`fce.detect.merged_codes`), five figures: characters of own text on blocks whose path is known, and on
    all blocks (the fit); over the distinct paths of blocks with own text, the sum of their learning-page counts
    and their number (the profile match); characters of own text on paths of both bits (known, and kept by guided
    detection). One pass: own text is summed per distinct path, and each distinct path is looked up once."""
    n: cython.Py_ssize_t = len(paths)
    if len(lengths) != n:
        raise ValueError("paths and lengths must be of the same length")
    sizes: cython.long[::1] = lengths  # type: ignore[assignment]
    slot_of: dict[str, int] = {}
    distinct: list[str] = []
    per_path = array("l", [0]) * max(n, 1)
    chars: cython.long[::1] = per_path  # type: ignore[assignment]
    n_slots: cython.Py_ssize_t = 0
    total: cython.long = 0
    length: cython.long
    i: cython.Py_ssize_t
    for i in range(n):
        length = sizes[i]
        total += length
        if length == 0:
            continue
        path = paths[i]
        slot = slot_of.get(path)
        if slot is None:
            slot_of[path] = n_slots
            distinct.append(path)
            chars[n_slots] = length
            n_slots += 1
        else:
            chars[slot] += length
    tables: cython.Py_ssize_t = n_tables
    sums = array("l", [0]) * (3 * max(tables, 1))
    known: cython.long[::1] = sums  # type: ignore[assignment]  # known[t], counts[tables + t], kept[2 * tables + t]
    code: cython.long
    t: cython.Py_ssize_t
    k: cython.Py_ssize_t
    content: cython.long = CONTENT_BIT  # (C constants in the loop: a module global is a dict lookup each time)
    known_bit: cython.long = KNOWN_BIT
    shift: cython.long = COUNT_SHIFT
    row: tuple[int, ...] | None
    for k in range(n_slots):
        row = merged.get(distinct[k])
        if row is None:
            continue
        for t in range(tables):
            code = row[t]
            if code & known_bit:
                known[t] += chars[k]
                if code & content:
                    known[2 * tables + t] += chars[k]
            known[tables + t] += code >> shift
    return [(sums[t], total, sums[tables + t], n_slots, sums[2 * tables + t]) for t in range(tables)]


def template_mask(paths: list[str], parents: Sequence[int], codes: dict[str, int]) -> list[bool]:
    """Guided detection's boilerplate: per block, whether its path is the site's (known, without the content bit)
    — except a block with a sub-block on a path with the content bit (:func:`fce.detect.template_mask`)."""
    n: cython.Py_ssize_t = len(paths)
    if len(parents) != n:
        raise ValueError("the columns must be of the same length")
    up_of: cython.long[::1] = parents  # type: ignore[assignment]
    out = [False] * n
    below = bytearray(n)
    kept_below: cython.uchar[::1] = below  # type: ignore[assignment]
    code: cython.long
    i: cython.Py_ssize_t
    up: cython.Py_ssize_t
    content: cython.long = CONTENT_BIT  # (C constants in the loop: a module global is a dict lookup each time)
    known: cython.long = KNOWN_BIT
    both: cython.long = KNOWN_BIT | CONTENT_BIT
    for i in range(n - 1, -1, -1):  # (sub-blocks come after their parents: a block's mark is final in time)
        code = codes.get(paths[i], 0)
        up = up_of[i]
        if code & content or kept_below[i]:
            if 0 <= up < n:
                kept_below[up] = 1
        if code & both == known and not kept_below[i]:
            out[i] = True
    return out
