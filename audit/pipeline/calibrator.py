"""The measurements behind `audit plan`'s time estimate: `Calibrator` reads a
throughput from the cache (`audit.calibration`) or times it now on the model, loaded once
for all its measurements; `StageEstimate` is one piece of work with its estimated time
and what that is based on. Shared by the stages' estimates (`audit.pipeline.
time_estimate`, `audit.pipeline.encode_estimate`)."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from audit.calibration import Throughput, ThroughputCache, machine, measured

if TYPE_CHECKING:
    from audit.display import Display
    from audit.models.loaded import LoadedModel
    from audit.models.prepared import PreparedModel
    from audit.pipeline.audit_plan import AuditPlan


@dataclass(frozen=True)
class StageEstimate:
    """One piece of work of a stage, its estimated seconds (None: not measured) and
    what the estimate is based on."""

    stage: str  # "scoring", "training" or "fine-tuning"
    what: str
    seconds: float | None
    basis: str


class Calibrator:
    """The measurements of one plan: read from the cache, else (with `measure`) timed
    now on the model, loaded once for all its measurements."""

    def __init__(self, plan: AuditPlan, display: Display, *, measure: bool = True) -> None:
        self.plan = plan
        self.display = display
        self.measure = measure
        self.cache = ThroughputCache(plan.settings.cache_dir)
        self._loaded: tuple[str, bool, LoadedModel] | None = None

    def key(self, kind: str, model: PreparedModel, *parts: object) -> str:
        """What a measurement depends on: machine, device, precision, weights, shape."""
        precision = model.precision if kind == "score" else f"{model.device}/float32"
        fields = [kind, machine(model.device), precision, model.fingerprint]
        return "|".join([*fields, *(str(p) for p in parts)])

    def throughput(
        self,
        key: str,
        model_id: str,
        *,
        float32: bool,
        timing: Callable[[LoadedModel], tuple[float, int]],
        basis: str,
    ) -> Throughput | None:
        """The measurement under `key`: cached, else timed with `timing` (seconds, units)
        on `model_id` and stored; None when not cached and measuring is off."""
        known = self.cache.get(key)
        if known is not None or not self.measure:
            return known
        loaded = self._load(model_id, float32=float32)
        self.display.step("calibrate", f"measuring throughput: {basis}")
        seconds, units = timing(loaded)
        result = measured(seconds, units, basis)
        self.display.end_step("calibrate", f"measured throughput: {basis}")
        self.cache.put(key, result)
        return result

    def _load(self, model_id: str, *, float32: bool) -> LoadedModel:
        from audit.models.prepared import load_prepared_model

        if self._loaded is not None and self._loaded[:2] == (model_id, float32):
            return self._loaded[2]
        self._loaded = None  # one model at a time
        model = self.plan.models[model_id]
        loaded = load_prepared_model(model, self.plan.settings, self.display, float32=float32)
        self._loaded = (model_id, float32, loaded)
        return loaded

    def close(self) -> None:
        self._loaded = None


def timed_as(plan: AuditPlan, model_id: str) -> str:
    """The model a unit or job is timed on: itself, or a variant's base until trained."""
    return model_id if model_id in plan.models else plan.variant_bases()[model_id]


def sample_hash(texts: Sequence[Sequence[str]]) -> str:
    digest = hashlib.sha256("\x1f".join("\x1e".join(t) for t in texts).encode())
    return digest.hexdigest()[:16]


def per_unit(throughput: Throughput, unit: str) -> str:
    rate = throughput.seconds_per_unit
    shown = f"{rate:.3g} s" if rate >= 0.001 else f"{rate * 1000:.3g} ms"
    article = "an" if unit[:1] in "aeiouAEIOU" else "a"
    return f"{shown} {article} {unit}: {throughput.basis}, {throughput.measured_on}"


NOT_MEASURED = "not measured yet on this machine (`audit plan` without --no-calibrate times it)"


def estimate_of(
    stage: str, what: str, throughput: Throughput | None, units: int, unit: str
) -> StageEstimate:
    if throughput is None:
        return StageEstimate(stage, what, None, NOT_MEASURED)
    return StageEstimate(stage, what, throughput.seconds(units), per_unit(throughput, unit))
