#!/usr/bin/env bash
# Runs the GPU pack the way `saw ... --remote` runs it on a server (issue 19), without SSH: the pack folder is
# archived, its SHA-256 checked and unpacked into a fresh ~/.cache/saw/pack-<sha16> of a throwaway HOME, then saw is
# started there by `sh -c` from a clean, non-interactive environment (env -i: HOME, PATH=/usr/bin:/bin, no
# terminal) with an empty command prefix, exactly the command line the client sends:
#   C=...; cd "$C/runs/ID" && echo "saw-remote-pid $$" >&2 && exec "$C"/pack-X/saw ARGS
# It checks: saw env there sees the GPU; a bench with --out - streams saw.bench/1 JSON Lines on stdout (parsed row
# by row); SIGINT to the announced pid stops a GPU sweep within 10 s keeping the rows already sent; the install
# folder is < 64 MiB compressed.
# Run time: about 1-2 minutes (well under 4). Logs: $OUT/remote-pack/ (one folder). Summary table printed last.
#   OUT=/tmp/out .gpupack/remote-pack-check.sh
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out="${OUT:-$here/out}/remote-pack"
mkdir -p "$out"
log="$out/remote-pack.log"
: >"$log"
results=()
row() { results+=("$(printf '%-34s %-6s %s' "$1" "$2" "$3")"); echo "[$2] $1: $3" | tee -a "$log"; }

backend=${SAW_CHECK_BACKEND:-gpu} # cpu: a dry run of this script on a machine without a GPU, at small sizes
if [ "$backend" = gpu ]; then seq1=4096 seq2=16384 heads=16 hd=128; else seq1=256 seq2=512 heads=2 hd=32; fi
home=$(mktemp -d /tmp/saw-remote-home.XXXXXX)
trap 'rm -rf "$home"' EXIT
cache="$home/.cache/saw"
mkdir -p "$cache"

# 1. the upload: one gzipped tar of the pack folder (the scripts beside the launcher included), checked and unpacked
start=$(date +%s.%N)
tar -czf "$home/pack.tar.gz" -C "$here" --exclude=./out . 2>>"$log"
bytes=$(stat -c %s "$home/pack.tar.gz")
sum=$(sha256sum <"$home/pack.tar.gz"); sum=${sum%% *}
stamp="pack-${sum:0:16}"
mkdir -p "$cache/$stamp" && tar -xzf "$home/pack.tar.gz" -C "$cache/$stamp" && echo "$sum" >"$cache/$stamp/.saw-pack"
check=$(sha256sum <"$home/pack.tar.gz"); check=${check%% *}
mib=$(awk -v b="$bytes" 'BEGIN{printf "%.1f", b/1048576}')
if [ "$bytes" -lt $((64 << 20)) ] && [ "$check" = "$sum" ] && [ -x "$cache/$stamp/saw" ]; then
    row "pack archive" ok "$mib MiB compressed, sha256 ${sum:0:16}, unpacked in $(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN{printf "%.1f", e-s}') s"
else
    row "pack archive" FAIL "$mib MiB (limit 64), checksum $check vs $sum, launcher $( [ -x "$cache/$stamp/saw" ] && echo ok || echo missing)"
fi

# 2. the run line, from a clean environment as sshd gives a non-interactive command
remote() { # remote RUN_ID ARGS... ; stdout and stderr as the client would receive them
    local id=$1; shift
    local q=""; for a in "$@"; do q="$q '$a'"; done # saw's arguments here hold no quote
    mkdir -p "$cache/runs/$id"
    timeout "${REMOTE_TIMEOUT:-150}" env -i ${REMOTE_ENV:-} HOME="$home" PATH=/usr/bin:/bin LANG=C.UTF-8 ${CUDA_VISIBLE_DEVICES:+CUDA_VISIBLE_DEVICES=$CUDA_VISIBLE_DEVICES} \
        sh -c "C=\"\${XDG_CACHE_HOME:-\$HOME/.cache}/saw\"; cd \"\$C/runs/$id\" && echo \"saw-remote-pid \$\$\" >&2 && exec \"\$C\"/$stamp/saw$q"
}

