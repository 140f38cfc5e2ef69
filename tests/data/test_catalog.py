"""The dataset catalog: metadata, checksums of the real files, light import."""

from __future__ import annotations

import ast
import importlib
import subprocess
import sys
from pathlib import Path

import pytest
from pydantic import ValidationError

from audit.data.builtin.stereoset import StereoSetOptions
from audit.data.builtin.winobias import WinoBiasOptions
from audit.data.catalog import (
    DATASETS,
    dataset_files,
    dataset_options_model,
    dataset_shape,
    describe_dataset,
    has_templates,
    known_bias_types,
    known_groups,
)
from audit.data.download import sha256_file
from audit.data.entry import DatasetEntry
from audit.errors import UnknownNameError

DATA_DIR = Path(__file__).resolve().parents[2] / "audit" / "data"
BUILTIN_DIR = DATA_DIR / "builtin"
#: Every module in audit/data/builtin/ is one built-in dataset of that name.
BUILTINS = sorted(p.stem for p in BUILTIN_DIR.glob("*.py") if p.stem != "__init__")


def test_builtins_registered_with_metadata() -> None:
    # the built-in ones: datasets registered by tests or installed plug-ins are not
    assert [n for n in DATASETS.names() if DATASETS.is_built_in(n)] == BUILTINS
    for name in BUILTINS:
        assert dataset_shape(name) in ("pairs", "labelled", "choices")
        if dataset_shape(name) in ("pairs", "choices"):
            assert known_bias_types(name) and not known_groups(name)
        else:
            assert known_groups(name) and not known_bias_types(name)
        for remote in dataset_files(name):
            assert len(remote.sha256) == 64 and remote.url.startswith("https://")
    assert known_bias_types("winobias") == ("gender",) == known_bias_types("winogender")
    assert dataset_shape("toxigen") == "labelled"


@pytest.mark.parametrize("name", BUILTINS)
def test_catalog_checksums_match_the_reference_files(shared_data: Path, name: str) -> None:
    for remote in dataset_files(name):
        path = shared_data / DATASETS.entry(name).folder / remote.name
        assert path.stat().st_size == remote.size
        assert sha256_file(path) == remote.sha256


def test_every_option_combination_names_catalogued_files() -> None:
    for name in BUILTINS:
        catalogued = {remote.name for remote in dataset_files(name)}
        model = dataset_options_model(name)
        combos = [model()]
        if model is WinoBiasOptions:
            combos = [WinoBiasOptions(type=t, split=s) for t in (1, 2) for s in ("dev", "test")]
        for options in combos:
            if DATASETS.entry(name).found_files:  # a release folder: its pinned files are named
                assert catalogued <= set(options.file_names())
            else:
                assert set(options.file_names()) <= catalogued


def test_options_models_forbid_unknown_keys() -> None:
    assert StereoSetOptions.model_validate({"part": "intersentence"}).part == "intersentence"
    with pytest.raises(ValidationError):
        StereoSetOptions.model_validate({"part": "both"})
    with pytest.raises(ValidationError):
        WinoBiasOptions.model_validate({"typ": 1})
    with pytest.raises(ValidationError):
        WinoBiasOptions.model_validate({"type": 3})
    defaults = WinoBiasOptions()
    assert (defaults.type, defaults.split) == (1, "dev")


def test_shape_a_user_kind_wins_and_templates_are_built_in_only() -> None:
    assert dataset_shape("toxigen") == "labelled" and dataset_shape("winogender") == "pairs"
    assert dataset_shape("mine", "labelled") == "labelled"
    assert dataset_shape("toxigen", "pairs") == "pairs"  # the loader then refuses the kind
    assert has_templates("professions") and not has_templates("crows_pairs")
    assert not has_templates("professions", "pairs") and not has_templates("mine", "pairs")
    assert not has_templates("mine")


def test_every_builtin_module_is_registered_once_with_its_reader() -> None:
    assert len(BUILTINS) >= 6 and "crows_pairs" in BUILTINS and "professions" in BUILTINS
    for name in BUILTINS:
        module = importlib.import_module(f"audit.data.builtin.{name}")
        entry = DATASETS.entry(name)
        assert isinstance(entry, DatasetEntry) and entry is module.ENTRY
        assert entry.card.kind == "dataset" and entry.card.roles == ()
        assert entry.target.partition(":")[0] == module.__name__
        assert callable(DATASETS.load(name))
        assert entry.folder == ("wordlists" if name == "professions" else name)


def test_data_package_never_imports_the_spec_package() -> None:
    for path in DATA_DIR.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                names = [node.module or ""]
            else:
                continue
            assert not any(n == "audit.spec" or n.startswith("audit.spec.") for n in names), path


def test_unknown_name_suggests_the_close_one() -> None:
    with pytest.raises(UnknownNameError, match="did you mean 'crows_pairs'"):
        dataset_shape("crows_pair")


def test_describe_lists_types_options_and_source() -> None:
    text = describe_dataset("winobias")
    assert "winobias" in text and "type (default 1; one of 1, 2)" in text
    assert "uclanlp/corefBias" in text
    assert "race-color" in describe_dataset("crows_pairs")
    assert "middle-eastern" in describe_dataset("toxigen")


def test_catalog_import_is_light() -> None:
    code = (
        "import sys, audit.data.catalog, audit.data.loader\n"
        "heavy = [m for m in ('pandas', 'numpy', 'torch') if m in sys.modules]\n"
        "print(','.join(heavy))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""
