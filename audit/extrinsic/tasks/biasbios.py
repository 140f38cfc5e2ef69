"""BiasBios as an extrinsic task: fine-tune an occupation classifier on the train bios,
predict the test bios' titles, and measure the TPR gap between women and men averaged
over occupations (`audit.extrinsic.biasbios`). The bios are the task dataset `biasbios`
(`audit.data.tasks.biasbios`), not shipped: its reader's error says what to download and
where to put it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

import numpy as np

from audit.extrinsic.biasbios import Bio, tpr_gap_of_bios, tpr_gap_replicates
from audit.extrinsic.finetune.examples import bios_examples
from audit.extrinsic.options import BiasBiosOptions
from audit.extrinsic.tasks.base import ItemReplicates, TaskData, TaskValue
from audit.extrinsic.tasks.hashing import lines_sha256

if TYPE_CHECKING:
    from audit.extrinsic.finetune.heads import TaskModel
    from audit.extrinsic.tasks.base import Resampling, TaskContext


class BiasBiosTask:
    """TPR gap of an occupation classifier (De-Arteaga et al. 2019)."""

    def prepare(self, options: BiasBiosOptions, context: TaskContext) -> TaskData[list[Bio]]:
        bios = context.training_data(options)
        train: list[Bio] = list(bios.split("train"))
        dev: list[Bio] = list(bios.split("dev"))
        test: list[Bio] = list(context.evaluation_data(options).split("test"))
        titles = sorted({b.title for b in train})
        return TaskData(
            dataset=context.evaluation,
            train=bios_examples(train),
            dev=bios_examples(dev),
            evaluation=test,
            options=options,
            labels=tuple(titles),
            facts={
                "files": {k: str(v) for k, v in bios.files.items()},
                "train_bios": len(train),
                "dev_bios": len(dev),
                "test_bios": len(test),
                "titles": len(titles),
            },
            evaluation_sha256=lines_sha256((b.text, b.title, b.gender) for b in test),
        )

    def predict(self, model: TaskModel, data: TaskData[list[Bio]]) -> dict[str, np.ndarray]:
        from audit.extrinsic.kinds.classification import predict_proba

        bios = data.evaluation
        probs = predict_proba(model, [b.text for b in bios])
        return {"predicted": probs.argmax(axis=1).astype(np.int64)}

    def measure(
        self,
        predictions: Mapping[str, np.ndarray],
        data: TaskData[list[Bio]],
        resampling: Resampling,
    ) -> TaskValue:
        options: BiasBiosOptions = data.options
        labels = data.labels or ()
        result = tpr_gap_of_bios(
            data.evaluation,
            [labels[int(i)] for i in predictions["predicted"]],
            **resampling.keywords(),
            aggregate=options.aggregate,
            min_per_gender=options.min_per_gender,
        )
        return TaskValue.of(result, result.n_bios)

    def replicates(
        self,
        predictions: Mapping[str, np.ndarray],
        data: TaskData[list[Bio]],
        resampling: Resampling,
    ) -> ItemReplicates | None:
        """The value on resamples of the test bios within each (title, gender) cell, the
        same bios for every model; None when no occupation has a gap."""
        options: BiasBiosOptions = data.options
        labels = data.labels or ()
        bios = data.evaluation
        found = tpr_gap_replicates(
            [b.title for b in bios],
            [labels[int(i)] for i in predictions["predicted"]],
            [b.gender for b in bios],
            seed=resampling.seed,
            n_bootstrap=resampling.n_bootstrap,
            aggregate=options.aggregate,
            min_per_gender=options.min_per_gender,
        )
        if found is None:
            return None
        values, n_bios = found
        return ItemReplicates(values, n_bios, "bios")


TASK = BiasBiosTask()
