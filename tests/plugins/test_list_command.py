"""`audit list`: every kind without an argument, and each plug-in's origin."""

from __future__ import annotations

from typer.testing import CliRunner

from audit.cli import app
from audit.data.catalog import DATASETS, TASK_DATASETS
from audit.extrinsic.catalog import EXTRINSIC_TASKS
from audit.listing import LIST_KINDS, describe_registry
from audit.measures.catalog import MEASURES
from audit.scoring.catalog import SCORERS
from audit.variants.catalog import VARIANT_METHODS

REGISTRIES = {
    "datasets": DATASETS,
    "scorers": SCORERS,
    "measures": MEASURES,
    "variants": VARIANT_METHODS,
    "extrinsic": EXTRINSIC_TASKS,
    "task-datasets": TASK_DATASETS,
}


def test_list_without_a_kind_lists_every_kind_under_its_heading() -> None:
    result = CliRunner().invoke(app, ["list"])
    assert result.exit_code == 0, result.output
    headings = [line for line in result.output.splitlines() if line and not line[0].isspace()]
    assert headings == [f"{kind}:" for kind in LIST_KINDS]
    assert LIST_KINDS == (
        "datasets",
        "scorers",
        "measures",
        "variants",
        "extrinsic",
        "task-datasets",
    )
    tasks = result.output.split("task-datasets:\n", 1)[1].splitlines()
    assert [line.split()[0] for line in tasks] == TASK_DATASETS.names() != []
    for kind in LIST_KINDS:
        for line in describe_registry(kind).splitlines():
            assert f"  {line}" in result.output.splitlines()


def test_each_entry_says_where_it_comes_from() -> None:
    assert list(REGISTRIES) == list(LIST_KINDS)
    for kind, registry in REGISTRIES.items():
        lines = describe_registry(kind).splitlines()
        assert [line.split()[0] for line in lines] == registry.names()
        for line in lines:
            assert line.endswith(f"; {registry.origin(line.split()[0])}]"), line
    [bias_score] = [
        line for line in describe_registry("measures").splitlines() if line.startswith("bias_score")
    ]
    assert bias_score.endswith("[pairs; built-in]")
    verbose = CliRunner().invoke(app, ["list", "scorers", "-v"]).output
    origins = [line.strip() for line in verbose.splitlines() if "Origin: " in line]
    assert origins == [f"Origin: {SCORERS.origin(name)}" for name in SCORERS.names()]
