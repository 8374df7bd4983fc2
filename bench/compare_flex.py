#!/usr/bin/env python3
"""Side by side with the field: FlexAttention and cuDNN SDPA on the rows of saw's benchmark results.

Runs on a CUDA machine with torch (FlexAttention, cuDNN SDPA). Three subcommands:

  run    For every row of saw.bench/1 results files (made by `saw bench ... --export-flex DIR`), load the exported
         flex layout through BlockMask.from_kv_blocks with sawmask.torch's closed-form mask_mod, check it against
         torch's own create_block_mask for the same mask (a row that names a bare config, where saw's flex file
         would pass 2 GB, gets create_block_mask's block mask), time flex_attention forward and backward on the same
         shapes with random bf16/fp16 inputs, compiled by default and with mode="max-autotune-no-cudagraphs"
         (--modes, --autotune-filter), and for dense causal / full rows also cuDNN SDPA (GQA rows both with
         enable_gqa=True and with K/V repeated to the query heads, the faster kept). Writes saw.bench/1 rows
         (backend "flexattention", "flexattention-max-autotune" or "sdpa-cudnn", each with the mask_mod's source
         text) so `saw chart` overlays them with saw's own.
  check  Compare FlexAttention's outputs with saw's on one seeded input set dumped by `saw dump` (.npy files).
  table  Print saw against FlexAttention (each mode) and cuDNN from results files, worst saw/Flex ratio first, with
         the worst and median ratios for fwd and fwd+bwd; --markdown writes the same for docs/benchmarks.md.

Timing follows docs/bench-format.md: warm-up runs, then timed runs each between two CUDA events; median, p10 and
p90 with linear interpolation (numpy's default). A backward time is the backward alone (retain_graph), as saw's.
"""

import argparse
import datetime
import json
import math
import os
import platform
import re
import sys
import time
import traceback

SCHEMA = "saw.bench/1"
M64 = (1 << 64) - 1
GOLDEN = 0x9E3779B97F4A7C15
UNBOUNDED = 1 << 30
MODES = {"default": None, "max-autotune": "max-autotune-no-cudagraphs"}
FLEX_BACKENDS = ("flexattention", "flexattention-max-autotune")


# ---------------------------------------------------------------------------------------------------------------
# results files


def read_results(path):
    """(header, rows) of a saw.bench/1 file; a last line cut short is dropped with a note, as saw's reader does."""
    with open(path, encoding="utf-8") as f:
        lines = [l for l in f.read().split("\n")]
    while lines and not lines[-1].strip():
        lines.pop()
    if not lines:
        raise SystemExit(f"{path}: empty file, expected a {SCHEMA} header")
    objects = []
    for i, line in enumerate(lines):
        if not line.strip():
            continue
        try:
            objects.append(json.loads(line))
        except json.JSONDecodeError as e:
            if i == len(lines) - 1 and objects:
                print(f"note: {path} line {i + 1} is incomplete; kept the rows before it", file=sys.stderr)
                break
            raise SystemExit(f"{path} line {i + 1}: not JSON ({e})")
    header = objects[0]
    if header.get("schema") != SCHEMA:
        raise SystemExit(f"{path} line 1: schema is {header.get('schema')!r}, expected {SCHEMA}")
    return header, objects[1:]


def percentiles(samples):
    import numpy as np
    a = np.asarray(samples, dtype=np.float64)
    return float(np.percentile(a, 50)), float(np.percentile(a, 10)), float(np.percentile(a, 90))


def result_row(base, backend, kernel, samples, warmup, status="ok", extra=None):
    """A saw.bench/1 row for another implementation of saw row `base`: same problem, same work, its own times."""
    row = {k: base.get(k) for k in (
        "row", "config", "varied", "density", "batch", "heads", "kv_heads", "seq_q", "seq_kv", "head_dim", "dtype",
        "scale", "softcap", "tile", "block_q", "block_kv", "pass")}
    row["backend"] = backend
    row["kernel"] = kernel
    row["layout"] = base.get("layout")
    for k in ("tiles_empty", "tiles_partial", "tiles_full", "attended_pairs", "token_density", "block_density"):
        row[k] = base.get(k)
    row["warmup"] = warmup
    ok = status == "ok"
    if ok:
        med, p10, p90 = percentiles(samples)
        row.update(reps=len(samples), median_ms=med, p10_ms=p10, p90_ms=p90)
    else:
        row.update(reps=None, median_ms=None, p10_ms=None, p90_ms=None)
    for k in ("useful_flops", "computed_flops", "bytes"):
        row[k] = base.get(k)
    if ok:
        seconds = row["median_ms"] * 1e-3
        row["useful_tflops"] = row["useful_flops"] / seconds / 1e12
        row["computed_tflops"] = row["computed_flops"] / seconds / 1e12
        row["bandwidth_gbs"] = row["bytes"] / seconds / 1e9
    else:
        row["useful_tflops"] = row["computed_tflops"] = row["bandwidth_gbs"] = None
    row["status"] = status
    if extra:
        row.update(extra)
    return row


