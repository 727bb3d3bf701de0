"""Where ``fce ingest`` writes: an input's rows file and manifest, and whether an earlier run completed it.

Each input has ``OUT/<input name>.<hash of its path>.jsonl`` and a manifest beside it (``.manifest.json``), written
atomically after the rows; a rerun skips an input whose manifest says it is done, for the same input file (size,
mtime) and output (size).
"""

from __future__ import annotations

import hashlib
import json
import os
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from fce.ingest.readers import InputSource

if TYPE_CHECKING:
    from fce.ingest.detection import InputResult
    from fce.ingest.settings import Settings

__all__ = ["completed_manifest", "input_size", "output_paths", "write_manifest"]


def output_paths(out_dir: Path, source: InputSource) -> tuple[Path, Path]:
    """``(rows file, manifest)`` of an input: its name plus a hash of its full path (two inputs named
    ``part-0.warc.gz`` in different directories do not collide; the names do not depend on the other inputs)."""
    digest = hashlib.sha1(source.path.encode("utf-8", "surrogatepass")).hexdigest()[:8]
    base = f"{source.name}.{digest}"
    return out_dir / f"{base}.jsonl", out_dir / f"{base}.manifest.json"


def input_size(source: InputSource) -> int:
    """Bytes of an input file, to submit the largest first (a folder, not walked here: 0; a file gone: 0, its
    task reports it)."""
    if source.kind == "html-dir":
        return 0
    try:
        return os.path.getsize(source.path)
    except OSError:
        return 0


def _input_stamp(source: InputSource) -> dict[str, int]:
    """Size and modification time of an input file (a folder: only its own mtime)."""
    stat = os.stat(source.path)
    return {"input_bytes": stat.st_size if source.kind != "html-dir" else 0, "input_mtime_ns": stat.st_mtime_ns}


def write_manifest(source: InputSource, path: str, result: InputResult, settings: Settings) -> None:
    """Write the manifest of a completed input (atomically: a manifest is whole or absent)."""
    from fce.version import __version__

    manifest = {
        "done": True,
        "input": result.input,
        "kind": source.kind,
        **_input_stamp(source),
        "output": os.path.basename(result.output),
        "output_bytes": os.path.getsize(result.output),
        "rows": result.rows,
        "counts": result.counts,
        "other_records": result.other_records,
        "domains": result.domains,
        "seconds": result.seconds,
        "stage_seconds": result.stage_seconds,
        "stage_cpu_seconds": result.stage_cpu_seconds,
        "outcomes_lost": result.outcomes_lost,
        **({"outcomes_error": result.outcomes_error} if result.outcomes_error else {}),
        "finished_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "fce_version": __version__,
        "options": {"max_bytes": settings.max_bytes, "timeout": settings.timeout,
                    "fallback": settings.fallback, "method": settings.method},
    }
    tmp = f"{path}.{os.getpid()}.tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(manifest, f, indent=2, sort_keys=True)
        f.write("\n")
    os.replace(tmp, path)


def completed_manifest(source: InputSource, output: Path, manifest: Path) -> dict[str, Any] | None:
    """The manifest of an input completed by an earlier run, or None when it must be (re)done: no manifest, not
    done, the input changed since (size, mtime), or the output is missing or not the size the manifest says."""
    try:
        data = json.loads(manifest.read_text(encoding="utf-8"))
        stamp = _input_stamp(source)
        complete = (isinstance(data, dict) and data.get("done") is True
                    and all(data.get(key) == value for key, value in stamp.items())
                    and output.stat().st_size == data.get("output_bytes"))
    except (OSError, ValueError):
        return None
    return data if complete else None
