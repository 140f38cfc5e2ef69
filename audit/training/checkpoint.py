"""Checkpoints of a training in `<work_dir>/checkpoint/`: the trainable weights, the
optimiser state, the step, and what the summary accumulates (tokens, seconds, loss
curve), plus any state of the objective (AT's attribute vectors).

Written atomically: into `checkpoint.tmp-<pid>/`, then the old checkpoint is moved to
`checkpoint.old/`, the new one renamed into place and the old one removed. A crash
between the renames leaves `checkpoint.old/`, which the next load puts back; a
`checkpoint.tmp-<pid>/` of a killed process is removed by the next save.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import torch

from audit.atomic_write import remove_stale
from audit.errors import AuditUserError

CHECKPOINT_DIR = "checkpoint"
STATE_FILE = "state.pt"
FORMAT = 1


@dataclass
class Checkpoint:
    """Everything a training needs to go on from `step` as if it had never stopped."""

    step: int
    identity: str  # which training wrote it (objective, settings, data, model)
    trainable: dict[str, torch.Tensor]
    optimizer: dict[str, Any]
    tracker: dict[str, Any]
    objective_state: dict[str, torch.Tensor] = field(default_factory=dict)


def checkpoint_dir(work_dir: Path) -> Path:
    return work_dir / CHECKPOINT_DIR


def save_checkpoint(work_dir: Path, checkpoint: Checkpoint) -> None:
    """Write `checkpoint` into `work_dir/checkpoint`, replacing any earlier one atomically."""
    work_dir.mkdir(parents=True, exist_ok=True)
    final = checkpoint_dir(work_dir)
    tmp = work_dir / f"{CHECKPOINT_DIR}.tmp-{os.getpid()}"
    old = work_dir / f"{CHECKPOINT_DIR}.old"
    shutil.rmtree(tmp, ignore_errors=True)
    remove_stale(work_dir, f"{CHECKPOINT_DIR}.tmp-")  # left by a killed training
    tmp.mkdir()
    payload = {
        "format": FORMAT,
        "step": checkpoint.step,
        "identity": checkpoint.identity,
        "trainable": {k: v.detach().cpu() for k, v in checkpoint.trainable.items()},
        "optimizer": checkpoint.optimizer,
        "tracker": checkpoint.tracker,
        "objective_state": {k: v.detach().cpu() for k, v in checkpoint.objective_state.items()},
    }
    with open(tmp / STATE_FILE, "wb") as handle:
        torch.save(payload, handle)
        handle.flush()
        os.fsync(handle.fileno())
    if final.exists():
        shutil.rmtree(old, ignore_errors=True)
        final.rename(old)
    tmp.rename(final)
    shutil.rmtree(old, ignore_errors=True)


def load_checkpoint(work_dir: Path, *, identity: str, device: torch.device) -> Checkpoint | None:
    """The checkpoint in `work_dir`, or None. A checkpoint of another training (its
    identity differs) is a user error: the work folder belongs to one training."""
    final = checkpoint_dir(work_dir)
    old = work_dir / f"{CHECKPOINT_DIR}.old"
    if not final.exists() and old.exists():
        old.rename(final)
    path = final / STATE_FILE
    if not path.is_file():
        return None
    try:
        payload = torch.load(path, map_location=device, weights_only=True)
    except Exception as error:  # a truncated or foreign file
        raise AuditUserError(
            f"checkpoint {path} cannot be read ({type(error).__name__}: {error}); delete "
            f"the folder {final} to train from the start"
        ) from None
    if payload.get("format") != FORMAT or payload.get("identity") != identity:
        raise AuditUserError(
            f"checkpoint {path} was written by another training (different model, data, "
            f"objective or settings); delete the folder {final} to train from the start"
        )
    return Checkpoint(
        step=int(payload["step"]),
        identity=str(payload["identity"]),
        trainable=payload["trainable"],
        optimizer=payload["optimizer"],
        tracker=payload["tracker"],
        objective_state=payload["objective_state"],
    )
