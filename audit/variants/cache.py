"""Where trained variants live (the layout rules of every artefact are in
`audit.training.store`): `<cache>/variants/<key>/` holds `model/` (a Hugging Face model
folder, audited like any local model), `variant.json` (what was trained and how; its
presence marks the variant done) and, while training, `work/` (checkpoints).

The key is a sha256 over everything that changes the trained weights: the base model's
fingerprint, the method and its options (defaults filled in), the part (ratio), the
training settings with the seed (not `checkpoint_every`: resuming is exact), the corpus
hash, the hash of the training data the method built, and the method's code identity (its
card version and distribution, `audit.code_identity`: nothing for a built-in at version 1,
whose keys are those it had before). A post-hoc projection (INLP, SentenceDebias) and a
scoring-time variant are keyed the same way. The same spec never trains twice; a raised
version or distribution trains again, and `audit plan` says why (`ArtefactStore.why_missing`).
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from audit.code_identity import CodeIdentity, with_code
from audit.results import ProbeRecord, TrainingSummary
from audit.training.store import ArtefactStore, content_key

#: Bump when the trainer's arithmetic changes, so old variants are not reused.
VARIANT_FORMAT = 1
DONE_FILE = "variant.json"


def variant_key(
    code: CodeIdentity,
    *,
    base_fingerprint: str,
    method: str,
    options: dict[str, Any],
    ratio: float | None,
    training: dict[str, Any],
    corpus_sha256: str,
    data_sha256: str,
) -> str:
    """The cache key of one trained variant (see the module docstring); `code`: the
    method's code identity (`Registry.code_identity`)."""
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
    return content_key(with_code(payload, code))


@dataclass(frozen=True)
class StoredVariant:
    """A finished variant read back from the cache."""

    model_dir: Path
    summary: TrainingSummary
    probe: ProbeRecord | None


@dataclass(frozen=True)
class VariantStore(ArtefactStore):
    """The cache folder of one variant key."""

    FOLDER = "variants"
    DONE_FILE = DONE_FILE

    @property
    def model_dir(self) -> Path:
        return self.root / "model"

    @property
    def artefact_file(self) -> Path:
        return self.model_dir / "config.json"

    def read(self) -> StoredVariant:
        data = self.read_record()
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
        self.finish(
            {
                **description,
                "summary": summary.model_dump(mode="json"),
                "probe": None if probe is None else probe.model_dump(mode="json"),
            }
        )
        return self.read()
