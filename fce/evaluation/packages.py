"""Find the documents of test packages on disk.

Two layouts, one rule. A directory that directly holds ``.html``/``.htm`` files is a **package** (a site of a
dataset, or a Gottron-style test package); its documents are those files, and the files sharing their stem
carry the rest:

* ``<stem>.html`` or ``<stem>.htm`` — the page, raw bytes (``.html`` wins when both exist);
* ``<stem>.txt`` — the gold main content (optional: a document without one has status ``missing_gold``);
* ``<stem>.json`` — meta information (optional): ``url``, and in our datasets ``site``, ``dataset``,
  ``page_id`` …

Any other file (a ``README.md``, a Gottron ``description.txt``) is not a document; :func:`read_description`
reads a package's description. Directories are searched recursively, so a path may be the data root, a dataset
dir (``<dataset>/<site>/…``, see ``/work/shared/data/*/README.md``), a site dir or a package dir; a path may
also name one ``.html`` file.

Names: ``site`` and ``dataset`` come from the meta (``"site"``, ``"dataset"``) when it has them, else from the
package directory and its parent. ``doc_id`` is the stem. Documents come sorted by
``(dataset, site, doc_id)``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from enum import StrEnum
from os import PathLike
from pathlib import Path
from typing import Any

from fce.errors import SourceError

__all__ = [
    "DESCRIPTION_NAMES",
    "GOLD_SUFFIX",
    "HTML_SUFFIXES",
    "META_SUFFIX",
    "Document",
    "GoldStatus",
    "group_by_site",
    "iter_documents",
    "read_description",
]

#: Page files, in order of preference when two share a stem (compared case-insensitively).
HTML_SUFFIXES: tuple[str, ...] = (".html", ".htm")
GOLD_SUFFIX = ".txt"
META_SUFFIX = ".json"
#: File stems (case-insensitive) that describe a package rather than hold a document's gold.
DESCRIPTION_NAMES: tuple[str, ...] = ("description", "readme")


class GoldStatus(StrEnum):
    """Whether a document can be scored. Missing or empty gold is reported, never fatal."""

    OK = "ok"
    MISSING = "missing_gold"  # no <stem>.txt
    EMPTY = "empty_gold"  # a <stem>.txt with only whitespace or an HTML comment (CleanEval has 7, CleanPortalEval 2:
    # pages without main content; CleanPortalEval says so in a comment, "<!-- this page contains no article -->")


@dataclass(frozen=True, slots=True)
class Document:
    """One page of a test package: where its files are, and its meta information."""

    dataset: str
    site: str
    doc_id: str
    html_path: Path
    gold_path: Path | None
    meta: dict[str, Any] = field(default_factory=dict, hash=False)
    url: str | None = None
    status: GoldStatus = GoldStatus.OK

    def read_html(self) -> bytes:
        """The page's raw bytes."""
        return self.html_path.read_bytes()

    def read_gold(self) -> str | None:
        """The gold text, or ``None`` without a gold file. See :func:`_read_text` for the decoding."""
        return None if self.gold_path is None else _read_text(self.gold_path)


def _read_text(path: Path) -> str:
    """UTF-8 (a BOM is dropped), as the datasets promise; Windows-1252 for older hand-made packages."""
    data = path.read_bytes()
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return data.decode("cp1252", errors="replace")


def _html_files(directory: Path) -> dict[str, Path]:
    """The page files of a directory by stem, one per stem (preferred suffix first)."""
    rank = {suffix: i for i, suffix in enumerate(HTML_SUFFIXES)}
    pages: dict[str, Path] = {}
    for path in sorted(directory.iterdir()):
        suffix = path.suffix.casefold()
        if suffix not in rank or not path.is_file():
            continue
        known = pages.get(path.stem)
        if known is None or rank[suffix] < rank[known.suffix.casefold()]:
            pages[path.stem] = path
    return pages


