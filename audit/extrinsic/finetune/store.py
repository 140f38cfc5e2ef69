"""Fine-tuned task models, kept like variants (the layout rules of every artefact are in
`audit.training.store`): `<cache>/extrinsic/<key>/` holds

- `model.safetensors`: the final encoder and head weights (`encoder.*`, `head.*`), float32;
- `finetune.json`: what was fine-tuned and how (the summary); its presence marks it done;
- `curve/step-<step>/<name>.npy`: what the checkpoint callback returned at each curve
  step (K, 2K, ... and the last), e.g. the STS-bias pair predictions;
- `work/` while fine-tuning: the checkpoints (a killed fine-tuning resumes there).

The key is a sha256 over the model's fingerprint, the task's name and options, the
fine-tuning settings (seed and pooling filled in; `checkpoint_every` included, since K
decides which curve points exist; `checkpoint`, which only chooses among the stored
points, and `seeds`, each fine-tuning keyed by its own seed, left out), the head's hash
of the training and dev data (a classifier's: with its label order) and the code identity
of the task and of its head kind (versions and distributions, `audit.code_identity`:
nothing for built-ins at version 1, whose keys are those they had before). The same spec
never fine-tunes twice; a raised version or distribution fine-tunes again, and `audit
plan` says why (`ArtefactStore.why_missing`). `planned_key` gives the key without loading
the model; `cached_finetune` reads or fine-tunes and stores.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from audit.code_identity import CodeIdentity, with_code
from audit.extrinsic.finetune.settings import FineTuneSettings
from audit.extrinsic.finetune.task_head import TaskHead
from audit.extrinsic.head_kinds import HEAD_KINDS
from audit.results import FineTuneSummary
from audit.training.store import ArtefactStore, content_key

if TYPE_CHECKING:
    import numpy as np
    import torch

    from audit.extrinsic.finetune.heads import TaskModel
    from audit.models.loaded import LoadedModel
    from audit.training.loop import Progress

#: Bump when the fine-tuning's arithmetic changes, so old artefacts are not reused.
FINETUNE_FORMAT = 1
EXTRINSIC_FOLDER = "extrinsic"
DONE_FILE = "finetune.json"
WEIGHTS_FILE = "model.safetensors"
CURVE_FOLDER = "curve"

#: The caller's checkpoint callback: (step, model in eval mode) -> arrays to keep as that
#: step's curve point (None: nothing to keep).
CurveCallback = Callable[[int, "TaskModel"], "Mapping[str, np.ndarray] | None"]


def finetune_key(
    *,
    model_fingerprint: str,
    task: str,
    task_options: Mapping[str, Any],
    settings: FineTuneSettings,
    data_sha256: str,
    code: CodeIdentity | None = None,
) -> str:
    """The cache key of one fine-tuning (see the module docstring). `settings` must be
    resolved (seed and pooling filled in); `code`: the task's code identity (default:
    the registered task's, `task_code`)."""
    if settings.seed is None or settings.pooling is None:
        raise ValueError("settings must be resolved (FineTuneSettings.resolved)")
    payload = {
        "format": FINETUNE_FORMAT,
        "model": model_fingerprint,
        "task": task,
        "options": dict(task_options),
        "settings": settings.training_dump(),
        "data": data_sha256,
    }
    return content_key(with_code(payload, code or task_code(task)))


def task_code(task: str) -> CodeIdentity:
    """The code identity of the registered extrinsic task `task`."""
    from audit.extrinsic.catalog import EXTRINSIC_TASKS

    return EXTRINSIC_TASKS.code_identity(task)


def finetune_store(
    cache_dir: Path,
    code: CodeIdentity | None = None,
    *,
    head_kind: str | None = None,
    **key: Any,
) -> FineTuneStore:
    """The store of the fine-tuning `finetune_key(**key)` keys, which knows the code that
    makes it (`ArtefactStore.for_code`; `code` default: the registered task's, with the
    registered `head_kind`'s code as its part when one is named)."""
    code = code or task_code(key["task"])
    if head_kind is not None:
        code = code.with_parts(HEAD_KINDS.code_identity(head_kind))
    return FineTuneStore.for_code(cache_dir, code, lambda c: finetune_key(code=c, **key))


def planned_key(head: TaskHead, **store: Any) -> str:
    """The key `cached_finetune` uses, computed without loading the model (to tell at
    planning time whether the fine-tuning is cached): `planned_store`'s key for the same
    keyword arguments (`settings.seed` filled in; `code`: default the registered task's)."""
    return planned_store(Path(), head, **store).key


