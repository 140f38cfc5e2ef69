"""The measurements behind `audit plan`'s time estimate: `Calibrator` reads a
throughput from the cache (`audit.calibration`) or times it now: with `--calibrate` on
the model itself (loaded once for all its measurements), else on its architecture with
random weights (`audit.pipeline.shape_model`: no weights read). A measurement on the
real weights, when the cache holds one, is preferred to one on the architecture.
`StageEstimate` is one piece of work with its estimated time and what that is based
on. Shared by the stages' estimates (`audit.pipeline.
time_estimate`, `audit.pipeline.encode_estimate`)."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

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


@dataclass(frozen=True)
class TimedSteps:
    """A short training timed by the run's own loop: `first`, the seconds from the call to
    the end of its first step (the set-up included: the data encoded, a frozen copy, AT's
    attribute vectors, the first step's warm-up), and `step`, the median of the later
    steps' seconds."""

    first: float
    step: float

    def whole(self, steps: int) -> float:
        """Seconds of a training of `steps` steps: its set-up and first step, then the rest."""
        return self.first + max(steps - 1, 0) * self.step

    @classmethod
    def of(cls, began: float, stamps: Sequence[float]) -> TimedSteps:
        """From the clock's reading at the call and its readings after each step."""
        import itertools
        import statistics

        later = [b - a for a, b in itertools.pairwise(stamps)]
        return cls(first=stamps[0] - began, step=statistics.median(later))


#: How a measurement not in the cache is taken: on the model's weights (`audit plan
#: --calibrate`), on its architecture with random weights (the default), or not at all.
Mode = Literal["weights", "shape", "none"]
#: What a measurement on the architecture says it is based on.
SHAPE_BASIS = "its architecture with random weights (config and tokenizer; no weights read)"


class Calibrator:
    """The measurements of one plan: read from the cache, else timed now (`mode`) on the
    model, loaded once for all its measurements, or on its architecture."""

    def __init__(self, plan: AuditPlan, display: Display, *, mode: Mode = "shape") -> None:
        self.plan = plan
        self.display = display
        self.mode = mode
        self.cache = ThroughputCache(plan.settings.cache_dir)
        self._loaded: tuple[str, bool, bool, LoadedModel] | None = None

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
        """The measurement under `key`: cached (on the weights, else on the architecture
        unless `mode` is "weights"), else timed with `timing` (seconds, units) on
        `model_id` as `mode` says and stored; None when not cached and `mode` is "none"."""
        known = self.cache.get(key)
        if known is not None:
            return known
        shape_key = "shape|" + key
        if self.mode != "weights":
            known = self.cache.get(shape_key)
            if known is not None or self.mode == "none":
                return known
        shape = self.mode == "shape"
        if shape:
            basis = f"{basis}, {SHAPE_BASIS}"
        try:
            loaded = self._load(model_id, float32=float32, shape=shape)
        except (OSError, ValueError, ImportError, KeyError) as error:
            if not shape:
                raise
            # an architecture transformers cannot build from its config alone
            self.display.info(f"{model_id}: no estimate from its architecture ({error})")
            return None
        self.display.step("calibrate", f"measuring throughput: {basis}")
        seconds, units = timing(loaded)
        result = measured(seconds, units, basis)
        self.display.end_step("calibrate", f"measured throughput: {basis}")
        self.cache.put(shape_key if shape else key, result)
        return result

    def _load(self, model_id: str, *, float32: bool, shape: bool) -> LoadedModel:
        from audit.models.prepared import load_prepared_model
        from audit.pipeline.shape_model import shape_model

        if self._loaded is not None and self._loaded[:3] == (model_id, float32, shape):
            return self._loaded[3]
        self._loaded = None  # one model at a time
        model = self.plan.models[model_id]
        if shape:
            self.display.step("calibrate", f"building {model_id}'s architecture (random weights)")
            loaded = shape_model(model, self.plan.settings, float32=float32)
        else:
            loaded = load_prepared_model(model, self.plan.settings, self.display, float32=float32)
        self._loaded = (model_id, float32, shape, loaded)
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


NOT_MEASURED = "not measured yet on this machine (`audit plan --calibrate` times it on the model)"


def estimate_of(
    stage: str, what: str, throughput: Throughput | None, units: int, unit: str
) -> StageEstimate:
    if throughput is None:
        return StageEstimate(stage, what, None, NOT_MEASURED)
    return StageEstimate(stage, what, throughput.seconds(units), per_unit(throughput, unit))
