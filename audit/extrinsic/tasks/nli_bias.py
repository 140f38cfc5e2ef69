"""NLI-bias as an extrinsic task: fine-tune a 3-way NLI classifier on MultiNLI or SNLI,
predict the gender-occupation pairs (generated from Dev et al.'s word lists, or a pairs
file), and measure the fraction called neutral (`audit.extrinsic.nli_bias`). Neither the
training data nor the word lists are shipped: the loaders' errors say what to download
and where to put it."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from audit.extrinsic.finetune.examples import nli_examples
from audit.extrinsic.nli_bias import (
    LABELS,
    NLI_FOLDER,
    NliPair,
    find_nli_training_file,
    generate_nli_templates,
    load_nli_pairs,
    load_nli_training,
    load_nli_word_lists,
    nli_bias_scores,
    nli_word_list_folder,
)
from audit.extrinsic.options import NliBiasOptions
from audit.extrinsic.tasks.base import TaskContext, TaskData, TaskValue
from audit.extrinsic.tasks.hashing import lines_sha256

if TYPE_CHECKING:
    from audit.extrinsic.finetune.heads import TaskModel

DATASET = "nli_bias"
#: Training pairs held out (seeded) as the dev set that checks the fine-tuning worked.
DEV_SHARE = 0.02
DEV_MAX = 2000


def _in_task_folder(data_dir: Path, value: str) -> Path:
    path = Path(value).expanduser()
    return path if path.is_absolute() else data_dir / NLI_FOLDER / path


def read_pairs(options: NliBiasOptions, context: TaskContext) -> list[NliPair]:
    """The pairs file, else the pairs generated from the word lists."""
    if options.pairs:
        return load_nli_pairs(_in_task_folder(context.data_dir, options.pairs))
    folder = (
        _in_task_folder(context.data_dir, options.word_lists)
        if options.word_lists
        else nli_word_list_folder(context.data_dir)
    )
    lists = load_nli_word_lists(
        folder,
        occupations_file=options.occupations_file
        and _in_task_folder(context.data_dir, options.occupations_file),
        gender_words_file=options.gender_words_file
        and _in_task_folder(context.data_dir, options.gender_words_file),
    )
    return generate_nli_templates(
        lists, style=options.style, max_premises=options.max_premises, seed=context.seed
    )


class NliBiasTask:
    """NLI-bias (Dev et al. 2020)."""

    def prepare(self, options: NliBiasOptions, context: TaskContext) -> TaskData:
        pairs = read_pairs(options, context)
        training_file = find_nli_training_file(context.data_dir, file=options.training_file)
        examples = nli_examples(load_nli_training(training_file))
        rng = np.random.default_rng(context.seed)
        n_dev = min(DEV_MAX, int(len(examples) * DEV_SHARE))
        held_out = set(rng.choice(len(examples), size=n_dev, replace=False).tolist())
        train = [e for i, e in enumerate(examples) if i not in held_out]
        dev = [e for i, e in enumerate(examples) if i in held_out]
        return TaskData(
            kind="classification",
            dataset=DATASET,
            train=train,
            dev=dev,
            evaluation=pairs,
            options=options,
            labels=LABELS,
            facts={
                "training_file": str(training_file),
                "train_pairs": len(train),
                "dev_pairs": len(dev),
                "bias_pairs": len(pairs),
            },
            evaluation_sha256=lines_sha256((p.premise, p.hypothesis) for p in pairs),
        )

    def predict(self, model: TaskModel, data: TaskData) -> dict[str, np.ndarray]:
        from audit.extrinsic.finetune.predict import predict_proba

        pairs: list[NliPair] = data.evaluation
        return {"probs": predict_proba(model, [(p.premise, p.hypothesis) for p in pairs])}

    def measure(
        self,
        predictions: Mapping[str, np.ndarray],
        data: TaskData,
        *,
        seed: int,
        n_bootstrap: int,
        alpha: float,
    ) -> TaskValue:
        options: NliBiasOptions = data.options
        result = nli_bias_scores(
            predictions["probs"],
            list(data.labels or LABELS),
            data.evaluation,
            seed=seed,
            n_bootstrap=n_bootstrap,
            alpha=alpha,
            thresholds=options.thresholds,
            aggregate=options.aggregate,
        )
        return TaskValue.of(result, result.n_pairs)


TASK = NliBiasTask()
