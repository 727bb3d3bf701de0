"""Reading back from a template store in tests."""

from __future__ import annotations

from templates_store import StoredTemplate, TemplateStore


def stored(store: TemplateStore, site: str) -> StoredTemplate:
    """``store.get(site)`` for a site the test expects to be stored: a missing one fails the test here."""
    template = store.get(site)
    assert template is not None, f"no template for {site!r}"
    return template
