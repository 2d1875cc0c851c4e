#!/usr/bin/env bash
# device call 2 (stop 25): cloud collisions to 3 t_ff on the GPU with sinks (2x4k, 2x16k)
R=$OUT/r; mkdir -p $R
MPSPH_BUILD_TARGETS="mpsph mpsph_gpu_tests" scripts/device-run.sh $R none > $R/build.txt 2>&1 || { tail -40 $R/build.txt; exit 1; }
T=$(find /tmp/mpsph-build -name mpsph_gpu_tests -type f | head -1)
M=$(find /tmp/mpsph-build -name mpsph -type f -perm -u+x | head -1)
nvidia-smi --query-gpu=name --format=csv,noheader > $R/gpu.txt
( time timeout 60 $T "[sinks]" ) > $R/gpusinks.txt 2>&1; tail -3 $R/gpusinks.txt
run() { # name n soft
  ( time timeout $4 $M run setups/cloud_collision.yaml --device gpu --set run.output_dir=$R/$1 --set setup.n_per_cloud=$2 --set "gravity.softening=[$3]" --set sinks.h_acc=$3 ) > $R/$1.log 2>&1
  echo "== $1"; grep -E "only|error|real" $R/$1.log; tail -n 2 $R/$1/energy.csv | cut -d, -f1-3; rm -f $R/$1/*.h5 $R/$1/checkpoint*
}
run cc4k 4096 0.36 150
run cc16k 16384 0.090 260
cd $OUT && tar czf res.tgz r && rm -rf r
