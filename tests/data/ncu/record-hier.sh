#!/usr/bin/env bash
# Records ncu's hierarchical roofline sections (NAME.hier.*) for the roofline's parser: one
# launch each of a strided read, SAXPY and two bf16 tensor-core GEMMs (WMMA and mma.sync).
root=$(pwd)
mkdir -p /tmp/b && tar -xJf "${BUNDLE:-.gpu/bundle.tar.xz}" -C /tmp/b && source /tmp/b/env.sh
export PATH=/usr/local/cuda/bin:$PATH
R=/tmp/rec; mkdir -p $R
ncu --list-sections > $R/sections.txt 2>&1
secs="--section SpeedOfLight --section SpeedOfLight_RooflineChart --section SpeedOfLight_HierarchicalSingleRooflineChart --section SpeedOfLight_HierarchicalHalfRooflineChart --section SpeedOfLight_HierarchicalTensorRooflineChart --section SpeedOfLight_HierarchicalDoubleRooflineChart"
for p in tests/data/ncu/read_strided.kpad resources/examples/saxpy.kpad resources/examples/wmma_gemm_bf16.kpad resources/examples/mma_sync_gemm_bf16.kpad; do
  k=$(basename $p .kpad)
  ( time timeout 150 ncu --target-processes all -k regex:"^$k\$" -c 1 $secs --import-source yes -f -o $R/$k.hier kernelpad-cli run --in-process $p --reps 1 ) > $R/$k.hier.ncu.log 2>&1
  ncu -i $R/$k.hier.ncu-rep --page details --csv > $R/$k.hier.details.csv 2>&1
  ncu -i $R/$k.hier.ncu-rep --page raw --csv > $R/$k.hier.raw.csv 2>&1
done
rm -f $R/*.ncu-rep
tar -cJf $OUT/rec-hier.tar.xz -C /tmp rec
