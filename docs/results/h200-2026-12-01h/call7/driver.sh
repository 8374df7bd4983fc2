# session 8, call 7 (two runs on the warm machine, from the repository root, pack built at f476f84):
#   .gpupack/saw tune preset:causal --seq 16384 --batch 2 --heads 16 --head-dim 256 --dtype bf16 --passes fwd --no-cache
#   for a in "--seq 8192 --batch 4 --heads 16" "--seq 16384 --batch 1 --heads 16 --kv-heads 4" "--seq 16384 --batch 2 --heads 16"; do
#     .gpupack/saw tune preset:causal $a --head-dim 256 --dtype bf16 --passes fwd --no-cache; done
