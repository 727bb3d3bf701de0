"""The detection phase of FastCE (§III, Figure 5): apply a site template to a new page.

Only blocks whose path is in P are candidates (the top-most ones: a candidate's sub-blocks go with it). For a
candidate B the paper's three rules decide which sub-blocks go with it:

1. if the paths of all sub-blocks of B are in P, the whole of B is extracted;
2. if B contains a block B' whose path is not in P, and no sub-block of B' has a path in P, B is extracted
   without B';
3. otherwise (B' has a sub-block with a path in P) B is extracted including B'.

Rule 3 keeps B' whole (``rules="paper"``); ``rules="recursive"`` instead drops B''s own text and applies the
rules again to B''s sub-blocks. Each extracted block is then compared with the template's noise blocks of the same
path; a block similar to one of them (cosine > 0.9) is dropped. What remains is the content, in document order.

That is ``mode="rules"``; the default ``mode="guided"`` uses the template differently (:data:`DETECTION_MODES`).

The **fit test** (:data:`MIN_FIT`): the share of the page's text that lies in blocks on paths the template saw
while learning. A page of another layout (a redesign, another section) scores low and goes to the fallback, as does
a page where the template extracts nothing.
"""

from __future__ import annotations

import sys
from collections import defaultdict
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from fce.blocks import INLINE_BLOCK_TAGS, Block, BlockTree, blocks_of, disjoint_subtrees, join_pieces
from fce.extraction import ExtractedBlock, Extraction
from fce.features import COUNT_FEATURES, block_vectors
from fce.kernels import CONTENT_BIT, COUNT_SHIFT, KNOWN_BIT
from fce.kernels import template_mask as mask_of
from fce.kernels import templates_sums as sums_of
from fce.kinds import DetectionMode, Rules
from fce.methods.mainblock import select_main
from fce.names import aside_named
from fce.parse import Page
from fce.template import Template

if TYPE_CHECKING:
    import scipy.sparse as sp

    from fce.layouts import SiteDetector

__all__ = ["DEFAULT_MODE", "DETECTION_MODES", "MIN_FIT", "Detector", "TemplateMatch"]

#: Below this fit score the template is not trusted for the page and the fallback method runs. Pages of a learned
#: layout score 0.8–1.0 on msv-big9; pages of another layout of the same site mostly below 0.4 (README).
MIN_FIT = 0.5

#: Positions in a :class:`~fce.blocks.Block` of its counts, in :data:`~fce.features.COUNT_FEATURES` order.
_COUNT_FIELDS = tuple(Block._fields.index(name) for name in COUNT_FEATURES)


#: How a template is applied. ``"rules"``: the paper's detection phase (candidates on P, the three rules, noise
#: blocks dropped). ``"guided"``: the site's boilerplate — blocks on paths the template saw only as noise — is
#: removed, then the ``mainblock`` scoring picks the content container. Measured (README, "Detection modes"),
#: guided leads on msv-big9 (0.954 against 0.936 word F1, site-macro) and rules on cleanportaleval (0.914
#: against 0.902); only guided is ahead of trafilatura on both (0.946 / 0.889), so it is the default.
DETECTION_MODES = tuple(DetectionMode)
DEFAULT_MODE = DetectionMode.GUIDED


def path_codes(template: Template) -> dict[str, int]:
    """Every path of ``template`` (interned) with its code (:mod:`fce.kernels`: page count, known bit, content bit;
    ``Template.known_paths``, ``Template.boilerplate_paths``, P). One table, so that a page's fit, profile match and
    boilerplate mask read one hash table once each instead of four sets and dicts (measured: the layout choice 56 →
    ~31 µs a page with the compiled pass, its tables cold after the parse)."""
    boilerplate = template.boilerplate_paths
    codes = {sys.intern(p): (count << COUNT_SHIFT) | KNOWN_BIT | (p not in boilerplate)
             for p, count in template.known_paths.items()}
    for p in template.path_set:
        if p not in codes:  # (a path of P without own text on any learning page: an inline block's)
            codes[sys.intern(p)] = CONTENT_BIT
    return codes


