"""fce.language: the language of a text, where the page declares none."""

from __future__ import annotations

import pytest

import fce
from fce.language import LANGUAGE_ID_CHARS, identify_language
from fce.pipeline import page_metadata

ENGLISH = ("The city council approved the new harbour plan on Thursday evening, after a debate that lasted most of "
           "the afternoon and touched on its cost, its timetable and the jobs it is expected to bring. Supporters "
           "said the project would revive the waterfront, while residents of the old quarter worried about traffic "
           "and noise during the four years of building work. The mayor promised a public meeting in the spring. ")
GERMAN = ("Der Stadtrat hat den neuen Hafenplan am Donnerstagabend gebilligt, nach einer Debatte, die fast den ganzen "
          "Nachmittag dauerte und sich um die Kosten, den Zeitplan und die erwarteten Arbeitsplätze drehte. Die "
          "Befürworter sagten, das Vorhaben werde das Ufer beleben, während Anwohner der Altstadt sich über Verkehr "
          "und Lärm während der vierjährigen Bauzeit sorgten. Der Bürgermeister versprach eine Versammlung. ")
FRENCH = ("Le conseil municipal a approuvé jeudi soir le nouveau projet du port, après un débat qui a duré presque "
          "tout l'après-midi et qui a porté sur son coût, son calendrier et les emplois qu'il doit apporter. Ses "
          "partisans affirment que le projet fera revivre les quais, tandis que les habitants du vieux quartier "
          "s'inquiètent de la circulation et du bruit pendant les quatre années de travaux. Le maire a promis une "
          "réunion publique au printemps. ")


@pytest.mark.parametrize(("text", "language"), [(ENGLISH, "en"), (GERMAN, "de"), (FRENCH, "fr")])
def test_a_paragraph_names_its_language(text: str, language: str) -> None:
    assert identify_language(text) == language


@pytest.mark.parametrize("text", ["", "Home", "Harbour plan approved", "12 34 56 78", "\ud800" * 10])
def test_too_little_text_names_none(text: str) -> None:
    assert identify_language(text) is None


def test_only_the_start_of_a_long_text_is_read() -> None:
    english = (ENGLISH * 10)[:LANGUAGE_ID_CHARS]
    assert identify_language(english + GERMAN * 20) == "en"


def _page(lang: str) -> fce.Page:
    attribute = f' lang="{lang}"' if lang else ""
    paragraphs = "".join(f"<p>{sentence}.</p>" for sentence in ENGLISH.split(". ") if sentence.strip())
    return fce.parse_page(f"<html{attribute}><head><title>Harbour plan</title></head><body><article><h1>Harbour "
                          f"plan approved</h1>{paragraphs}</article></body></html>".encode())


def test_metadata_names_the_language_of_the_text_where_the_page_declares_none() -> None:
    page = _page("")
    result = fce.extract(page, None, metadata=True)
    assert result.metadata is not None and result.metadata.language == "en"
    assert page_metadata(page).language is None  # (no extraction: no text to read)


def test_a_declared_language_is_kept() -> None:
    result = fce.extract(_page("de-AT"), None, metadata=True)
    assert result.metadata is not None and result.metadata.language == "de-AT"
