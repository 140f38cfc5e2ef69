"""STS-bias as an extrinsic task: fine-tune a regression head on STS-B train (dev Pearson
checks it worked), predict the similarity of every STS-bias pair's male and female
sentence pair, and measure the mean absolute gap (`audit.extrinsic.sts_bias`)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from audit.data.tasks.occupations import load_occupation_stats, read_occupation_stats
from audit.extrinsic.options import StsBiasOptions
from audit.extrinsic.sts_bias import (
    PCT_FEMALE_SOURCE,
    StsBiasPair,
    build_sts_bias_pairs,
    sts_bias_replicates,
    sts_bias_score,
)
from audit.extrinsic.tasks.base import ItemReplicates, TaskData, TaskValue
from audit.extrinsic.tasks.hashing import lines_sha256
from audit.variants.wordlists import load_gender_word_lists, load_word_list_folder

if TYPE_CHECKING:
    import numpy as np

    from audit.extrinsic.finetune.heads import TaskModel
    from audit.extrinsic.tasks.base import Resampling, TaskContext

#: STS-bias's evaluation inputs: its sentence pairs, and each occupation's percentage of
#: women (`pct_female`; None where the statistics have none).
StsBiasInputs = tuple[list[StsBiasPair], dict[str, float | None]]


def _path(data_dir: Path, value: str) -> Path:
    path = Path(value).expanduser()
    return path if path.is_absolute() else data_dir / path


def pairs_sha256(pairs: list[StsBiasPair]) -> str:
    return lines_sha256((*p.male, *p.female) for p in pairs)


class StsBiasTask:
    """STS-bias (Webster et al. 2020)."""

    def prepare(self, options: StsBiasOptions, context: TaskContext) -> TaskData[StsBiasInputs]:
        data_dir = context.data_dir
        sts_b = context.training_data(options)
        train, dev = sts_b.split("train"), sts_b.split("dev")
        test = context.evaluation_data(options).split("test")
        words = (
            load_word_list_folder(_path(data_dir, options.word_lists))
            if options.word_lists
            else load_gender_word_lists(data_dir)
        )
        stats = (
            read_occupation_stats(_path(data_dir, options.occupations_file))
            if options.occupations_file
            else load_occupation_stats(data_dir)
        )
        pairs = build_sts_bias_pairs(
            test,
            [s.occupation for s in stats],
            word_lists=words,
            max_templates=options.max_templates,
            unique_templates=options.unique_templates,
        )
        shares = {s.occupation: s.pct_female for s in stats}
        return TaskData(
            dataset=context.evaluation,
            train=train,
            dev=dev,
            evaluation=(pairs, shares),
            options=options,
            facts={
                "train_rows": len(train),
                "dev_rows": len(dev),
                "test_rows": len(test),
                "templates": len({p.template_id for p in pairs}),
                "occupations": len({p.occupation for p in pairs}),
                "pairs": len(pairs),
                "pct_female_source": PCT_FEMALE_SOURCE,
            },
            evaluation_sha256=pairs_sha256(pairs),
        )

    def predict(self, model: TaskModel, data: TaskData[StsBiasInputs]) -> dict[str, np.ndarray]:
        from audit.extrinsic.kinds.regression import predict_similarity

        pairs = data.evaluation[0]
        both = predict_similarity(model, [p.male for p in pairs] + [p.female for p in pairs])
        return {"male": both[: len(pairs)], "female": both[len(pairs) :]}

    def measure(
        self,
        predictions: Mapping[str, np.ndarray],
        data: TaskData[StsBiasInputs],
        resampling: Resampling,
    ) -> TaskValue:
        pairs, shares = data.evaluation
        result = sts_bias_score(
            pairs,
            predictions["male"],
            predictions["female"],
            **resampling.keywords(),
            pct_female=shares,
        )
        return TaskValue.of(result, result.n_pairs)

    def replicates(
        self,
        predictions: Mapping[str, np.ndarray],
        data: TaskData[StsBiasInputs],
        resampling: Resampling,
    ) -> ItemReplicates:
        """The value on resamples of whole templates: the draws of `measure`'s CI."""
        pairs = data.evaluation[0]
        values = sts_bias_replicates(
            pairs,
            predictions["male"],
            predictions["female"],
            seed=resampling.seed,
            n_bootstrap=resampling.n_bootstrap,
        )
        return ItemReplicates(values, len({p.template_id for p in pairs}), "templates")


TASK = StsBiasTask()