def merged_codes(tables: Sequence[dict[str, int]]) -> dict[str, tuple[int, ...]]:
    """Several :func:`path_codes` tables (a site's layouts) as one: path -> its code in each table (0 where a table
    lacks it), for :func:`templates_sums`."""
    paths = dict.fromkeys(p for codes in tables for p in codes)
    return {p: tuple(codes.get(p, 0) for codes in tables) for p in paths}


def templates_sums(tree: BlockTree, merged: dict[str, tuple[int, ...]],
                   n_tables: int) -> list[tuple[int, int, int, int, int]]:
    """One pass over ``tree``'s blocks against each of ``n_tables`` tables, given as their :func:`merged_codes`
    (:func:`fce.kernels.templates_sums`): characters of own text on known paths and on all blocks (the fit); over
    the distinct paths of blocks with own text (the page's path set), the sum of their learning-page counts and
    their number (the profile match, :mod:`fce.layouts`); the characters of own text on paths guided detection
    keeps (what the template's extraction is checked against, :func:`fce.pipeline.extract`)."""
    cols = tree.columns
    return sums_of(cols.paths, cols.text_lengths, merged, n_tables)


def template_mask(tree: BlockTree, codes: dict[str, int]) -> list[bool]:
    """Guided detection's boilerplate: per block, whether its path is the site's boilerplate (known, without the
    content bit of :func:`path_codes`) — except a block with a sub-block on a path that guided detection keeps: a
    paragraph whose text sits in inline sub-blocks on such paths, or a box around the article (its own text is the
    boilerplate's, its subtree is not; leaving it out took the article inside with it; measured, k-fold site-macro
    word F1: cleanportaleval +0.005, daniel-small +0.002, msv-big9 +0.0002, dragnet-small −0.0006)."""
    cols = tree.columns
    return mask_of(cols.paths, cols.parents, codes)


#: Guided mode leaves out the blocks on content paths whose text is a stored noise block's
#: (:func:`mask_repeated_noise`) only where together they hold at most this share of the page's text: a sentence
#: or a few lines the site repeats, not the article itself, whose paragraphs are noise blocks when the learning
#: pages held its text twice (a blog's front page showing its latest posts whole). In the k-fold evaluation of the
#: four per-site sets such text is 1 % of a page's text at the median and 17 % at the 99th percentile (2,012
#: detections, learning's included); no page's word F1 changes with this bound.
NOISE_TEXT_MAX_SHARE = 0.25


def mask_repeated_noise(tree: BlockTree, noise_texts: dict[str, dict[int, frozenset[str]]], mask: list[bool]) -> int:
    """Mark in guided mode's ``mask`` every block on a content path whose own text is a noise block's of that path
    (:class:`~fce.template.NoiseBlock`, ``noise_texts`` as :attr:`Detector.noise_texts` holds them): a sentence the
    site repeats inside its articles' body ("Like us on Facebook"), which the path alone keeps. The paper's rules
    compare every kept block with the noise blocks by cosine similarity; guided mode compares the text, where the
    block's own text has a noise block's length (4–9 µs a page), and only up to :data:`NOISE_TEXT_MAX_SHARE` of
    the page's text. Measured, k-fold site-macro word F1: daniel-small +0.0015 (news.sina.com.hk +0.05), msv-big9
    +0.0005, dragnet-small −0.0005 (its gold keeps in-body promotions: universetoday.com's "Follow @universetoday
    on Twitter"), cleanportaleval ±0. How many were marked."""
    cols = tree.columns
    paths, lengths = cols.paths, cols.text_lengths
    found: list[int] = []
    for path, by_length in noise_texts.items():
        i = -1
        while True:
            try:
                i = paths.index(path, i + 1)  # (interned: compared by identity first)
            except ValueError:
                break
            texts = by_length.get(lengths[i])
            if texts is not None and not mask[i] and " ".join(tree.render(i, _no_sub_block).split()) in texts:
                found.append(i)
    if found and sum(lengths[i] for i in found) <= NOISE_TEXT_MAX_SHARE * sum(lengths):
        for i in found:
            mask[i] = True
        return len(found)
    return 0