def planned_store(
    cache_dir: Path,
    head: TaskHead,
    *,
    model_fingerprint: str,
    model_type: Literal["masked", "causal"],
    task: str,
    task_options: Mapping[str, Any],
    settings: FineTuneSettings,
    train_rows: Sequence[Any],
    dev_rows: Sequence[Any],
    code: CodeIdentity | None = None,
) -> FineTuneStore:
    """The store `cached_finetune` uses (its key is `planned_key`), which knows the code
    that makes it, so a plan can tell whether it is cached and why not."""
    if settings.seed is None:
        raise ValueError("settings.seed must be filled in (FineTuneSettings.with_seed)")
    head = head.for_rows(train_rows)
    return finetune_store(
        cache_dir,
        code,
        head_kind=head.kind,
        model_fingerprint=model_fingerprint,
        task=task,
        task_options=task_options,
        settings=settings.resolved(model_type, settings.seed),
        data_sha256=head.data_sha256(head, train_rows, dev_rows),
    )


def _point_name(step: int) -> str:
    return f"step-{step:07d}"


def _check_array_name(name: str) -> None:
    if not name or not all(c.isalnum() or c in "_-." for c in name) or name.startswith("."):
        raise ValueError(f"curve array name {name!r}: use letters, digits, '_', '-' or '.'")


@dataclass(frozen=True)
class StoredFineTune:
    """A finished fine-tuning read back from the cache. `model` is the fine-tuned model
    when this run trained it (None when it was cached: `load_finetuned` rebuilds it)."""

    key: str
    root: Path
    summary: FineTuneSummary
    description: dict[str, Any]
    cached: bool
    model: TaskModel | None = None

    @property
    def weights_file(self) -> Path:
        return self.root / WEIGHTS_FILE

    @property
    def steps(self) -> list[int]:
        """The curve steps (K, 2K, ... and the last)."""
        return list(self.summary.checkpoint_steps)

    def point(self, step: int) -> dict[str, np.ndarray]:
        """The arrays the callback returned at `step` (empty when it returned none)."""
        return FineTuneStore(self.root).read_point(step)


@dataclass(frozen=True)
class FineTuneStore(ArtefactStore):
    """The cache folder of one fine-tuning key."""

    FOLDER = EXTRINSIC_FOLDER
    DONE_FILE = DONE_FILE

    @property
    def weights_file(self) -> Path:
        return self.root / WEIGHTS_FILE

    @property
    def artefact_file(self) -> Path:
        return self.weights_file

    @property
    def curve_dir(self) -> Path:
        return self.root / CURVE_FOLDER

    # -- curve points -------------------------------------------------------------------

    def write_point(self, step: int, arrays: Mapping[str, np.ndarray]) -> Path:
        """Keep `arrays` as the curve point of `step` (replacing an earlier one atomically:
        a fine-tuning resumed before this step's checkpoint writes it again)."""
        import numpy as np

        for name in arrays:
            _check_array_name(name)
        final = self.curve_dir / _point_name(step)
        tmp = self.curve_dir / f"{_point_name(step)}.tmp-{os.getpid()}"
        old = self.curve_dir / f"{_point_name(step)}.old"
        shutil.rmtree(tmp, ignore_errors=True)
        tmp.mkdir(parents=True)
        for name, array in arrays.items():
            np.save(tmp / f"{name}.npy", np.asarray(array), allow_pickle=False)
        if final.exists():
            shutil.rmtree(old, ignore_errors=True)
            final.rename(old)
        tmp.rename(final)
        shutil.rmtree(old, ignore_errors=True)
        return final

    def read_point(self, step: int) -> dict[str, np.ndarray]:
        import numpy as np

        folder = self.curve_dir / _point_name(step)
        if not folder.is_dir():
            raise FileNotFoundError(f"no curve point for step {step} in {self.curve_dir}")
        return {
            path.stem: np.load(path, allow_pickle=False) for path in sorted(folder.glob("*.npy"))
        }

    # -- the finished artefact -------------------------------------------------------------

    def read(self, *, cached: bool = True) -> StoredFineTune:
        data = self.read_record()
        return StoredFineTune(
            key=self.key,
            root=self.root,
            summary=FineTuneSummary.model_validate(data["summary"]),
            description={k: v for k, v in data.items() if k != "summary"},
            cached=cached,
        )

    def commit(
        self, model: TaskModel, *, description: Mapping[str, Any], summary: FineTuneSummary
    ) -> StoredFineTune:
        """Save the weights, then write finetune.json (the done marker) atomically, then
        drop the checkpoints."""
        from safetensors.torch import save_file

        self.root.mkdir(parents=True, exist_ok=True)
        tensors = {
            name: value.detach().to("cpu", copy=True).contiguous()
            for name, value in model.state_dict().items()
        }
        tmp_weights = self.weights_file.with_suffix(f".tmp-{os.getpid()}")
        save_file(tensors, str(tmp_weights), metadata={"format": "pt"})
        os.replace(tmp_weights, self.weights_file)
        self.finish({**description, "summary": summary.model_dump(mode="json")})
        return StoredFineTune(
            key=self.key,
            root=self.root,
            summary=summary,
            description=dict(description),
            cached=False,
            model=model,
        )


