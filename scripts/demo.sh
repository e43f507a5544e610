#!/bin/bash
# demo.sh - install what is missing, build symm, run the demo on 4 PEs.
set -eu
cd "$(dirname "$0")/.."
scripts/deps.sh gcc make cmake libc6-dev
cmake -S . -B build -DSYMM_BUILD_TESTS=OFF -DCMAKE_INSTALL_PREFIX="$PWD/build/install" >/dev/null
cmake --build build -j"$(nproc)" >/dev/null
cmake --install build >/dev/null
echo "== build/install/bin/oshrun -np 4 build/symm-demo"
build/install/bin/oshrun -np 4 build/symm-demo
