"""fce's version, in a module of its own: the modules that stamp it (learned templates, HTTP headers, manifests)
import it without importing the package's public API (``fce/__init__.py``), which imports them."""

__version__ = "0.1.0"
