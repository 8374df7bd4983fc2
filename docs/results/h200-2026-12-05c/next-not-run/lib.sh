#!/usr/bin/env bash
# Sourced by this folder's drivers (run from the repository root on the GPU machine, .gpupack carried): the six builds
# of fatbins.tar.xz unpacked and a pack made for each. Tags and what each build is (README.md beside this file):
#   A    main a81f71a
#   U    branch uniform (b1c3ba9; the same kernels as 5443506 on main)
#   UA   uniform-adds 94b6566 (U + the backward's descriptors by adds at D = 128)
#   UAF  uniform-adds-fwd 5a9f453 (UA + the forwards' descriptors by adds at D = 128)
#   X    bwd-stores d432af1 (main + the backward's dS^T stores by one XOR, the dQ tile's 16-byte stores explicit)
#   UAX  uniform-adds-stores 2532fe6 (UA + X's stores)
#   F    fwd-cap-split 8533021 (main + the 128-row forwards' softcap fixed at compile time; host code too: its engine
#        jar, fatbin entry emptied, is .gpupack/var/f-engine.jar)
. bench/gpu/ab-lib.sh
ab_init "$1"
python3 -c "import tarfile; tarfile.open('.gpupack/var/fatbins.tar.xz').extractall('/tmp/fb')"
(cd /tmp/fb && sha256sum -c "$ab_root/docs/results/h200-2026-12-05c/next-not-run/fatbins.sha256") || echo "fatbins differ from the builds described"
# each build's pack and fatbin by its tag, for drivers that take tags (call-1.sh, call-2.sh)
declare -A build_pack build_fatbin
add_build() { # TAG PACK FATBIN_NAME LABEL [ENGINE_JAR]
  build_pack[$1]=$2 build_fatbin[$1]=/tmp/fb/$3.fatbin
  ab_pack "$2" "/tmp/fb/$3.fatbin" "${@:4}"
}
add_build A /tmp/pa main main-a81f71a
add_build U /tmp/pu u uniform-b1c3ba9
add_build UA /tmp/pua ua uniform-adds-94b6566
add_build UAF /tmp/puaf uaf uniform-adds-fwd-5a9f453
add_build X /tmp/px x bwd-stores-d432af1
add_build UAX /tmp/puax uax uniform-adds-stores-2532fe6
add_build F /tmp/pf f fwd-cap-split-8533021 .gpupack/var/f-engine.jar