def _read_meta(path: Path) -> dict[str, Any]:
    try:
        meta = json.loads(_read_text(path))
    except (json.JSONDecodeError, OSError) as exc:
        raise SourceError(f"unreadable meta file: {exc}", source=str(path)) from exc
    if not isinstance(meta, dict):
        raise SourceError("meta file is not a JSON object", source=str(path))
    return meta


#: HTML comments in a gold text: an annotator's note (that the page has no main content), not words to score; gold
#: of nothing else is empty (scoring the note's words would score every extractor 0 there).
_COMMENT = re.compile(r"<!--.*?-->", re.DOTALL)


def _document(html_path: Path, package_dir: Path) -> Document:
    stem = html_path.stem
    candidate = html_path.with_name(stem + GOLD_SUFFIX)
    meta_path = html_path.with_name(stem + META_SUFFIX)
    meta = _read_meta(meta_path) if meta_path.is_file() else {}
    gold_path: Path | None = candidate
    if not candidate.is_file():
        gold_path, status = None, GoldStatus.MISSING
    elif not _COMMENT.sub("", _read_text(candidate)).strip():
        status = GoldStatus.EMPTY
    else:
        status = GoldStatus.OK
    dataset = meta.get("dataset")
    site = meta.get("site")
    url = meta.get("url")
    return Document(
        dataset=dataset if isinstance(dataset, str) and dataset else package_dir.parent.name,
        site=site if isinstance(site, str) and site else package_dir.name,
        doc_id=stem,
        html_path=html_path,
        gold_path=gold_path,
        meta=meta,
        url=url if isinstance(url, str) and url else None,
        status=status,
    )


def _walk(path: Path) -> Iterator[Document]:
    if path.is_file():
        if path.suffix.casefold() not in HTML_SUFFIXES:
            raise SourceError(
                f"not a page file (expected one of {', '.join(HTML_SUFFIXES)})", source=str(path)
            )
        yield _document(path, path.parent)
        return
    if not path.is_dir():
        raise SourceError("no such file or directory", source=str(path))
    for html_path in _html_files(path).values():
        yield _document(html_path, path)
    for sub in sorted(path.iterdir()):
        if sub.is_dir() and not sub.name.startswith("."):
            yield from _walk(sub)


def iter_documents(paths: Iterable[str | PathLike[str]] | str | PathLike[str]) -> Iterator[Document]:
    """Every document under ``paths`` (files or directories), sorted by ``(dataset, site, doc_id)``.

    Raises :class:`fce.errors.SourceError` for a path that does not exist or a meta file that is not a JSON
    object. A document found twice (overlapping paths) is returned once.
    """
    if isinstance(paths, str | PathLike):
        paths = [paths]
    found: dict[Path, Document] = {}
    for p in paths:
        for doc in _walk(Path(p).resolve()):
            found.setdefault(doc.html_path, doc)
    yield from sorted(found.values(), key=lambda d: (d.dataset, d.site, d.doc_id, str(d.html_path)))


def group_by_site(documents: Iterable[Document]) -> dict[tuple[str, str], list[Document]]:
    """Documents grouped by ``(dataset, site)``; keys sorted, and each group sorted by ``doc_id``."""
    groups: dict[tuple[str, str], list[Document]] = {}
    for doc in documents:
        groups.setdefault((doc.dataset, doc.site), []).append(doc)
    return {key: sorted(groups[key], key=lambda d: (d.doc_id, str(d.html_path))) for key in sorted(groups)}


def read_description(package_dir: str | PathLike[str]) -> str | None:
    """The text of a package's description file (``description.txt``, ``README``, ``README.md`` …), if any."""
    directory = Path(package_dir)
    for path in sorted(directory.iterdir()):
        if (path.is_file() and path.stem.casefold() in DESCRIPTION_NAMES
                and path.suffix.casefold() not in HTML_SUFFIXES):
            return _read_text(path)
    return None
