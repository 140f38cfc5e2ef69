"""The example specs in specs/ say how to build the local models they read."""

from __future__ import annotations

from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
MINILM = "~/.cache/bias-fixtures/minilm-mlm"
BUILD = f"python ../shared/models/minilm_mlm/build.py {MINILM}"


def test_each_spec_on_the_built_minilm_says_in_one_comment_line_how_to_build_it() -> None:
    specs = sorted(p for p in (REPO / "specs").glob("*.yaml") if MINILM in p.read_text())
    assert len(specs) >= 5
    for spec in specs:
        lines = spec.read_text().splitlines()
        built = [line for line in lines if line.startswith("#") and BUILD in line]
        assert len(built) == 1 and built[0].startswith("# Build its masked LM"), spec.name
        first_setting = next(i for i, line in enumerate(lines) if not line.startswith("#"))
        assert lines.index(built[0]) < first_setting, spec.name  # among the opening lines
    readme = (REPO / "README.md").read_text()
    setup = readme.split("## Set up and run", 1)[1].split("\n## ", 1)[0]
    assert BUILD in setup
