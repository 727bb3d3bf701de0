"""The Python examples of README.md and docs/python.md run as written, from the repository's root (docs/python.md's
after the ``fce learn`` it names, into a store of the test's own instead of ``/tmp/docs_store.db``)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FCE = str(Path(sys.executable).with_name("fce"))
_BLOCK = re.compile(r"^```python\n(.*?)^```$", re.MULTILINE | re.DOTALL)
_DOCS_STORE = "sqlite:////tmp/docs_store.db"


def _blocks(name: str) -> list[str]:
    return _BLOCK.findall((ROOT / name).read_text(encoding="utf-8"))


def _run(code: str, home: Path) -> str:
    env = {"HOME": str(home), "PATH": str(Path(sys.executable).parent), "XDG_DATA_HOME": str(home / "data")}
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.mark.parametrize("index", range(len(_blocks("README.md"))))
def test_the_readme_examples_run(index, tmp_path):
    out = _run(_blocks("README.md")[index], tmp_path)
    assert "Québec City officials question greener harbor" in out


def test_the_python_api_examples_run(tmp_path):
    store = f"sqlite:///{tmp_path / 'docs_store.db'}"
    learned = subprocess.run([FCE, "learn", "--site", "news.example.com", "examples/site/urls.txt", "--store", store],
                             cwd=ROOT, capture_output=True, text=True, timeout=120, check=False)
    assert learned.returncode == 0, learned.stderr
    blocks = _blocks("docs/python.md")
    assert len(blocks) == 3 and sum(_DOCS_STORE in block for block in blocks) == 2
    outputs = [_run(block.replace(_DOCS_STORE, store), tmp_path) for block in blocks]
    assert "template example.com 1.0" in outputs[0]  # as its comment says
    assert outputs[1].startswith("template 1.0 2024-03-17")
    assert outputs[2].count(" template ") == 5
