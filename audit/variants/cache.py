"""Where trained variants live: `<cache>/variants/<key>/` holds `model/` (a Hugging Face
model folder, audited like any local model), `variant.json` (what was trained and how;
its presence marks the variant done) and, while training, `work/` (checkpoints).

The key is a sha256 over everything that changes the trained weights: the base model's
fingerprint, the method and its options (defaults filled in), the part (ratio), the
training settings with the seed (not `checkpoint_every`: resuming is exact), the corpus
hash and the hash of the training data the method built. The same spec never trains twice.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from audit.results import ProbeRecord, TrainingSummary

#: Bump when the trainer's arithmetic changes, so old variants are not reused.
VARIANT_FORMAT = 1
DONE_FILE = "variant.json"


def variant_key(
    *,
    base_fingerprint: str,
    method: str,
    options: dict[str, Any],
    ratio: float | None,
    training: dict[str, Any],
    corpus_sha256: str,
    data_sha256: str,
) -> str:
    """The cache key of one trained variant (see the module docstring)."""
    training = {k: v for k, v in training.items() if k != "checkpoint_every"}
    payload = {
        "format": VARIANT_FORMAT,
        "base": base_fingerprint,
        "method": method,
        "options": options,
        "ratio": ratio,
        "training": training,
        "corpus": corpus_sha256,
        "data": data_sha256,
    }
    text = json.dumps(payload, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class StoredVariant:
    """A finished variant read back from the cache."""

    model_dir: Path
    summary: TrainingSummary
    probe: ProbeRecord | None


@dataclass(frozen=True)
class VariantStore:
    """The cache folder of one variant key."""

    root: Path

    @classmethod
    def of(cls, cache_dir: Path, key: str) -> VariantStore:
        return cls(cache_dir / "variants" / key)

    @property
    def model_dir(self) -> Path:
        return self.root / "model"

    @property
    def work_dir(self) -> Path:
        return self.root / "work"

    @property
    def done_file(self) -> Path:
        return self.root / DONE_FILE

    def is_done(self) -> bool:
        return self.done_file.is_file() and (self.model_dir / "config.json").is_file()

    def has_checkpoint(self) -> bool:
        return (self.work_dir / "checkpoint").is_dir()

    def read(self) -> StoredVariant:
        data = json.loads(self.done_file.read_text(encoding="utf-8"))
        probe = data.get("probe")
        return StoredVariant(
            model_dir=self.model_dir,
            summary=TrainingSummary.model_validate(data["summary"]),
            probe=None if probe is None else ProbeRecord.model_validate(probe),
        )

    def staging_dir(self) -> Path:
        """An empty folder to save the trained model into before `commit`."""
        staging = self.root / "model.partial"
        shutil.rmtree(staging, ignore_errors=True)
        staging.mkdir(parents=True)
        return staging

    def commit(
        self,
        staging: Path,
        *,
        description: dict[str, Any],
        summary: TrainingSummary,
        probe: ProbeRecord | None,
    ) -> StoredVariant:
        """Move the saved model into place, then write variant.json (the done marker)
        atomically, then drop the checkpoints."""
        shutil.rmtree(self.model_dir, ignore_errors=True)
        os.replace(staging, self.model_dir)
        record = {
            **description,
            "summary": summary.model_dump(mode="json"),
            "probe": None if probe is None else probe.model_dump(mode="json"),
        }
        tmp = self.done_file.with_suffix(".json.tmp")
        tmp.write_text(json.dumps(record, indent=2), encoding="utf-8")
        os.replace(tmp, self.done_file)
        shutil.rmtree(self.work_dir, ignore_errors=True)
        return self.read()
