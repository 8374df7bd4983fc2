"""ab_table (the A/B ratio table of a kernel experiment) and sass_loops (a kernel's main-loop opcode counts), on
seeded synthetic inputs checked against what they were built from."""

import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import zipfile

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import ab_table  # noqa: E402
import sass_loops  # noqa: E402


def write_points(folder, tag, row, rnd, points):
    with open(os.path.join(folder, f"{tag}-{row}-r{rnd}.jsonl"), "w", encoding="utf-8") as f:
        for p in points:
            f.write(json.dumps(p) + "\n")


@pytest.mark.parametrize("seed", [0, 1, 7, 23])
def test_ratios_pair_builds_within_a_round(tmp_path, seed):
    rng = random.Random(seed)
    rows = [f"row{i}-d{rng.choice([64, 128])}" for i in range(rng.randint(1, 4))]
    expected = {}
    for row in rows:
        for rnd in range(1, rng.randint(2, 5)):
            rates = {}
            for tag in ("A", "B"):
                pts = []
                for ps in ("fwd", "bwd"):
                    rate = rng.uniform(100, 700)
                    rates[(tag, ps)] = rate
                    pts.append({"status": "ok", "pass": ps, "useful_tflops": rate})
                # points that must not count: a failed one and another pass
                pts.append({"status": "error", "pass": "fwd", "useful_tflops": 1.0})
                pts.append({"status": "ok", "pass": "fwd+bwd", "useful_tflops": 2.0})
                write_points(tmp_path, tag, row, rnd, pts)
            for ps in ("fwd", "bwd"):
                expected.setdefault((row, ps), []).append(
                    (rnd, rates[("A", ps)], rates[("B", ps)], rates[("B", ps)] / rates[("A", ps)]))
    # a round where only one build ran is left out of the ratios
    write_points(tmp_path, "A", rows[0], 99, [{"status": "ok", "pass": "fwd", "useful_tflops": 300.0}])
    got = ab_table.ratios(ab_table.load(str(tmp_path)))
    assert set(got) == set(expected)
    for key, pairs in expected.items():
        assert [(r, pytest.approx(a), pytest.approx(b), pytest.approx(q)) for r, a, b, q in pairs] == got[key]
    lines = ab_table.table(ab_table.load(str(tmp_path)))
    for key, pairs in expected.items():
        qs = [q for *_, q in pairs]
        summary = [line for line in lines if line.split()[:3] == [key[0], key[1], "all"]]
        assert summary == [summary[0]]
        assert f"{min(qs):.3f}-{max(qs):.3f}, median {statistics.median(qs):.3f}" in summary[0]


def test_other_tags_and_unrelated_files(tmp_path):
    write_points(tmp_path, "main", "causal-8k-d64", 1, [{"pass": "bwd", "useful_tflops": 200.0}])
    write_points(tmp_path, "U", "causal-8k-d64", 1, [{"pass": "bwd", "useful_tflops": 210.0}])
    (tmp_path / "bench.log").write_text("not a result")
    (tmp_path / "notes.jsonl").write_text("{}")
    got = ab_table.ratios(ab_table.load(str(tmp_path)), "main", "U")
    assert got == {("causal-8k-d64", "bwd"): [(1, 200.0, 210.0, pytest.approx(1.05))]}


def listing(rng, loops):
    """A cuobjdump-like listing: straight-line code around `loops` loops, each (body opcodes); returns the text and
    each loop's opcode list as laid out (body plus its closing branch) and the number of instructions."""
    lines, addr, laid = ["\tcode for sm_90a", "\t\tFunction : k"], 0, []

    def emit(op, rest="R1, R2, R3"):
        nonlocal addr
        pred = rng.choice(["", "", "@P0 ", "@!P1 "])
        lines.append(f"        /*{addr:04x}*/                   {pred}{op} {rest} ;   /* 0x{rng.getrandbits(64):016x} */")
        lines.append(f"                                                          /* 0x{rng.getrandbits(64):016x} */")
        addr += 16

    filler = ["IMAD", "LOP3.LUT", "MOV", "ULOP3.LUT", "S2R", "BRA"]
    for body in loops:
        for _ in range(rng.randint(1, 6)):
            op = rng.choice(filler)
            emit(op, f"0x{addr + 0x100:x}" if op == "BRA" else "R1, R2, R3")  # forward branches only
        start = addr
        for op in body:
            emit(op)
        emit("BRA", f"0x{start:x}")
        laid.append([op.split(".")[0] for op in body] + ["BRA"])
    emit("EXIT", "")
    return "\n".join(lines) + "\n", laid, addr // 16


