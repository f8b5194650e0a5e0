#!/usr/bin/env bash
# Packs stripped copies of kernelpad-cli, the GPU and window test programs and the shared
# libraries they load (plus extra binaries given as arguments) into .gpu/bundle.tar.xz for a
# GPU machine (CONTRIBUTING.md). $KERNELPAD_GPU_BUNDLER names the tool that adds the Qt
# libraries and writes the archive (it takes the archive path and the binaries).
#   scripts/gpu-bundle.sh [BINARY...]
# On the GPU machine, each test runs as `kernelpad_tests_gpu TEST`; `--list` names them.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${KERNELPAD_BUILD_DIR:-$root/build}
bundler=${KERNELPAD_GPU_BUNDLER:?set KERNELPAD_GPU_BUNDLER to the bundling tool}
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/bin" "$stage/lib"
# A build without the window (-DKERNELPAD_GUI=OFF) has no libkernelpad_testui.so.
for l in "$build/core/libkernelpad_testcore.so" "$build/ui/libkernelpad_testui.so"; do
    if [ -f "$l" ]; then strip -o "$stage/lib/$(basename "$l")" "$l"; fi
done
for b in "$build/app/kernelpad-cli" "$build/tests/kernelpad_tests_gpu" \
    "$build/tests/kernelpad_tests_ui" "$build/tests/kernelpad_tests_core" "$@"; do
    [ -f "$b" ] && strip -o "$stage/bin/$(basename "$b")" "$b"
done
# The CUB baseline plugin is dlopened from ../lib/kernelpad/ beside bin/ (core/run/CubPlugin.h),
# which no ldd of the programs finds: it travels as an extra folder merged into the bundle's lib/.
extra=""
if [ -f "$build/lib/kernelpad/libkernelpad_cub.so" ]; then
    mkdir -p "$stage/extra/lib/kernelpad"
    strip -o "$stage/extra/lib/kernelpad/libkernelpad_cub.so" "$build/lib/kernelpad/libkernelpad_cub.so"
    extra="$stage/extra/lib"
fi
mkdir -p "$root/.gpu"
# The test programs find the shared libraries by their build folder; the bundler by this path.
GPU_BUNDLE_EXTRA="${GPU_BUNDLE_EXTRA:+$GPU_BUNDLE_EXTRA }$extra" \
    LD_LIBRARY_PATH="$stage/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
    "$bundler" "$root/.gpu/bundle.tar.xz" "$stage"/bin/*
