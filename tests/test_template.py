"""fce.template: stable JSON, round trip, refusal of corrupt / other-schema / other-site templates."""

import json

import pytest

from fce.errors import TemplateError
from fce.learn import TemplateLearner
from fce.template import Template
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
    assert data["schema"] == 1 and data["site"] == "tpl.test" and data["n_pages"] == 12


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
