#!/usr/bin/env bash
# The Boss-Bodenheimer collapse with sinks (setups/boss_bodenheimer.yaml) at several resolutions,
# with the accretion radius and the softening scaled as 1/N from the YAML's N = 30000 values (the
# Jeans-resolved h at rho_sink from the resolution scales as 1/N), to T_END code time; then the
# binary's numbers from each run's sinks.csv (tools/sink_binary.py). Wall time per run in
# OUTROOT/N<n>/wall_s.txt. docs/setups.md gives the measured table.
#
#   scripts/boss_bodenheimer_sinks.sh OUTROOT [N ...]          (default N: 8000 30000)
#   env: MPSPH (binary, default build-cpu/bin/mpsph), DEVICE (cpu|gpu, default cpu),
#        T_END (default 0.0559 = 1.6 t_ff), EXTRA (more --set arguments)
set -euo pipefail
cd "$(dirname "$0")/.."
OUTROOT=${1:?usage: scripts/boss_bodenheimer_sinks.sh OUTROOT [N ...]}
shift
NS=("$@")
[ ${#NS[@]} -gt 0 ] || NS=(8000 30000)
MPSPH=${MPSPH:-build-cpu/bin/mpsph}
DEVICE=${DEVICE:-cpu}
T_END=${T_END:-0.0559}
TFF=0.034934
for n in "${NS[@]}"; do
  h=$(awk -v n="$n" 'BEGIN { printf "%.6g", 6.3e-5 * 30000 / n }')
  out=$OUTROOT/N$n
  mkdir -p "$out"
  t0=$(date +%s.%N)
  # shellcheck disable=SC2086
  "$MPSPH" run setups/boss_bodenheimer.yaml --device "$DEVICE" --output-dir "$out" \
    --set setup.n_particles="$n" --set "gravity.softening=[$h]" --set sinks.h_acc="$h" \
    --set run.t_end="$T_END" --set "run.snapshot_times=[0.03493, 0.04192, 0.04890, $T_END]" \
    ${EXTRA:-} > "$out/run.log" 2>&1
  t1=$(date +%s.%N)
  awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f\n", b - a }' > "$out/wall_s.txt"
  echo "== N = $n, h_acc = softening = $h pc, device $DEVICE, wall $(cat "$out/wall_s.txt") s"
  if [ -x /usr/bin/python3 ] && /usr/bin/python3 -c "import h5py" 2> /dev/null; then
    /usr/bin/python3 tools/sink_binary.py "$out" --t-ff "$TFF"
  fi
done
