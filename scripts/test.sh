#!/usr/bin/env bash
# Runs both test tiers with the project's .venv: the fast suite (tiny models, small
# data) and the slow suite (real offline models and the full datasets in ../shared).
set -euo pipefail
cd "$(dirname "$0")/.."
.venv/bin/python -m pytest -q -n 2 --dist loadfile
.venv/bin/python -m pytest -q -m slow
