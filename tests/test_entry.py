"""``fce/__init__.py`` (public names imported when first used) and ``fce/_entry.py`` (the command's process)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

import fce
from fce import _entry


def _probe(code: str, **env: str) -> str:
    environment = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"} | env
    return subprocess.run([sys.executable, "-c", code], env=environment, capture_output=True, text=True,
                          check=True).stdout.strip()


def test_import_fce_loads_no_numerics_until_a_name_needs_them():
    probe = ("import sys, fce; print('numpy' in sys.modules, 'lxml.etree' in sys.modules); fce.extract_html; "
             "print('numpy' in sys.modules)")
    assert _probe(probe).split() == ["False", "False", "True"]


@pytest.mark.parametrize("name", fce.__all__)
def test_every_public_name_is_found(name):
    assert getattr(fce, name) is not None
    assert name in dir(fce)


def test_submodules_and_unknown_names():
    assert fce.pipeline.extract is fce.extract  # a submodule, after ``import fce`` alone
    with pytest.raises(AttributeError, match="no attribute 'no_such_name'"):
        fce.no_such_name  # noqa: B018


def test_the_command_runs_openblas_on_one_thread(monkeypatch, capsys):
    monkeypatch.delenv("OPENBLAS_NUM_THREADS", raising=False)
    monkeypatch.setattr(sys, "argv", ["fce", "--version"])
    with pytest.raises(SystemExit) as exit_:
        _entry.main()
    assert exit_.value.code in (0, None) and "fce" in capsys.readouterr().out
    assert os.environ["OPENBLAS_NUM_THREADS"] == "1"


def test_a_setting_of_the_environment_is_kept(monkeypatch):
    monkeypatch.setenv("OPENBLAS_NUM_THREADS", "4")
    monkeypatch.setattr(sys, "argv", ["fce", "--version"])
    with pytest.raises(SystemExit):
        _entry.main()
    assert os.environ["OPENBLAS_NUM_THREADS"] == "4"


def test_the_process_of_the_command_has_it():
    # ``python -m fce`` goes through the same entry point as the ``fce`` script
    code = ("import os, runpy, sys; sys.argv = ['fce', '--version']\n"
            "try:\n    runpy.run_module('fce', run_name='__main__')\n"
            "except SystemExit:\n    pass\nprint(os.environ.get('OPENBLAS_NUM_THREADS'))")
    assert _probe(code).splitlines()[-1] == "1"
