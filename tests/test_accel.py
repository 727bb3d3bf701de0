"""``fce/_accel.py``: the one switch that turns the compiled parts off."""

from __future__ import annotations

import pytest

from fce._accel import NO_ACCEL_ENV, switched_off


@pytest.mark.parametrize(("value", "off"), [(None, False), ("", False), ("0", False), ("1", True), ("yes", True)])
def test_the_switch_reads_the_environment(value, off, monkeypatch):
    if value is None:
        monkeypatch.delenv(NO_ACCEL_ENV, raising=False)
    else:
        monkeypatch.setenv(NO_ACCEL_ENV, value)
    assert switched_off() is off
