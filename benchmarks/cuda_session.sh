#!/usr/bin/env bash
# The GPU checks of one lent-machine session, as one script: the `gpu`-marked tests and
# the CUDA benchmarks, on models with the real models' shapes and tokenizers but seeded
# random weights (benchmarks/random_weights.py; the real weights are too large to carry).
#
#   bash benchmarks/cuda_session.sh CARRIED [cuda|cpu]
#
# CARRIED holds what the machine lacks: whl/ (wheels of the packages its image does not
# have), shapes/<model>/ (config + tokenizer, from random_weights.py --config-only) and
# shared/data/ (crows_pairs, stereoset, toxigen). Results and logs go to $OUT.
set -uo pipefail
CARRIED=${1:-.gpu}
DEVICE=${2:-cuda}
OUT=${OUT:-/tmp/cuda-session}
PY=${PY:-python3}
mkdir -p "$OUT" /tmp/models
if compgen -G "$CARRIED/*/*.whl" >/dev/null; then
  "$PY" -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
    --target /tmp/site "$CARRIED"/*/*.whl || exit 1
  export PYTHONPATH=/tmp/site:$PWD
fi
# templates/ is mapped into the package by the installer; here the tree runs uninstalled.
[ -e audit/templates ] || ln -s ../templates audit/templates
export AUDIT_SHARED_DIR=$(cd "$CARRIED" && pwd)/shared PYTHONUNBUFFERED=1
command -v nvidia-smi >/dev/null && nvidia-smi -L
"$PY" -c "import torch, transformers; print('torch', torch.__version__, 'transformers', transformers.__version__)"
for shape in "$CARRIED"/shapes/*/; do
  "$PY" benchmarks/random_weights.py "$shape" "/tmp/models/$(basename "$shape")" --seed 0
done
"$PY" -m pytest -q -p no:cacheprovider -m gpu tests/models/test_gpu_loading.py \
  tests/scoring/test_head_chunks.py tests/test_precision_check.py \
  tests/variants/test_self_debias_gpu.py 2>&1 | tee "$OUT/gpu_tests.log"
"$PY" benchmarks/cache_commits.py --device "$DEVICE" --model /tmp/models/minilm-mlm \
  ${CACHE_ARGS:-} --out "$OUT/cache_commits.json" 2>&1 | tee "$OUT/bench.log"
"$PY" benchmarks/causal.py --device "$DEVICE" --model /tmp/models/smollm2-135m --formats html \
  ${CAUSAL_ARGS:-} --out "$OUT/causal.json" 2>&1 | tee -a "$OUT/bench.log"
"$PY" benchmarks/scoring.py --device "$DEVICE" --model /tmp/models/bert-base-shape \
  --scorers cps,aul --naive-pairs 100 ${SCORING_ARGS:-} --out "$OUT/scoring_bert_base_shape.json" \
  2>&1 | tee -a "$OUT/bench.log"
