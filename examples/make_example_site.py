"""Regenerate the example site committed under ``examples/site/``.

    python examples/make_example_site.py            # rewrites examples/site/
    python examples/make_example_site.py --out DIR  # writes the same files under DIR

The output is deterministic: running the script twice gives byte-identical files, and
``tests/test_sitegen.py`` checks that the committed files equal a fresh run.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # (the generator is tests/sitegen.py, beside fce)

from tests.sitegen import generate_site, write_site  # noqa: E402

DOMAIN = "news.example.com"
SEED = 2009  # any fixed seed; 2009 is the year of the FastCE paper
N_LEARN = 30  # the paper learns a template from 20-30 pages of a site (§IV)
N_NEW = 5
DEFAULT_OUT = Path(__file__).resolve().parent / "site"
_OWNED_SUFFIXES = (".html", ".txt", ".json")


def build(out: Path) -> list[Path]:
    """Write ``learn/`` (N_LEARN pages), ``new/`` (N_NEW later pages) and ``urls.txt`` under ``out``.

    Stale page files in ``learn/`` and ``new/`` are removed first; returns every file written.
    """
    pages = generate_site(DOMAIN, N_LEARN + N_NEW, seed=SEED)
    written: list[Path] = []
    for name, subset in (("learn", pages[:N_LEARN]), ("new", pages[N_LEARN:])):
        folder = out / name
        if folder.is_dir():
            for old in folder.iterdir():
                if old.suffix in _OWNED_SUFFIXES:
                    old.unlink()
        for html_path in write_site(subset, folder):
            written += [html_path, html_path.with_suffix(".txt"), html_path.with_suffix(".json")]
    learn = sorted(p for p in written if p.parent.name == "learn" and p.suffix == ".html")
    urls = out / "urls.txt"
    header = [
        f"# The {N_LEARN} pages of {DOMAIN} to learn a template from (one path or URL per line).",
        "# Paths are relative to the directory of this file. Regenerate with examples/make_example_site.py.",
    ]
    urls.write_bytes(("\n".join(header + [p.relative_to(out).as_posix() for p in learn]) + "\n").encode())
    return [*written, urls]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--out", type=Path, default=DEFAULT_OUT, help="output directory (default: %(default)s)"
    )
    args = parser.parse_args(argv)
    files = build(args.out)
    print(f"wrote {len(files)} files under {args.out}")


if __name__ == "__main__":
    main()
