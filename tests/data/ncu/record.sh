#!/usr/bin/env bash
# Records ncu outputs for profile parsers: per-line CUDA source pages, details, raw, basic and full sets.
root=$(pwd)
mkdir -p /tmp/b && tar -xJf "${BUNDLE:-.gpu/bundle.tar.xz}" -C /tmp/b && source /tmp/b/env.sh
export PATH=/usr/local/cuda/bin:$PATH
R=/tmp/rec; mkdir -p $R
ncu --version > $R/versions.txt; ncu --list-sets >> $R/versions.txt 2>&1; ncu --list-sections > $R/sections.txt 2>&1
for p in tests/data/ncu/*.kpad resources/examples/saxpy.kpad; do
  k=$(basename $p .kpad)
  kernelpad-cli run $p --reps 3 > $R/$k.run.log 2>&1
  for set in basic full; do
    ( time timeout 120 ncu --target-processes all -k regex:"^$k\$" -c 1 --set $set --import-source yes -o $R/$k.$set kernelpad-cli run --in-process $p --reps 1 ) > $R/$k.$set.ncu.log 2>&1
    ncu -i $R/$k.$set.ncu-rep --page details --csv > $R/$k.$set.details.csv 2>&1
    ncu -i $R/$k.$set.ncu-rep --page raw --csv > $R/$k.$set.raw.csv 2>&1
  done
  ncu -i $R/$k.full.ncu-rep --page source --csv --print-source cuda > $R/$k.full.source-cuda.csv 2>&1
  ncu -i $R/$k.full.ncu-rep --page source --csv --print-source sass > $R/$k.full.source-sass.csv 2>&1
  ncu -i $R/$k.full.ncu-rep --page source --csv --print-source cuda,sass > $R/$k.full.source-cuda-sass.csv 2>&1
  ncu -i $R/$k.basic.ncu-rep --page source --csv --print-source cuda > $R/$k.basic.source-cuda.csv 2>&1
done
# a filter that matches nothing, and a kernel that faults under ncu
( timeout 60 ncu --target-processes all -k regex:nosuchkernel -c 1 --set basic -o $R/none kernelpad-cli run --in-process resources/examples/saxpy.kpad --reps 1 ) > $R/nomatch.ncu.log 2>&1; echo "rc=$?" >> $R/nomatch.ncu.log
ls -la $R
rm -f $R/*.ncu-rep
tar -cJf $OUT/rec13b.tar.xz -C /tmp rec