def has_text(path):
    with open(path, encoding="utf-8") as f:
        return bool(f.read().strip())


def open_sink(out, resume, make_header):
    """(the open results file, the (row, backend, pass, tile) keys already timed ok in it). With resume, an existing
    file is appended to; one that holds nothing (a run killed before its first row) is started over, header first."""
    if resume and os.path.exists(out) and has_text(out):
        done = {(r.get("row"), r.get("backend"), r.get("pass"), r.get("tile")) for r in read_results(out)[1]
                if r.get("status") == "ok"}  # failed rows are tried again
        return open(out, "a", encoding="utf-8"), done
    sink = open(out, "w", encoding="utf-8")
    sink.write(json.dumps(make_header()) + "\n")
    sink.flush()  # a run killed before its first row still leaves a file that can be resumed
    return sink, set()


def header_for(saw_header, torch, command):
    if not torch.cuda.is_available():  # a CPU smoke run (--device cpu): the header says so
        props = type("CPU", (), {"name": "CPU", "major": 0, "minor": 0, "total_memory": 0})()
    else:
        props = torch.cuda.get_device_properties(0)
    return {
        "schema": SCHEMA,
        "gpu": props.name,
        "driver": driver_version(),
        "cuda": str(torch.version.cuda),
        "compute_capability": f"{props.major}.{props.minor}",
        "jvm": "Python " + platform.python_version(),
        "os": f"{platform.system()} {platform.release()} ({platform.machine()}, {os.cpu_count()} cpus)",
        "saw_version": saw_header.get("saw_version", ""),
        "git_commit": saw_header.get("git_commit", ""),
        "date": datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0).isoformat().replace("+00:00", "Z"),
        "backend": "torch",
        "device": f"{props.name} (sm_{props.major}{props.minor}, {props.total_memory // (1 << 30)} GiB)",
        "command": "compare_flex.py " + " ".join(command),
        "bytes_model": "fa2-stream/1",
        "percentiles": "linear",
        "torch": torch.__version__,
    }


