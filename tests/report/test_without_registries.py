"""`audit render` and `audit compare` work from results.json files alone: with the
registries, the spec package, the engine, the statistics, variant and extrinsic code and
torch made unimportable (every record type lives in `audit.results`), they still render
a version 2 and a version 1 results.json (HTML and PDF), one with variants (HTML), and
compare two runs."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pandas as pd

from tests.report.synthetic import synthetic_result, synthetic_scores
from tests.report.synthetic_variants import variant_result

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "results_v1_demo.json"

BLOCKED = (
    "torch",
    "audit.spec",
    "audit.registry",
    "audit.measures",
    "audit.scoring",
    "audit.data",
    "audit.models",
    "audit.engine",
    "audit.stats",
    "audit.variants",
    "audit.extrinsic",
)

SCRIPT = """
import sys

BLOCKED = {blocked!r}
attempts = []


class Refuse:
    def find_spec(self, name, path=None, target=None):
        if any(name == b or name.startswith(b + ".") for b in BLOCKED):
            attempts.append(name)
            raise ImportError(f"{{name}} is blocked in this test")
        return None


sys.meta_path.insert(0, Refuse())
from audit.cli import app

for args in {commands!r}:
    try:
        app(args, standalone_mode=False)
    except SystemExit as stop:
        assert not stop.code, (args, stop.code)
loaded = sorted(m for m in sys.modules if any(m == b or m.startswith(b + ".") for b in BLOCKED))
assert not loaded, loaded
print("attempts:", sorted(set(attempts)))
"""


def _run(run_dir: Path, scores: pd.DataFrame) -> Path:
    run_dir.mkdir()
    scores.to_parquet(run_dir / "scores.parquet", index=False)
    synthetic_result(scores).write(run_dir / "results.json")
    return run_dir / "results.json"


def test_render_and_compare_without_registries(tmp_path: Path) -> None:
    scores = synthetic_scores()
    crows = (scores["dataset"] == "crows_pairs") & (scores["model"] != "gpt2")
    baseline = _run(tmp_path / "a", scores[crows].reset_index(drop=True))
    other = synthetic_scores(seed=8)
    candidate = _run(tmp_path / "b", other[crows].reset_index(drop=True))
    (tmp_path / "v1").mkdir()
    old = tmp_path / "v1" / "results.json"
    shutil.copy(FIXTURE, old)
    # an audit with variants (trained variants, corpora, a meta-evaluation), HTML only
    variants = variant_result()
    (tmp_path / "variants").mkdir()
    html_only = variants.audit.model_copy(update={"report_formats": ["html"]})
    variants.model_copy(update={"audit": html_only}).write(tmp_path / "variants" / "results.json")
    commands = [
        ["render", str(tmp_path / "variants" / "results.json")],
        ["render", str(baseline), "--out", str(tmp_path / "out-v2")],
        ["render", str(old), "--out", str(tmp_path / "out-v1")],
        ["compare", str(baseline), str(candidate), "--out", str(tmp_path / "cmp")],
        ["compare", str(old), str(old), "--out", str(tmp_path / "cmp-v1")],
    ]
    script = SCRIPT.format(blocked=BLOCKED, commands=commands)
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stderr[-3000:]
    for folder in ("out-v2", "out-v1"):
        assert (tmp_path / folder / "report.pdf").stat().st_size > 10_000
    # scores.parquet is read beside results.json, not from --out
    assert 'id="crows-pairs-distributions"' in (tmp_path / "out-v2" / "report.html").read_text()
    variants_html = (tmp_path / "variants" / "report.html").read_text()
    assert 'id="meta-minilm-mlm-bc"' in variants_html and 'id="corpora-table"' in variants_html
    v1_html = (tmp_path / "out-v1" / "report.html").read_text()
    assert "Gates and verdicts" in v1_html and "demo" in v1_html
    compared = (tmp_path / "cmp" / "comparison.html").read_text()
    assert "no paired test: the measure code cannot be imported" in compared
    assert (tmp_path / "cmp" / "comparison.pdf").is_file()
    assert (tmp_path / "cmp-v1" / "comparison.html").is_file()
    # the report modules never asked for a blocked module; only the paired test tried, and
    # the judge of the comparison's family (audit.studies.RunComparisonTests.judge)
    attempts = json.loads(done.stdout.split("attempts:", 1)[1].strip().replace("'", '"'))
    assert attempts and set(attempts) <= {"audit.measures", "audit.scoring", "audit.stats"}


READERS = ("results", "report", "comparison", "migrations", "results_io.py", "gates.py")
#: Every record type is in `audit.results`: no reader needs the code that computes them.
FORBIDDEN_IMPORTS = BLOCKED


def _reader_files() -> list[Path]:
    root = Path(__file__).resolve().parents[2] / "audit"
    files: list[Path] = []
    for name in READERS:
        path = root / name
        files += sorted(path.rglob("*.py")) if path.is_dir() else [path]
    return files


def test_readers_import_no_registry_and_read_no_raw_spec() -> None:
    import ast

    for path in _reader_files():
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.Import | ast.ImportFrom):
                names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
                names += [node.module or ""] if isinstance(node, ast.ImportFrom) else []
                bad = [n for n in names if n.startswith(FORBIDDEN_IMPORTS) or ".catalog" in n]
                assert not bad, f"{path}: imports {bad}"
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
                args = [a.value for a in node.args if isinstance(a, ast.Constant)]
                assert not (node.func.attr in ("split", "partition") and "[" in args), path
            if isinstance(node, ast.Attribute) and node.attr == "spec":
                owner = node.value
                name = owner.id if isinstance(owner, ast.Name) else getattr(owner, "attr", "")
                is_result = "result" in name or name in ("baseline", "candidate")
                reads_spec = is_result and "migrations" not in path.parts
                assert not reads_spec, f"{path}:{node.lineno} reads the raw spec"
