"""Whether a spec's fine-tuning can learn its task: the warnings `audit validate` (from the
task's known training size) and `audit plan` (from the data it read) give about a
`finetune:` block. No torch.

The budget rule: a fine-tuning should pass over the training data at least `MIN_EPOCHS`
(1) times. The published recipes fine-tune for 2 to 4 epochs (Devlin et al. 2019;
Kaneko et al. 2022 choose the epochs on dev); measured on STS-B with minilm-mlm at a
learning rate of 1e-4 and 8 pairs a step, the dev Pearson is 0.50 after 8% of an epoch,
0.83 after 25% and 0.85 after 33%, and a CDA variant needs more (0.22, 0.36, 0.77):
below one epoch whether a model learned depends on the model, and a model that did not
learn measures noise. The default (2 epochs) is above it.
"""

from __future__ import annotations

from dataclasses import dataclass

from audit.extrinsic.finetune.settings import DEFAULT_EPOCHS, FineTuneSettings

#: The fewest passes over the training data a fine-tuning is not warned about.
MIN_EPOCHS = 1.0


@dataclass(frozen=True)
class BudgetWarning:
    """A warning about a `finetune:` block: the setting it is about and the text."""

    field: str
    message: str


def epochs_covered(settings: FineTuneSettings, n_train: int) -> float:
    """Passes over `n_train` training examples that `settings` make (steps x batch / n)."""
    if n_train < 1:
        raise ValueError(f"n_train must be >= 1 (got {n_train})")
    return settings.total_steps(n_train) * settings.batch_size / n_train


def budget_warnings(settings: FineTuneSettings, n_train: int | None) -> list[BudgetWarning]:
    """What may keep a fine-tuning from learning its task or from choosing its checkpoint.
    `n_train`: the training examples (None when not known: a `steps` budget is then not
    judged, an `epochs` one is)."""
    warnings: list[BudgetWarning] = []
    covered: float | None = None
    if settings.steps is not None and n_train:
        covered = epochs_covered(settings, n_train)
    elif settings.steps is None:
        covered = settings.epochs if settings.epochs is not None else DEFAULT_EPOCHS
    if covered is not None and covered < MIN_EPOCHS:
        field = "steps" if settings.steps is not None else "epochs"
        if settings.steps is not None and n_train:
            what = (
                f"{settings.steps:,} steps x {settings.batch_size} of {n_train:,} training "
                f"examples are {covered:.0%} of an epoch"
            )
            fewest = -(-n_train // settings.batch_size)
            fix = f"give at least {fewest:,} steps (one epoch) or leave `steps` out"
        else:
            what = f"{covered:g} epochs"
            fix = "give at least 1 epoch or leave `epochs` out"
        warnings.append(
            BudgetWarning(
                field,
                f"fine-tuning budget too small: {what}; below {MIN_EPOCHS:g} epoch a model "
                f"may not learn the task (minilm-mlm on STS-B: dev Pearson 0.50 after 8% of "
                f"an epoch) and then measures noise: {fix} (default {DEFAULT_EPOCHS:g} epochs)",
            )
        )
    if settings.checkpoint == "best_dev" and not settings.dev_at_checkpoints:
        warnings.append(
            BudgetWarning(
                "dev_at_checkpoints",
                "checkpoint 'best_dev' has only the last step's dev score to choose by "
                "(dev_at_checkpoints: false): the last checkpoint is used; set "
                "dev_at_checkpoints: true, or checkpoint: last to say so",
            )
        )
    return warnings