def cached_finetune(
    loaded: LoadedModel,
    head: TaskHead,
    train_rows: Sequence[Any],
    dev_rows: Sequence[Any],
    *,
    task: str,
    task_options: Mapping[str, Any],
    settings: FineTuneSettings,
    cache_dir: Path,
    on_checkpoint: CurveCallback | None = None,
    progress: Progress | None = None,
    device: torch.device | None = None,
    stop_after: int | None = None,
    code: CodeIdentity | None = None,
) -> StoredFineTune:
    """The fine-tuned `head` of (model, task, options, settings, data): read from the
    cache, else fine-tuned (resuming a killed run) and stored under the key `planned_key`
    gives. `on_checkpoint`'s arrays are kept as each curve step's point. `settings.seed`
    must be filled in; `code`: the task's code identity (default: the registered task's)."""
    head = head.for_rows(train_rows)
    if settings.seed is None:
        raise ValueError("settings.seed must be filled in (FineTuneSettings.with_seed)")
    resolved = settings.resolved(loaded.model_type, settings.seed)
    data_sha256 = head.data_sha256(head, train_rows, dev_rows)
    store = finetune_store(
        cache_dir,
        code,
        head_kind=head.kind,
        model_fingerprint=loaded.fingerprint,
        task=task,
        task_options=task_options,
        settings=resolved,
        data_sha256=data_sha256,
    )
    key = store.key
    if store.is_done():
        return store.read(cached=True)
    callback: Callable[[int, TaskModel], None] | None = None
    if on_checkpoint is not None:

        def keep(step: int, model: TaskModel) -> None:
            arrays = on_checkpoint(step, model)
            store.write_point(step, arrays if arrays is not None else {})

        callback = keep
    store.root.mkdir(parents=True, exist_ok=True)
    from audit.extrinsic.finetune.tune import finetune

    done = finetune(
        loaded,
        head,
        train_rows,
        dev_rows,
        settings=resolved,
        work_dir=store.work_dir,
        device=device,
        on_checkpoint=callback,
        progress=progress,
        stop_after=stop_after,
    )
    description = {
        "format": FINETUNE_FORMAT,
        "key": key,
        "kind": head.kind,
        "task": task,
        "task_options": dict(task_options),
        "model_id": loaded.model_id,
        "model_fingerprint": loaded.fingerprint,
        "settings": resolved.training_dump(),
        "data_sha256": data_sha256,
        "code": None if store.code is None else asdict(store.code),
    }
    return store.commit(done.model, description=description, summary=done.summary)


def load_finetuned(
    loaded: LoadedModel,
    stored: StoredFineTune,
    *,
    device: torch.device | None = None,
    head: TaskHead | None = None,
) -> TaskModel:
    """The stored fine-tuned model rebuilt on `loaded` (the model it was fine-tuned from),
    in eval mode; a user error when `loaded` is another model. `head`: the task's own
    head (default: the head of the kind the summary names, `head_kinds.HEAD_KINDS`)."""
    from safetensors.torch import load_file

    from audit.errors import AuditUserError
    from audit.extrinsic.finetune.heads import build_task_model

    fingerprint = stored.description.get("model_fingerprint")
    if fingerprint != loaded.fingerprint:
        raise AuditUserError(
            f"fine-tuned model {stored.root} was fine-tuned from a model with fingerprint "
            f"{fingerprint}, not {loaded.model_id} ({loaded.fingerprint})"
        )
    summary = stored.summary
    settings = FineTuneSettings.model_validate(summary.settings)
    assert settings.seed is not None
    if head is None:
        head = HEAD_KINDS[summary.kind].rules.stored_head(summary.labels)
    model = build_task_model(
        loaded,
        task_head=replace(head, labels=tuple(summary.labels) or head.labels),
        pooling=summary.pooling,
        max_length=settings.max_length,
        head_dropout=settings.head_dropout,
        seed=settings.seed,
        device=device if device is not None else loaded.device,
    )
    state = load_file(str(stored.weights_file), device=str(model.device))
    model.load_state_dict(state, strict=True)
    return model.eval()
