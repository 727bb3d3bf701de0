"""Run the property tests of ``tests/test_robustness_properties.py`` by the thousand (issue 7: at least 10,000
generated cases per run; the default test suite runs a few hundred).

    python scripts/fuzz.py                  # 2,500 examples for each of the 4 property tests: 10,000 cases
    python scripts/fuzz.py --examples 5000  # more
    python scripts/fuzz.py --seed 42        # reproduce a run

Prints hypothesis's statistics per test (cases passed, failed, what parse_page refused) and a total; the exit
status is pytest's. A failure prints the smallest failing input and a ``@reproduce_failure`` blob.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TESTS = "tests/test_robustness_properties.py"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--examples", type=int, default=2500, help="examples per property test (default 2500)")
    parser.add_argument("--seed", type=int, default=None, help="hypothesis seed (default: random)")
    args = parser.parse_args(argv)
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", TESTS,
               "--hypothesis-show-statistics"]
    if args.seed is not None:
        command.append(f"--hypothesis-seed={args.seed}")
    env = {**os.environ, "FCE_FUZZ_EXAMPLES": str(args.examples)}
    started = time.monotonic()
    result = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True)
    sys.stdout.write(result.stdout)
    sys.stderr.write(result.stderr)
    counts = [tuple(map(int, m)) for m in re.findall(r"(\d+) passing, (\d+) failing", result.stdout)]
    passed, failed = sum(c[0] for c in counts), sum(c[1] for c in counts)
    print(f"\nfuzz: {passed + failed} generated cases in {len(counts)} property tests, {passed} passed, "
          f"{failed} failed, {time.monotonic() - started:.0f} s; pytest exit status {result.returncode}")
    return result.returncode


if __name__ == "__main__":
    sys.exit(main())
