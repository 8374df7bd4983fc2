"""compare_flex.open_sink: what a resumed run keeps of an earlier run's FlexAttention results file, including the
empty file a run killed before its first row leaves behind (once refused as 'empty file', which stopped the run)."""

import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import compare_flex  # noqa: E402

HEADER = {"schema": compare_flex.SCHEMA, "gpu": "test"}


def row(n, backend, status="ok"):
    return {"row": n, "backend": backend, "pass": "fwd", "tile": "128x128", "status": status}


def lines(path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def test_a_missing_file_starts_with_the_header_on_disk(tmp_path):
    out = tmp_path / "flex-a.json"
    sink, done = compare_flex.open_sink(str(out), True, lambda: HEADER)
    try:
        assert done == set()
        assert lines(out) == [HEADER]  # flushed before any row: a kill now leaves a resumable file
    finally:
        sink.close()


def test_an_empty_or_blank_file_is_started_over(tmp_path):
    for text in ("", "\n \n"):
        out = tmp_path / "flex-b.json"
        out.write_text(text, encoding="utf-8")
        sink, done = compare_flex.open_sink(str(out), True, lambda: HEADER)
        sink.write(json.dumps(row(0, "flexattention")) + "\n")
        sink.close()
        assert done == set()
        assert lines(out) == [HEADER, row(0, "flexattention")]


def test_resume_keeps_the_rows_timed_ok_and_appends(tmp_path):
    out = tmp_path / "flex-c.json"
    earlier = [HEADER, row(0, "flexattention"), row(0, "sdpa-cudnn"), row(1, "flexattention", "failed: out of memory")]
    out.write_text("".join(json.dumps(r) + "\n" for r in earlier), encoding="utf-8")
    sink, done = compare_flex.open_sink(str(out), True, lambda: {"schema": "never written"})
    sink.write(json.dumps(row(1, "flexattention")) + "\n")
    sink.close()
    assert done == {(0, "flexattention", "fwd", "128x128"), (0, "sdpa-cudnn", "fwd", "128x128")}
    assert lines(out) == earlier + [row(1, "flexattention")]


def test_without_resume_an_earlier_file_is_replaced(tmp_path):
    out = tmp_path / "flex-d.json"
    out.write_text(json.dumps(HEADER) + "\n" + json.dumps(row(0, "flexattention")) + "\n", encoding="utf-8")
    sink, done = compare_flex.open_sink(str(out), False, lambda: {**HEADER, "gpu": "new"})
    sink.close()
    assert done == set()
    assert lines(out) == [{**HEADER, "gpu": "new"}]
