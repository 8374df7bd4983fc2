#!/usr/bin/env bash
# Sourced by the driver of a kernel experiment (two builds of the kernels, A and B, checked and timed in one call), run
# from the repository root on the GPU machine with the pack carried as .gpupack (SAW_PACK_SLIM=1 bench/gpu-pack.sh; to
# fit the 64 MiB carry with two fatbins, also empty its engine jar's fatbin: ab_pack puts one in) and each build's
# fatbin in .gpupack/var/ (sm_90a is enough on Hopper:
#   nvcc -t 2 -O3 -std=c++17 -lineinfo -fatbin -gencode=arch=compute_90a,code=sm_90a -o X.fatbin saw_attention.cu).
#   . bench/gpu/ab-lib.sh
#   ab_init NAME                           logs in /tmp/NAME, copied to $OUT/NAME.tgz by ab_save; output to $OUT/driver.log
#   ab_pack DIR FATBIN LABEL [ENGINE_JAR]  a pack at DIR: .gpupack's jars with FATBIN as the engine's kernels (and
#                                          ENGINE_JAR's classes, for a build that changes host code too)
#   ab_checks PACK                         the verify cases and compute-sanitizer runs of the backward and forward
#                                          (logs named after the pack's folder, so several packs can be checked)
#   ab_rounds N PACK_A TAG_A PACK_B TAG_B ROW...
#                                          saw bench, forward and backward, on issue 12's rows (ROW: spec-dD, then
#                                          optional extra flags after '|'), N rounds alternating which build goes first,
#                                          then the ratio table (bench/ab_table.py); AB_PASS=fwd or =bwd: one pass
#   ab_rounds_multi N "PACK:TAG ..." ROW...
#                                          the same for any number of builds, each round starting one build later;
#                                          a ratio table of every build against the first (ab/table.txt) and a
#                                          summary, one line per row (printed); no round starts once AB_DEADLINE
#                                          seconds have passed since ab_init
#   ab_sass FUNCTION FATBIN...             the main loop's opcode counts of one kernel in each fatbin (bench/sass_loops.py)
#   ab_kernel_times PACK SPEC D PASS       each kernel's duration in one PASS of SPEC ($ab_res/specs/SPEC.json, 128x128
#                                          tiles, head dim D) under Nsight Compute (time only), one line a launch
#   ab_nsa_time PACK TAG ROUND PASS SELECTION B T HQ D REPS
#                                          one NSA timing (PASS fwd or bwd, SELECTION random or scored, Hkv = 4,
#                                          S = 16, block 64) into ab/, printed as one line with its median and kernel
#                                          (the environment, e.g. SAW_NSA_DQ_ACCUM or SAW_NSA_FWD, passes through)
#   ab_nsa_bwd PACK TAG ROUND B T HQ D REPS
#                                          ab_nsa_time of the backward on a random selection
#   ab_nsa_fla PACK NAME [ENV=VALUE...]    issue 14's side by side with fla-core (nsa-run.sh's compare part, every
#                                          published shape, both forward orders, the wgmma family; ENV overrides, e.g.
#                                          NSA_SHAPES=quick), fla installed from .whl into AB_SITE (/tmp/site) when
#                                          missing;
#                                          prints the summary table
#   ab_nsa_rounds N "PACK:TAG ..." ROW...  N rounds of ab_nsa_time over the builds on each ROW ("PASS SELECTION B T HQ D
#                                          REPS"), round r starting with build r (so two builds alternate which goes
#                                          first), saving the logs after each round
#   ab_nsa_check PACK NAME [ENV=VALUE...]  nsa-run.sh's verify (and sanitizer) parts from PACK into $ab_res/NAME, with
#                                          the environment given (NSA_PARTS, NSA_VERIFY, NSA_SAN_TOOLS, SAW_NSA_DQ_ACCUM),
#                                          printed as the matrix and sanitizer lines and the largest relative error per
#                                          tensor over the verify cases
# Every wait names its pids: a bare `wait` would also wait for the tee behind ab_init's redirection, which never ends.

