#!/usr/bin/env bash
# The GPU checks of issue 33 item 5, as one script for one lent-machine session: the `gpu`
# tests; causal `ll` on Llama-3.2-1B's shape in float32 and bfloat16 (benchmarks/causal.py)
# and the precision check's flipped verdicts on all of CrowS-Pairs (`audit run` on
# benchmarks/cuda_specs/precision_llama_1b.yaml); Qwen2.5-7B's shape in bfloat16 loaded
# and scored; the per-batch journal against commit 3c92bbd (journal_vs_commit.py). Weights
# are seeded random (random_weights.py, drawn on the GPU) in the published configs'
# shapes (benchmarks/shapes/), with SmolLM2's tokenizer: real weights cannot travel.
#
#   bash benchmarks/cuda_release_sizes.sh CARRIED [STEPS]
#
# CARRIED/carried.tar.xz holds what the machine lacks: whl/ (wheels of the packages its
# image does not have), shapes/smollm2-135m/ (config and tokenizer, random_weights.py
# --config-only), shared/data/ (crows_pairs, toxigen) and old/ (`git archive 3c92bbd
# audit`). STEPS: a comma-separated subset of tests,1b,flips,journal,7b (default: all,
# in that order). Results and logs go to $OUT.
set -uo pipefail
CARRIED=$(cd "${1:-.gpu}" && pwd)
STEPS=${2:-tests,1b,flips,journal,7b}
OUT=${OUT:-/tmp/cuda-session}
PY=${PY:-python3}
MODELS=/tmp/models
mkdir -p "$OUT" "$MODELS"
exec > >(tee -a "$OUT/session.log") 2>&1
started=$SECONDS
say() { printf '==> [%4ds] %s\n' $((SECONDS - started)) "$*"; }
want() { [[ ",$STEPS," == *",$1,"* ]]; }

[ -d "$CARRIED/whl" ] || tar -xJf "$CARRIED/carried.tar.xz" -C "$CARRIED"
"$PY" -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
  --target /tmp/site "$CARRIED"/whl/*.whl || exit 1
export PYTHONPATH=/tmp/site:$PWD AUDIT_SHARED_DIR=$CARRIED/shared PYTHONUNBUFFERED=1
# templates/ is mapped into the package by the installer; here the tree runs uninstalled.
[ -e audit/templates ] || ln -s ../templates audit/templates
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm --format=csv
"$PY" -c "import torch, transformers; print('torch', torch.__version__, 'transformers', transformers.__version__)"
df -h /tmp | tail -1

draw() {  # draw NAME CONFIG DTYPE: seeded random weights in a published shape, on the GPU
  local config=()
  [ -n "$2" ] && config=(--config "$2")
  [ -e "$MODELS/$1/config.json" ] ||
    timeout 200 "$PY" benchmarks/random_weights.py "$CARRIED/shapes/smollm2-135m" "$MODELS/$1" \
      "${config[@]}" --device cuda --dtype "$3" --seed 0
}
causal() {  # causal NAME DTYPE LOOP ROUNDS: benchmarks/causal.py on every ToxiGen sentence
  timeout 240 "$PY" benchmarks/causal.py --device cuda --model "$MODELS/$1" --dtype "$2" \
    --sample 0 --loop-sample "$3" --rounds "$4" --skip-demo \
    --note "random weights (seed 0) in $1's published shape, SmolLM2's tokenizer" \
    --out "$OUT/causal_$1_$2.json"
}

if want tests; then
  say "gpu tests"
  timeout 180 "$PY" -m pytest -q -p no:cacheprovider -m gpu tests/models/test_gpu_loading.py \
    tests/scoring/test_head_chunks.py tests/test_precision_check.py \
    tests/variants/test_self_debias_gpu.py 2>&1 | tee "$OUT/gpu_tests.log"
fi
if want 1b || want flips; then
  say "Llama-3.2-1B shape"
  draw llama-3.2-1b benchmarks/shapes/llama-3.2-1b.json bfloat16
fi
if want 1b; then
  say "1B float32"
  causal llama-3.2-1b float32 100 2
  say "1B bfloat16"
  causal llama-3.2-1b bfloat16 100 1
fi
if want flips; then
  say "1B bfloat16 precision check on every CrowS-Pairs pair (audit run)"
  timeout 240 "$PY" -c "from audit.cli import main; main()" run benchmarks/cuda_specs/precision_llama_1b.yaml \
    --data-dir "$CARRIED/shared/data" --device cuda --cache-dir /tmp/audit-cache \
    --out /tmp/precision_llama_1b &&
    cp /tmp/precision_llama_1b/results.json "$OUT/precision_llama-3.2-1b_results.json"
fi
if want journal; then
  say "SmolLM2 shape; the journal against 3c92bbd"
  draw smollm2-135m "" float32
  timeout 240 "$PY" benchmarks/journal_vs_commit.py --old "$CARRIED/old" \
    --model "$MODELS/smollm2-135m" --device cuda --repeats 2 --rounds 2 \
    --out "$OUT/journal_vs_commit.json"
fi
if want 7b; then
  say "Qwen2.5-7B shape"
  rm -rf "$MODELS/llama-3.2-1b"  # disk: the 7B's weights are 15 GB
  draw qwen2.5-7b benchmarks/shapes/qwen2.5-7b.json bfloat16
  say "7B bfloat16"
  causal qwen2.5-7b bfloat16 50 1
fi
say "done"
