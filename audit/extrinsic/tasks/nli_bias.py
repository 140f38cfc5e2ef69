"""NLI-bias as an extrinsic task: fine-tune a 3-way NLI classifier on MultiNLI or SNLI
(the task dataset `nli`), predict the gender-occupation pairs (the task dataset
`nli_bias`: generated from Dev et al.'s word lists, or a pairs file), and measure
NLI-bias as Kaneko et al. 2022 define it, the fraction called neutral for female minus
male gender words, beside Dev et al.'s net and fraction neutral
(`audit.extrinsic.nli_bias`). Neither dataset is shipped: their readers' errors say what
to download and where to put it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from audit.extrinsic.finetune.examples import nli_examples
from audit.extrinsic.nli_bias import LABELS, NliPair, nli_bias_scores
from audit.extrinsic.nli_gap import nli_bias_replicates
from audit.extrinsic.options import NliBiasOptions
from audit.extrinsic.tasks.base import ItemReplicates, TaskData, TaskValue
from audit.extrinsic.tasks.hashing import lines_sha256

if TYPE_CHECKING:
    import numpy as np

    from audit.extrinsic.finetune.heads import TaskModel
    from audit.extrinsic.tasks.base import Resampling, TaskContext


class NliBiasTask:
    """NLI-bias (Dev et al. 2020; the value as Kaneko et al. 2022 define it)."""

    def prepare(self, options: NliBiasOptions, context: TaskContext) -> TaskData[list[NliPair]]:
        pairs: list[NliPair] = list(context.evaluation_data(options).split("test"))
        training = context.training_data(options)
        train = nli_examples(training.split("train"))
        dev = nli_examples(training.split("dev"))
        return TaskData(
            dataset=context.evaluation,
            train=train,
            dev=dev,
            evaluation=pairs,
            options=options,
            labels=LABELS,
            facts={
                "training_file": str(training.files["train"]),
                "train_pairs": len(train),
                "dev_pairs": len(dev),
                "bias_pairs": len(pairs),
            },
            evaluation_sha256=lines_sha256((p.premise, p.hypothesis) for p in pairs),
        )

    def predict(self, model: TaskModel, data: TaskData[list[NliPair]]) -> dict[str, np.ndarray]:
        from audit.extrinsic.kinds.classification import predict_proba

        pairs = data.evaluation
        return {"probs": predict_proba(model, [(p.premise, p.hypothesis) for p in pairs])}

    def measure(
        self,
        predictions: Mapping[str, np.ndarray],
        data: TaskData[list[NliPair]],
        resampling: Resampling,
    ) -> TaskValue:
        options: NliBiasOptions = data.options
        result = nli_bias_scores(
            predictions["probs"],
            list(data.labels or LABELS),
            data.evaluation,
            **resampling.keywords(),
            thresholds=options.thresholds,
            aggregate=options.aggregate,
        )
        return TaskValue.of(result, result.n_pairs)

    def replicates(
        self,
        predictions: Mapping[str, np.ndarray],
        data: TaskData[list[NliPair]],
        resampling: Resampling,
    ) -> ItemReplicates | None:
        """The value on resamples of the premises (occupations under `word_pair`): the
        draws of `measure`'s CI of the value; None without pairs of both genders."""
        options: NliBiasOptions = data.options
        found = nli_bias_replicates(
            predictions["probs"],
            list(data.labels or LABELS),
            data.evaluation,
            seed=resampling.seed,
            n_bootstrap=resampling.n_bootstrap,
            aggregate=options.aggregate,
        )
        if found is None:
            return None
        values, units = found
        counted = "occupations" if options.aggregate == "word_pair" else "premises"
        return ItemReplicates(values, units, counted)


TASK = NliBiasTask()
