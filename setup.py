"""Build of the optional compiled segmentation loop (``fce/_segment.pyx``); everything else is in pyproject.toml.

The extension reads lxml's tree through lxml's public C API, so it is compiled against the lxml headers (a build
requirement) and needs a C compiler. It is optional: where it cannot be built, the install goes on without it and
``fce.blocks`` uses its pure-Python loop, which gives the same blocks (tests/test_blocks.py checks both).
"""

from setuptools import Extension, setup


def _extensions() -> list[Extension]:
    try:
        import lxml
        from Cython.Build import cythonize
    except ImportError:  # built without the build requirements (e.g. an old pip without build isolation)
        return []
    ext = Extension("fce._segment", ["fce/_segment.pyx"], include_dirs=lxml.get_include(), optional=True)
    return cythonize([ext], language_level=3, quiet=True)


setup(ext_modules=_extensions())
