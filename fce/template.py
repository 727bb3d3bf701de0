"""The site template of FastCE (§III): content paths, the noise blocks that share them, and metadata.

A :class:`Template` is a frozen value with a stable JSON form (:meth:`Template.to_json` sorts keys and orders every
collection, so the same learning input gives byte-identical JSON). ``schema`` versions the JSON layout; a template
of another schema is refused with :class:`~fce.errors.TemplateError`, never half-read.

What a store holds per site is a :class:`SiteTemplates` record: one :class:`Template` per layout of the site
(articles, galleries, a redesign; :mod:`fce.layouts`). Its JSON is schema :data:`TEMPLATE_SCHEMA` (2)::

    {"schema": 2, "site": ..., "learned_at": ..., "fce_version": ..., "n_pages": ..., "extra": {...},
     "layouts": [<a Template's JSON object, schema 1>, ...]}

A layout's :class:`Template` JSON is schema :data:`LAYOUT_SCHEMA` (3): the paper's content paths P, the noise
blocks on them and the paths seen, plus what guided detection reads — the paths it removes as boilerplate
(``noise_paths``: text on them repeated across pages, or was link lists or furniture), the paths the site's own
selection never chose (``unchosen_paths``) and the path of the headline (``title_path``) — and every learning
parameter (:class:`LearnParams`).

**Older stores keep working**: :meth:`SiteTemplates.from_json` reads a schema-1 payload (a bare :class:`Template`,
what fce wrote before layouts) as a site of one layout, and a layout of schema 1 as it was learned: its boilerplate
is every path seen that is not in P, and it has no unchosen paths and no headline path.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, fields
from functools import cached_property
from typing import Any, TypeVar

from fce.blocks import unqualified_root
from fce.errors import TemplateError
from fce.kinds import PathStyle

R = TypeVar("R", "Template", "SiteTemplates")

__all__ = ["LAYOUT_SCHEMA", "LAYOUT_SCHEMAS", "TEMPLATE_SCHEMA", "LearnParams", "NoiseBlock", "SiteTemplates",
           "Template"]

#: Version of the stored site record (:class:`SiteTemplates`). Bump on any incompatible change; readers refuse
#: other versions. 1 was a bare :class:`Template` (one layout per site), still read as a one-layout site.
TEMPLATE_SCHEMA = 2

#: Version of one layout's :class:`Template` JSON. The numbers of both kinds of JSON are one sequence, so that the
#: number alone says what a payload is: 1 was a layout without ``noise_paths``, ``unchosen_paths``, ``title_path``
#: and with 7 of the learner's parameters (still read, module docstring), 2 is a site record.
LAYOUT_SCHEMA = 3
#: The layout schemas :meth:`Template.from_dict` reads.
LAYOUT_SCHEMAS = (1, 3)


@dataclass(frozen=True, slots=True)
class NoiseBlock:
    """A non-content block whose path is a content path (what detection compares extracted blocks against)."""

    path: str
    text: str
    counts: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class LearnParams:
    """The parameters a template was learned with, all of them (:class:`fce.learn.TemplateLearner`'s), stored in
    it so that detection applies the same ones and a stored template says how it was made. Schema 1 stored the
    first seven; the others of such a template read as their paper values (the paper's learner has none of fce's
    additions), which detection does not read."""

    similarity_threshold: float
    occurrence_fraction: float
    min_occurrence: int
    min_path_support: float
    rules: str
    path_style: str = "paper"
    max_link_density: float = 1.0
    min_content_share: float = 0.0
    noise_names: bool = False
    single_page_path_min_chars: int = 0
    inline_inherit: bool = False
    guided_content_share: float | None = None
    title_anchor: bool = False
    consensus: bool = False
    distinct: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in self.__slots__}  # type: ignore[attr-defined]

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> LearnParams:
        """The parameters stored as ``data`` (unknown keys are an error: a template of a newer fce)."""
        unknown = set(data) - set(cls.__slots__)  # type: ignore[attr-defined]
        if unknown:
            raise ValueError(f"unknown learning parameters {sorted(unknown)}")
        types = {f.name: f.type for f in fields(cls)}
        return cls(**{k: _typed(types[k], v) for k, v in data.items()})


def _typed(kind: object, value: Any) -> Any:
    """``value`` as a stored parameter of the annotated ``kind`` (``"float"``, ``"int"``, ``"bool"``, ``"str"``,
    or one of them ``| None``)."""
    kind = str(kind)
    if kind.endswith(" | None"):
        if value is None:
            return None
        kind = kind.removesuffix(" | None")
    if kind == "bool":
        if not isinstance(value, bool):
            raise TypeError(f"expected a bool, not {value!r}")
        return value
    return {"float": float, "int": int, "str": str}[kind](value)


@dataclass(frozen=True)
class Template:
    """What FastCE learns about one site.

    ``content_paths`` maps each path of P to the number of learning pages on which a content block had it;
    ``known_paths`` maps every text-bearing path seen while learning to its page count (used by the fit test);
    ``noise_blocks`` are the distinct non-content blocks whose path is in P. Guided detection reads three more:
    ``noise_paths``, the paths it removes as the site's boilerplate (None: every known path not in P, how a
    schema-1 template was applied; :attr:`boilerplate_paths` resolves it), ``unchosen_paths``, paths with text on
    many learning pages that the site's selection never chose, and ``title_path``, where the site puts an
    article's headline.
    """

    site: str
    content_paths: dict[str, int]
    noise_blocks: tuple[NoiseBlock, ...]
    known_paths: dict[str, int]
    n_pages: int
    params: LearnParams
    learned_at: str
    schema: int = LAYOUT_SCHEMA
    fce_version: str = ""
    extra: dict[str, Any] = field(default_factory=dict)
    noise_paths: frozenset[str] | None = None
    unchosen_paths: frozenset[str] = frozenset()
    title_path: str | None = None

    def __hash__(self) -> int:
        return hash((self.site, self.learned_at, len(self.content_paths), len(self.noise_blocks)))

    @cached_property
    def path_set(self) -> frozenset[str]:
        """P, the set of content paths."""
        return frozenset(self.content_paths)

    @cached_property
    def boilerplate_paths(self) -> frozenset[str]:
        """The paths guided detection removes: ``noise_paths`` and ``unchosen_paths`` (class docstring)."""
        noise = self.noise_paths if self.noise_paths is not None else frozenset(self.known_paths) - self.path_set
        return noise | self.unchosen_paths

    def to_dict(self) -> dict[str, Any]:
        return {
            "schema": self.schema,
            "site": self.site,
            "learned_at": self.learned_at,
            "fce_version": self.fce_version,
            "n_pages": self.n_pages,
            "params": self.params.to_dict(),
            "content_paths": dict(sorted(self.content_paths.items())),
            "known_paths": dict(sorted(self.known_paths.items())),
            "noise_paths": sorted(self.boilerplate_paths - self.unchosen_paths),
            "unchosen_paths": sorted(self.unchosen_paths),
            "title_path": self.title_path,
            "noise_blocks": [
                {"path": b.path, "text": b.text, "counts": list(b.counts)}
                for b in sorted(self.noise_blocks, key=lambda b: (b.path, b.text, b.counts))
            ],
            "extra": dict(sorted(self.extra.items())),
        }

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), ensure_ascii=False, sort_keys=True, separators=(",", ":"))

    @classmethod
    def from_json(cls, payload: str | bytes, *, site: str | None = None) -> Template:
        """Read a template; ``site`` (when given) must match the stored one. Raises :class:`TemplateError`."""
        name = site or "template"
        data = _load_object(payload, name)
        schema = data.get("schema")
        if schema == TEMPLATE_SCHEMA:
            raise TemplateError("stored record holds a site's layouts; read it with SiteTemplates.from_json",
                                source=name)
        if schema not in LAYOUT_SCHEMAS:
            raise TemplateError(
                f"template schema {schema!r} is not supported (this fce reads schemas {LAYOUT_SCHEMAS}); "
                "learn the site again",
                source=name,
            )
        return cls.from_dict(data, site=site)

    @classmethod
    def from_dict(cls, data: dict[str, Any], *, site: str | None = None) -> Template:
        """:meth:`from_json` after ``json.loads`` (a layout of schema 1 or 2, module docstring)."""
        name = site or "template"
        with _reading(name):
            params = data["params"]
            if data["schema"] not in LAYOUT_SCHEMAS:
                raise ValueError(f"layout schema {data['schema']!r}")
            noise = data.get("noise_paths")
            title = data.get("title_path")
            learned = LearnParams.from_dict(params)
            # paths stored with the document's root or body qualified (by an fce without UNQUALIFIED_TAGS) are read
            # as the segmentation spells them, unqualified; the pages of different bodies are different pages, so
            # the page counts of paths that become one add up
            path = unqualified_root if learned.path_style == PathStyle.QUALIFIED else str
            template = cls(
                site=str(data["site"]),
                content_paths=_counts((path(str(k)), int(v)) for k, v in data["content_paths"].items()),
                noise_blocks=tuple(dict.fromkeys(
                    NoiseBlock(path=path(str(b["path"])), text=str(b["text"]),
                               counts=tuple(int(c) for c in b["counts"]))
                    for b in data["noise_blocks"]
                )),
                known_paths=_counts((path(str(k)), int(v)) for k, v in data["known_paths"].items()),
                n_pages=int(data["n_pages"]),
                params=learned,
                learned_at=str(data["learned_at"]),
                schema=int(data["schema"]),
                fce_version=str(data.get("fce_version", "")),
                extra=dict(data.get("extra") or {}),
                noise_paths=None if noise is None else frozenset(path(str(p)) for p in noise),
                unchosen_paths=frozenset(path(str(p)) for p in data.get("unchosen_paths") or ()),
                title_path=None if title is None else path(str(title)),
            )
        return _of_site(template, site, name)


def _counts(items: Iterable[tuple[str, int]]) -> dict[str, int]:
    """Page counts by path, those of a path given twice added."""
    out: dict[str, int] = {}
    for path, count in items:
        out[path] = out.get(path, 0) + count
    return out


@contextmanager
def _reading(name: str) -> Iterator[None]:
    """Decoding a stored record: a missing or mistyped field is a corrupt template (:class:`TemplateError`)."""
    try:
        yield
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise TemplateError(f"stored template is corrupt ({type(exc).__name__}: {exc})", source=name) from None


def _of_site(record: R, site: str | None, name: str) -> R:
    """``record``, when it was learned for ``site`` (or no site is asked for); else :class:`TemplateError`."""
    if site is not None and record.site != site:
        raise TemplateError(f"stored template was learned for site {record.site!r}", source=name)
    return record


def _load_object(payload: str | bytes, name: str) -> dict[str, Any]:
    try:
        data = json.loads(payload)
    except (ValueError, TypeError) as exc:
        raise TemplateError(f"stored template is not valid JSON ({exc})", source=name) from None
    if not isinstance(data, dict):
        raise TemplateError("stored template is not a JSON object", source=name)
    return data


@dataclass(frozen=True)
class SiteTemplates:
    """What is stored for one site: a template per layout (:mod:`fce.layouts`), in a stable order (the learner
    orders them by number of learning pages, then by their JSON). ``n_pages`` is the number of pages learning
    saw, including those of groups too small to become a layout."""

    site: str
    layouts: tuple[Template, ...]
    n_pages: int
    learned_at: str
    schema: int = TEMPLATE_SCHEMA
    fce_version: str = ""
    extra: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not self.layouts:
            raise ValueError("a site record needs at least one layout")

    def __hash__(self) -> int:
        return hash((self.site, self.learned_at, len(self.layouts)))

    @classmethod
    def of(cls, template: Template) -> SiteTemplates:
        """A one-layout site (how a schema-1 record and a bare :class:`Template` are read)."""
        return cls(site=template.site, layouts=(template,), n_pages=template.n_pages,
                   learned_at=template.learned_at, schema=TEMPLATE_SCHEMA, fce_version=template.fce_version)

    def to_dict(self) -> dict[str, Any]:
        return {
            "schema": self.schema,
            "site": self.site,
            "learned_at": self.learned_at,
            "fce_version": self.fce_version,
            "n_pages": self.n_pages,
            "layouts": [t.to_dict() for t in self.layouts],
            "extra": dict(sorted(self.extra.items())),
        }

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), ensure_ascii=False, sort_keys=True, separators=(",", ":"))

    @classmethod
    def from_json(cls, payload: str | bytes, *, site: str | None = None) -> SiteTemplates:
        """Read a stored site record of schema 2, or a schema-1 :class:`Template` as a one-layout site; ``site``
        (when given) must match the stored one. Raises :class:`TemplateError`."""
        name = site or "template"
        data = _load_object(payload, name)
        schema = data.get("schema")
        if schema in LAYOUT_SCHEMAS:
            return cls.of(Template.from_dict(data, site=site))
        if schema != TEMPLATE_SCHEMA:
            raise TemplateError(
                f"template schema {schema!r} is not supported (this fce reads schemas {LAYOUT_SCHEMAS} and "
                f"{TEMPLATE_SCHEMA}); learn the site again",
                source=name,
            )
        with _reading(name):
            layouts = data["layouts"]
            if not isinstance(layouts, list) or not layouts:
                raise ValueError("no layouts")
            record = cls(
                site=str(data["site"]),
                layouts=tuple(Template.from_dict(t, site=site) for t in layouts),
                n_pages=int(data["n_pages"]),
                learned_at=str(data["learned_at"]),
                schema=int(schema),
                fce_version=str(data.get("fce_version", "")),
                extra=dict(data.get("extra") or {}),
            )
        return _of_site(record, site, name)
