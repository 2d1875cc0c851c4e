#!/usr/bin/env bash
# GPU ranks against one GPU on one host (docs/PERFORMANCE.md, "Two GPUs: device-resident ranks"
# and "Four GPUs"): the Evrard sphere or the disk galaxy with global time steps, on one GPU and on
# P device-resident GPU ranks for each P in RANKS, reading timing.txt's `steady steps` (the wall
# time per step between the order stages of steps 2 to the last: the start-up excluded).
#   bench/ranks_gpu.sh OUTDIR [N] [STEPS] [--set ...]
#   e.g. bench/ranks_gpu.sh /tmp/gr 10000000 6                (strong: N on 1 GPU and on P)
#        WEAK=1 RANKS="2 4" bench/ranks_gpu.sh /tmp/gw 20000000 6   (weak: N per GPU)
#        SET=disk bench/ranks_gpu.sh /tmp/gd 10000000 5         (disk galaxy, N in all; 20% gas)
# Binaries: MPSPH_BIN_DIR (default build/bin; the device's /tmp/mpsph-build/bin); CORES (default
# nproc): the one GPU's process gets them all as threads, each of P ranks CORES/P; DEVICE (default
# gpu; cpu for a dry run of the script on a machine without one); MPIEXEC (default mpiexec) and
# MPIEXEC_FLAGS; ONE=0 skips the one-GPU run (no efficiency then). Prints one line per run -
# steady and average ms per step, and the efficiency against the one GPU (strong: T1 / (P TP);
# weak: T1 / TP) - and leaves every run's output in OUTDIR/<set>_<P> (P = 1 in RANKS: one MPI
# rank, OUTDIR/<set>_1rank, the ranks' code path on one GPU).
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${1:?usage: bench/ranks_gpu.sh OUTDIR [N] [STEPS] [--set ...]}
N=${2:-10000000}
STEPS=${3:-6}
shift $(( $# < 3 ? $# : 3 ))
BIN=${MPSPH_BIN_DIR:-build/bin}
CORES=${CORES:-$(nproc)}
RANKS=${RANKS:-"2"}
ONE=${ONE:-1}
SET=${SET:-evrard}
WEAK=${WEAK:-0}
DEVICE=${DEVICE:-gpu}
MPIEXEC=${MPIEXEC:-mpiexec}
export OMPI_ALLOW_RUN_AS_ROOT=${OMPI_ALLOW_RUN_AS_ROOT:-1}
export OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=${OMPI_ALLOW_RUN_AS_ROOT_CONFIRM:-1}
mkdir -p "$OUT"
setup_args() {  # particles in all
  local n=$1
  if [ "$SET" = disk ]; then
    echo setups/isolated_disk.yaml --set "setup.halo.n=$(( n / 2 ))" \
      --set "setup.bulge.n=$(( n / 20 ))" --set "setup.disk.n=$(( n / 4 ))" \
      --set "setup.gas.n=$(( n - n / 2 - n / 20 - n / 4 ))"
  else
    echo setups/evrard.yaml --set "setup.n_particles=$n"
  fi
}
common=(--quiet --device "$DEVICE" --set "run.snapshot_times=[]"
        --set run.checkpoint_every_minutes=0 --set run.checkpoint_at_end=false --set run.initial_snapshot=false --set timestep.scheme=global
        --set "run.max_steps=$STEPS" "$@")
base=""
report() {  # name ranks
  local dir="$OUT/$1" steady avg
  steady=$(sed -n 's/^steady steps: \([0-9.]*\) ms per step.*/\1/p' "$dir/timing.txt")
  avg=$(awk '$1 == "total" { print $4 }' "$dir/timing.txt")
  [ "$2" = 1 ] && base=$steady
  awk -v n="$1" -v p="$2" -v s="${steady:-0}" -v a="$avg" -v b="${base:-0}" -v w="$WEAK" 'BEGIN {
    e = s > 0 ? (w == 1 ? b / s : b / (p * s)) : 0
    printf "%-12s ranks %d  steady %9.1f ms/step  average %9.1f ms/step  %s efficiency %.2f\n",
      n, p, s, a, w == 1 ? "weak" : "strong", e }'
}
run() {  # name ranks command...
  local name=$1 p=$2 rc
  shift 2
  rm -rf "$OUT/$name"
  "$@" --set "run.output_dir=$OUT/$name" > "$OUT/$name.log" 2>&1
  rc=$?
  # Exit code 3: run.max_steps reached (the end of a benchmark run).
  if [ "$rc" -ne 0 ] && [ "$rc" -ne 3 ] || [ ! -f "$OUT/$name/timing.txt" ]; then
    echo "$name: failed (exit code $rc), see $OUT/$name.log"
    return 1
  fi
  report "$name" "$p"
}
echo "# $SET, N = $N$([ "$WEAK" = 1 ] && echo ' per GPU'), $STEPS global steps, $CORES cores, $(date -u +%FT%TZ)"
# shellcheck disable=SC2046
[ "$ONE" = 0 ] || OMP_NUM_THREADS=$CORES run "${SET}_1" 1 "$BIN/mpsph" run $(setup_args "$N") \
  "${common[@]}" --set run.timing_sync=true
for p in $RANKS; do
  n=$N
  [ "$WEAK" = 1 ] && n=$(( N * p ))
  name="${SET}_$p"
  [ "$p" = 1 ] && name="${SET}_1rank"  # one rank: the rank path on one GPU, beside the one-GPU run
  # shellcheck disable=SC2046
  run "$name" "$p" "$MPIEXEC" ${MPIEXEC_FLAGS:-} -n "$p" --bind-to none \
    -x OMP_NUM_THREADS=$(( CORES / p > 0 ? CORES / p : 1 )) "$BIN/mpsph-mpi" run \
    $(setup_args "$n") "${common[@]}"
done
