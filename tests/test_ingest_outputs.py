"""fce.ingest.outputs: output names, input sizes and when an earlier run's manifest says an input is complete."""

from __future__ import annotations

import json
import os
from pathlib import Path

from fce.ingest.outputs import completed_manifest, input_size, output_paths
from fce.ingest.readers import InputSource


def test_outputs_of_inputs_with_one_name_do_not_collide(tmp_path: Path) -> None:
    a = output_paths(tmp_path, InputSource("/crawl/a/part-0.warc.gz", "warc"))
    b = output_paths(tmp_path, InputSource("/crawl/b/part-0.warc.gz", "warc"))
    assert a != b and all(p.name.startswith("part-0.warc.gz.") for p in a + b)
    assert a[0].suffix == ".jsonl" and a[1].name.endswith(".manifest.json")


def test_input_size(tmp_path: Path) -> None:
    (tmp_path / "x.jsonl").write_bytes(b"{}\n" * 5)
    assert input_size(InputSource(str(tmp_path / "x.jsonl"), "jsonl")) == 15
    assert input_size(InputSource(str(tmp_path), "html-dir")) == 0  # not walked
    assert input_size(InputSource(str(tmp_path / "gone.jsonl"), "jsonl")) == 0


def test_a_manifest_counts_only_for_the_same_input_and_a_whole_output(tmp_path: Path) -> None:
    source = InputSource(str(tmp_path / "x.jsonl"), "jsonl")
    Path(source.path).write_bytes(b"{}\n")
    output, manifest = output_paths(tmp_path, source)
    output.write_text("row\n")
    stat = os.stat(source.path)
    manifest.write_text(json.dumps({"done": True, "input_bytes": stat.st_size, "input_mtime_ns": stat.st_mtime_ns,
                                    "output_bytes": 4}))
    assert completed_manifest(source, output, manifest) is not None
    output.write_text("ro")  # a damaged output
    assert completed_manifest(source, output, manifest) is None
    output.write_text("row\n")
    os.utime(source.path, ns=(1, 1))  # a changed input
    assert completed_manifest(source, output, manifest) is None
    manifest.write_text("{not json")
    assert completed_manifest(source, output, manifest) is None
