"""fce.errors: one hierarchy, builtin bases, one distinct exit code per class."""

import pytest

from fce import errors
from fce.errors import EXIT_CODES, FceError


def test_exit_codes_are_distinct_and_not_reserved():
    codes = list(EXIT_CODES.values())
    assert len(codes) == len(set(codes))
    assert not {0, 2, 130} & set(codes)  # success, usage error (Typer), interrupted


@pytest.mark.parametrize("cls", [c for c in EXIT_CODES if c is not FceError])
def test_every_error_is_also_a_builtin(cls):
    assert issubclass(cls, FceError)
    assert any(issubclass(cls, base) for base in (ValueError, LookupError, OSError, TimeoutError, ImportError))


def test_every_public_error_class_has_an_exit_code():
    public = {getattr(errors, name) for name in errors.__all__ if name != "EXIT_CODES"}
    assert public == set(EXIT_CODES)


def test_message_names_the_source():
    assert str(errors.NotHTMLError("not HTML", source="a.bin")) == "a.bin: not HTML"
