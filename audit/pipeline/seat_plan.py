"""The SEAT part of an audit's plan: for each `seat` entry of the spec's `measures:`, its
options, its test files read (and checked) from `<data dir>/seat/`, and the models it
runs on, so that a missing folder or a bad file stops the run before any model loads.

Which models: every model of the run, variants included. Masked LMs as bias-bench runs
BERT-style models; causal LMs too, as bias-bench runs GPT-2 (its SEAT takes the mean of
GPT-2's last hidden state, `pooling: mean`). With `pooling: first` a causal LM is left
out with its reason: its first token's state sees only the first token, which every
sentence of a test shares ("This is ..."), so the vectors would not depend on the
sentence.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from audit.data.seat_tests import FOLDER, SeatTest, bias_type_tests, load_seat_tests
from audit.errors import AuditUserError
from audit.ids import PluginId
from audit.measures.seat_options import SENTENCE_SETS, SeatOptions
from audit.spec.models import AuditSpec

CAUSAL_FIRST_REASON = (
    "pooling 'first' on a causal LM: the first token's state sees only the first token, "
    "which the sentences share, so the vectors would not depend on the sentence; use "
    "pooling 'mean' (bias-bench's choice for GPT-2)"
)
OUTPUT_ONLY_REASON = (
    "a {method} variant changes only the output distribution, not the hidden states: its "
    "sentence vectors, and so its SEAT values, are its base model's"
)


@dataclass(frozen=True)
class SeatRun:
    """One `seat` entry of the spec: its options, its tests (read) and its models."""

    measure: PluginId
    options: SeatOptions
    tests: tuple[SeatTest, ...]
    models: tuple[str, ...]
    skipped: tuple[tuple[str, str], ...]  # (model, reason)


@dataclass(frozen=True)
class SeatPlan:
    """Every SEAT run of the audit and the folder its tests come from."""

    folder: Path
    runs: tuple[SeatRun, ...]

    def steps(self) -> list[str]:
        """One line per model and `seat` entry, as `audit plan` lists them."""
        return [
            seat_step(run.measure, model, len(run.tests))
            for run in self.runs
            for model in run.models
        ]


def seat_step(measure: PluginId, model: str, n_tests: int) -> str:
    """'measure seat on tiny-bert (6 SEAT tests)'."""
    return (
        f"measure {measure.label} on {model} ({n_tests:,} SEAT test{'' if n_tests == 1 else 's'})"
    )


def seat_measures(spec: AuditSpec) -> list[PluginId]:
    """The spec's `seat` entries (any measure of shape sentence_sets), in spec order."""
    from audit.measures.catalog import MEASURES

    return [m.id for m in spec.measures if MEASURES.entry(m.name).shape == SENTENCE_SETS]


def seat_folder(data_dir: Path | None, measure: PluginId) -> Path:
    """`<data dir>/seat/`, or an error naming the path and how to give it."""
    how = (
        "it holds one <test>.jsonl per SEAT test, as bias-bench's data/seat/ ships them "
        "(the project's copy: ../shared/data/seat/)"
    )
    if data_dir is None:
        raise AuditUserError(
            f"measure '{measure.label}' reads its SEAT tests from <data dir>/{FOLDER}/: pass "
            f"--data-dir ../shared/data (or set AUDIT_DATA_DIR); {how}"
        )
    folder = data_dir / FOLDER
    if not folder.is_dir():
        raise AuditUserError(
            f"measure '{measure.label}': no SEAT folder {folder}; put the test files there or "
            f"pass --data-dir with a folder that has {FOLDER}/ (e.g. ../shared/data); {how}"
        )
    return folder


def plan_seat(
    spec: AuditSpec, *, data_dir: Path | None, model_types: Mapping[str, str]
) -> SeatPlan | None:
    """The SEAT runs of the spec (None when it names no `seat` measure): options checked,
    test files read, models chosen (in `model_types` order, variants included)."""
    measures = seat_measures(spec)
    if not measures:
        return None
    folder = seat_folder(data_dir, measures[0])
    from audit.variants.catalog import output_only_variants

    output_only = output_only_variants(spec.variants)
    runs = []
    for measure in measures:
        options = SeatOptions.model_validate(measure.options)
        names = options.tests or bias_type_tests(options.bias_types)
        tests = tuple(load_seat_tests(folder, names))
        models: list[str] = []
        skipped: list[tuple[str, str]] = []
        for model_id, model_type in model_types.items():
            if model_id in output_only:
                skipped.append((model_id, OUTPUT_ONLY_REASON.format(method=output_only[model_id])))
            elif model_type == "causal" and options.pooling == "first":
                skipped.append((model_id, CAUSAL_FIRST_REASON))
            else:
                models.append(model_id)
        runs.append(SeatRun(measure, options, tests, tuple(models), tuple(skipped)))
    return SeatPlan(folder, tuple(runs))