def _no_sub_block(_: int) -> bool:
    """A ``keep`` for :meth:`~fce.blocks.BlockTree.render` that renders a block's own text alone."""
    return False


#: Guided detection's lead: a block between the headline and the article's body that the site's template keeps,
#: with at least this many characters of its own text, of which at most :data:`LEAD_MAX_LINK_SHARE` in links, is
#: the article's lead — a standfirst, a deck, a video's summary — where the ``mainblock`` scoring chose the body's
#: container alone (:func:`put_lead`). Measured, k-fold site-macro word F1 against guided detection without it:
#: daniel-small +0.0132, cleanportaleval +0.0078, msv-big9 +0.0005, dragnet-small +0.0005; with 40 characters
#: +0.0062 / +0.0078 / +0.0009 / +0.0001, with 150 +0.0109 / +0.0076 / +0.0001 / +0.0005.
LEAD_MIN_CHARS = 80
LEAD_MAX_LINK_SHARE = 0.3


def _title_index(tree: BlockTree, path: str) -> int:
    """The index of the page's headline, its first block with text on the template's headline ``path``; -1 if
    none."""
    cols = tree.columns
    paths, lengths = cols.paths, cols.text_lengths
    try:
        i = paths.index(path)  # (interned: compared by identity first)
        while not lengths[i]:
            i = paths.index(path, i + 1)
    except ValueError:
        return -1
    return i


def _put_title(tree: BlockTree, i: int, selected: list[ExtractedBlock], covered: list[int]) -> bool:
    """Put the page's headline, block ``i`` (:func:`_title_index`), in front of (or, in document order, among) the
    ``selected`` blocks, unless their text holds it already; whether it was put. A selected container that holds
    the headline without its text (the template's mask took it out: the site's learning pages rarely showed it
    chosen) gets it in front."""
    cols = tree.columns
    paths, ends = cols.paths, cols.ends
    if i in covered or any(i <= b.index < ends[i] for b in selected):
        return False  # already in, or holding a selected block
    mine: list[int] = []
    text = tree.render(i, None, mine)
    if not text or any(b.text == text or b.text.startswith(text + "\n") for b in selected):
        return False
    at = sum(ends[b.index] <= i for b in selected)
    selected.insert(at, ExtractedBlock(paths[i], text, i))
    covered.extend(mine)
    return True


def put_lead(tree: BlockTree, title: int, codes: dict[str, int], selected: list[ExtractedBlock],
             covered: list[int], rendered: list[int] | None = None) -> int:
    """Put the article's lead among the ``selected`` blocks: each block after the headline (block ``title``) and
    before the first selected block after it whose path the template keeps (``codes``, :func:`path_codes`) and
    whose own text reads as a lead (:data:`LEAD_MIN_CHARS`, :data:`LEAD_MAX_LINK_SHARE`), unless it is named as
    a caption's, a gallery's or an author's (:func:`fce.names.aside_named`) or the body repeats its text. The
    ``mainblock`` scoring keeps one container; a site that sets its standfirst or a video's summary apart from
    the body loses it there, and the template knows the path as the site's content. A block in the headline's own
    box (the same parent) is the standfirst whatever the box's names and the template's paths: arstechnica.com
    set its headline and teaser in ``div#promotional-zone.news-item-promo``, furniture by its names (msv-big9
    k-fold site-macro word F1 +0.0010, its 2009 pages 0.95–0.98 → 1.0; daniel-small and dragnet-small +0.0001;
    no page lower). How many were put (their indices appended to ``rendered``)."""
    body = [b.index for b in selected if b.index > title]
    if not body:
        return 0
    cols = tree.columns
    paths, lengths, links, ends, parents = cols.paths, cols.text_lengths, cols.link_chars, cols.ends, cols.parents
    first = min(body)
    done = set(covered)
    put = 0
    i = ends[title]
    while i < first:
        n = lengths[i]
        if (i in done or n < LEAD_MIN_CHARS or links[i] > LEAD_MAX_LINK_SHARE * n
                or not (parents[i] == parents[title]
                        or codes.get(paths[i], 0) & CONTENT_BIT and not aside_named(paths[i]))):
            i += 1
            continue
        mine: list[int] = []
        text = tree.render(i, None, mine)
        if text and not any(text in b.text for b in selected if b.index > i):
            selected.insert(sum(b.index < i for b in selected), ExtractedBlock(paths[i], text, i))
            covered.extend(mine)
            if rendered is not None:
                rendered.append(i)
            put += 1
        i = ends[i]
    return put


