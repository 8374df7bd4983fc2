"""Two bash traps that cost GPU calls or a pack build (the twentieth and twenty-third sessions), checked on every
script under bench/ and .ci/:

- a bare `wait` in a script whose output goes through `exec > >(tee ...)`: bash's `wait` without pids also waits for
  that process substitution, which only ends with the script, so the script hangs until its caller's time limit;
- `... | grep -q` under `set -o pipefail`: grep exits at its first match, the writer dies of the closed pipe (141),
  and pipefail makes the whole test false although the text was there.
"""

import glob
import os
import re

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))

EXEC_TEE = re.compile(r"^\s*exec\b[^#\n]*>\s*>\(", re.M)
BARE_WAIT = re.compile(r"^\s*(?:[^#\n]*(?:;|&&|\|\||\bthen|\bdo)\s*)?wait\s*(?:$|;|&&|\|\||#)", re.M)
PIPEFAIL = re.compile(r"^\s*set\s+-[a-z]*o\s+pipefail", re.M)
GREP_Q_IN_PIPE = re.compile(r"\|\s*grep\s+(?:-[A-Za-z]*q[A-Za-z]*|--quiet)\b")


def code_lines(text):
    """The text with comments blanked (a '#' that starts a word, outside quotes is close enough for these scripts)."""
    return "\n".join(re.sub(r"(^|\s)#.*$", r"\1", line) for line in text.splitlines())


def traps(text):
    """The traps found in one script's text, as short descriptions with line numbers."""
    code = code_lines(text)
    found = []
    if EXEC_TEE.search(code):
        for m in BARE_WAIT.finditer(code):
            found.append(f"line {code.count(chr(10), 0, m.start()) + 1}: bare wait after exec > >(...)")
    if PIPEFAIL.search(code):
        for m in GREP_Q_IN_PIPE.finditer(code):
            found.append(f"line {code.count(chr(10), 0, m.start()) + 1}: grep -q at the end of a pipe under pipefail")
    return found


def scripts():
    paths = glob.glob(os.path.join(ROOT, "bench", "**", "*.sh"), recursive=True)
    paths.append(os.path.join(ROOT, ".ci", "run"))
    return sorted(p for p in paths if os.path.isfile(p))


HANGS = """#!/usr/bin/env bash
set -uo pipefail
exec > >(tee "$OUT/driver.log") 2>&1
for n in 1 2; do sleep 1 & done
wait
"""

WAITS_FOR_PIDS = """#!/usr/bin/env bash
set -uo pipefail
exec > >(tee "$OUT/driver.log") 2>&1
pids=()
for n in 1 2; do sleep 1 & pids+=($!); done
for p in "${pids[@]}"; do wait "$p"; done
# a comment that says wait
"""

NO_TEE = """#!/usr/bin/env bash
set -uo pipefail
sleep 1 &
wait
"""

GREP_Q = """#!/usr/bin/env bash
set -euo pipefail
if ! unzip -l "$jar" | grep -q saw/kernels/saw_attention.fatbin; then exit 1; fi
"""

GREP_FULL = """#!/usr/bin/env bash
set -euo pipefail
if ! unzip -l "$jar" | grep saw/kernels/saw_attention.fatbin >/dev/null; then exit 1; fi
grep -q pattern file.txt
"""

GREP_Q_NO_PIPEFAIL = """#!/usr/bin/env bash
set -eu
ldconfig -p | grep -q libgtk-3.so.0 || echo missing
"""


@pytest.mark.parametrize("text,expected", [
    (HANGS, ["line 5: bare wait after exec > >(...)"]),
    (HANGS.replace("\nwait\n", "\n[[ -n $x ]] && wait\n"), ["line 5: bare wait after exec > >(...)"]),
    (HANGS.replace("\nwait\n", "\nwait; echo done\n"), ["line 5: bare wait after exec > >(...)"]),
    (WAITS_FOR_PIDS, []),
    (NO_TEE, []),
    (GREP_Q, ["line 3: grep -q at the end of a pipe under pipefail"]),
    (GREP_Q.replace("grep -q", "grep --quiet"), ["line 3: grep -q at the end of a pipe under pipefail"]),
    (GREP_Q.replace("grep -q", "grep -qE"), ["line 3: grep -q at the end of a pipe under pipefail"]),
    (GREP_FULL, []),
    (GREP_Q_NO_PIPEFAIL, []),
])
def test_the_checker_finds_exactly_the_traps(text, expected):
    assert traps(text) == expected


def test_the_scripts_are_found():
    names = {os.path.relpath(p, ROOT) for p in scripts()}
    assert "bench/gpu-pack.sh" in names and ".ci/run" in names
    assert any(n.startswith("bench/gpu/") for n in names)


@pytest.mark.parametrize("path", scripts(), ids=lambda p: os.path.relpath(p, ROOT))
def test_no_script_has_a_trap(path):
    with open(path, encoding="utf-8") as f:
        assert traps(f.read()) == []
