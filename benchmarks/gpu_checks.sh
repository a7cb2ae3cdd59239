#!/usr/bin/env bash
# The checks that need a GPU, as one script for a short loan of a GPU machine (run from the
# repository root; $OUT: a folder for what comes back; its python3 has torch with CUDA).
#   1. the GPU tests (CUDA graph replay == eager CUDA; divergence inside a graph; GPU float64 == CPU)
#   2. benchmarks/speed.py --device cuda: engine version 2, R = 200, 2000, 10000 on both grids,
#      the (6, 128) u network at R = 200, 500, 2000
#   3. benchmarks/device_agreement.py train: the same seeds as committed CPU records, trained on
#      the GPU through the Dask path (two GPU worker processes); packed into $OUT/device_check.tar
# Wheels for Dask (not on the GPU image) travel in .whl/ when present.
set -u
OUT=${OUT:-out/gpu}; mkdir -p "$OUT"
export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD
if ls .whl/*.whl >/dev/null 2>&1; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl \
    && export PYTHONPATH=$PWD:/tmp/site
fi
stage() { local name=$1 limit=$2; shift 2; echo "=== $name (limit ${limit}s) $(date -u +%T)"; local t0=$SECONDS
  timeout "$limit" "$@" 2>&1 | tee "$OUT/$name.log"; echo "=== $name: exit ${PIPESTATUS[0]} after $((SECONDS - t0)) s"; }
nvidia-smi -L; python3 -c "import torch, dask, distributed; print('torch', torch.__version__, 'cuda', torch.cuda.is_available(), 'dask', dask.__version__)"
python3 -c "from binn_utils.store import records; print('source_sha256', records.source_fingerprint())"
stage gpu_tests 100 python3 -m pytest -q -p no:cacheprovider tests/test_training.py -k "cuda or gpu"
stage speed 170 python3 benchmarks/speed.py --device cuda --epochs 6
stage device_check 250 python3 benchmarks/device_agreement.py train --device cuda --workers 2 --out /tmp/device_check
tar -C /tmp -cf "$OUT/device_check.tar" device_check/runs 2>/dev/null && echo "packed $(tar -tf "$OUT/device_check.tar" | wc -l) files"
nproc; uptime