class TemplateMatch:
    """What applying a template to one page gave: the extraction (possibly empty) and the fit score."""

    __slots__ = ("blocks", "covered", "exact", "fit", "n_candidates", "n_dropped_noise", "title")

    def __init__(self, blocks: tuple[ExtractedBlock, ...], fit: float, n_candidates: int, n_dropped: int,
                 covered: frozenset[int] = frozenset(), title: bool = False, exact: bool = False) -> None:
        self.blocks = blocks
        self.fit = fit
        self.n_candidates = n_candidates
        self.n_dropped_noise = n_dropped
        #: indices of every block whose text is in the extraction (for block-level evaluation)
        self.covered = covered
        #: whether the headline was put in front from the template's headline path (guided mode)
        self.title = title
        #: whether each block's text is its render with ``covered`` (:func:`fce.blocks.disjoint_subtrees`; guided
        #: mode: the rules of the other modes drop some blocks' own text, keeping their sub-blocks')
        self.exact = exact

    @property
    def chars(self) -> int:
        """Characters of text extracted."""
        return sum(len(b.text) for b in self.blocks)


class Detector:
    """A template compiled for fast repeated detection (noise vectors built once, grouped by path)."""

    def __init__(self, template: Template, *, mode: str = DEFAULT_MODE) -> None:
        if mode not in DETECTION_MODES:
            raise ValueError(f"mode must be one of {DETECTION_MODES}, not {mode!r}")
        self.template = template
        self.mode = mode
        # interned, as the compiled segmentation's paths are: a lookup of a page's path finds the same object and
        # compares no characters (measured, with the sets these were then read through: the layout choice 58 → 42 µs
        # a page, cold, on the msv-big9 speed pages)
        self.paths = frozenset(map(sys.intern, template.path_set))
        self.known = frozenset(map(sys.intern, template.known_paths))
        self.noise_paths = self.known - self.paths
        #: every path the template names, coded for :func:`templates_sums` and :func:`template_mask`
        self.path_codes = path_codes(template)
        #: the same as a one-table :func:`merged_codes`, for :func:`templates_sums`
        self.merged_codes = merged_codes([self.path_codes])
        self.threshold = template.params.similarity_threshold
        self.recursive = template.params.rules == Rules.RECURSIVE
        self.path_style = template.params.path_style
        self.title_path = None if template.title_path is None else sys.intern(template.title_path)
        by_path: dict[str, list[int]] = defaultdict(list)
        for i, nb in enumerate(template.noise_blocks):
            by_path[nb.path].append(i)
        self._noise_rows = {p: np.asarray(rows) for p, rows in by_path.items()}
        #: guided mode's noise blocks by text (:func:`mask_repeated_noise`): path → own-text length → texts
        texts: dict[str, dict[int, set[str]]] = {}
        for nb in template.noise_blocks:
            texts.setdefault(sys.intern(nb.path), {}).setdefault(len(nb.text), set()).add(" ".join(nb.text.split()))
        self.noise_texts: dict[str, dict[int, frozenset[str]]] = {
            path: {length: frozenset(same) for length, same in by_length.items()} for path, by_length in texts.items()}
        self._noise: sp.csr_matrix | None = None  # vectors of the noise blocks, built on first use
        #: this detector as a one-layout site per ``min_fit`` (built by :func:`fce.layouts.site_of_detector`,
        #: kept here: building one computes a profile norm over every known path, ~0.1 ms, 5 % of a detection)
        self.sites: dict[float, SiteDetector] = {}

    def _noise_vectors(self) -> sp.csr_matrix:
        if self._noise is None:  # (block_vectors of no block is an empty matrix of the same width)
            noise = self.template.noise_blocks
            self._noise = block_vectors([nb.text for nb in noise], [nb.counts for nb in noise])
        return self._noise

    def fit_score(self, tree: BlockTree) -> float:
        """Share of the page's own-text characters lying on paths seen while learning."""
        known, total, _, _, _ = templates_sums(tree, self.merged_codes, 1)[0]
        return known / total if total else 0.0

    def match(self, page: Page | BlockTree, *, fit: float | None = None) -> TemplateMatch:
        """Apply the template to one page (in this detector's mode); ``fit``: the page's :meth:`fit_score`, when
        the caller computed it already."""
        tree = page if isinstance(page, BlockTree) else blocks_of(page, self.path_style)
        if fit is None:
            fit = self.fit_score(tree)
        if self.mode == DetectionMode.GUIDED:
            return self._match_guided(tree, fit)
        return self._match_paths(tree, fit)

    def _match_paths(self, tree: BlockTree, fit: float) -> TemplateMatch:
        """The blocks on the template's content paths that are not its noise (the paper's detection)."""
        candidates = self._extract(tree)
        if not candidates:
            return TemplateMatch((), fit, 0, 0)
        keep = self._not_noise(candidates)
        blocks = tuple(
            ExtractedBlock(path=b.path, text=text, index=b.index)
            for (b, text, _, _), k in zip(candidates, keep, strict=True)
            if k
        )
        covered = frozenset(i for (_, _, _, seen), k in zip(candidates, keep, strict=True) if k for i in seen)
        return TemplateMatch(blocks, fit, len(candidates), len(candidates) - len(blocks), covered)

    def _match_guided(self, tree: BlockTree, fit: float) -> TemplateMatch:
        covered: list[int] = []
        rendered: list[int] = []
        mask = template_mask(tree, self.path_codes)
        if self.noise_texts:
            mask_repeated_noise(tree, self.noise_texts, mask)
        selected = select_main(tree, mask, covered, rendered)
        title = self._put_headline(tree, selected, covered, rendered)
        return TemplateMatch(tuple(selected), fit, len(selected), 0, frozenset(covered), title,
                             disjoint_subtrees(tree, rendered))

    def match_on_paths(self, tree: BlockTree, fit: float, *, inside: frozenset[int]) -> TemplateMatch | None:
        """The blocks on the template's content paths that are not its noise (the paper's detection), with guided
        mode's headline and lead, where there are some and the blocks ``inside`` hold them all (else None): what
        :func:`fce.pipeline.extract` takes where guided detection kept nothing and the fallback's extraction
        (``inside``) holds these blocks among more (:data:`fce.kinds.CheckRule.NARROWED`)."""
        found = self._match_paths(tree, fit)
        if not found.blocks or not found.covered <= inside:
            return None
        selected = list(found.blocks)
        covered = list(found.covered)
        title = self._put_headline(tree, selected, covered, [])
        return TemplateMatch(tuple(selected), fit, found.n_candidates, found.n_dropped_noise, frozenset(covered), title)

    def _put_headline(self, tree: BlockTree, selected: list[ExtractedBlock], covered: list[int],
                      rendered: list[int]) -> bool:
        """Put the headline (the template's title path) and the lead in front of a non-empty ``selected``;
        whether the headline was put."""
        if not selected or self.title_path is None:
            return False
        at = _title_index(tree, self.title_path)
        if at < 0:
            return False
        title = _put_title(tree, at, selected, covered)
        if title:
            rendered.append(at)
        put_lead(tree, at, self.path_codes, selected, covered, rendered)
        return title

    def detect(self, page: Page | BlockTree, *, site: str | None = None) -> Extraction:
        """Template extraction only (no fallback); see :func:`fce.pipeline.extract` for the full pipeline."""
        m = self.match(page)
        return Extraction.from_blocks(m.blocks, method="template", site=site or self.template.site, fit=m.fit)

    # -- the three rules ---------------------------------------------------------------------------------------

    def _extract(self, tree: BlockTree) -> list[tuple[Block, str, tuple[int, ...], list[int]]]:
        blocks = tree.blocks
        paths = self.paths
        n = len(blocks)
        in_p = [b.path in paths for b in blocks]
        # has_p_below[i]: some strict descendant of block i has a path in P (children come after parents).
        has_p_below = [False] * n
        for i in range(n - 1, 0, -1):
            if in_p[i] or has_p_below[i]:
                has_p_below[blocks[i].parent] = True
        out: list[tuple[Block, str, tuple[int, ...], list[int]]] = []
        i = 0
        while i < n:
            if not in_p[i]:
                i += 1
                continue
            end = tree.subtree_end(i)
            pieces, counts, seen = self._render(tree, i, in_p, has_p_below)
            text = join_pieces(pieces)
            if text:
                out.append((blocks[i], text, counts, seen))
            i = end
        return out

    def _render(self, tree: BlockTree, root: int, in_p: list[bool],
                has_p_below: list[bool]) -> tuple[list[str], tuple[int, ...], list[int]]:
        """Text of candidate ``root`` under the extraction rules, the summed counts of the blocks whose own text
        was kept, and their indices."""
        blocks = tree.blocks
        out: list[str] = []
        counts = [0] * len(_COUNT_FIELDS)
        fields = tuple(enumerate(_COUNT_FIELDS))
        seen: list[int] = []
        # stack items: a text piece, or (block index, own_text_kept, whole) to expand
        stack: list[str | tuple[int, bool, bool]] = [(root, True, False)]
        recursive = self.recursive
        while stack:
            item = stack.pop()
            if isinstance(item, str):
                out.append(item)
                continue
            idx, own, whole = item
            block = blocks[idx]
            if own:
                for k, field in fields:
                    counts[k] += block[field]  # type: ignore[operator]
                seen.append(idx)
            sep = "" if block.tag in INLINE_BLOCK_TAGS else "\n"
            stack.append(sep)
            for part in reversed(block.parts):
                if isinstance(part, str):
                    if own:
                        stack.append(part)
                    continue
                if whole or in_p[part]:
                    stack.append((part, True, whole))
                elif has_p_below[part]:
                    # rule 3: B' has a sub-block on a path in P
                    stack.append((part, not recursive, not recursive))
                # rule 2: no sub-block of B' is in P -> B' is left out
            stack.append(sep)
        return out, tuple(counts), seen

    def _not_noise(self, candidates: Sequence[tuple[Block, str, tuple[int, ...], list[int]]]) -> list[bool]:
        keep = [True] * len(candidates)
        if not self.template.noise_blocks:
            return keep
        todo = [i for i, (b, _, _, _) in enumerate(candidates) if b.path in self._noise_rows]
        if not todo:
            return keep
        vectors = block_vectors([candidates[i][1] for i in todo], [candidates[i][2] for i in todo])
        # (the transpose is converted to CSR by scipy on every product; keeping it converted would cost 8 MB per
        # detector — one indptr entry per hashed term — for 5 % of a rules-mode detection)
        sims = (vectors @ self._noise_vectors().T).tocsr()
        indptr, indices, data = sims.indptr.tolist(), sims.indices.tolist(), sims.data.tolist()
        for row, i in enumerate(todo):
            start, end = indptr[row], indptr[row + 1]
            if start == end:
                continue
            rows = self._noise_rows[candidates[i][0].path]
            dense = dict(zip(indices[start:end], data[start:end], strict=True))
            if any(dense.get(int(r), 0.0) > self.threshold for r in rows):
                keep[i] = False
        return keep
