"""BBQ bias scores from a file of given predictions, to compare with published results.

    python -m audit.measures.bbq_check --data <BBQ folder> predictions.jsonl [--json]

`<BBQ folder>` is a copy of the release (the repository, or its `data/` folder, or a
folder of `<Category>.jsonl` files). `predictions.jsonl` holds one JSON object per line:
`{"category": "Age", "example_id": 0, "prediction": 2}`, the prediction being the index
(0, 1, 2) of the answer the model chose. Only the questions with a prediction count; the
output says, per category found, how many had one, the accuracies in ambiguous and
disambiguated contexts and the bias scores s_DIS and s_AMB, by the same code as the
measures (`audit.measures.bbq.bbq_values`). Multiply the bias scores by 100 to read them
on the scale of the paper's figures.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from audit.data.builtin.bbq import CATEGORIES, BbqOptions, file_name, found_categories, read_bbq
from audit.data.items import ChoiceItem
from audit.data.reading import read_jsonl
from audit.errors import AuditUserError, DataError
from audit.measures.bbq import KINDS, Answered, bbq_counts, bbq_values


@dataclass(frozen=True)
class CheckRow:
    """One category's (or 'all') values from the given predictions; None where undefined."""

    group: str
    n_questions: int
    n_predicted: int
    accuracy_ambig: float | None
    accuracy_disambig: float | None
    bias_ambig: float | None
    bias_disambig: float | None
    n_biased_disambig: int
    n_non_unknown_disambig: int
    n_biased_ambig: int
    n_non_unknown_ambig: int


def read_bbq_folder(folder: Path) -> tuple[list[ChoiceItem], tuple[str, ...]]:
    """Every question of the category files in a release folder, and the categories found."""
    base = folder / "data" if (folder / "data").is_dir() else folder
    files = {
        file_name(c): base / file_name(c) for c in CATEGORIES if (base / file_name(c)).is_file()
    }
    if not files:
        raise DataError(f"{base}: holds no BBQ category file (<Category>.jsonl)")
    parsed = read_bbq(files, BbqOptions())
    items = [item for item in parsed.items if isinstance(item, ChoiceItem)]
    return items, found_categories(files)


def read_predictions(path: Path) -> dict[str, int]:
    """Item id (`<category>-<example_id>`) -> predicted answer index, from a JSONL file."""
    out: dict[str, int] = {}
    for line, row in read_jsonl(path):
        where = f"{path}:{line}"
        missing = [k for k in ("category", "example_id", "prediction") if k not in row]
        if missing:
            raise DataError(
                f"{where}: missing {', '.join(missing)}; each line needs category, "
                "example_id and prediction (answer index 0, 1 or 2)"
            )
        prediction = row["prediction"]
        if not isinstance(prediction, int) or isinstance(prediction, bool):
            raise DataError(f"{where}: prediction is {prediction!r}; expected 0, 1 or 2")
        key = f"{row['category']}-{row['example_id']}"
        if key in out:
            raise DataError(f"{where}: a second prediction for {key}")
        out[key] = prediction
    return out


def check_predictions(
    items: Sequence[ChoiceItem], predictions: Mapping[str, int]
) -> list[CheckRow]:
    """The BBQ values of the predicted questions, overall ('all') and per category."""
    by_id = {item.item_id: item for item in items}
    unknown_ids = [key for key in predictions if key not in by_id]
    if unknown_ids:
        raise DataError(
            f"{len(unknown_ids)} prediction(s) name no question of the data, e.g. "
            f"{unknown_ids[0]!r} (keys are <category>-<example_id>)"
        )
    for key, prediction in predictions.items():
        if not 0 <= prediction < len(by_id[key].answers):
            raise DataError(f"prediction {prediction} for {key}: not an answer index")
    categories = list(dict.fromkeys(item.bias_type for item in items))
    rows = [_row("all", items, predictions)]
    rows += [_row(c, [i for i in items if i.bias_type == c], predictions) for c in categories]
    return rows


def _row(group: str, items: Sequence[ChoiceItem], predictions: Mapping[str, int]) -> CheckRow:
    chosen = [item for item in items if item.item_id in predictions]
    answered = Answered(
        np.array([predictions[i.item_id] for i in chosen], dtype=np.int64),
        np.array([i.label for i in chosen], dtype=np.int64),
        np.array([i.unknown for i in chosen], dtype=np.int64),
        np.array([-1 if i.biased is None else i.biased for i in chosen], dtype=np.int64),
        np.array([i.condition == "ambig" for i in chosen], dtype=bool),
    )
    values = {}
    for kind in KINDS:
        value = float(bbq_values(kind, answered)) if chosen else float("nan")
        values[kind] = value if np.isfinite(value) else None
    ambig = bbq_counts("bias_ambig", answered)
    disambig = bbq_counts("bias_disambig", answered)
    return CheckRow(
        group=group,
        n_questions=len(items),
        n_predicted=len(chosen),
        accuracy_ambig=values["accuracy_ambig"],
        accuracy_disambig=values["accuracy_disambig"],
        bias_ambig=values["bias_ambig"],
        bias_disambig=values["bias_disambig"],
        n_biased_disambig=disambig["n_biased"],
        n_non_unknown_disambig=disambig["n_non_unknown"],
        n_biased_ambig=ambig["n_biased"],
        n_non_unknown_ambig=ambig["n_non_unknown"],
    )


def format_rows(rows: Sequence[CheckRow], categories: Sequence[str]) -> str:
    """A plain table of the rows, after the categories found."""

    def show(value: float | None) -> str:
        return "-" if value is None else f"{value:.3f}"

    lines = [
        f"categories found ({len(categories)} of {len(CATEGORIES)}): {', '.join(categories)}",
        f"{'group':<20} {'predicted':>11} {'acc_amb':>8} {'acc_dis':>8} {'s_AMB':>7} {'s_DIS':>7}",
    ]
    for r in rows:
        lines.append(
            f"{r.group:<20} {f'{r.n_predicted}/{r.n_questions}':>11} "
            f"{show(r.accuracy_ambig):>8} {show(r.accuracy_disambig):>8} "
            f"{show(r.bias_ambig):>7} {show(r.bias_disambig):>7}"
        )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m audit.measures.bbq_check",
        description="BBQ accuracy and bias scores (s_DIS, s_AMB) of given predictions.",
    )
    parser.add_argument("predictions", type=Path, help="JSONL: category, example_id, prediction")
    parser.add_argument("--data", type=Path, required=True, help="the BBQ release folder")
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    args = parser.parse_args(argv)
    try:
        items, categories = read_bbq_folder(args.data)
        rows = check_predictions(items, read_predictions(args.predictions))
    except AuditUserError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps({"categories": list(categories), "rows": [asdict(r) for r in rows]}))
    else:
        print(format_rows(rows, categories))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