ab_init() {
  ab_root=$PWD
  ab_res=/tmp/$1
  ab_name=$1
  mkdir -p "$ab_res/san" "$ab_res/verify" "$ab_res/ab" "$ab_res/sass" "$ab_res/specs"
  exec > >(tee "$OUT/driver.log") 2>&1
  ab_t0=$(date +%s)
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv
}

ab_el() { echo "[$(( $(date +%s) - ab_t0 )) s] $*"; }

ab_save() { tar czf "$OUT/$ab_name.tgz" -C "$(dirname "$ab_res")" --exclude="$ab_name/specs" "$ab_name"; }

ab_pack() { # DIR FATBIN LABEL [ENGINE_JAR]  (ENGINE_JAR: a build whose host code differs too; its fatbin is replaced)
  local dir=$1 fatbin=$2 label=$3 engine=${4:-$ab_root/.gpupack/lib/saw-engine-0.1.0-SNAPSHOT.jar}
  mkdir -p "$dir/lib"
  ln -sfn "$ab_root/.gpupack/runtime" "$dir/runtime"
  cp "$ab_root"/.gpupack/*.sh "$ab_root"/.gpupack/*.py "$dir/"
  cp "$ab_root"/.gpupack/lib/*.jar "$dir/lib/"
  # only the commit the results name: ${SAW_JAVA_OPTS:-} must keep its empty default
  sed "s/\(SAW_GIT_COMMIT:-\)[^}]*}/\1$label}/" "$ab_root/.gpupack/saw" >"$dir/saw"
  chmod +x "$dir/saw"
  python3 - "$engine" "$fatbin" "$dir/lib/saw-engine-0.1.0-SNAPSHOT.jar" <<'PY'
import sys, zipfile
src, fat, dst = sys.argv[1:]
blob = open(fat, "rb").read()
with zipfile.ZipFile(src) as a, zipfile.ZipFile(dst, "w", zipfile.ZIP_DEFLATED) as b:
    for i in a.infolist():
        b.writestr(i, blob if i.filename == "saw/kernels/saw_attention.fatbin" else a.read(i.filename))
PY
  echo "pack $dir: $label, kernels from $fatbin"
}

ab_san() { # PACK NAME TOOL ARGS... (one verify under compute-sanitizer; ARGS without --backend)
  local pack=$1 name=$2 tool=$3 extra="" rc; shift 3
  [[ $tool == racecheck ]] && extra="--racecheck-report all"
  # shellcheck disable=SC2086
  timeout -k 5 120 compute-sanitizer --tool "$tool" $extra --print-limit 40 --error-exitcode 9 "$pack/runtime/bin/java" \
    -Djava.awt.headless=true ${JOPTS:-} -cp "$pack/lib/*" saw.app.Main verify "$@" --backend gpu \
    >"$ab_res/san/$(basename "$pack")-$name-$tool.log" 2>&1; rc=$?
  echo "$(basename "$pack") $name $tool rc=$rc: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' \
    "$ab_res/san/$(basename "$pack")-$name-$tool.log" | tail -1)"
  return $rc
}

ab_verify() { # PACK NAME ARGS... (ARGS without --backend)
  local pack=$1 name=$2 out rc; shift 2
  out=$(SAW_JAVA_OPTS="-Xmx8g ${VOPTS:-}" timeout -k 5 120 "$pack/saw" verify "$@" --backend gpu 2>&1); rc=$?
  { echo "== verify $name $*"; echo "$out"; echo "rc=$rc"; } >"$ab_res/verify/$(basename "$pack")-$name.log"
  echo "verify $(basename "$pack") $name rc=$rc :: $(echo "$out" | awk '$1=="O"||$1=="dQ"||$1=="dK"||$1=="dV"{printf "%s %s  ", $1, $2}')"
  return $rc
}

ab_checks() { # PACK
  local p=$1 pid failed=0
  local docs='and(causal,docs(300,200,500,700,100,300,800,1200,900))'
  local -a pids=()
  ab_el "checks on $p"
  local d64=(--seq 6000 --heads 8 --kv-heads 8 --head-dim 64 --dtype bf16 --scale 1 --pass fwd,bwd --block 128x128)
  ab_san "$p" d64-padded racecheck "$docs" "${d64[@]}" & pids+=($!)
  ab_san "$p" d64-padded memcheck "$docs" "${d64[@]}" & pids+=($!)
  ab_san "$p" d64-padded synccheck "$docs" "${d64[@]}" & pids+=($!)
  ab_san "$p" d128-padded racecheck "$docs" --seq 6000 --heads 8 --kv-heads 2 --head-dim 128 --dtype bf16 --scale 1 \
    --pass fwd,bwd --block 128x128 & pids+=($!)
  ab_san "$p" d128-causal-fp16 racecheck causal --seq 3000 --heads 4 --kv-heads 2 --head-dim 128 --dtype fp16 --softcap 30 \
    --pass fwd,bwd --block 128x128 & pids+=($!)
  ab_san "$p" nsa-d128 racecheck --nsa random --nsa-block 64 --nsa-s 16 --heads 16 --kv-heads 1 --head-dim 128 --dtype bf16 \
    --seq 1100 --pass fwd,bwd & pids+=($!)
  JOPTS=-Dsaw.kernel.fwd=wgmma-ws ab_san "$p" d64-padded-fwdws racecheck "$docs" --seq 6000 --heads 8 --kv-heads 8 \
    --head-dim 64 --dtype bf16 --pass fwd --block 128x128 & pids+=($!)
  local b=(--block 128x128)
  ab_verify "$p" docs-fp16-d64 'and(causal,docs(700,1500,1200,500,3000,77))' --seq 6977 --batch 2 --heads 16 --kv-heads 16 \
    --head-dim 64 --dtype fp16 --softcap 30 --rows 24 --pass fwd,bwd "${b[@]}" & pids+=($!)
  ab_verify "$p" sinks-split-d64 'or(window(256),sinks(4))' --seq 16384 --heads 4 --kv-heads 4 --head-dim 64 --dtype fp16 \
    --rows 16 --pass fwd,bwd "${b[@]}" & pids+=($!)
  ab_verify "$p" empty-cols-d64 'window(100)' --seq 1000 --seq-kv 5000 --batch 4 --heads 8 --kv-heads 2 --head-dim 64 \
    --dtype bf16 --softcap 20 --pass fwd,bwd "${b[@]}" & pids+=($!)
  ab_verify "$p" padded-docs-d64 "$docs" --seq 6000 --batch 3 --heads 8 --kv-heads 8 --head-dim 64 --dtype bf16 \
    --pass fwd,bwd "${b[@]}" & pids+=($!)
  ab_verify "$p" causal-16k-d64 causal --seq 16384 --heads 16 --kv-heads 4 --head-dim 64 --dtype bf16 --rows 16 \
    --pass fwd,bwd "${b[@]}" & pids+=($!)
  ab_verify "$p" random-d64 'random(128,128,2,7)' --seq 8192 --batch 2 --heads 8 --kv-heads 2 --head-dim 64 --dtype fp16 \
    --rows 24 --pass fwd,bwd "${b[@]}" & pids+=($!)
  ab_verify "$p" docs-gqa-d128 'and(causal,docs(300,500,170,30,64,900,1200,200))' --seq 3364 --batch 4 --heads 16 \
    --kv-heads 4 --head-dim 128 --dtype bf16 --rows 24 --pass fwd,bwd "${b[@]}" & pids+=($!)
  ab_verify "$p" causal-16k-d128 causal --seq 16384 --heads 16 --kv-heads 8 --head-dim 128 --dtype bf16 --rows 16 \
    --pass fwd,bwd "${b[@]}" & pids+=($!)
  ab_verify "$p" window-softcap-d128 'window(256)' --seq 700 --seq-kv 8192 --batch 2 --heads 16 --head-dim 128 --dtype fp16 \
    --softcap 20 --pass fwd,bwd "${b[@]}" & pids+=($!)
  ab_verify "$p" nsa-d128 --nsa random --nsa-block 64 --nsa-s 16 --heads 32 --kv-heads 2 --head-dim 128 --dtype bf16 \
    --seq 2048 --pass fwd,bwd & pids+=($!)
  ab_verify "$p" nsa-d64 --nsa random --nsa-block 128 --nsa-s 32 --heads 8 --kv-heads 2 --head-dim 64 --dtype bf16 \
    --seq 4100 --pass fwd,bwd & pids+=($!)
  ab_verify "$p" d256-q128 causal --seq 3000 --heads 8 --kv-heads 2 --head-dim 256 --dtype bf16 --block 64x64 \
    --pass fwd,bwd & pids+=($!)
  ab_verify "$p" d128-q64 'and(causal,docs(300,500,170,30,64,900))' --seq 1964 --batch 2 --heads 8 --kv-heads 2 \
    --head-dim 128 --dtype bf16 --block 64x64 --pass fwd,bwd & pids+=($!)
  for pid in "${pids[@]}"; do wait "$pid" || failed=$((failed + 1)); done
  ab_el "checks done: $failed of ${#pids[@]} failed"
  ab_save
}

ab_rounds() { # N PACK_A TAG_A PACK_B TAG_B ROW...
  local n=$1 pa=$2 ta=$3 pb=$4 tb=$5; shift 5
  ab_rounds_multi "$n" "$pa:$ta $pb:$tb" "$@"
}

ab_rounds_multi() { # N "PACK:TAG PACK:TAG ..." ROW...   (the first build is the base of every ratio table)
  local n=$1 r row sp extra spec d i k; local -a builds; read -r -a builds <<<"$2"; shift 2
  k=${#builds[@]}
  for i in "${builds[@]}"; do
    # bench/ab_table.py reads the tag back from TAG-ROW-rROUND.jsonl: a "-" in it would pair no round, silently
    [[ ${i##*:} =~ ^[A-Za-z0-9]+$ ]] \
      || { echo "ab_rounds: tag '${i##*:}' of '$i' is not letters and digits only"; return 2; }
  done
  . "$ab_root/bench/gpu/specs-lib.sh"
  frontier_specs "$ab_res/specs"
  bench_one() { # PACK TAG SPEC D ROW ROUND EXTRA... (a row's own --block replaces 128x128, e.g. 64x64 at D = 256)
    local p=$1 t=$2 s=$3 dd=$4 rw=$5 rr=$6; shift 6
    local -a blk=(--block 128x128)
    [[ " $* " == *" --block "* ]] && blk=()
    timeout -k 5 120 "$p/saw" bench "$ab_res/specs/$s.json" "${blk[@]}" --head-dim "$dd" --pass "${AB_PASS:-fwd,bwd}" \
      --reps 10 --warmup 3 --backend gpu --out "$ab_res/ab/$t-$rw-r$rr.jsonl" "$@" >>"$ab_res/ab/bench.log" 2>&1 \
      || echo "bench $t $rw r$rr rc=$?"
  }
  for r in $(seq 1 "$n"); do
    for row in "$@"; do
      IFS='|' read -r sp extra <<<"$row"
      spec=${sp%-d*} d=${sp##*-d}
      # round r starts with build (r - 1) mod k, so each build goes first equally often and none always follows another
      for i in $(seq 0 $((k - 1))); do
        local b=${builds[$(( (r - 1 + i) % k ))]}
        # shellcheck disable=SC2086
        bench_one "${b%%:*}" "${b##*:}" "$spec" "$d" "$sp" "$r" $extra
      done
    done
    ab_el "round $r done"
    # AB_DEADLINE: seconds since ab_init after which no further round starts (the device's per-call limit)
    (( $(date +%s) - ab_t0 < ${AB_DEADLINE:-1000000} )) || { ab_el "deadline: stopping after round $r"; break; }
  done
  : >"$ab_res/ab/table.txt"
  local -a tags=()
  for i in $(seq 0 $((k - 1))); do tags+=("${builds[$i]##*:}"); done
  for i in $(seq 1 $((k - 1))); do
    python3 "$ab_root/bench/ab_table.py" "$ab_res/ab" "${tags[0]}" "${tags[$i]}" >>"$ab_res/ab/table.txt"
  done
  # the per-round tables go to table.txt; the log gets them only for two builds, and always the summary, last
  (( k > 2 )) || cat "$ab_res/ab/table.txt"
  python3 "$ab_root/bench/ab_table.py" --summary "$ab_res/ab" "${tags[@]}" | tee "$ab_res/ab/summary.txt"
  ab_save
}

ab_sass() { # FUNCTION FATBIN...
  local f=$1 fat; shift
  if ! command -v cuobjdump >/dev/null; then echo "no cuobjdump here"; return 0; fi
  for fat in "$@"; do
    cuobjdump -arch sm_90a -sass -fun "$f" "$fat" >"$ab_res/sass/$f-$(basename "$fat" .fatbin).sass" 2>&1 \
      || echo "cuobjdump $f $fat rc=$?"
    python3 "$ab_root/bench/sass_loops.py" "$ab_res/sass/$f-$(basename "$fat" .fatbin).sass" | tee -a "$ab_res/sass/loops.txt"
  done
}

ab_kernel_times() { # PACK SPEC D PASS
  local pk=$1 sp=$2 d=$3 pass=$4 tag; tag=$(basename "$1")-$2-$4
  SAW_JAVA_OPTS=-Xmx24g timeout -k 5 60 ncu --clock-control none --metrics gpu__time_duration.sum --csv --page raw \
    "$pk/saw" bench "$ab_res/specs/$sp.json" --block 128x128 --head-dim "$d" --pass "$pass" --reps 1 --warmup 1 \
    --backend gpu --out "$ab_res/split-$tag.jsonl" > "$ab_res/split-$tag.csv" 2>"$ab_res/split-$tag.err"
  echo "kernel times $tag rc=$?"
  python3 - "$ab_res/split-$tag.csv" <<'PY'
import csv, sys
rows = [r for r in csv.reader(open(sys.argv[1])) if len(r) > 5]
if rows:
    head = rows[0]; k = head.index("Kernel Name"); t = head.index("gpu__time_duration.sum")
    for r in rows[2:]:
        print(f"  {r[k][:60]:60} {r[t]:>12}")
PY
}

ab_nsa_check() { # PACK NAME [ENV=VALUE...]
  local pack=$1 name=$2 rc; shift 2
  env OUT="$ab_res/$name" "$@" timeout -k 5 "${AB_CHECK_TIMEOUT:-230}" "$pack/nsa-run.sh" > "$ab_res/$name.out" 2>&1; rc=$?
  echo "$name rc=$rc"; grep -E 'verify matrix|failed:|FAIL|compute-sanitizer' "$ab_res/$name.out" | sort -u | head -24
  echo "largest relative error per tensor, $name:"
  grep -hE "^ *(dQ|dK|dV|O) " "$ab_res/$name/nsa/verify.log" 2>/dev/null \
    | awk '{if ($2 + 0 > m[$1] + 0) m[$1] = $2} END {for (k in m) print "  " k, m[k]}'
  return $rc
}

ab_nsa_time() { # PACK TAG ROUND PASS SELECTION B T HQ D REPS
  local p=$1 tag=$2 rd=$3 pass=$4 sel=$5 b=$6 t=$7 hq=$8 d=$9 reps=${10} out
  out="$ab_res/ab/$tag-$pass-$sel-b$b-t$t-hq$hq-d$d-r$rd.jsonl"
  SAW_JAVA_OPTS="-Xmx32g" timeout -k 5 120 "$p/saw" bench --nsa "$sel" --batch "$b" --seq "$t" --heads "$hq" \
    --kv-heads 4 --head-dim "$d" --nsa-s 16 --nsa-block 64 --backend gpu --pass "$pass" --warmup 2 --reps "$reps" \
    --out "$out" > "$out.log" 2>&1
  printf 'round %s %-4s %s %-6s B=%s T=%-6s HQ=%-3s D=%-3s %s %s\n' "$rd" "$tag" "$pass" "$sel" "$b" "$t" "$hq" "$d" \
    "$(grep -o '"median_ms":[0-9.]*' "$out" | head -1)" "$(grep -o '"kernel":"[^"]*"' "$out" | head -1)"
}

ab_nsa_bwd() { # PACK TAG ROUND B T HQ D REPS
  ab_nsa_time "$1" "$2" "$3" bwd random "${@:4}"
}

ab_nsa_fla() { # PACK NAME [ENV=VALUE...]   (fla-core installed into ${AB_SITE:-/tmp/site} from .whl first)
  local pack=$1 name=$2 site=${AB_SITE:-/tmp/site} rc; shift 2
  [[ -d $site/fla ]] || python3 -m pip install --no-deps --target "$site" -q "$ab_root"/.whl/*.whl \
    > "$ab_res/pip.log" 2>&1
  env OUT="$ab_res/$name" PYTHONPATH="$site" NSA_PARTS=compare NSA_SHAPES=all NSA_COMPARE_ORDERS="warp block shared" \
    NSA_FAMILIES=wgmma NSA_COMPARE_SECONDS=190 NSA_COMPARE_TIMEOUT=240 "$@" timeout -k 5 "${AB_CHECK_TIMEOUT:-250}" \
    "$pack/nsa-run.sh" > "$ab_res/$name.out" 2>&1; rc=$?
  echo "$name rc=$rc"; sed -n '/== summary/,$p' "$ab_res/$name.out" | tail -16
  return $rc
}

ab_prof() { # PACK NAME KERNEL_REGEX "ENV=VALUE ..." -- saw bench ARGS   (Nsight Compute full set of one launch)
  local pack=$1 name=$2 k=$3 envs=$4; shift 5
  # shellcheck disable=SC2086
  env $envs SAW_JAVA_OPTS=-Xmx24g timeout -k 5 90 ncu --clock-control none --target-processes all -k regex:"$k" \
    --launch-skip 2 --launch-count 1 --set full --import-source no -f -o "$ab_res/prof-$name" "$pack/saw" bench "$@" \
    > "$ab_res/prof-$name.log" 2>&1
  echo "ncu $name rc=$?"
  ncu -i "$ab_res/prof-$name.ncu-rep" --page details --print-details all > "$ab_res/prof-$name-details.txt" 2>&1
  ncu -i "$ab_res/prof-$name.ncu-rep" --page source --csv --print-source sass > "$ab_res/prof-$name-source.csv" 2>&1
  grep -E "Duration|Compute \(SM\) Throughput|L2 Cache Throughput|Registers Per|Achieved Occ|Issue Slots Busy" \
    "$ab_res/prof-$name-details.txt" | head -8
  gzip -f "$ab_res/prof-$name-source.csv" "$ab_res/prof-$name-details.txt"; rm -f "$ab_res/prof-$name.ncu-rep"
  ab_el "profiled $name"
}

ab_nsa_rounds() { # N "PACK:TAG ..." ROW...   (ROW: "PASS SELECTION B T HQ D REPS")
  local n=$1 rd row i k; local -a builds; read -ra builds <<<"$2"; shift 2
  for ((rd = 1; rd <= n; rd++)); do
    for row in "$@"; do
      for ((i = 0; i < ${#builds[@]}; i++)); do
        k=$(( (i + rd - 1) % ${#builds[@]} ))
        # shellcheck disable=SC2086
        ab_nsa_time "${builds[k]%%:*}" "${builds[k]#*:}" "$rd" $row
      done
    done
    ab_save
  done
}