def driver_version():
    try:
        import subprocess
        out = subprocess.run(["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
                             capture_output=True, text=True, timeout=20)
        return out.stdout.strip().splitlines()[0] if out.returncode == 0 and out.stdout.strip() else ""
    except Exception:  # no nvidia-smi: the header just lacks the driver
        return ""


# ---------------------------------------------------------------------------------------------------------------
# saw.mask/1 masks as FlexAttention mask_mods


def sawmask_torch():
    """sawmask.torch, from the installed package or from python/ beside this script."""
    try:
        import sawmask.torch as st
    except ImportError:
        sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
        import sawmask.torch as st
    return st


_MASK_MODS = {}


def mask_mod_for(torch, config, device):
    """The closed-form mask_mod a FlexAttention user writes for this saw.mask/1 config (sawmask.torch.mask_mod:
    q_idx >= kv_idx for causal, a document-id lookup only for documents, ...); its program text is `.source`.

    torch.compile specialises on the mask_mod function, so masks with the same program over tables of the same
    shape (random blocks at each density) reuse the first such function, its tables overwritten in place: one
    compile per program and shape instead of one per row."""
    mod = sawmask_torch().mask_mod(config, device=device)
    body = "\n".join(l for l in mod.source.splitlines() if not l.startswith("# FlexAttention mask_mod made"))
    key = (body, tuple((k, tuple(t.shape), str(t.dtype)) for k, t in mod.tensors.items()))
    if key in _MASK_MODS:
        first = _MASK_MODS[key]
        for k, t in mod.tensors.items():
            first.tensors[k].copy_(t)
        return first
    _MASK_MODS[key] = mod
    return mod


def is_plain_causal(config):
    """"causal" or "full" when cuDNN SDPA can run the mask densely (is_causal=True or no mask), else None."""
    m = config["mask"]
    if set(m) == {"full"}:
        return "full"
    if set(m) == {"causal"} and m["causal"].get("offset", 0) == 0 and config["seq_len_q"] == config["seq_len_kv"]:
        return "causal"
    return None


# ---------------------------------------------------------------------------------------------------------------
# layouts


KV_KEYS = ("kv_num_blocks", "kv_indices", "full_kv_num_blocks", "full_kv_indices")
Q_KEYS = ("q_num_blocks", "q_indices", "full_q_num_blocks", "full_q_indices")


def load_layout(torch, path, device, keys=KV_KEYS + Q_KEYS):
    """(header fields, {key: int32 tensor}) of a saw.flex/1 export; `keys` picks the arrays (from_kv_blocks needs only
    the kv ones; the q ones are for check_export)."""
    flex, arrays = read_flex(path, keys)
    return flex, {k: torch.from_numpy(a).to(device) for k, a in arrays.items()}


def read_flex(path, keys):
    """Reads a saw.flex/1 file without building Python lists: saw writes each top-level field on a line of its own,
    and at 1M tokens an index array holds 8192 x 8192 numbers (1.3 GB of text), which json.load takes minutes and
    tens of GB for. Small fields go through json; index arrays through listed_entries. Stops once `keys` are read."""
    import numpy as np
    flex, arrays = {}, {}
    with open(path, "rb") as f:
        for line in f:
            line = line.strip().rstrip(b",")
            m = re.match(rb'"([a-z_]+)":', line)
            if not m:
                continue
            key, value = m.group(1).decode(), line[m.end():]
            if key.endswith("_indices"):
                if key in keys:
                    bq, bkv = flex["block_size"]
                    sq, skv = flex["seq_lengths"]
                    length = -(-skv // bkv) if key.startswith(("kv", "full_kv")) else -(-sq // bq)
                    arrays[key] = listed_entries(value, arrays[key.replace("_indices", "_num_blocks")], length, key)
            elif key.endswith("_num_blocks"):
                arrays[key] = np.asarray(json.loads(value), dtype=np.int32)
            else:
                flex[key] = json.loads(value)
            if all(k in arrays for k in keys):
                break
    missing = [k for k in keys if k not in arrays]
    if missing:
        raise ValueError(f"{path}: no {', '.join(missing)} (not a saw.flex/1 export?)")
    return flex, {k: arrays[k] for k in keys}


def listed_entries(text, num, length, key="indices"):
    """An index array, shape num.shape + (length,), from its JSON text (bytes): the first num[...] entries of each
    innermost line, the rest zeros. FlexAttention reads only those (BlockMask ignores kv_indices past kv_num_blocks;
    from_kv_blocks' transposition masks them too), and parsing only them takes 1-6 % of the text at 1M tokens."""
    import numpy as np
    b = np.frombuffer(text, dtype=np.uint8)
    opens = np.flatnonzero(b[:-1] == ord("["))
    starts = (opens[b[opens + 1] != ord("[")] + 1).tolist()  # innermost lines begin after their bracket
    counts = num.reshape(-1).tolist()
    if len(starts) != len(counts) or (counts and max(counts) > length):
        raise ValueError(f"{key}: {len(starts)} lines, expected {len(counts)} of {length} entries listing at most "
                         f"{length}; not a saw.flex/1 export?")
    out = np.zeros((len(counts), length), dtype=np.int32)
    for line, (at, n) in enumerate(zip(starts, counts)):
        if n:  # at most 10 digits and a comma per number
            out[line, :n] = np.fromstring(text[at:at + 11 * n].decode("ascii"), dtype=np.int64, sep=",", count=n)
    return out.reshape(num.shape + (length,))


def block_mask_from_export(flex_mod, flex, t, mask_mod):
    bq, bkv = flex["block_size"]
    return flex_mod.BlockMask.from_kv_blocks(
        t["kv_num_blocks"], t["kv_indices"], t["full_kv_num_blocks"], t["full_kv_indices"],
        BLOCK_SIZE=(bq, bkv), mask_mod=mask_mod, seq_lengths=tuple(flex["seq_lengths"]))


def block_mask_for(torch, flex_mod, layout_path, tile, device, checks, no_export_check=False):
    """(BlockMask, export check, plain causal) for a row's layout file. A saw.flex/1 export loads through
    from_kv_blocks with the closed-form mask_mod (checked once per config and tile against create_block_mask, see
    check_export); a bare config (saw bench names one where the flex file would pass 2 GB) is built the way a
    FlexAttention user builds it, create_block_mask over that mask_mod (compiled on a GPU, so that no dense mask is
    held)."""
    config_path = layout_path if layout_path.endswith(".config.json") else layout_path.replace(".flex.json", ".config.json")
    with open(config_path, encoding="utf-8") as f:
        config_text = f.read()
    config = json.loads(config_text)
    mask_mod = mask_mod_for(torch, config, device)
    if layout_path == config_path:
        bm = sawmask_torch().block_mask(config, None, device, mod=mask_mod, compile=device != "cpu")
        return bm, "none: no saw export (past 2 GB); create_block_mask built the block mask", is_plain_causal(config)
    flex, t = load_layout(torch, layout_path, device, KV_KEYS)
    bm = block_mask_from_export(flex_mod, flex, t, mask_mod)
    check_key = (config_text, tile)
    if no_export_check:
        checks[check_key] = "skipped"
    elif check_key not in checks:
        checks[check_key] = check_export(torch, flex_mod, flex, t, bm, mask_mod, device, layout_path)
    return bm, checks[check_key], is_plain_causal(config)


def listed(num, idx):
    """Per line, the set of listed block indices: the first num[...] entries of each index row."""
    num = num.cpu().tolist()
    idx = idx.cpu().tolist()
    out = []
    for b in range(len(num)):
        for h in range(len(num[b])):
            for line in range(len(num[b][h])):
                out.append(frozenset(idx[b][h][line][:num[b][h][line]]))
    return out


def check_export(torch, flex_mod, flex, t, bm, mask_mod, device, path):
    """'ok', or what differs: torch's transposition of our kv arrays against our q arrays (read from `path` here),
    and torch's own create_block_mask for the same mask_mod against our kv arrays. Past DENSE_CHECK_PAIRS token
    pairs it says it was skipped: the uncompiled create_block_mask holds a bool per pair (1 TB at 1M tokens)."""
    B, H = t["kv_num_blocks"].shape[:2]
    sq, skv = flex["seq_lengths"]
    bq, bkv = flex["block_size"]
    if B * H * sq * skv > DENSE_CHECK_PAIRS:
        return f"skipped ({B}x{H}x{sq}x{skv} token pairs; create_block_mask without _compile is dense)"
    t = dict(t, **load_layout(torch, path, device, Q_KEYS)[1])
    problems = []
    for ours, theirs, name in ((t["q_num_blocks"], bm.q_num_blocks, "q_num_blocks"),
                               (t["full_q_num_blocks"], bm.full_q_num_blocks, "full_q_num_blocks")):
        if theirs is not None and not torch.equal(ours.to(theirs.device), theirs):
            problems.append(f"{name} differs from from_kv_blocks' transposition")
    if bm.q_indices is not None and listed(t["q_num_blocks"], t["q_indices"]) != listed(bm.q_num_blocks, bm.q_indices):
        problems.append("q_indices differ from from_kv_blocks' transposition")
    if sq % bq == 0 and skv % bkv == 0:  # torch pads ragged edges its own way; compare whole tiles only
        ref = flex_mod.create_block_mask(mask_mod, B, H, sq, skv, device=device, BLOCK_SIZE=(bq, bkv), _compile=False)
        for kind in ("", "full_"):
            ours = listed(t[kind + "kv_num_blocks"], t[kind + "kv_indices"])
            theirs = listed(getattr(ref, kind + "kv_num_blocks"), getattr(ref, kind + "kv_indices"))
            if ours != theirs:
                bad = sum(1 for a, b in zip(ours, theirs) if a != b)
                problems.append(f"{kind or 'partial_'}kv blocks differ from create_block_mask in {bad} rows")
    return "ok" if not problems else "; ".join(problems)


# token pairs (batch x heads x Sq x Skv of the export) that check_export evaluates densely at most
DENSE_CHECK_PAIRS = 1 << 34


# ---------------------------------------------------------------------------------------------------------------
# timing


def time_ms(torch, fn, warmup, reps, before=None):
    """Times fn() `reps` times between CUDA events after `warmup` untimed calls; `before` runs untimed each time. On the
    GPU a 256 MiB fill precedes each start event, as in triton's do_bench and saw's timed runs: it empties the L2 cache
    and keeps the GPU busy while Python queues fn's launches, so the events time the GPU's work alone."""
    for _ in range(warmup):
        if before:
            before()
        fn()
    if not torch.cuda.is_available():  # CPU smoke runs: wall time
        samples = []
        for _ in range(reps):
            if before:
                before()
            t0 = time.perf_counter()
            fn()
            samples.append((time.perf_counter() - t0) * 1e3)
        return samples
    flush = torch.empty(256 << 20, dtype=torch.int8, device="cuda")
    torch.cuda.synchronize()
    samples = []
    for _ in range(reps):
        if before:
            before()
        flush.zero_()
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        end.synchronize()
        samples.append(start.elapsed_time(end))
    return samples


def inputs(torch, row, device, seed, grad):
    dtype = {"bf16": torch.bfloat16, "fp16": torch.float16}[row["dtype"]]
    g = torch.Generator(device=device).manual_seed(seed)
    shape_q = (row["batch"], row["heads"], row["seq_q"], row["head_dim"])
    shape_kv = (row["batch"], row["kv_heads"], row["seq_kv"], row["head_dim"])
    q = torch.randn(shape_q, generator=g, device=device, dtype=dtype).requires_grad_(grad)
    k = torch.randn(shape_kv, generator=g, device=device, dtype=dtype).requires_grad_(grad)
    v = torch.randn(shape_kv, generator=g, device=device, dtype=dtype).requires_grad_(grad)
    do = torch.randn(shape_q, generator=g, device=device, dtype=dtype)
    return q, k, v, do


def timed_pass(torch, attend, q, k, v, do, pass_, warmup, reps):
    """Times one pass. A forward on inputs that require grad (--fwd-with-grad) runs the training forward, the graph
    the backward row needs anyway, so the two rows share its compile."""
    if pass_ == "fwd":
        if q.requires_grad:
            return time_ms(torch, lambda: attend(q, k, v), warmup, reps)
        with torch.no_grad():
            return time_ms(torch, lambda: attend(q, k, v), warmup, reps)
    out = attend(q, k, v)

    def clear():
        q.grad = k.grad = v.grad = None
    return time_ms(torch, lambda: out.backward(do, retain_graph=True), warmup, reps, before=clear)


def time_cudnn(torch, F, sdpa_kernel, SDPBackend, row, q, k, v, do, causal, scale, args):
    """cuDNN SDPA on a dense-causal row. GQA rows are timed both ways its users call it: K and V with their own heads
    and enable_gqa=True (cuDNN takes unequal head counts itself, the grads of K and V summed over each group inside),
    and K and V repeated to the query heads as leaves (the attention alone is timed); the faster is kept and the row
    records both."""
    group = row["heads"] // row["kv_heads"]
    layouts = [("", k, v, False)]
    if group > 1:
        kk, vv = k.repeat_interleave(group, 1), v.repeat_interleave(group, 1)
        if row["pass"] == "bwd":
            kk, vv = kk.detach().requires_grad_(), vv.detach().requires_grad_()
        layouts = [("native GQA", k, v, True), ("K/V repeated", kk, vv, False)]
    best, tried = None, {}
    for name, kk, vv, gqa in layouts:
        def sdpa(q_, k_, v_):
            with sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
                return F.scaled_dot_product_attention(q_, k_, v_, is_causal=causal == "causal", scale=scale,
                                                      **({"enable_gqa": True} if gqa else {}))
        kernel = f"sdpa-cudnn (dense {causal}{', ' + name if name else ''})"
        try:
            samples = timed_pass(torch, sdpa, q, kk, vv, do, row["pass"], args.warmup, args.reps)
            r = result_row(row, "sdpa-cudnn", kernel, samples, args.warmup)
        except Exception as e:
            r = result_row(row, "sdpa-cudnn", kernel, [], args.warmup, status=f"failed: {one_line(e)}")
            torch.cuda.empty_cache()
        if name:
            tried[name] = r["median_ms"] if r["status"] == "ok" else r["status"]
        if best is None or (r["status"] == "ok" and (best["status"] != "ok" or r["median_ms"] < best["median_ms"])):
            best = r
    if tried:
        best["cudnn_layouts_ms"] = tried
    return best


def setup_torch():
    import torch
    import torch._dynamo
    # every shape and mask structure compiles once; the default limit of 8 would silently fall back to eager
    for name in ("cache_size_limit", "recompile_limit", "accumulated_cache_size_limit", "accumulated_recompile_limit"):
        if hasattr(torch._dynamo.config, name):
            setattr(torch._dynamo.config, name, 4096)
    return torch


def cmd_run(args):
    torch = setup_torch()
    import torch.nn.functional as F
    from torch.nn.attention import flex_attention as flex_mod
    from torch.nn.attention import SDPBackend, sdpa_kernel
    device = args.device
    if device == "cuda" and not torch.cuda.is_available():
        raise SystemExit("compare_flex.py run: no CUDA device (--device cpu runs a slow smoke test of this script)")
    modes = [m for m in args.modes.split(",") if m]
    compiled = {m: torch.compile(flex_mod.flex_attention, dynamic=False, **({} if m == "default" else {"mode": MODES[m]}))
                for m in modes}
    os.makedirs(args.out_dir, exist_ok=True)
    started = time.monotonic()
    cache = {}  # layout path -> (block mask, export check, plain causal)
    checks = {}  # (config, tile) -> export check: head dims share layouts, so each is checked once
    files = []  # (rows, the file's directory, emit) per results file
    sinks = []
    for path in args.results:
        header, rows = read_results(path)
        out = os.path.join(args.out_dir, "flex-" + os.path.basename(path))
        sink, done = open_sink(out, args.resume, lambda: header_for(header, torch, sys.argv[1:]))
        sinks.append((sink, out))

        def emit(r, sink=sink):  # flushed per row, like saw's own files: an interrupted run keeps what finished
            sink.write(json.dumps(r) + "\n")
            sink.flush()
        files.append((rows, os.path.dirname(os.path.abspath(path)), done, emit))

    def one_row(row, base_dir, done, emit, phase_modes, sdpa_too):
        density = f"d={row['density']:g} " if isinstance(row.get("density"), (int, float)) else ""
        label = f"{row['config']} {row.get('varied') or ''}{density}S={row['seq_q']} D={row['head_dim']} {row['tile']} {row['pass']}"
        if args.filter and not re.search(args.filter, label):
            return
        phase_modes = [m for m in phase_modes
                       if m == "default" or not args.autotune_filter or re.search(args.autotune_filter, label)]
        if not phase_modes and not sdpa_too:
            return  # max-autotune compiles take long: a representative subset, named in the header
        if not row.get("layout"):
            if sdpa_too:  # recorded once: saw refuses exports past 2 GB (2M tokens at 128x128), and the table says so
                emit(result_row(row, "flexattention", "flex_attention (not run)", [], args.warmup,
                                status="skipped: no flex layout file (saw bench --export-flex refused or was not asked)"))
                print(f"skip {label}: no layout file (run saw bench with --export-flex)", file=sys.stderr)
            return
        if args.budget_s is not None and time.monotonic() - started > args.budget_s:
            for mode in phase_modes:  # recorded, so that the table says why these rows have no time
                emit(result_row(row, "flexattention" if mode == "default" else "flexattention-" + mode,
                                "flex_attention (not run)", [], args.warmup,
                                status=f"skipped: past the time budget (--budget-s {args.budget_s:g})"))
            print(f"{label}: skipped, past the time budget", file=sys.stderr)
            return
        backends = ["flexattention" if m == "default" else "flexattention-" + m for m in phase_modes]
        if all((row.get("row"), b, row["pass"], row.get("tile")) in done for b in backends) and (
                not sdpa_too or (row.get("row"), "sdpa-cudnn", row["pass"], row.get("tile")) in done):
            return  # all of this phase's work on the row is in the file already (--resume)
        layout_path = os.path.join(base_dir, row["layout"])
        try:
            if layout_path not in cache:
                cache.clear()  # one layout at a time keeps GPU memory flat
                cache[layout_path] = block_mask_for(torch, flex_mod, layout_path, row["tile"], device, checks,
                                                    args.no_export_check)
            bm, check, causal = cache[layout_path]
        except Exception as e:  # a layout we cannot load is a failed row, never the end of the run
            emit(result_row(row, "flexattention", "flex_attention (compiled)", [], args.warmup,
                            status=f"failed: layout: {one_line(e)}"))
            print(f"{label}: layout failed: {one_line(e)}", file=sys.stderr)
            return
        gqa = row["heads"] != row["kv_heads"]
        scale = row.get("scale") or 1.0 / math.sqrt(row["head_dim"])
        q, k, v, do = inputs(torch, row, device, args.seed, row["pass"] == "bwd" or args.fwd_with_grad)
        for mode, backend in zip(phase_modes, backends):
            if (row.get("row"), backend, row["pass"], row.get("tile")) in done:
                continue
            kernel = f"flex_attention (torch.compile{'' if mode == 'default' else ', mode=' + MODES[mode]})"
            extra = {"export_check": check, "mask_mod_source": getattr(bm.mask_mod, "source", None), "flex_mode": mode}
            if args.fwd_with_grad and row["pass"] == "fwd":
                extra["fwd_with_grad"] = True
            try:
                attend = lambda q_, k_, v_, fn=compiled[mode]: fn(q_, k_, v_, block_mask=bm, scale=scale, enable_gqa=gqa)
                samples = timed_pass(torch, attend, q, k, v, do, row["pass"], args.warmup, args.reps)
                r = result_row(row, backend, kernel, samples, args.warmup, extra=extra)
            except Exception as e:
                r = result_row(row, backend, kernel, [], args.warmup, status=f"failed: {one_line(e)}", extra=extra)
                torch.cuda.empty_cache()  # after an out-of-memory, the next row starts clean
            emit(r)
            print(f"{label}: {backend} {fmt(r.get('useful_tflops'))} TFLOP/s (export {check})", file=sys.stderr)
        if sdpa_too and causal and not args.no_sdpa and (row.get("row"), "sdpa-cudnn", row["pass"], row.get("tile")) not in done:
            r = time_cudnn(torch, F, sdpa_kernel, SDPBackend, row, q, k, v, do, causal, scale, args)
            emit(r)
            print(f"{label}: cudnn {fmt(r.get('useful_tflops'))} TFLOP/s", file=sys.stderr)
        del q, k, v, do

    # every row in the default mode and with cuDNN first, then the max-autotune subset: its compiles take minutes, and
    # a run that stops early (a time limit, a killed job) should still leave the whole default table behind
    phases = [([m for m in modes if m == "default"], True), ([m for m in modes if m != "default"], False)]
    for phase_modes, sdpa_too in phases:
        if not phase_modes and not sdpa_too:
            continue
        for rows, base_dir, done, emit in files:
            for row in rows:
                if row.get("status") != "ok" or (args.tile and row.get("tile") not in args.tile):
                    continue
                one_row(row, base_dir, done, emit, phase_modes, sdpa_too)
            torch.cuda.empty_cache()
    for sink, out in sinks:
        sink.close()
        print(f"compare_flex.py: rows -> {out}", file=sys.stderr)


# ---------------------------------------------------------------------------------------------------------------
# check against saw's outputs


def cmd_check(args):
    torch = setup_torch()
    import numpy as np
    from torch.nn.attention import flex_attention as flex_mod
    device = "cuda"
    flex_compiled = torch.compile(flex_mod.flex_attention, dynamic=False)
    failures = 0
    report = []
    for d in args.dumps:
        with open(os.path.join(d, "meta.json"), encoding="utf-8") as f:
            meta = json.load(f)
        dtype = {"bf16": torch.bfloat16, "fp16": torch.float16}[meta["dtype"]]
        tol = args.tolerance if args.tolerance else {"bf16": 1e-2, "fp16": 2e-3}[meta["dtype"]]
        load = lambda name: torch.from_numpy(np.load(os.path.join(d, name + ".npy"))).to(device)
        q, k, v = (load(n).to(dtype).requires_grad_() for n in ("q", "k", "v"))
        with open(os.path.join(d, "config.json"), encoding="utf-8") as f:
            config = json.load(f)
        flex, t = load_layout(torch, os.path.join(d, "layout.flex.json"), device)
        mask_mod = mask_mod_for(torch, config, device)
        if meta["block_q"] % 128 or meta["block_kv"] % 128:
            # FlexAttention's kernels need BlockMask blocks divisible by their own 128-wide tiles; the outputs do not
            # depend on the block size, and the tile-for-tile check of saw's export is python-bridge.sh's blocks step
            bm = flex_mod.create_block_mask(mask_mod, meta["batch"], meta["heads"], meta["seq_q"], meta["seq_kv"],
                                            device=device)
        else:
            bm = block_mask_from_export(flex_mod, flex, t, mask_mod)
        gqa = meta["heads"] != meta["kv_heads"]
        out, lse = flex_with_lse(flex_mod, flex_compiled, q, k, v, bm, meta["scale"], gqa)
        errors = {"o": rel_err(torch, out.float(), load("o").float())}
        saw_lse = load("lse").float()
        finite = torch.isfinite(saw_lse)
        flex_lse = lse.float()
        if finite.any():
            e_nat = rel_err(torch, flex_lse[finite], saw_lse[finite])
            e_log2 = rel_err(torch, flex_lse[finite] * math.log(2), saw_lse[finite])
            errors["lse"] = min(e_nat, e_log2)
        if os.path.exists(os.path.join(d, "do.npy")) and os.path.exists(os.path.join(d, "dq.npy")):
            out.backward(load("do").to(dtype))
            for name, tensor in (("dq", q), ("dk", k), ("dv", v)):
                errors[name] = rel_err(torch, tensor.grad.float(), load(name).float())
        ok = all(e <= tol for e in errors.values())
        failures += 0 if ok else 1
        line = f"{d}: {'ok' if ok else 'FAILED'} (tolerance {tol:g}) " + " ".join(f"{k}={v:.2e}" for k, v in errors.items())
        print(line)
        report.append({"dump": d, "config": config.get("name"), "ok": ok, "tolerance": tol, "errors": errors})
    if args.out:
        with open(args.out, "w", encoding="utf-8") as f:
            json.dump(report, f, indent=2)
    sys.exit(1 if failures else 0)


def flex_with_lse(flex_mod, fn, q, k, v, bm, scale, gqa):
    """(out, lse) from flex_attention, through return_aux where this torch has it, else return_lse."""
    if hasattr(flex_mod, "AuxRequest"):
        out, aux = fn(q, k, v, block_mask=bm, scale=scale, enable_gqa=gqa, return_aux=flex_mod.AuxRequest(lse=True))
        return out, aux.lse
    return fn(q, k, v, block_mask=bm, scale=scale, enable_gqa=gqa, return_lse=True)


def rel_err(torch, a, b):
    return float(torch.linalg.vector_norm(a - b) / torch.clamp(torch.linalg.vector_norm(b), min=1e-30))


# ---------------------------------------------------------------------------------------------------------------
# side-by-side table


def cmd_table(args):
    """saw against FlexAttention (each compile mode) and cuDNN: rows sorted worst saw/Flex ratio first, then the
    worst and median ratio per mode for fwd and fwd+bwd; --markdown also writes them as a table for the docs."""
    import numpy as np
    rows = []
    for path in args.results:
        rows.extend(read_results(path)[1])
    key = lambda r: (r["config"], json.dumps(r.get("varied") or {}, sort_keys=True), r.get("density"), r["seq_q"],
                     r["head_dim"], r["tile"])
    by = {}
    for r in rows:
        if r.get("status") == "ok":
            by.setdefault(key(r), {}).setdefault(r["backend"], {})[r["pass"]] = r
    lines = []
    ratios = {(b, p): [] for b in FLEX_BACKENDS for p in ("fwd", "fwd+bwd")}
    for k, impls in by.items():
        saw = next((impls[b] for b in impls if b not in FLEX_BACKENDS + ("sdpa-cudnn",)), None)
        if saw is None or not any(b in impls for b in FLEX_BACKENDS):
            continue
        name = k[0] + (f" {100 * k[2]:.0f}%" if k[2] is not None else "") + (" " + k[1] if k[1] != "{}" else "")
        for p in ("fwd", "bwd", "fwd+bwd"):
            s_ = tflops(saw, p)
            flex = [tflops(impls.get(b, {}), p) for b in FLEX_BACKENDS]
            c = tflops(impls.get("sdpa-cudnn", {}), p)
            if s_ is None:
                continue
            rs = [s_ / f if s_ and f else None for f in flex]
            for b, r in zip(FLEX_BACKENDS, rs):
                if r is not None and p in ("fwd", "fwd+bwd"):
                    ratios[(b, p)].append(r)
            worst = min([r for r in rs if r is not None], default=float("inf"))
            lines.append((worst, name, k[3], k[4], k[5], p, s_, flex, rs, c))
    lines.sort(key=lambda x: (x[0], x[1]))
    head = f"{'config':<34} {'S':>6} {'D':>4} {'tile':>8} {'pass':>8}  {'saw':>8} {'flex':>8} {'flex-at':>8} {'saw/fl':>7} {'saw/at':>7} {'cudnn':>8}"
    print(head)
    for worst, name, S, D, tile, p, s_, flex, rs, c in lines:
        r = [f"{x:7.2f}" if x else f"{'-':>7}" for x in rs]
        print(f"{name[:34]:<34} {S:>6} {D:>4} {tile:>8} {p:>8}  {fmt(s_)} {fmt(flex[0])} {fmt(flex[1])} {r[0]} {r[1]} {fmt(c)}")
    summary = []
    for (b, p), rs in ratios.items():
        if rs:
            summary.append(f"saw/{b} {p}: worst {min(rs):.2f}, median {float(np.median(rs)):.2f} over {len(rs)} rows")
    print("\n".join(summary))
    if args.markdown:
        md = ["Useful TFLOP/s (fwd+bwd: both passes' FLOPs over both medians); Flex = `torch.compile(flex_attention)`, "
              "Flex-AT = `torch.compile(flex_attention, mode=\"max-autotune-no-cudagraphs\")` (a subset of rows), both "
              "with sawmask.torch's closed-form mask_mods; saw/Flex above 1 means saw is faster; worst saw/Flex ratio "
              "first.", "",
              "| mask | S | D | tile | pass | saw | Flex | Flex-AT | saw/Flex | saw/Flex-AT | cuDNN |",
              "|---|---:|---:|---|---|---:|---:|---:|---:|---:|---:|"]
        cell = lambda x, f="{:.1f}": f.format(x) if x else "-"
        for worst, name, S, D, tile, p, s_, flex, rs, c in lines:
            md.append(f"| {name} | {S} | {D} | {tile} | {p} | {cell(s_)} | {cell(flex[0])} | {cell(flex[1])} | "
                      f"{cell(rs[0], '{:.2f}')} | {cell(rs[1], '{:.2f}')} | {cell(c)} |")
        md += [""] + [f"- {x}" for x in summary]
        with open(args.markdown, "w", encoding="utf-8") as f:
            f.write("\n".join(md) + "\n")


def tflops(by_pass, p):
    """Useful TFLOP/s of one pass, or of forward and backward together (their FLOPs over the summed medians)."""
    if p != "fwd+bwd":
        r = by_pass.get(p)
        return r.get("useful_tflops") if r else None
    f, b = by_pass.get("fwd"), by_pass.get("bwd")
    if not f or not b:
        return None
    return (f["useful_flops"] + b["useful_flops"]) / ((f["median_ms"] + b["median_ms"]) * 1e-3) / 1e12


def fmt(x):
    return f"{x:8.1f}" if isinstance(x, (int, float)) else f"{'-':>8}"


def one_line(e):
    return " ".join(f"{type(e).__name__}: {e}".split())[:500]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="time FlexAttention (and cuDNN for causal) on saw's rows")
    run.add_argument("results", nargs="+", help="saw.bench/1 files made with --export-flex")
    run.add_argument("--out-dir", required=True, help="writes the rows for each RESULTS file to OUT_DIR/flex-<its name> (saw.bench/1)")
    run.add_argument("--tile", action="append", help="only rows of this tile (repeatable), e.g. 128x128")
    run.add_argument("--reps", type=int, default=20)
    run.add_argument("--warmup", type=int, default=5)
    run.add_argument("--seed", type=int, default=0)
    run.add_argument("--no-sdpa", action="store_true", help="skip cuDNN SDPA")
    run.add_argument("--no-export-check", action="store_true", help="skip the check against create_block_mask")
    run.add_argument("--modes", default="default,max-autotune",
                     help="FlexAttention compile modes: default (torch.compile(flex_attention)) and/or max-autotune "
                          "(mode=\"max-autotune-no-cudagraphs\"); default: both")
    run.add_argument("--device", default="cuda", help="cuda (default), or cpu for a smoke test of the script itself")
    run.add_argument("--resume", action="store_true",
                     help="keep the rows already in OUT_DIR's files and time only the missing ones")
    run.add_argument("--filter", help="only rows whose label (config varied S= D= tile pass) matches this regex")
    run.add_argument("--autotune-filter", help="max-autotune only on rows whose label matches this regex")
    run.add_argument("--fwd-with-grad", action="store_true",
                     help="time forward rows on inputs that require grad (the training forward), so that a fwd row "
                          "and the bwd row after it share the forward's compile (long context: 20-40 s each)")
    run.add_argument("--budget-s", type=float,
                     help="start no timing after this many seconds; the rows left are written as skipped")
    check = sub.add_parser("check", help="compare FlexAttention's outputs with saw's dumped ones")
    check.add_argument("dumps", nargs="+", help="folders written by saw dump")
    check.add_argument("--tolerance", type=float, help="relative error allowed (default: bf16 1e-2, fp16 2e-3)")
    check.add_argument("--out", help="also write the errors as JSON")
    table = sub.add_parser("table", help="print saw and FlexAttention side by side")
    table.add_argument("results", nargs="+", help="saw.bench/1 files: saw's and compare_flex.py's")
    table.add_argument("--markdown", help="also write the table and the worst/median ratios as markdown to this file")
    args = ap.parse_args()
    try:
        {"run": cmd_run, "check": cmd_check, "table": cmd_table}[args.command](args)
    except SystemExit:
        raise
    except Exception:
        traceback.print_exc()
        sys.exit(1)


if __name__ == "__main__":
    main()
