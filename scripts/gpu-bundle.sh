#!/usr/bin/env bash
# Packs stripped copies of the CLI and the GPU tests (plus extra binaries given as arguments)
# into .gpu/bundle.tar.xz for a GPU machine (CONTRIBUTING.md).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${KERNELPAD_BUILD_DIR:-$root/build}
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
for b in "$build/app/kernelpad-cli" "$build"/tests/tst_gpu* "$build"/tests/tst_runner* "$@"; do
    [ -f "$b" ] && strip -o "$stage/$(basename "$b")" "$b"
done
mkdir -p "$root/.gpu"
"$root/../shared/tools/gpu-bundle" "$root/.gpu/bundle.tar.xz" "$stage"/*
