"""The `regression` head kind (STS-B): one unbounded output, the predicted similarity,
fine-tuned by MSE against the gold score; dev Pearson (and Spearman), checked against
`MIN_DEV_PEARSON`; its prediction is that output (`predict_similarity`).

Torch and numpy are imported where they are used: a plan computes the head's data hash
without them."""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from audit.errors import AuditUserError
from audit.extrinsic.finetune.examples import ScoredPair, TextInput, regression_data_sha256
from audit.extrinsic.finetune.settings import PREDICT_BATCH
from audit.extrinsic.finetune.task_head import TaskHead

if TYPE_CHECKING:
    import numpy as np
    import torch

    from audit.extrinsic.finetune.heads import TaskModel
    from audit.extrinsic.tasks.base import TaskData

#: The kind's name: what an extrinsic task entry's `head` and a fine-tuning's summary say.
KIND = "regression"
#: The lowest STS-B dev Pearson counted as "learned the task". BERT-base reaches about
#: 0.88 after 3 epochs (Devlin et al. 2019); below 0.5 the predicted similarity is mostly
#: noise, and so would be its gender gap.
MIN_DEV_PEARSON = 0.5


def _pair(row: ScoredPair) -> tuple[str, str]:
    return (row.sentence1, row.sentence2)


def _scores(head: TaskHead, name: str, rows: Sequence[ScoredPair]) -> torch.Tensor:
    import torch

    for i, row in enumerate(rows):
        if not math.isfinite(float(row.score)):
            raise AuditUserError(f"fine-tuning: {name} pair {i + 1} has a non-finite score")
    return torch.tensor([float(r.score) for r in rows], dtype=torch.float32)


def _mse(outputs: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
    import torch

    return torch.nn.functional.mse_loss(outputs[:, 0], targets)


def _sts_metric(
    model: TaskModel, rows: Sequence[ScoredPair], batch_size: int
) -> dict[str, float | None]:
    pearson, spearman = evaluate_sts(model, rows, batch_size=batch_size)
    return {"pearson": pearson, "spearman": spearman}


def _regression_sha256(head: TaskHead, train: Sequence[Any], dev: Sequence[Any]) -> str:
    return regression_data_sha256(train, dev)


#: STS-B's head: one unbounded output, the predicted similarity.
REGRESSION = TaskHead(
    kind=KIND,
    example="pair",
    inputs=_pair,
    targets=_scores,
    loss=_mse,
    metric=_sts_metric,
    data_sha256=_regression_sha256,
)


def _finite(x: float) -> float | None:
    return float(x) if math.isfinite(float(x)) else None


def correlations(predicted: np.ndarray, gold: Sequence[float]) -> tuple[float | None, float | None]:
    """(Pearson r, Spearman rho) of predicted and gold scores; None where undefined (fewer
    than 2 pairs, or constant predictions)."""
    import numpy as np
    from scipy import stats

    x = np.asarray(predicted, dtype=np.float64)
    y = np.asarray(gold, dtype=np.float64)
    if len(x) < 2 or np.ptp(x) == 0 or np.ptp(y) == 0:
        return None, None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pearson = stats.pearsonr(x, y).statistic
        spearman = stats.spearmanr(x, y).statistic
    return _finite(pearson), _finite(spearman)


def predict_similarity(
    model: TaskModel, pairs: Sequence[tuple[str, str]], *, batch_size: int = PREDICT_BATCH
) -> np.ndarray:
    """The predicted similarity of each (sentence1, sentence2) pair, as float64 [n] (the
    head's output as it is, not clipped to 0..5)."""
    from audit.extrinsic.finetune.predict import predict_outputs

    if model.kind != KIND:
        raise ValueError(f"predict_similarity needs a regression head (got {model.kind})")
    return predict_outputs(model, [(a, b) for a, b in pairs], batch_size=batch_size)[:, 0]


def evaluate_sts(
    model: TaskModel, dev_rows: Sequence[ScoredPair], *, batch_size: int = PREDICT_BATCH
) -> tuple[float | None, float | None]:
    """(Pearson, Spearman) of the predicted and gold similarity of `dev_rows`."""
    predicted = predict_similarity(
        model, [(r.sentence1, r.sentence2) for r in dev_rows], batch_size=batch_size
    )
    return correlations(predicted, [r.score for r in dev_rows])


class RegressionKind:
    """The `regression` kind's rules (`head_kinds.HeadKindRules`)."""

    def head(self, data: TaskData) -> TaskHead:
        return REGRESSION

    def stored_head(self, labels: Sequence[str]) -> TaskHead:
        return REGRESSION

    def dev_floor(self, data: TaskData) -> tuple[float, str]:
        return MIN_DEV_PEARSON, (
            "below 0.5 the predicted similarity is mostly noise (BERT-base reaches about 0.88)"
        )

    def learned(self, value: float, floor: float) -> bool:
        return value >= floor

    def predict(self, model: TaskModel, inputs: Sequence[TextInput], batch_size: int) -> np.ndarray:
        """The predicted score of each input pair, float64 [n]."""
        pairs = [(i[0], i[1]) for i in inputs if not isinstance(i, str)]
        if len(pairs) != len(inputs):
            raise ValueError("a regression head predicts sentence pairs, not single texts")
        return predict_similarity(model, pairs, batch_size=batch_size)


RULES = RegressionKind()
