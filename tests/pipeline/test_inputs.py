"""A run reads its datasets with the spec's run seed: `sample:` is drawn with `seed`."""

from __future__ import annotations

from pathlib import Path

from audit.display import SilentDisplay
from audit.pipeline.inputs import read_datasets
from audit.pipeline.settings import RunSettings
from audit.spec.loader import load_spec


def _sampled_ids(root: Path, seed: int) -> list[str]:
    spec = root / f"spec-{seed}.yaml"
    spec.write_text(
        f"spec_version: 1\nname: sampled\nseed: {seed}\n"
        "models:\n  - {id: m, source: {path: model}}\n"
        "datasets:\n  - {name: mine, kind: pairs, path: p.csv, sample: 6,\n"
        "     columns: {stereotype: s, anti_stereotype: a}}\n",
        encoding="utf-8",
    )
    settings = RunSettings(out_dir=root / "out", cache_dir=root / "cache")
    datasets = read_datasets(load_spec(spec), settings, SilentDisplay())
    assert datasets["mine"].filtered == {"sample": 24}
    return [item.item_id for item in datasets["mine"].items]


def test_sample_follows_the_spec_seed(tmp_path: Path) -> None:
    rows = "".join(f"s{i},a{i}\n" for i in range(30))
    (tmp_path / "p.csv").write_text("s,a\n" + rows, encoding="utf-8")
    assert _sampled_ids(tmp_path, 0) == _sampled_ids(tmp_path, 0) != _sampled_ids(tmp_path, 1)