@pytest.mark.parametrize("seed", [0, 3, 11, 42])
def test_main_loop_is_the_one_with_most_tensor_instructions(seed):
    rng = random.Random(seed)
    ops = ["IMAD", "LOP3.LUT", "R2UR", "UIADD3", "FFMA", "MUFU.EX2", "STS.128", "SHFL.IDX", "HGMMA.64x64x16.F32.BF16"]
    loops = []
    for n in range(rng.randint(2, 5)):
        body = [rng.choice(ops) for _ in range(rng.randint(5, 300))]
        loops.append(body)
    text, laid, emitted = listing(rng, loops)
    hg = [sum(op == "HGMMA" for op in body) for body in laid]
    best = max(range(len(laid)), key=lambda i: (hg[i], -len(laid[i])))
    total, loop, common = sass_loops.summary(text, top=100)
    assert total == emitted
    assert loop == len(laid[best])
    expected = {}
    for op in laid[best]:
        expected[op] = expected.get(op, 0) + 1
    assert dict(common) == expected


def fake_pack(folder, tag, rate, order_log):
    """A pack whose `saw bench` logs its call and writes one forward and one backward point at a fixed rate."""
    os.makedirs(folder)
    script = os.path.join(folder, "saw")
    with open(script, "w", encoding="utf-8") as f:
        f.write(f"""#!/usr/bin/env bash
echo "{tag} $*" >>"{order_log}"
while [[ $# -gt 0 ]]; do [[ $1 == --out ]] && out=$2; shift; done
printf '{{"status":"ok","pass":"fwd","useful_tflops":{rate}}}\\n{{"status":"ok","pass":"bwd","useful_tflops":{rate / 2}}}\\n' >"$out"
""")
    os.chmod(script, 0o755)


BENCH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
AB_LIB = os.path.join(BENCH, "gpu", "ab-lib.sh")
ENGINE_JAR = "saw-engine-0.1.0-SNAPSHOT.jar"
FATBIN_ENTRY = "saw/kernels/saw_attention.fatbin"


def pack_root(tmp_path, launcher, classes):
    """A repository root whose .gpupack has this launcher and an engine jar of these classes with an empty fatbin."""
    root = tmp_path / "root"
    os.makedirs(root / ".gpupack" / "lib")
    os.makedirs(root / ".gpupack" / "runtime")
    (root / ".gpupack" / "saw").write_text(launcher)
    with zipfile.ZipFile(root / ".gpupack" / "lib" / ENGINE_JAR, "w") as z:
        z.writestr(FATBIN_ENTRY, b"")
        for name, data in classes.items():
            z.writestr(name, data)
    return root


def run_pack(root, *args):
    """ab_pack ARGS... with ab_root at root."""
    quoted = " ".join(f'"{a}"' for a in args)
    run = subprocess.run(["bash", "-c", f'. "{AB_LIB}"; ab_root="{root}"; ab_pack {quoted}'], capture_output=True,
                         text=True, timeout=60)
    assert run.returncode == 0, run.stderr


