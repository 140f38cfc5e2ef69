"""Validating a spec imports no heavy library (`audit validate` must start fast)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

GOOD = Path(__file__).resolve().parents[1] / "specs" / "good"

_PROGRAM = f"""
import sys
from pathlib import Path
from audit.spec.loader import validate_spec_file
from audit.spec.schema import spec_json_schema
validate_spec_file(Path({str(GOOD / "full.yaml")!r}))
spec_json_schema()
heavy = [m for m in ("torch", "numpy", "pandas", "scipy", "transformers") if m in sys.modules]
print(",".join(heavy))
"""


def test_validation_imports_no_heavy_library() -> None:
    done = subprocess.run(
        [sys.executable, "-c", _PROGRAM], capture_output=True, text=True, check=True, timeout=60
    )
    assert done.stdout.strip() == ""
