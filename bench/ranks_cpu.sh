#!/usr/bin/env bash
# CPU ranks against threads on one host (docs/PERFORMANCE.md, "CPU ranks with block time steps"):
# the Evrard collapse at the settings of setups/evrard.yaml (block steps) with N particles to
# t_end, on one process with all of the host's cores as threads and on P ranks x cores/P threads
# for each P in RANKS; with SCHEME=global the same with global steps.
#   bench/ranks_cpu.sh OUTDIR [N] [t_end] [--set ...]
#   e.g. bench/ranks_cpu.sh /tmp/ranks 100000 0.8           (the PERFORMANCE.md table)
# Binaries: MPSPH_BIN_DIR (default build/bin; the device's /tmp/mpsph-build/bin); CORES (default
# nproc); RANKS (default "2 4 8"); MPIEXEC (default mpiexec; add e.g. MPIEXEC_FLAGS=--oversubscribe
# where ranks x threads exceed the cores). Prints one line per run - wall seconds, substeps,
# particle updates, E_total at t_end, and the speed relative to the one process (its wall time over
# this one's) - and leaves every run's output in OUTDIR/<scheme>_<P>x<threads>.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${1:?usage: bench/ranks_cpu.sh OUTDIR [N] [t_end] [--set ...]}
N=${2:-100000}
T_END=${3:-0.8}
shift $(( $# < 3 ? $# : 3 ))
BIN=${MPSPH_BIN_DIR:-build/bin}
CORES=${CORES:-$(nproc)}
RANKS=${RANKS:-"2 4 8"}
SCHEME=${SCHEME:-block}
MPIEXEC=${MPIEXEC:-mpiexec}
export OMPI_ALLOW_RUN_AS_ROOT=${OMPI_ALLOW_RUN_AS_ROOT:-1}
export OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=${OMPI_ALLOW_RUN_AS_ROOT_CONFIRM:-1}
mkdir -p "$OUT"
args=(setups/evrard.yaml --quiet --device cpu --set "setup.n_particles=$N" --set "run.t_end=$T_END"
      --set "run.snapshot_times=[]" --set run.checkpoint_every_minutes=0 --set run.checkpoint_at_end=false --set run.initial_snapshot=false
      --set "timestep.scheme=$SCHEME" "$@")
base=""
report() {  # name wall_ms
  local dir="$OUT/$1" steps updates etot
  steps=$(sed -n 's/^steps: \([0-9]*\) this run.*/\1/p' "$dir/timing.txt")
  updates=$(sed -n 's/^particle updates: //p' "$dir/timing.txt")
  etot=$(grep -v '^#' "$dir/energy.csv" | tail -1 | cut -d, -f7)
  [ -z "$base" ] && base=$2
  awk -v n="$1" -v w="$2" -v b="$base" -v s="$steps" -v u="$updates" -v e="$etot" 'BEGIN {
    printf "%-14s wall %8.1f s  substeps %6d  updates %12d  E_total %.10g  speed vs one process %.2f\n",
      n, w / 1000, s, u, e, b / w }'
}
run() {  # name command...
  local name=$1 t0 t1
  shift
  rm -rf "$OUT/$name"
  t0=$(date +%s%N)
  if ! "$@" --output-dir "$OUT/$name" > "$OUT/$name.log" 2>&1; then
    echo "$name: failed (exit code $?), see $OUT/$name.log"
    return 1
  fi
  t1=$(date +%s%N)
  report "$name" $(( (t1 - t0) / 1000000 ))
}
echo "# Evrard N = $N to t = $T_END, $SCHEME steps, $CORES cores, $(date -u +%FT%TZ)"
OMP_NUM_THREADS=$CORES run "${SCHEME}_1x$CORES" "$BIN/mpsph" run "${args[@]}"
for p in $RANKS; do
  th=$(( CORES / p ))
  [ "$th" -ge 1 ] || continue
  run "${SCHEME}_${p}x$th" "$MPIEXEC" ${MPIEXEC_FLAGS:-} -n "$p" --bind-to none \
    -x OMP_NUM_THREADS=$th "$BIN/mpsph-mpi" run "${args[@]}"
done
