"""Build of the optional compiled parts (``fce/_segment.pyx``: the segmentation loop; ``fce/_scan.pyx``: the byte
scans of :mod:`fce.parse`); everything else is in pyproject.toml.

The segmentation extension reads lxml's tree through lxml's public C API, so it is compiled against the lxml
headers (a build requirement); both need a C compiler. Both are optional: where they cannot be built, the install
goes on without them, ``fce.blocks`` uses its pure-Python loop, which gives the same blocks (tests/test_blocks.py
checks both), and ``fce.parse`` checks UTF-8 by decoding and searches with ``bytes.find``.
"""

from setuptools import Extension, setup


def _extensions() -> list[Extension]:
    try:
        import lxml
        from Cython.Build import cythonize
    except ImportError:  # built without the build requirements (e.g. an old pip without build isolation)
        return []
    exts = [
        Extension("fce._segment", ["fce/_segment.pyx"], include_dirs=lxml.get_include(), optional=True),
        Extension("fce._scan", ["fce/_scan.pyx"], optional=True),
    ]
    return cythonize(exts, language_level=3, quiet=True)


setup(ext_modules=_extensions())
