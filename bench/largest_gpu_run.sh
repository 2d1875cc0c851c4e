#!/usr/bin/env bash
# The largest Evrard run that fits on P device-resident GPU ranks (issue 19, docs/PERFORMANCE.md):
# N = FILL x P x (one card's memory) / (bytes per particle), with the bytes per particle read from
# the "GPU memory" line of an earlier run's timing.txt (its "in all" figure, which counts the
# ranks' own parts), then STEPS (default 4: timing.txt's steady line needs them) global steps
# timed. The sphere is made in parts, each rank its own (no process holds all of it), and no
# snapshot is written.
#   bench/largest_gpu_run.sh OUTDIR TIMING_TXT [RANKS] [FILL] [STEPS]
#   e.g. bench/largest_gpu_run.sh /tmp/big /tmp/ew/evrard_4/timing.txt 4 0.85 4
# Binaries: MPSPH_BIN_DIR (default build/bin); CORES (default nproc): CORES/P threads per rank;
# GPU_BYTES (default: nvidia-smi's memory.total of GPU 0); DEVICE (default gpu; cpu for a dry
# run of the script without a GPU, with GPU_BYTES given); MPIEXEC (default mpiexec); QUIET= (empty)
# keeps the progress lines in the log.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
OUT=${1:?usage: bench/largest_gpu_run.sh OUTDIR TIMING_TXT [RANKS] [FILL] [STEPS]}
TIMING=${2:?the timing.txt of an earlier run on the same kind of ranks}
P=${3:-4}
FILL=${4:-0.85}
STEPS=${5:-4}
BIN=${MPSPH_BIN_DIR:-build/bin}
CORES=${CORES:-$(nproc)}
DEVICE=${DEVICE:-gpu}
MPIEXEC=${MPIEXEC:-mpiexec}
export OMPI_ALLOW_RUN_AS_ROOT=${OMPI_ALLOW_RUN_AS_ROOT:-1}
export OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=${OMPI_ALLOW_RUN_AS_ROOT_CONFIRM:-1}
per=$(sed -n 's/^GPU memory, bytes per particle (N = [0-9]*): \([0-9.]*\) in all.*/\1/p' "$TIMING")
[ -n "$per" ] || { echo "no GPU memory line in $TIMING"; exit 1; }
if [ -z "${GPU_BYTES:-}" ]; then
  mib=$(nvidia-smi --query-gpu=memory.total --format=csv,noheader,nounits -i 0) || exit 1
  GPU_BYTES=$(( mib * 1024 * 1024 ))
fi
N=$(awk -v f="$FILL" -v p="$P" -v g="$GPU_BYTES" -v b="$per" 'BEGIN { printf "%d", f * p * g / b }')
echo "# largest run: $per B per particle (from $TIMING), $GPU_BYTES B per card, fill $FILL, $P ranks -> N = $N"
mkdir -p "$OUT"
rm -rf "$OUT/evrard_largest"
S=$(date +%s)
# shellcheck disable=SC2086
"$MPIEXEC" ${MPIEXEC_FLAGS:-} -n "$P" --bind-to none -x OMP_NUM_THREADS=$(( CORES / P > 0 ? CORES / P : 1 )) \
  "$BIN/mpsph-mpi" run setups/evrard.yaml ${QUIET---quiet} --device "$DEVICE" \
  --set "setup.n_particles=$N" --set timestep.scheme=global --set "run.max_steps=$STEPS" \
  --set "run.snapshot_times=[]" --set run.checkpoint_every_minutes=0 --set run.checkpoint_at_end=false --set run.initial_snapshot=false \
  --set "run.output_dir=$OUT/evrard_largest" > "$OUT/evrard_largest.log" 2>&1
rc=$?
echo "wall $(( $(date +%s) - S )) s, exit code $rc (3: run.max_steps reached)"
[ -f "$OUT/evrard_largest/timing.txt" ] || { tail -20 "$OUT/evrard_largest.log"; exit 1; }
grep -E "^total|^steps|^steady steps|^GPU memory" "$OUT/evrard_largest/timing.txt"
