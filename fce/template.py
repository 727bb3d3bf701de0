"""The site template of FastCE (§III): content paths, the noise blocks that share them, and metadata.

A :class:`Template` is a frozen value with a stable JSON form (:meth:`Template.to_json` sorts keys and orders every
collection, so the same learning input gives byte-identical JSON). ``schema`` versions the JSON layout; a template
of another schema is refused with :class:`~fce.errors.TemplateError`, never half-read.

What a store holds per site is a :class:`SiteTemplates` record: one :class:`Template` per layout of the site
(articles, galleries, a redesign; :mod:`fce.layouts`). Its JSON is schema :data:`TEMPLATE_SCHEMA` (2)::

    {"schema": 2, "site": ..., "learned_at": ..., "fce_version": ..., "n_pages": ..., "extra": {...},
     "layouts": [<a Template's JSON object, schema 1>, ...]}

**Older stores keep working**: :meth:`SiteTemplates.from_json` reads a schema-1 payload (a bare :class:`Template`,
what fce wrote before layouts, and what :func:`fce.pipeline.learn_template` still writes) as a site of one layout.
:meth:`Template.from_json` reads schema 1 only, as before.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, TypeVar

from fce.errors import TemplateError

R = TypeVar("R", "Template", "SiteTemplates")

__all__ = ["LAYOUT_SCHEMA", "TEMPLATE_SCHEMA", "LearnParams", "NoiseBlock", "SiteTemplates", "Template"]

#: Version of the stored site record (:class:`SiteTemplates`). Bump on any incompatible change; readers refuse
#: other versions. 1 was a bare :class:`Template` (one layout per site), still read as a one-layout site.
TEMPLATE_SCHEMA = 2

#: Version of one layout's :class:`Template` JSON (unchanged since fce stored one template per site).
LAYOUT_SCHEMA = 1


@dataclass(frozen=True, slots=True)
class NoiseBlock:
    """A non-content block whose path is a content path (what detection compares extracted blocks against)."""

    path: str
    text: str
    counts: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class LearnParams:
    """The parameters a template was learned with (stored in it, so detection applies the same ones)."""

    similarity_threshold: float
    occurrence_fraction: float
    min_occurrence: int
    min_path_support: float
    rules: str
    path_style: str = "paper"
    max_link_density: float = 1.0


@dataclass(frozen=True)
class Template:
    """What FastCE learns about one site.

    ``content_paths`` maps each path of P to the number of learning pages on which a content block had it;
    ``known_paths`` maps every text-bearing path seen while learning to its page count (used by the fit test);
    ``noise_blocks`` are the distinct non-content blocks whose path is in P.
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

    def __hash__(self) -> int:
        return hash((self.site, self.learned_at, len(self.content_paths), len(self.noise_blocks)))

    @cached_property
    def path_set(self) -> frozenset[str]:
        """P, the set of content paths."""
        return frozenset(self.content_paths)

    def to_dict(self) -> dict[str, Any]:
        return {
            "schema": self.schema,
            "site": self.site,
            "learned_at": self.learned_at,
            "fce_version": self.fce_version,
            "n_pages": self.n_pages,
            "params": {
                "similarity_threshold": self.params.similarity_threshold,
                "occurrence_fraction": self.params.occurrence_fraction,
                "min_occurrence": self.params.min_occurrence,
                "min_path_support": self.params.min_path_support,
                "rules": self.params.rules,
                "path_style": self.params.path_style,
                "max_link_density": self.params.max_link_density,
            },
            "content_paths": dict(sorted(self.content_paths.items())),
            "known_paths": dict(sorted(self.known_paths.items())),
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
        if schema != LAYOUT_SCHEMA:
            raise TemplateError(
                f"template schema {schema!r} is not supported (this fce reads schema {LAYOUT_SCHEMA}); "
                "learn the site again",
                source=name,
            )
        return cls.from_dict(data, site=site)

    @classmethod
    def from_dict(cls, data: dict[str, Any], *, site: str | None = None) -> Template:
        """:meth:`from_json` after ``json.loads`` (the schema is not checked here)."""
        name = site or "template"
        with _reading(name):
            params = data["params"]
            template = cls(
                site=str(data["site"]),
                content_paths={str(k): int(v) for k, v in data["content_paths"].items()},
                noise_blocks=tuple(
                    NoiseBlock(path=str(b["path"]), text=str(b["text"]), counts=tuple(int(c) for c in b["counts"]))
                    for b in data["noise_blocks"]
                ),
                known_paths={str(k): int(v) for k, v in data["known_paths"].items()},
                n_pages=int(data["n_pages"]),
                params=LearnParams(
                    similarity_threshold=float(params["similarity_threshold"]),
                    occurrence_fraction=float(params["occurrence_fraction"]),
                    min_occurrence=int(params["min_occurrence"]),
                    min_path_support=float(params["min_path_support"]),
                    rules=str(params["rules"]),
                    path_style=str(params["path_style"]),
                    max_link_density=float(params["max_link_density"]),
                ),
                learned_at=str(data["learned_at"]),
                schema=int(data["schema"]),
                fce_version=str(data.get("fce_version", "")),
                extra=dict(data.get("extra") or {}),
            )
        return _of_site(template, site, name)


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
        if schema == LAYOUT_SCHEMA:
            return cls.of(Template.from_dict(data, site=site))
        if schema != TEMPLATE_SCHEMA:
            raise TemplateError(
                f"template schema {schema!r} is not supported (this fce reads schemas {LAYOUT_SCHEMA} and "
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
