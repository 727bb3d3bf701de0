"""fce.template: stable JSON, round trip, refusal of corrupt / other-schema / other-site templates; the site
record of several layouts (schema 2) and reading schema-1 payloads as one-layout sites."""

import json

import pytest

from fce.errors import TemplateError
from fce.learn import TemplateLearner
from fce.template import LAYOUT_SCHEMA, TEMPLATE_SCHEMA, SiteTemplates, Template
from tests._sites import site_pages


@pytest.fixture(scope="module")
def template():
    return TemplateLearner("tpl.test").fit([p for _, p in site_pages()[:12]]).template_


def test_round_trip(template):
    again = Template.from_json(template.to_json(), site="tpl.test")
    assert again.to_json() == template.to_json()
    assert again.path_set == template.path_set


def test_json_is_stable_and_sorted(template):
    data = json.loads(template.to_json())
    assert list(data) == sorted(data)
    assert data["schema"] == LAYOUT_SCHEMA == 3 and data["site"] == "tpl.test" and data["n_pages"] == 12


def test_frozen(template):
    with pytest.raises(AttributeError):
        template.site = "other"  # type: ignore[misc]


@pytest.mark.parametrize(
    ("payload", "message"),
    [
        ("not json", "not valid JSON"),
        ("[1, 2]", "not a JSON object"),
        ('{"schema": 99}', "schema 99 is not supported"),
        ('{"schema": 1, "site": "tpl.test"}', "corrupt"),
    ],
)
def test_bad_payloads(payload, message):
    with pytest.raises(TemplateError, match=message):
        Template.from_json(payload, site="tpl.test")


def test_template_of_another_site(template):
    with pytest.raises(TemplateError, match="learned for site 'tpl.test'"):
        Template.from_json(template.to_json(), site="other.test")


# --- the site record: several layouts, schema 2; schema-1 payloads still read ---------------------------------


@pytest.fixture(scope="module")
def record(template):
    other = TemplateLearner("tpl.test").fit([p for _, p in site_pages("tpl.test", 12, 2, "table")]).template_
    return SiteTemplates(site="tpl.test", layouts=(template, other), n_pages=24, learned_at=template.learned_at,
                         fce_version="x")


def test_site_record_round_trip(record):
    data = json.loads(record.to_json())
    assert data["schema"] == TEMPLATE_SCHEMA == 2 and [t["schema"] for t in data["layouts"]] == [3, 3]
    again = SiteTemplates.from_json(record.to_json(), site="tpl.test")
    assert again.to_json() == record.to_json() and len(again.layouts) == 2
    assert again.layouts[1].path_set == record.layouts[1].path_set


def test_a_schema_1_payload_is_a_one_layout_site(template):
    """Stores written before layouts keep working: a bare template reads as a site of one layout."""
    site = SiteTemplates.from_json(template.to_json(), site="tpl.test")
    assert len(site.layouts) == 1 and site.layouts[0].to_json() == template.to_json()
    assert (site.site, site.n_pages, site.learned_at) == ("tpl.test", 12, template.learned_at)
    assert SiteTemplates.of(template).to_json() == site.to_json()


@pytest.mark.parametrize(
    ("payload", "message"),
    [
        ('{"schema": 4}', "schema 4 is not supported"),
        ('{"schema": 2, "site": "tpl.test"}', "corrupt"),
        ('{"schema": 2, "site": "tpl.test", "n_pages": 1, "learned_at": "", "layouts": []}', "corrupt"),
        ('{"schema": 2, "site": "tpl.test", "n_pages": 1, "learned_at": "", "layouts": [{"schema": 1}]}',
         "corrupt"),
        ("[]", "not a JSON object"),
    ],
)
def test_bad_site_records(payload, message):
    with pytest.raises(TemplateError, match=message):
        SiteTemplates.from_json(payload, site="tpl.test")


def test_site_record_of_another_site_and_template_reader(record):
    with pytest.raises(TemplateError, match="learned for site 'tpl.test'"):
        SiteTemplates.from_json(record.to_json(), site="other.test")
    with pytest.raises(TemplateError, match="SiteTemplates.from_json"):
        Template.from_json(record.to_json(), site="tpl.test")  # a one-template reader is told what to use
    with pytest.raises(ValueError, match="at least one layout"):
        SiteTemplates(site="x", layouts=(), n_pages=0, learned_at="")


def test_paths_stored_with_the_body_qualified_are_read_unqualified(template):
    data = json.loads(template.to_json())
    assert data["params"]["path_style"] == "qualified"

    def qualify(path: str, body: str) -> str:
        return path.replace("HTML.BODY", f"HTML.BODY[{body}]", 1)

    # a template learned when the body's names were in the paths: two sections' bodies, pages counted apart
    old = dict(data)
    old["content_paths"] = {**{qualify(p, ".news"): n for p, n in data["content_paths"].items()},
                            **{qualify(p, ".sport"): 1 for p in data["content_paths"]}}
    old["known_paths"] = {qualify(p, ".news"): n for p, n in data["known_paths"].items()}
    old["noise_blocks"] = [{**b, "path": qualify(b["path"], ".news")} for b in data["noise_blocks"]]
    old["noise_paths"] = [qualify(p, ".news") for p in data["noise_paths"]]
    read = Template.from_json(json.dumps(old), site="tpl.test")
    assert read.content_paths == {p: n + 1 for p, n in template.content_paths.items()}  # the pages add up
    assert read.known_paths == template.known_paths and read.noise_blocks == template.noise_blocks
    assert read.boilerplate_paths == template.boilerplate_paths
