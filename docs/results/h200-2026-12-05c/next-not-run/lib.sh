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
ab_pack /tmp/pa /tmp/fb/main.fatbin main-a81f71a
ab_pack /tmp/pu /tmp/fb/u.fatbin uniform-b1c3ba9
ab_pack /tmp/pua /tmp/fb/ua.fatbin uniform-adds-94b6566
ab_pack /tmp/puaf /tmp/fb/uaf.fatbin uniform-adds-fwd-5a9f453
ab_pack /tmp/px /tmp/fb/x.fatbin bwd-stores-d432af1
ab_pack /tmp/puax /tmp/fb/uax.fatbin uniform-adds-stores-2532fe6
ab_pack /tmp/pf /tmp/fb/f.fatbin fwd-cap-split-8533021 .gpupack/var/f-engine.jar
