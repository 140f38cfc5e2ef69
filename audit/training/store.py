"""Where trained artefacts live: one content-keyed folder per artefact,
`<cache>/<kind folder>/<key>/`, for debiasing variants (`variants/`, see
`audit.variants.cache`) and extrinsic fine-tunes (`extrinsic/`, see
`audit.extrinsic.finetune.store`) alike.

- The key is a sha256 over everything that changes the trained weights (`content_key`
  of a JSON payload; each artefact kind says what goes in, with a format number bumped
  when the arithmetic changes), the code identity of the plug-in that computes it among
  them (`audit.code_identity`: its card version and distribution, nothing for a built-in
  at version 1). The same spec never trains twice.
- A store made `for_code` records, once its artefact is done, which code made it
  (`audit.code_records`), and says why an artefact of the same inputs made by other code
  is made again (`why_missing`).
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
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar, Self

from audit.code_identity import CodeIdentity
from audit.code_records import CodeRecords
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
    #: The code that computes the artefact, and the key it would have under the built-in
    #: default identity (`for_code`); None for a store opened by key alone.
    code: CodeIdentity | None = None
    default_key: str | None = None

    FOLDER: ClassVar[str]
    DONE_FILE: ClassVar[str]

    @classmethod
    def of(cls, cache_dir: Path, key: str) -> Self:
        return cls(Path(cache_dir) / cls.FOLDER / key)

    @classmethod
    def for_code(
        cls, cache_dir: Path, code: CodeIdentity, key_of: Callable[[CodeIdentity], str]
    ) -> Self:
        """The store of the artefact `code` computes, `key_of(code)` giving its key."""
        root = Path(cache_dir) / cls.FOLDER / key_of(code)
        return cls(root, code=code, default_key=key_of(code.default()))

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

    def why_missing(self) -> str | None:
        """Why the artefact is not in the cache when one of the same inputs made by other
        code is ("the cached copy was made by ... version 1, now version 2"); None when
        none is, or the store knows no code."""
        if self.code is None or self.default_key is None:
            return None
        return CodeRecords(self.root.parent).why_missing(
            self.default_key,
            self.key,
            self.code,
            lambda other: type(self)(self.root.parent / other).is_done(),
        )

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
        if self.code is not None and self.default_key is not None:
            CodeRecords(self.root.parent).remember(self.default_key, self.key, self.code)
