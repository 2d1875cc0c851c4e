#!/usr/bin/env bash
# Installs the Debian/Ubuntu packages mpsph needs (only those missing). Uses sudo when not root;
# when neither works it prints the exact apt-get command and stops.
set -euo pipefail

PKGS=(build-essential cmake ninja-build pkg-config
      libhdf5-dev libyaml-cpp-dev libnanoflann-dev catch2
      libopenmpi-dev openmpi-bin
      python3 python3-numpy python3-h5py python3-matplotlib python3-yt)

missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "mpsph: all system packages present"
  exit 0
fi

echo "mpsph: installing missing packages: ${missing[*]}"
if [ "$(id -u)" -eq 0 ]; then
  SUDO=""
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
  SUDO="sudo"
elif command -v sudo >/dev/null 2>&1 && [ -t 0 ]; then
  SUDO="sudo"
else
  echo "mpsph: cannot install packages (not root and no usable sudo). Please run:" >&2
  echo "  sudo apt-get update && sudo apt-get install -y ${missing[*]}" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
