#!/usr/bin/env bash
# The README's first command: installs what is missing, builds, runs the default setup (the
# Evrard collapse) and makes its plots. Outputs go to output/evrard/.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
OUT=${1:-output/evrard}
build/bin/mpsph run setups/evrard.yaml --output-dir "$OUT"
/usr/bin/python3 tools/plot_evrard.py "$OUT"
echo "mpsph: done - snapshots, energy.csv and plots are in $OUT/"
