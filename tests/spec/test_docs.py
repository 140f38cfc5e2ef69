"""docs/spec.md documents every field of every spec model."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import BaseModel

from audit.extrinsic.finetune.settings import FineTuneSettings
from audit.spec import models

DOC = Path(__file__).resolve().parents[2] / "docs" / "spec.md"

SPEC_MODELS: list[type[BaseModel]] = [
    models.AuditSpec,
    models.ModelSpec,
    models.HubSource,
    models.PathSource,
    models.GGUFSource,
    models.PipSource,
    models.DatasetSpec,
    models.ColumnMap,
    models.ScorerSelection,
    models.RobustnessSpec,
    models.CorrelationSpec,
    models.ComparisonSpec,
    models.VariantSpec,
    models.CorpusSpec,
    models.TrainingSpec,
    models.LoraSpec,
    models.ExtrinsicSpec,
    models.LmQualitySpec,
    models.HeldOutTextSpec,
    FineTuneSettings,
    models.ReportSpec,
    models.ExecutionSpec,
    models.GateSpec,
]


@pytest.mark.parametrize("model", SPEC_MODELS, ids=lambda m: m.__name__)
def test_every_field_is_documented(model: type[BaseModel]) -> None:
    text = DOC.read_text(encoding="utf-8")
    missing = [name for name in model.model_fields if f"`{name}`" not in text]
    assert missing == []