def run_rounds(tmp_path, tags, rates, env=""):
    """ab_rounds_multi over fake packs of these tags, 3 rounds of two rows; returns (the packs' calls in order, the
    folder of the results, $OUT)."""
    root = tmp_path / "root"
    os.makedirs(root / "bench" / "gpu")
    shutil.copy(os.path.join(BENCH, "ab_table.py"), root / "bench")
    shutil.copy(os.path.join(BENCH, "gpu", "specs-lib.sh"), root / "bench" / "gpu")
    order = tmp_path / "order.log"
    for t in tags:
        fake_pack(str(tmp_path / f"p{t}"), t, rates[t], order)
    spec = " ".join(f"{tmp_path / ('p' + t)}:{t}" for t in tags)
    res, out = tmp_path / "res", tmp_path / "out"
    for d in ("ab", "specs"):
        os.makedirs(res / d)
    os.makedirs(out)
    script = (f'set -uo pipefail; . "{AB_LIB}"; ab_root="{root}"; ab_res="{res}"; ab_name=res; ab_t0=$(date +%s); '
              f'OUT="{out}"; {env} ab_rounds_multi 3 "{spec}" causal-8k-d64 "gqa-32k-d128|--kv-heads 8" '
              f'"causal-8k-d256|--block 64x64"')
    run = subprocess.run(["bash", "-c", script], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    return [line.split() for line in order.read_text().splitlines()], res, out


def test_rounds_refuse_a_tag_the_table_could_not_read_back(tmp_path):
    """A tag with a '-' (the forty-third session's "small-fill") made ab_table pair no round and print an empty
    table after the whole run; ab_rounds now stops before timing anything and names the tag."""
    fake_pack(str(tmp_path / "pa"), "A", 100.0, tmp_path / "order.log")
    script = (f'. "{AB_LIB}"; ab_root="{tmp_path}"; ab_res="{tmp_path}"; ab_t0=$(date +%s); '
              f'ab_rounds 1 "{tmp_path / "pa"}" A "{tmp_path / "pa"}" small-fill causal-8k-d64')
    run = subprocess.run(["bash", "-c", script], capture_output=True, text=True, timeout=60)
    assert run.returncode == 2
    assert "tag 'small-fill'" in run.stdout and "letters and digits only" in run.stdout
    assert not (tmp_path / "order.log").exists()


def test_rounds_multi_starts_no_round_past_the_deadline(tmp_path):
    calls, res, _ = run_rounds(tmp_path, ["A", "B", "C"], {"A": 100.0, "B": 90.0, "C": 120.0}, "AB_DEADLINE=0")
    assert [c[0] for c in calls] == ["A", "B", "C"] * 3  # round 1's three rows
    table = (res / "ab" / "table.txt").read_text()
    assert "0.900-0.900" in table and "1.200-1.200" in table


@pytest.mark.parametrize("builds", [2, 3, 4])
def test_rounds_multi_rotates_the_builds_and_compares_each_with_the_first(tmp_path, builds):
    tags = ["A", "U", "UA", "UN"][:builds]
    rates = {t: 100.0 + 10 * i for i, t in enumerate(tags)}
    calls, res, out = run_rounds(tmp_path, tags, rates)
    rows = ("causal-8k-d64", "gqa-32k-d128", "causal-8k-d256")
    assert len(calls) == 3 * len(rows) * builds
    for r in range(3):
        for j, row in enumerate(rows):
            chunk = calls[(len(rows) * r + j) * builds:(len(rows) * r + j + 1) * builds]
            assert [c[0] for c in chunk] == [tags[(r + i) % builds] for i in range(builds)]
            for c in chunk:
                assert c[1] == "bench" and c[2].endswith(row.rsplit("-d", 1)[0] + ".json")
                assert c[c.index("--head-dim") + 1] == row.rsplit("-d", 1)[1]
                assert c[c.index("--out") + 1].endswith(f"{c[0]}-{row}-r{r + 1}.jsonl")
                assert ("--kv-heads" in c) == row.startswith("gqa")
                assert [c[i + 1] for i, a in enumerate(c) if a == "--block"] == [
                    "64x64" if row.endswith("d256") else "128x128"]
    table = (res / "ab" / "table.txt").read_text()
    for t in tags[1:]:
        q = rates[t] / rates["A"]
        for row in rows:
            for ps in ("fwd", "bwd"):
                assert f"{row:22} {ps:4} {'all':>5} {'':8} {'':8} {q:.3f}-{q:.3f}, median {q:.3f}" in table
    assert (out / "res.tgz").exists()


def test_pack_takes_the_fatbin_and_names_the_build_without_touching_the_java_options(tmp_path):
    """ab_pack on a launcher made by gpu-pack.sh's own template: the build's label replaces the commit and nothing
    else (an empty ${SAW_JAVA_OPTS:-} default once became the label, so java took it for its main class), and the
    engine jar's fatbin entry is the given file, every other entry as it was."""
    text = open(os.path.join(BENCH, "gpu-pack.sh"), encoding="utf-8").read()
    template = text.split("<<'LAUNCH'\n", 1)[1].split("\nLAUNCH\n", 1)[0] + "\n"
    root = pack_root(tmp_path, template.replace("GIT_COMMIT_AT_PACK", "a81f71a0c0de"),
                     {"saw/engine/A.class": b"class bytes"})
    (root / ".gpupack" / "frontier-table.sh").write_text("#!/usr/bin/env bash\n")
    rng = random.Random(5)
    blob = bytes(rng.getrandbits(8) for _ in range(50000))
    (tmp_path / "k.fatbin").write_bytes(blob)
    run_pack(root, tmp_path / "p", tmp_path / "k.fatbin", "uniform-adds-94b6566")
    launcher = (tmp_path / "p" / "saw").read_text()
    assert launcher == template.replace("GIT_COMMIT_AT_PACK", "uniform-adds-94b6566")
    assert "${SAW_JAVA_OPTS:-}" in launcher
    with zipfile.ZipFile(tmp_path / "p" / "lib" / ENGINE_JAR) as z:
        assert z.read(FATBIN_ENTRY) == blob
        assert z.read("saw/engine/A.class") == b"class bytes"
    assert (tmp_path / "p" / "frontier-table.sh").exists()


@pytest.mark.parametrize("seed", [2, 9])
def test_summary_gives_each_build_its_median_and_range_against_the_base(tmp_path, seed):
    rng = random.Random(seed)
    tags = ["A", "U", "X"]
    got_rates = {}
    for row in ("causal-8k-d128", "docs64-32k-d128"):
        for rnd in (1, 2, 3):
            for tag in tags:
                if tag == "X" and row.startswith("docs") and rnd == 2:
                    continue  # a failed bench: X has two rounds on this row
                pts = []
                for ps in ("fwd", "bwd"):
                    rate = rng.uniform(100, 700)
                    got_rates[(row, ps, rnd, tag)] = rate
                    pts.append({"status": "ok", "pass": ps, "useful_tflops": rate})
                write_points(tmp_path, tag, row, rnd, pts)
    lines = ab_table.summary(ab_table.load(str(tmp_path)), "A", ["U", "X"])
    assert lines[0].split()[:2] == ["row", "pass"] and lines[0].split()[2:] == ["U/A", "X/A"]
    body = {tuple(line.split()[:2]): line for line in lines[1:]}
    assert set(body) == {(r, p) for r in ("causal-8k-d128", "docs64-32k-d128") for p in ("fwd", "bwd")}
    for (row, ps), line in body.items():
        for tag in ("U", "X"):
            qs = [got_rates[(row, ps, r, tag)] / got_rates[(row, ps, r, "A")] for r in (1, 2, 3)
                  if (row, ps, r, tag) in got_rates]
            assert f"{statistics.median(qs):.3f} ({min(qs):.3f}-{max(qs):.3f})" in line


def test_pack_takes_another_engine_jar_when_named(tmp_path):
    """ab_pack with ENGINE_JAR: that jar's classes, the given fatbin in place of the jar's own."""
    root = pack_root(tmp_path, "export SAW_GIT_COMMIT=${SAW_GIT_COMMIT:-abc}\n",
                     {"saw/engine/A.class": b"main's class"})
    with zipfile.ZipFile(tmp_path / "other.jar", "w") as z:
        z.writestr(FATBIN_ENTRY, b"stale kernels")
        z.writestr("saw/engine/A.class", b"the branch's class")
        z.writestr("saw/engine/B.class", b"a new class")
    (tmp_path / "k.fatbin").write_bytes(b"the branch's kernels")
    run_pack(root, tmp_path / "p", tmp_path / "k.fatbin", "F", tmp_path / "other.jar")
    with zipfile.ZipFile(tmp_path / "p" / "lib" / ENGINE_JAR) as z:
        assert z.read(FATBIN_ENTRY) == b"the branch's kernels"
        assert z.read("saw/engine/A.class") == b"the branch's class"
        assert z.read("saw/engine/B.class") == b"a new class"


@pytest.mark.parametrize("seed", [3, 17])
def test_nsa_check_passes_the_environment_and_prints_each_tensors_largest_error(tmp_path, seed):
    """ab_nsa_check runs the pack's nsa-run.sh with the given variables, keeps its logs under the check's name and
    prints its verdict lines and the largest error per tensor over the verify log, returning the script's status."""
    rng = random.Random(seed)
    errors = {k: [rng.uniform(1e-4, 9e-3) for _ in range(rng.randint(1, 6))] for k in ("O", "dQ", "dK", "dV")}
    lines = [f"  {k} {e:.2e}  (tolerance 1.0e-02)" for k, es in errors.items() for e in es]
    rng.shuffle(lines)
    rc = rng.choice([0, 3])
    pack = tmp_path / "pack"
    os.makedirs(pack)
    (pack / "verify-lines.txt").write_text("\n".join(lines + ["== verify other", "rc=0"]) + "\n")
    (pack / "nsa-run.sh").write_text(
        "#!/usr/bin/env bash\n"
        'mkdir -p "$OUT/nsa"; cp "$(dirname "$0")/verify-lines.txt" "$OUT/nsa/verify.log"\n'
        'echo "verify matrix (quick): 13 passed, 0 failed (parts $NSA_PARTS, dQ ${SAW_NSA_DQ_ACCUM:-fp32})"\n'
        "echo 'compute-sanitizer memcheck case: rc=0 ========= ERROR SUMMARY: 0 errors'\n"
        f"exit {rc}\n")
    os.chmod(pack / "nsa-run.sh", 0o755)
    res = tmp_path / "res"
    os.makedirs(res)
    script = (f'. "{AB_LIB}"; ab_res="{res}"; AB_CHECK_TIMEOUT=30 ab_nsa_check "{pack}" check-native '
              'SAW_NSA_DQ_ACCUM=native NSA_PARTS="verify sanitizer"')
    run = subprocess.run(["bash", "-c", script], capture_output=True, text=True, timeout=60)
    assert run.returncode == rc, run.stderr
    out = run.stdout.splitlines()
    assert f"check-native rc={rc}" in out
    assert "verify matrix (quick): 13 passed, 0 failed (parts verify sanitizer, dQ native)" in out
    assert any(line.startswith("compute-sanitizer memcheck case: rc=0") for line in out)
    printed = {line.split()[0]: float(line.split()[1]) for line in out[out.index(
        "largest relative error per tensor, check-native:") + 1:]}
    assert printed == {k: float(f"{max(es):.2e}") for k, es in errors.items()}
    assert (res / "check-native" / "nsa" / "verify.log").exists() and (res / "check-native.out").exists()


@pytest.mark.parametrize("seed", [2, 5, 13])
def test_nsa_time_runs_the_pass_and_selection_asked_and_prints_median_and_kernel(tmp_path, seed):
    """ab_nsa_time hands saw bench the pass, selection and shape it was given (with the environment) and prints one
    line with the median and kernel of what it wrote; ab_nsa_bwd is the backward on a random selection."""
    rng = random.Random(seed)
    pack = tmp_path / "pack"
    os.makedirs(pack)
    (pack / "saw").write_text(
        "#!/usr/bin/env bash\n"
        'echo "$* fwd=${SAW_NSA_FWD:-auto}" >>"$(dirname "$0")/calls.log"\n'
        'while [[ $# -gt 0 ]]; do case $1 in --out) out=$2;; --pass) pass=$2;; --nsa) sel=$2;; esac; shift; done\n'
        'printf \'{"median_ms":%s,"kernel":"nsa_%s_%s"}\\n\' "$MEDIAN" "$pass" "$sel" >"$out"\n')
    os.chmod(pack / "saw", 0o755)
    res = tmp_path / "res"
    os.makedirs(res / "ab")
    for _ in range(4):
        pass_, sel = rng.choice(["fwd", "bwd"]), rng.choice(["random", "scored"])
        b, t, hq, d, reps = rng.randint(1, 4), rng.choice([8192, 65536]), rng.choice([16, 64]), rng.choice([64, 128]), \
            rng.randint(2, 9)
        median = round(rng.uniform(0.5, 50), 3)
        script = (f'. "{AB_LIB}"; ab_res="{res}"; MEDIAN={median} SAW_NSA_FWD=warp '
                  f'ab_nsa_time "{pack}" W 2 {pass_} {sel} {b} {t} {hq} {d} {reps}')
        run = subprocess.run(["bash", "-c", script], capture_output=True, text=True, timeout=60)
        assert run.returncode == 0, run.stderr
        line = run.stdout.strip()
        assert line.startswith(f"round 2 W    {pass_} {sel:<6} B={b} T={t}"), line
        assert line.endswith(f'"median_ms":{median} "kernel":"nsa_{pass_}_{sel}"'), line
        call = (pack / "calls.log").read_text().splitlines()[-1]
        assert f"--nsa {sel} --batch {b} --seq {t} --heads {hq} --kv-heads 4 --head-dim {d}" in call
        assert f"--pass {pass_} --warmup 2 --reps {reps}" in call and call.endswith("fwd=warp")
    script = f'. "{AB_LIB}"; ab_res="{res}"; MEDIAN=3.5 ab_nsa_bwd "{pack}" A 1 2 8192 64 128 5'
    run = subprocess.run(["bash", "-c", script], capture_output=True, text=True, timeout=60)
    assert run.stdout.startswith("round 1 A    bwd random B=2 T=8192"), run.stdout
    assert "--nsa random --batch 2 --seq 8192" in (pack / "calls.log").read_text().splitlines()[-1]


@pytest.mark.parametrize("seed", [4, 9])
def test_nsa_rounds_rotate_the_builds_on_every_row(tmp_path, seed):
    """ab_nsa_rounds times every build on every row in each round, round r starting with build r, and saves the logs
    after each round."""
    rng = random.Random(seed)
    tags = ["A", "B", "C"][:rng.randint(2, 3)]
    calls = tmp_path / "calls.log"
    for tag in tags:
        pack = tmp_path / f"p{tag}"
        os.makedirs(pack)
        (pack / "saw").write_text(
            "#!/usr/bin/env bash\n"
            f'echo "{tag} $*" >>"{calls}"\n'
            'while [[ $# -gt 0 ]]; do [[ $1 == --out ]] && out=$2; shift; done\n'
            'echo \'{"median_ms":1.5,"kernel":"k"}\' >"$out"\n')
        os.chmod(pack / "saw", 0o755)
    rows = [f"{rng.choice(['fwd', 'bwd'])} {rng.choice(['random', 'scored'])} 1 {t} 64 128 3"
            for t in rng.sample([8192, 16384, 32768, 65536], rng.randint(1, 3))]
    rounds = rng.randint(2, 3)
    res, out = tmp_path / "res", tmp_path / "out"
    os.makedirs(res / "ab")
    os.makedirs(out)
    builds = " ".join(f"{tmp_path}/p{t}:{t}" for t in tags)
    quoted = " ".join(f'"{r}"' for r in rows)
    script = f'. "{AB_LIB}"; ab_res="{res}"; ab_name=res; OUT="{out}"; ab_nsa_rounds {rounds} "{builds}" {quoted}'
    run = subprocess.run(["bash", "-c", script], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    made = [line.split()[0] for line in calls.read_text().splitlines()]
    expected = [tags[(i + rd) % len(tags)] for rd in range(rounds) for _ in rows for i in range(len(tags))]
    assert made == expected
    printed = run.stdout.splitlines()
    assert len(printed) == rounds * len(rows) * len(tags)
    assert all(line.startswith(f"round {rd + 1} ") for rd in range(rounds)
               for line in printed[rd * len(rows) * len(tags):(rd + 1) * len(rows) * len(tags)])
    for line, row in zip(printed, [r for _ in range(rounds) for r in rows for _ in tags]):
        pass_, sel, _, t = row.split()[:4]
        assert f" {pass_} {sel:<6} B=1 T={t:<6}" in line, (line, row)
    assert (out / "res.tgz").exists()


def test_nsa_fla_runs_the_compare_part_with_its_defaults_and_the_overrides(tmp_path):
    """ab_nsa_fla runs the pack's nsa-run.sh compare part on every published shape unless told otherwise, with fla on
    PYTHONPATH, and prints the summary block."""
    pack = tmp_path / "pack"
    os.makedirs(pack)
    (pack / "nsa-run.sh").write_text(
        "#!/usr/bin/env bash\n"
        'echo "noise before"\n'
        'echo "== summary ($OUT)"\n'
        'echo "parts=$NSA_PARTS shapes=$NSA_SHAPES orders=$NSA_COMPARE_ORDERS families=$NSA_FAMILIES"'
        ' "path=$PYTHONPATH"\n')
    os.chmod(pack / "nsa-run.sh", 0o755)
    site = tmp_path / "site"
    os.makedirs(site / "fla")  # installed already: no pip
    res = tmp_path / "res"
    os.makedirs(res)
    for extra, shapes in (("", "all"), ("NSA_SHAPES=quick", "quick")):
        script = f'. "{AB_LIB}"; ab_res="{res}"; ab_root="{tmp_path}"; AB_SITE="{site}" ab_nsa_fla "{pack}" fla {extra}'
        run = subprocess.run(["bash", "-c", script], capture_output=True, text=True, timeout=60)
        assert run.returncode == 0, run.stderr
        out = run.stdout.splitlines()
        assert out[0] == "fla rc=0"
        assert out[1] == f"== summary ({res}/fla)"
        assert out[2] == f"parts=compare shapes={shapes} orders=warp block shared families=wgmma path={site}"
        assert "noise before" not in run.stdout
    assert not (res / "pip.log").exists(), "fla was there: nothing installed"
