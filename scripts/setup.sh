# Sourced by scripts/run, scripts/test and scripts/package-test: kernelpad_setup installs the
# Debian packages KernelPad needs (only those missing) and checks the CUDA toolkit;
# kernelpad_build configures and builds. Quiet when everything is already there.

# What building and running KernelPad needs.
KERNELPAD_PACKAGES=(
    build-essential cmake ninja-build pkgconf ccache
    qt6-base-dev qt6-charts-dev libqt6opengl6-dev libqscintilla2-qt6-dev libgl-dev
    libmuparser-dev
)
# What only the tests need: an X server for the window's tests, clang-format for the format
# check, universal-ctags for scripts/check-limits and xmllint (libxml2-utils) to validate
# kernelpad-cli test's JUnit XML against tests/data/junit/junit.xsd. scripts/fuzz's libFuzzer
# build also needs clang and libclang-rt-14-dev (.ci/run installs them); the regular build runs
# the fuzz targets' seeds with gcc.
KERNELPAD_TEST_PACKAGES=(
    xvfb xauth fonts-dejavu-core
    clang-format universal-ctags libxml2-utils
)

kernelpad_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
kernelpad_build=${KERNELPAD_BUILD_DIR:-$kernelpad_root/build}

# Installs those of the named packages (default: KERNELPAD_PACKAGES) that are missing.
kernelpad_install_packages() {
    local missing=() wanted=("$@")
    [ ${#wanted[@]} -gt 0 ] || wanted=("${KERNELPAD_PACKAGES[@]}")
    for p in "${wanted[@]}"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    echo "KernelPad: installing missing Debian packages: ${missing[*]}"
    local sudo=""
    if [ "$(id -u)" -ne 0 ]; then
        command -v sudo >/dev/null || { echo "KernelPad: please install as root: apt-get install ${missing[*]}" >&2; return 1; }
        sudo=sudo
    fi
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

# Packages only some tests use, named in $KERNELPAD_EXTRA_PACKAGES (.ci/run names
# openssh-server for tst_sshrunner's loopback sshd). Not installed for a developer's
# scripts/test, where openssh-server would start a system sshd. A failure here is not fatal:
# the tests that need them skip with the reason.
kernelpad_install_extra_packages() {
    [ -n "${KERNELPAD_EXTRA_PACKAGES:-}" ] || return 0
    local extras
    read -r -a extras <<<"$KERNELPAD_EXTRA_PACKAGES"
    kernelpad_install_packages "${extras[@]}" ||
        echo "KernelPad: could not install ${extras[*]}; the tests that need them skip" >&2
}

kernelpad_check_cuda() {
    local cuda=${CUDA_HOME:-/usr/local/cuda}
    if [ ! -f "$cuda/include/nvrtc.h" ] || [ ! -f "$cuda/include/cuda.h" ]; then
        echo "KernelPad: the CUDA toolkit was not found in $cuda (set CUDA_HOME): it provides cuda.h and NVRTC." >&2
        return 1
    fi
    export CUDAToolkit_ROOT=$cuda
}

# kernelpad_setup [test]: the packages for building and running, with "test" also those the
# tests need (and $KERNELPAD_EXTRA_PACKAGES); then the CUDA toolkit is checked.
kernelpad_setup() {
    if [ "${1:-}" = test ]; then
        kernelpad_install_packages "${KERNELPAD_PACKAGES[@]}" "${KERNELPAD_TEST_PACKAGES[@]}"
        kernelpad_install_extra_packages
    else
        kernelpad_install_packages
    fi
    kernelpad_check_cuda
}

# kernelpad_build ON|OFF [TARGET...]: configures with warnings as errors (ON) or as warnings
# (OFF) and builds the targets, or everything when none is named. The build folder is shared
# by the scripts, so each says which it wants. Ninja's [n/N] progress line shows.
kernelpad_build() {
    local werror=$1
    shift
    if [ ! -f "$kernelpad_build/CMakeCache.txt" ]; then
        echo "KernelPad: configuring $kernelpad_build"
        cmake -S "$kernelpad_root" -B "$kernelpad_build" -G Ninja \
            -DCMAKE_BUILD_TYPE=RelWithDebInfo -DKERNELPAD_WERROR="$werror" >/dev/null
    else
        cmake "$kernelpad_build" -DKERNELPAD_WERROR="$werror" >/dev/null
    fi
    local targets=()
    [ $# -eq 0 ] || targets=(--target "$@")
    echo "KernelPad: building ${*:-everything} in $kernelpad_build"
    cmake --build "$kernelpad_build" -j "$(nproc)" "${targets[@]}"
}
