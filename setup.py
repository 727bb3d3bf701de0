"""Build of the optional compiled parts (``fce/_segment.pyx``: the segmentation loop; ``fce/_scan.pyx``: the byte
scans of :mod:`fce.parse`; ``fce/_features.pyx``: term hashing and the similarity search of learning;
``fce/kernels.py``: the loops over a block tree's columns; ``fce/methods/mainblock.py``: the ``mainblock``
scoring, which guided detection runs; ``fce/metadata.py`` and ``fce/render/``: the metadata and the structured
output); everything else is in pyproject.toml.

The segmentation extension reads lxml's tree through lxml's public C API, so it is compiled against the lxml
headers (a build requirement); all need a C compiler. All are optional: where they cannot be built, the install
goes on without them, ``fce.blocks`` uses its pure-Python loop, which gives the same blocks (tests/test_blocks.py
checks both), ``fce.parse`` checks UTF-8 by decoding and searches with ``bytes.find``, ``fce.features`` uses
scikit-learn's ``HashingVectorizer`` and the sparse product (the same vectors and pairs), and the kernels,
``mainblock``, the metadata and the renderers run as the Python modules they are (written in Cython's pure Python
mode: one source, compiled or not; tests compare).
"""

import ast
import sys
from pathlib import Path

from setuptools import Extension, setup


def _pure_python_modules() -> tuple[str, ...]:
    """``fce._accel.PURE_PYTHON_MODULES``, read from its source (fce cannot be imported at build time)."""
    source = (Path(__file__).parent / "fce" / "_accel.py").read_text(encoding="utf-8")
    for node in ast.parse(source).body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "PURE_PYTHON_MODULES" for t in node.targets):
            return tuple(ast.literal_eval(node.value))
    raise RuntimeError("fce/_accel.py defines no PURE_PYTHON_MODULES")


def _extensions() -> list[Extension]:
    try:
        import lxml
        from Cython.Build import cythonize
    except ImportError:  # built without the build requirements (e.g. an old pip without build isolation)
        return []
    exts = [
        Extension("fce._segment", ["fce/_segment.pyx"], include_dirs=lxml.get_include(), optional=True),
        Extension("fce._scan", ["fce/_scan.pyx"], optional=True),
        # no fused multiply-add: the similarity sums must round as scipy's sparse product rounds them (MSVC does
        # not contract unless asked to)
        Extension("fce._features", ["fce/_features.pyx"], optional=True,
                  extra_compile_args=[] if sys.platform == "win32" else ["-ffp-contract=off"]),
        # written in Cython's pure Python mode: compiled from their .py, which also run as they are (fce._accel)
        *(Extension(name, [name.replace(".", "/") + ".py"], optional=True) for name in _pure_python_modules()),
    ]
    return cythonize(exts, language_level=3, quiet=True)


setup(ext_modules=_extensions())
