"""BiasBios as an extrinsic task: fine-tune an occupation classifier on the train bios,
predict the test bios' titles, and measure the TPR gap between women and men averaged
over occupations (`audit.extrinsic.biasbios`). The data is not shipped: the loader's
error says what to download and where to put it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

import numpy as np

from audit.extrinsic.biasbios import (
    Bio,
    find_biasbios_files,
    load_biasbios,
    split_biasbios,
    tpr_gap_of_bios,
)
from audit.extrinsic.finetune.examples import bios_examples
from audit.extrinsic.options import BiasBiosOptions
from audit.extrinsic.tasks.base import TaskContext, TaskData, TaskValue
from audit.extrinsic.tasks.hashing import lines_sha256

if TYPE_CHECKING:
    from audit.extrinsic.finetune.heads import TaskModel

DATASET = "biasbios"


class BiasBiosTask:
    """TPR gap of an occupation classifier (De-Arteaga et al. 2019)."""

    def prepare(self, options: BiasBiosOptions, context: TaskContext) -> TaskData:
        files = find_biasbios_files(context.data_dir, file=options.file)

        def read(split: str) -> list[Bio]:
            return load_biasbios(
                files[split],
                text_field=options.text_field,
                title_field=options.title_field,
                gender_field=options.gender_field,
                gender_codes=options.gender_codes,
                text=options.text,
            )

        if "all" in files:
            splits = split_biasbios(
                read("all"), seed=context.seed, test=options.test_share, dev=options.dev_share
            )
        else:
            splits = {s: read(s) if s in files else [] for s in ("train", "dev", "test")}
        train, dev, test = splits["train"], splits["dev"], splits["test"]
        return TaskData(
            kind="classification",
            dataset=DATASET,
            train=bios_examples(train),
            dev=bios_examples(dev),
            evaluation=test,
            options=options,
            labels=tuple(sorted({b.title for b in train})),
            facts={
                "files": {k: str(v) for k, v in files.items()},
                "train_bios": len(train),
                "dev_bios": len(dev),
                "test_bios": len(test),
                "titles": len({b.title for b in train}),
            },
            evaluation_sha256=lines_sha256((b.text, b.title, b.gender) for b in test),
        )

    def predict(self, model: TaskModel, data: TaskData) -> dict[str, np.ndarray]:
        from audit.extrinsic.finetune.predict import predict_proba

        bios: list[Bio] = data.evaluation
        probs = predict_proba(model, [b.text for b in bios])
        return {"predicted": probs.argmax(axis=1).astype(np.int64)}

    def measure(
        self,
        predictions: Mapping[str, np.ndarray],
        data: TaskData,
        *,
        seed: int,
        n_bootstrap: int,
        alpha: float,
    ) -> TaskValue:
        options: BiasBiosOptions = data.options
        labels = data.labels or ()
        predicted = [labels[int(i)] for i in predictions["predicted"]]
        result = tpr_gap_of_bios(
            data.evaluation,
            predicted,
            seed=seed,
            n_bootstrap=n_bootstrap,
            alpha=alpha,
            aggregate=options.aggregate,
            min_per_gender=options.min_per_gender,
        )
        return TaskValue.of(result, result.n_bios)


TASK = BiasBiosTask()
