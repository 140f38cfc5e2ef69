#!/usr/bin/env bash
# Creates .venv (if missing) and installs bias-audit with its test tools into it.
# torch is installed first, pinned to 2.13.0: on the project's machines that is a CPU
# build on local disk, and pinning it keeps any dependency from pulling a CUDA build.
# (On a GPU machine, install the torch build you want first; this leaves it alone.)
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x .venv/bin/python ] || python3 -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip
.venv/bin/python -c "import torch" 2>/dev/null || .venv/bin/python -m pip install -q torch==2.13.0
.venv/bin/python -m pip install -q -e '.[dev]'
echo "installed into $(pwd)/.venv"
