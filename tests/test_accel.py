"""``fce/_accel.py``: the one switch that turns the compiled parts off, and the modules compiled from their source."""

from __future__ import annotations

import importlib
import os
import subprocess
import sys
from pathlib import Path

import pytest

from fce._accel import NO_ACCEL_ENV, PURE_PYTHON_MODULES, switched_off


@pytest.mark.parametrize(("value", "off"), [(None, False), ("", False), ("0", False), ("1", True), ("yes", True)])
def test_the_switch_reads_the_environment(value, off, monkeypatch):
    if value is None:
        monkeypatch.delenv(NO_ACCEL_ENV, raising=False)
    else:
        monkeypatch.setenv(NO_ACCEL_ENV, value)
    assert switched_off() is off


# -- the modules written in Cython's pure Python mode: compiled where built, the same results as their source ------

ROOT = Path(__file__).resolve().parent.parent

#: A page with what the outputs read: JSON-LD (twice, one in the body), head metadata, a byline, a table, a list,
#: code, emphasis and links.
RICH_PAGE = """<!doctype html><html lang="en-GB"><head><title>Ferry berths to grow | Harbour News</title>
<meta property="og:site_name" content="Harbour News"><meta name="description" content="Berths for ferries.">
<script type="application/ld+json">{"@type": "NewsArticle", "headline": "Ferry berths to grow",
 "datePublished": "2024-03-17T08:00:00Z", "author": {"@type": "Person", "name": "Ana Ruiz"}}</script>
</head><body><nav><a href="/">Home</a> <a href="/news">News</a></nav><article><h1>Ferry berths to grow</h1>
<p class="byline">By Ana Ruiz</p>
<p>The harbour board <em>approved</em> four new berths on Monday, the <a href="/board">board</a> said in a
statement that ran to several pages and named the contractors, the budget and the <strong>timetable</strong>.</p>
<table><tr><th>Item</th><th>Cost</th></tr><tr><td><a href="/x">5. Berths</a></td><td>4.2 million</td></tr>
<tr><td>Dredging</td><td>1.1 million</td></tr></table>
<ul><li>Work starts in <b>May</b></li><li>Ends in 2026</li></ul><pre><code>berths = 4
cost = 4.2</code></pre>
<p>Residents asked whether the works would close the promenade during the summer, and the board said it would
not, though parts of the quay would be fenced off while the piles were driven.</p></article>
<script type="application/ld+json">{"@type": "BreadcrumbList", "itemListElement": []}</script>
<footer>© Harbour News</footer></body></html>"""

_PROBE = """
import hashlib, json, sys
from pathlib import Path
from fce.parse import parse_page
from fce.pipeline import extract, parse_blocks
digest = hashlib.sha256()
for path in sorted(Path(sys.argv[1]).rglob("*.html")):
    page = parse_page(path.read_bytes(), url="https://news.example/" + path.name, blocks=parse_blocks())
    for output, links in (("markdown", False), ("markdown", True), ("html", True)):
        result = extract(page, None, metadata=True, output=output, links=links)
        digest.update(json.dumps(result.metadata.to_dict(), sort_keys=True).encode())
        digest.update((result.markdown if output == "markdown" else result.html).encode())
print(digest.hexdigest())
"""


def _run(probe: str, *args: str, no_accel: str = "") -> str:
    env = {**os.environ, "FCE_NO_ACCEL": no_accel}
    return subprocess.run([sys.executable, "-c", probe, *args], env=env, capture_output=True, text=True, check=True,
                          cwd=ROOT).stdout.strip()


@pytest.mark.parametrize("name", PURE_PYTHON_MODULES)
def test_each_pure_python_module_is_compiled(name):
    # the suite must not quietly test the sources only
    module = importlib.import_module(name)
    if switched_off():
        assert module.__file__.endswith(".py")
    else:
        assert not module.__file__.endswith(".py"), f"{name} is not compiled: reinstall with a C compiler"


def test_fce_no_accel_imports_every_source():
    probe = ("import importlib, fce, fce._accel as a; "
             "print(' '.join(str(importlib.import_module(n).__file__.endswith('.py')) for n in a.PURE_PYTHON_MODULES))")
    assert _run(probe, no_accel="1").split() == ["True"] * len(PURE_PYTHON_MODULES)


def test_the_compiled_outputs_are_the_sources(tmp_path):
    # metadata, markdown and HTML of the bundled example site and a page with every kind of structure: the same
    # compiled (the block tree from the parse's events, JSON-LD as the parse saw it), as Python (the tree walk,
    # JSON-LD found in the text), and as Python where Cython is not installed (fce._cython_shim stands in for it)
    (tmp_path / "rich.html").write_text(RICH_PAGE, encoding="utf-8")
    for path in (ROOT / "examples" / "site").rglob("*.html"):
        (tmp_path / path.name).write_bytes(path.read_bytes())
    compiled = _run(_PROBE, str(tmp_path))
    assert _run(_PROBE, str(tmp_path), no_accel="1") == compiled
    without_cython = "import sys; sys.modules['cython'] = None\n" + _PROBE
    assert _run(without_cython, str(tmp_path), no_accel="1") == compiled


def test_the_parse_and_segmentation_tests_pass_without_the_compiled_parts():
    # an install without a compiler parses on other routes (no walk from parse events: the tree path and its own
    # check of long tags, the Python segmentation): the parse and block tests hold there too
    env = {**os.environ, "FCE_NO_ACCEL": "1"}
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-x",
                          "tests/test_parse.py", "tests/test_blocks.py"], env=env, capture_output=True, text=True,
                         cwd=ROOT)
    assert run.returncode == 0, run.stdout[-3000:]
