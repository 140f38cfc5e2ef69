"""Where trained artefacts live: one content-keyed folder per artefact,
`<cache>/<kind folder>/<key>/`, for debiasing variants (`variants/`, see
`audit.variants.cache`) and extrinsic fine-tunes (`extrinsic/`, see
`audit.extrinsic.finetune.store`) alike.

- The key is a sha256 over everything that changes the trained weights (`content_key`
  of a JSON payload; each artefact kind says what goes in, with a format number bumped
  when the arithmetic changes). The same spec never trains twice.
- `work/` holds the checkpoints while training; a killed training resumes there.
- A JSON record (the done marker: `variant.json`, `finetune.json`) is written last and
  atomically, after the artefact itself; then `work/` is removed. An artefact counts as
  done when its record and its artefact file are both there.

No torch here: plans compute keys and look for done markers without loading a model.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar, Self

from audit.faults import fault_point

WORK_FOLDER = "work"
#: The checkpoint folder inside `work/` (`audit.training.checkpoint.CHECKPOINT_DIR`).
CHECKPOINT_FOLDER = "checkpoint"


def content_key(payload: Mapping[str, Any]) -> str:
    """The sha256 of `payload` as compact JSON with sorted keys."""
    text = json.dumps(payload, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class ArtefactStore:
    """The cache folder of one artefact key. Subclasses name their folder under the cache
    (`FOLDER`), their done marker (`DONE_FILE`) and the file that must exist besides it
    (`artefact_file`)."""

    root: Path

    FOLDER: ClassVar[str]
    DONE_FILE: ClassVar[str]

    @classmethod
    def of(cls, cache_dir: Path, key: str) -> Self:
        return cls(Path(cache_dir) / cls.FOLDER / key)

    @property
    def key(self) -> str:
        return self.root.name

    @property
    def done_file(self) -> Path:
        return self.root / self.DONE_FILE

    @property
    def work_dir(self) -> Path:
        return self.root / WORK_FOLDER

    @property
    def artefact_file(self) -> Path:
        raise NotImplementedError(f"{type(self).__name__} names no artefact file")

    def is_done(self) -> bool:
        return self.done_file.is_file() and self.artefact_file.is_file()

    def has_checkpoint(self) -> bool:
        return (self.work_dir / CHECKPOINT_FOLDER).is_dir()

    def read_record(self) -> dict[str, Any]:
        data: dict[str, Any] = json.loads(self.done_file.read_text(encoding="utf-8"))
        return data

    def finish(self, record: Mapping[str, Any]) -> None:
        """Write the done marker atomically (the artefact is in place), then drop the
        checkpoints."""
        tmp = self.done_file.with_suffix(".json.tmp")
        tmp.write_text(json.dumps(record, indent=2), encoding="utf-8")
        fault_point("store-before-done")
        os.replace(tmp, self.done_file)
        fault_point("store-done")
        shutil.rmtree(self.work_dir, ignore_errors=True)
