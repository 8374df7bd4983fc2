"""nsa-run.sh's verify matrix on a fake pack: NSA_VERIFY_SKIP leaves out exactly the first N cases of the matrix the
same mode runs, so a matrix cut by a call's time limit can be finished by the cases that did not run."""

import os
import shutil
import subprocess

import pytest

GPU = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "gpu")


def run_matrix(tmp_path, name, env):
    """The verify part of nsa-run.sh with a `saw` that logs its arguments and passes; (calls, summary line)."""
    pack = tmp_path / name
    os.makedirs(pack)
    shutil.copy(os.path.join(GPU, "nsa-run.sh"), pack)
    log = tmp_path / f"{name}.calls"
    (pack / "saw").write_text(f'#!/usr/bin/env bash\necho "$SAW_NSA_FWD $SAW_NSA_FAMILY $*" >>"{log}"\n'
                              'echo "  O 1.00e-04  (tolerance 1.0e-02)"\n')
    os.chmod(pack / "saw", 0o755)
    run = subprocess.run(["bash", str(pack / "nsa-run.sh")], capture_output=True, text=True, timeout=120,
                         env=dict(os.environ, OUT=str(tmp_path / f"{name}-out"), NSA_PARTS="verify", **env))
    assert run.returncode == 0, run.stderr
    summary = [line for line in run.stdout.splitlines() if line.startswith("verify matrix")]
    return log.read_text().splitlines() if log.exists() else [], summary[0]


@pytest.mark.parametrize("mode,skip", [("all", 33), ("all", 1), ("quick", 5)])
def test_skip_leaves_out_the_first_cases_of_the_same_matrix(tmp_path, mode, skip):
    every, first = run_matrix(tmp_path, "whole", {"NSA_VERIFY": mode})
    assert first.endswith(f"{len(every)} passed, 0 failed")
    rest, summary = run_matrix(tmp_path, "rest", {"NSA_VERIFY": mode, "NSA_VERIFY_SKIP": str(skip)})
    assert rest == every[skip:]
    assert summary.endswith(f"{len(every) - skip} passed, 0 failed, the first {skip} of {len(every)} skipped "
                            "(NSA_VERIFY_SKIP)")
