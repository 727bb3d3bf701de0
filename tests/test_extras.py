"""fce.extras: the distribution's name, its extras, and every install hint in the code and the docs naming them."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

from fce.errors import EXIT_CODES, MissingExtraError
from fce.extras import DISTRIBUTION, EXTRAS, install_hint, require

ROOT = Path(__file__).resolve().parents[1]

#: Where install hints are written: the docs, the package, the scripts, the benchmarks, the examples.
HINT_FILES = sorted({*ROOT.glob("*.md"), *ROOT.glob("docs/**/*.md"), *ROOT.glob("fce/**/*.py"),
                     *ROOT.glob("templates_store/**/*.py"), *ROOT.glob("scripts/*"), *ROOT.glob("bench/**/*.py"),
                     *ROOT.glob("bench/**/*.md"), *ROOT.glob("examples/**/*.md"), *ROOT.glob("examples/**/*.py")})
#: ``pip install`` and what it installs, up to the end of the command (a quote, a backtick, ``&&``, a line's end).
PIP_INSTALL = re.compile(r"pip install ((?:[^`\"\n&;)]|'[^'\n]*')+)")


def test_the_distribution_is_ours():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert project["name"] == DISTRIBUTION == "fastcontentextractor"
    assert project["scripts"] == {"fce": "fce._entry:main"}  # the command stays fce
    assert set(EXTRAS) <= set(project["optional-dependencies"])


def _targets(command: str) -> list[str]:
    return [t.strip("'\"") for t in command.split() if not t.startswith("-")]


@pytest.mark.parametrize("path", HINT_FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_install_hint_installs_this_project(path: Path):
    text = path.read_text(encoding="utf-8", errors="replace")
    for match in PIP_INSTALL.finditer(text):
        for target in _targets(match.group(1)):
            name = re.split(r"[\[<>=!~ ]", target, maxsplit=1)[0]
            assert name.lower() != "fce", f"{path}: {match.group(0)!r} installs the unrelated project named fce"
            if name == DISTRIBUTION:
                extras = re.findall(r"\[([^\]]*)\]", target)
                for extra in (e.strip() for group in extras for e in group.split(",")):
                    assert extra in EXTRAS or extra in ("test", "dev"), f"{path}: unknown extra in {target!r}"


def test_install_hint_and_require():
    assert install_hint("serve") == "pip install 'fastcontentextractor[serve]'"
    with pytest.raises(ValueError):
        install_hint("nope")
    assert require("json", "plots", "x").dumps([]) == "[]"
    with pytest.raises(MissingExtraError, match=r"--plots needs fce_no_such_module, which is not installed: "
                                                 r"pip install 'fastcontentextractor\[plots\]'") as info:
        require("fce_no_such_module", "plots", "--plots")
    assert isinstance(info.value, ImportError) and info.value.extra == "plots"
    assert EXIT_CODES[MissingExtraError] == 17 == info.value.exit_code
    assert sorted(EXIT_CODES.values()).count(17) == 1
