#!/usr/bin/env bash
# session 9, call 5 (pack at a761c35): flex-compare resumed from call 4's state (saw and the default-mode
# FlexAttention and cuDNN rows done): FlexAttention's max-autotune subset (AUTOTUNE_ROWS default), then the table
set -uo pipefail
mkdir -p "$OUT"
tar xzf .flexstate/flexstate.tgz -C "$OUT"
OUT=$OUT PYTHONPATH=$PWD/python STAGES="flex table" timeout 540 bash .gpupack/flex-compare.sh > "$OUT/flex.log" 2>&1; echo "flex-compare rc=$?"