remote env1 env >"$out/env.out" 2>"$out/env.err"; rc=$?
gpu_of() { awk '/^gpus:/{sub(/^gpus: */, ""); if ($0 == "") {getline; sub(/^ */, "")} print; exit}' "$1"; }
gpu=$(gpu_of "$out/env.out")
if [ $rc -eq 0 ] && grep -q '^saw-remote-pid [0-9]' "$out/env.err" && [ -n "$gpu" ] && [ "$gpu" != none ]; then
    row "saw env (non-interactive)" ok "$gpu"
else
    row "saw env (non-interactive)" FAIL "exit $rc; $(tail -n 2 "$out/env.err" | tr '\n' ' ')"
fi
if [ "$gpu" = "" ] || [ "$gpu" = "none" ]; then
    # a login shell's LD_LIBRARY_PATH is missing from a non-interactive one: say whether that is the reason
    REMOTE_ENV="LD_LIBRARY_PATH=${LD_LIBRARY_PATH:-}" remote env2 env >"$out/env2.out" 2>>"$out/env.err"
    row "saw env with this LD_LIBRARY_PATH" info "gpus: $(gpu_of "$out/env2.out")"
fi

t0=$(date +%s.%N)
remote bench1 bench preset:causal --seq "$seq1" --block 128x64,128x128 --pass fwd,bwd --heads "$heads" --head-dim "$hd" \
    --backend "$backend" --reps 10 --warmup 3 --out - >"$out/bench.jsonl" 2>"$out/bench.err"; rc=$?
secs=$(awk -v s="$t0" -v e="$(date +%s.%N)" 'BEGIN{printf "%.1f", e-s}')
parsed=$(python3 - "$out/bench.jsonl" <<'PY' 2>>"$log"
import json, sys
lines = open(sys.argv[1]).read().splitlines()
head = json.loads(lines[0])
assert head["schema"] == "saw.bench/1", head
rows = [json.loads(l) for l in lines[1:]]
assert [r["row"] for r in rows] == list(range(len(rows)))
ok = [r for r in rows if r["status"] == "ok"]
best = max((r["useful_tflops"] or 0) for r in ok) if ok else 0
print(f'{len(rows)} rows, {len(ok)} ok, on {head["gpu"] or head["device"]}, best {best:.1f} TFLOP/s')
PY
)
if [ $rc -eq 0 ] && [ -n "$parsed" ]; then
    row "bench --out - streamed" ok "$parsed in $secs s"
else
    row "bench --out - streamed" FAIL "exit $rc after $secs s; $parsed $(tail -n 2 "$out/bench.err" | tr '\n' ' ')"
fi

# 3. Ctrl-C: SIGINT to the announced pid, after the first row arrived
remote stop1 bench preset:causal --seq "$seq2" --density 0.1,0.2,0.3,0.4,0.5,0.6,0.7,0.8,0.9,1 --block 128x64 --pass fwd,bwd \
    --heads "$heads" --head-dim "$hd" --backend "$backend" --reps 50 --warmup 5 --out - >"$out/stop.jsonl" 2>"$out/stop.err" &
bg=$!
for _ in $(seq 1 600); do [ "$(wc -l <"$out/stop.jsonl")" -ge 2 ] && break; kill -0 "$bg" 2>/dev/null || break; sleep 0.1; done
pid=$(sed -n 's/^saw-remote-pid \([0-9]*\)$/\1/p' "$out/stop.err" | head -1)
t0=$(date +%s.%N)
[ -n "$pid" ] && kill -INT "$pid" 2>/dev/null
for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
stopped=$(awk -v s="$t0" -v e="$(date +%s.%N)" 'BEGIN{printf "%.1f", e-s}')
kept=$(( $(wc -l <"$out/stop.jsonl") - 1 ))
if [ -n "$pid" ] && ! kill -0 "$pid" 2>/dev/null && [ "$kept" -ge 1 ] && [ "$kept" -lt 20 ]; then
    row "SIGINT stops the run" ok "pid $pid gone ${stopped} s after SIGINT; $kept of 20 rows sent before"
else
    row "SIGINT stops the run" FAIL "pid '${pid}' $(kill -0 "$pid" 2>/dev/null && echo still alive || echo gone); $kept rows"
    [ -n "$pid" ] && kill -KILL "$pid" 2>/dev/null
fi
wait 2>/dev/null

echo
echo "remote-pack-check ($(date -u +%FT%TZ), pack ${stamp}, logs in $out)"
printf '%-34s %-6s %s\n' check result detail
for r in "${results[@]}"; do echo "$r"; done
