#!/usr/bin/env bash
# Installs the Debian/Ubuntu packages mpsph needs (only those missing). Uses sudo when not root;
# when neither works it prints the exact apt-get command and stops.
#   scripts/install-deps.sh               # build, run and test with the release build
#   scripts/install-deps.sh --sanitizers  # also clang with its OpenMP and sanitizer runtimes, for
#                                         # the ASan + UBSan unit tests of scripts/test.sh
set -euo pipefail

PKGS=(build-essential cmake ninja-build pkg-config
      libhdf5-dev libyaml-cpp-dev libnanoflann-dev catch2
      libopenmpi-dev openmpi-bin
      python3 python3-numpy python3-h5py python3-matplotlib python3-yt)
SANITIZERS=0
for arg in "$@"; do
  case "$arg" in
    --sanitizers) SANITIZERS=1 ;;
    *) echo "install-deps.sh: unknown argument '$arg' (known: --sanitizers)" >&2; exit 2 ;;
  esac
done
[ "$SANITIZERS" -eq 0 ] || PKGS+=(clang libomp-dev)

# clang links -fsanitize=address,undefined programs: the runtimes are their own package on Debian 12
# (libclang-rt-dev, which clang only recommends) and part of libclang-common-*-dev on Ubuntu 22.04.
sanitizers_link() {
  command -v clang >/dev/null 2>&1 || return 1
  local exe
  exe=$(mktemp)
  echo 'int main(void) { return 0; }' \
    | clang -x c -fsanitize=address,undefined -o "$exe" - >/dev/null 2>&1
  local rc=$?
  rm -f "$exe"
  return $rc
}

missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ] && { [ "$SANITIZERS" -eq 0 ] || sanitizers_link; }; then
  echo "mpsph: all system packages present"
  exit 0
fi

if [ "$(id -u)" -eq 0 ]; then
  SUDO=""
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
  SUDO="sudo"
elif command -v sudo >/dev/null 2>&1 && [ -t 0 ]; then
  SUDO="sudo"
else
  [ ${#missing[@]} -gt 0 ] || missing=(libclang-rt-dev)
  echo "mpsph: cannot install packages (not root and no usable sudo). Please run:" >&2
  echo "  sudo apt-get update && sudo apt-get install -y ${missing[*]}" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
if [ ${#missing[@]} -gt 0 ]; then
  echo "mpsph: installing missing packages: ${missing[*]}"
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
if [ "$SANITIZERS" -eq 1 ] && ! sanitizers_link; then
  echo "mpsph: installing clang's sanitizer runtimes: libclang-rt-dev"
  $SUDO apt-get install -y -qq --no-install-recommends libclang-rt-dev
  sanitizers_link || { echo "mpsph: clang cannot link -fsanitize=address,undefined" >&2; exit 1; }
fi
