"""What the extrinsic section shows of a task fine-tuned with several seeds
(`finetune.seeds` k > 1, results.json 4.0 `extrinsic[].seeds`): the "Seeds" column (the
kept seeds' range and standard deviation, each seed's value, dev score and checkpoint in
its note), the checkpoint cell of such a record (each seed's step), the block naming the
seeds left out of a mean, and the captions' sentences. A record without seeds (one
fine-tuning, or a file written before 4.0) shows as before: the column and the sentences
appear only when some record has seeds. Page 1 shows nothing of this.
"""

from __future__ import annotations

from collections.abc import Sequence

from audit.report import cells
from audit.report.formatting import fmt_num, plural
from audit.report.model import Caveat, Cell, SummaryBlock
from audit.results import ExtrinsicRecord, ExtrinsicSeed

SEEDS_COLUMN = "Seeds"

TABLE_CAPTION = (
    " Seeds: a model fine-tuned with several seeds (`finetune.seeds`: s, s+1, ...) shows "
    "the mean over the seeds whose fine-tuning passed the dev check, its CI over the task's "
    "items (every seed resampled alike); this column gives the kept seeds' range and "
    "standard deviation, each seed in its note. Dev is then the kept seeds' mean dev score."
)

CURVE_CAPTION = (
    " A model fine-tuned with several seeds is drawn as the mean over its kept seeds at each step."
)

OCCUPATION_CAPTION = (
    " A model fine-tuned with several seeds shows its first kept seed's fine-tuning."
)


def any_seeds(records: Sequence[ExtrinsicRecord]) -> bool:
    """Whether some record is a mean over several seeds (the column and captions show)."""
    return any(r.seeds for r in records)


def seeds_cell(record: ExtrinsicRecord, digits: int) -> Cell:
    """The kept seeds' range with their standard deviation under it; one fine-tuning: '1'."""
    if not record.seeds:
        return cells.text("1", note="one fine-tuning seed")
    kept = [s for s in record.seeds if s.kept]
    span = f"{fmt_num(record.seed_min, digits)} to {fmt_num(record.seed_max, digits)}"
    sd = "" if record.seed_sd is None else f"sd {fmt_num(record.seed_sd, digits)}, "
    sub = f"{sd}{len(kept)} of {plural(len(record.seeds), 'seed')}"
    note = "; ".join(_seed_line(s, digits) for s in record.seeds)
    cell = Cell(kind="text", text=span, sub=sub, note=note)
    return cell.model_copy(update={"emphasis": "warn"}) if record.left_out_seeds else cell


def _seed_line(seed: ExtrinsicSeed, digits: int) -> str:
    check = seed.dev_check
    dev = "" if check is None else f", dev {fmt_num(check.value, 2)}"
    step = f", step {seed.chosen_checkpoint.step:,}"
    left = "" if seed.kept else " (left out: failed the dev check)"
    return f"seed {seed.seed}: {fmt_num(seed.value, digits)}{dev}{step}{left}"


def checkpoint_cell(record: ExtrinsicRecord) -> Cell:
    """Each seed's chosen step, of the steps run, and why."""
    steps = record.finetune.steps
    chosen = ", ".join(f"{s.chosen_checkpoint.step:,}" for s in record.seeds)
    note = "; ".join(f"seed {s.seed}: {s.chosen_checkpoint.reason}" for s in record.seeds)
    return cells.text(f"{chosen} of {steps:,}", note=note)


def left_out_block(
    records: Sequence[ExtrinsicRecord], titles: dict[str, str]
) -> list[SummaryBlock]:
    """The seeds left out of a model's mean because their fine-tuning failed the dev
    check (a model whose every seed failed is in the failed-fine-tuning block instead)."""
    items = [
        f"{r.model} ({titles.get(r.task, r.task)}): seed {s.seed}, dev "
        f"{s.dev_check.metric} {fmt_num(s.dev_check.value, 2)} < {s.dev_check.floor:.2f}"
        for r in records
        for s in r.left_out_seeds
        if s.dev_check is not None
    ]
    if not items:
        return []
    return [
        SummaryBlock(
            heading="Fine-tuning seeds left out.",
            text=f"{plural(len(items), 'fine-tuning seed')} did not learn the task; each "
            "model's value is the mean over its other seeds:",
            items=items,
        )
    ]


def seed_set_caveat(records: Sequence[ExtrinsicRecord]) -> Caveat | None:
    """When the models of a task are means over different sets of seeds (a seed that failed
    the dev check is left out of one model's mean but not of another's), and each seed's
    mean over the models that kept it: a seed that gives every model larger values makes
    the means of models that lost it look smaller."""
    by_task: dict[str, list[ExtrinsicRecord]] = {}
    for r in records:
        if r.seeds:
            by_task.setdefault(r.task, []).append(r)
    found: list[str] = []
    for task, mine in by_task.items():
        sets = {tuple(s.seed for s in r.seeds if s.kept) for r in mine}
        if len(sets) < 2:
            continue
        per_seed: dict[int, list[float]] = {}
        for r in mine:
            for s in r.seeds:
                if s.kept and s.value is not None:
                    per_seed.setdefault(s.seed, []).append(s.value)
        means = ", ".join(
            f"seed {seed}: {fmt_num(sum(v) / len(v), 4)} over {plural(len(v), 'model')}"
            for seed, v in sorted(per_seed.items())
        )
        short = [
            f"{r.model} ({', '.join(str(s.seed) for s in r.seeds if s.kept)})"
            for r in mine
            if len([s for s in r.seeds if s.kept]) < max(len(x) for x in sets)
        ]
        found.append(f"{task}: {', '.join(short)}; the seeds' means: {means}")
    if not found:
        return None
    return Caveat(
        id="seed-sets",
        title="Extrinsic means over different seeds",
        text="Some models' extrinsic values are means over fewer seeds than others', because "
        "a seed's fine-tuning failed the dev check and was left out. When a seed moves every "
        "model the same way (compare the seeds' means below), a model that lost it is not "
        "comparable with one that kept it: its mean is partly the seed, and the "
        "correlations and the downstream comparisons carry that in.",
        trigger="; ".join(found),
    )
