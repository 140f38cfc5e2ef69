"""The tables of one dataset's section: models side by side in every table."""

from __future__ import annotations

from typing import Any

from audit.cards import PluginCard
from audit.ids import PluginId
from audit.report import cells
from audit.report.cards import MeasureCards
from audit.report.formatting import fmt_num, group_name
from audit.report.index import MeasurementIndex, Unit, unique
from audit.report.model import Table
from audit.results import DatasetRecord

#: Most models side by side in a per-group table (each with a p-value column: fewer).
MAX_SIDE_BY_SIDE = 7
MAX_SIDE_BY_SIDE_WITH_P = 5


def _slug(*parts: str) -> str:
    return "-".join("".join(c if c.isalnum() else "-" for c in p.lower()) for p in parts)


def overview_table(index: MeasurementIndex, dataset: str) -> Table | None:
    """Models x measures on the whole dataset (group 'all'), each value with its CI."""
    units = index.units(dataset)
    measures = [m for m in index.measures(dataset) if _has_all(index, units, dataset, m)]
    if not units or not measures:
        return None
    maker = cells.TableMaker(
        id=_slug(dataset, "overview"),
        title=f"{dataset}: every measure on the whole dataset",
        caption="Value and 95% confidence interval per model; ideal values are in the "
        "column headings.",
        columns=["Model", "Scorer", "Items"] + [_heading(index.cards, m) for m in measures],
        key_columns=2,
    )
    maker.caption = maker.caption.replace("95%", f"{100 * (1 - index.result.alpha):g}%")
    for unit in units:
        found = [index.get(unit, dataset, m, "all") for m in measures]
        n = max((m.n for m in found if m is not None), default=None)
        row = [
            model_cell(index, unit.model),
            cells.text(index.cards.scorer_name(unit.scorer)),
            cells.count(n),
        ]
        for measure, m in zip(measures, found, strict=True):
            row.append(cells.estimate(m, measure_digits(index, dataset, measure)))
        maker.add(row)
    return maker.table()


def model_cell(index: MeasurementIndex, model: str) -> cells.Cell:
    """A model's name; a variant's with its method and base under it."""
    return cells.text(model, sub=index.variants.describe(model))


def part_words(units: list[Unit], number: int, total: int) -> str:
    """' (part 2 of 4: a, b to d)' for one of several parts of a side-by-side table, ''
    for the only part. Only the first part is listed in the contents."""
    if total <= 1:
        return ""
    models = unique(u.model for u in units)
    shown = ", ".join(models) if len(models) <= 3 else f"{models[0]}, {models[1]} to {models[-1]}"
    return f" (part {number} of {total}: {shown})"


def group_tables(
    index: MeasurementIndex, dataset: str, measure: PluginId, record: DatasetRecord | None
) -> list[Table]:
    """The per-group tables of a measure: one, or one per part when more models are
    measured than fit side by side (a base model heads each part of its variants)."""
    show_p = _shows_p(index, dataset, measure)
    size = MAX_SIDE_BY_SIDE_WITH_P if show_p else MAX_SIDE_BY_SIDE
    parts = index.unit_parts(dataset, size)
    return [
        t
        for i, units in enumerate(parts, 1)
        if (t := group_table(index, dataset, measure, record, units=units, part=(i, len(parts))))
        is not None
    ]


def _shows_p(index: MeasurementIndex, dataset: str, measure: PluginId) -> bool:
    return any(m.p_value is not None for m in index.of_dataset(dataset) if m.measure == measure)


def group_table(
    index: MeasurementIndex,
    dataset: str,
    measure: PluginId,
    record: DatasetRecord | None,
    *,
    units: list[Unit] | None = None,
    part: tuple[int, int] = (1, 1),
) -> Table | None:
    """One measure per bias type or target group (rows), models side by side (columns):
    every model of the dataset, or `units` as part `part` (number, total) of several."""
    groups = index.breakdown_groups(dataset, measure)
    units = index.units(dataset) if units is None else units
    if not groups or not units:
        return None
    kind = "target group" if record is not None and record.shape == "labelled" else "bias type"
    show_p = _shows_p(index, dataset, measure)
    columns = [kind.capitalize(), "Items"]
    subs = ["", ""]
    labels = ["", ""]
    for unit in units:
        columns.append(unit.label)
        subs.append(index.variants.describe(unit.model))
        labels.append("")
        if show_p:
            columns.append("p")
            subs.append("")
            # On a phone each p cell is named with its model: "p (bert-base)".
            labels.append(f"p ({unit.label})")
    number, total = part
    maker = cells.TableMaker(
        id=_slug(dataset, measure.label, "groups") + (f"-part{number}" if number > 1 else ""),
        title=f"{dataset}: {index.cards.title(measure)} per {kind}"
        + part_words(units, number, total),
        caption=f"{_ideal_text(index.cards, measure)} Value with its confidence interval per model"
        + ("; p: the measure's test (see its card)." if show_p else "."),
        columns=columns,
    )
    digits = measure_digits(index, dataset, measure)
    for group in groups:
        n_items = record.groups.get(group) if record is not None else None
        row = [cells.text(group_name(group)), cells.count(n_items)]
        for unit in units:
            m = index.get(unit, dataset, measure, group)
            row.append(cells.estimate(m, digits))
            if show_p:
                row.append(cells.pvalue(None if m is None else m.p_value))
        maker.add(row)
    table = maker.table().model_copy(
        update={"listed": number == 1, "detail": True, "cell_labels": labels}
    )
    if any(subs):
        table = table.model_copy(update={"column_subs": subs})
    return table


def diagnostic_tables(index: MeasurementIndex, dataset: str) -> list[Table]:
    """The own table of every `diagnostic` measure on `dataset`: the `normality_check`
    tests first, then the others, each in the order of the result's cards."""
    cards = index.cards.with_role("diagnostic")
    cards.sort(key=lambda card: not card.has_role("normality_check"))
    return [t for card in cards if (t := diagnostic_table(index, dataset, card)) is not None]


def diagnostic_table(index: MeasurementIndex, dataset: str, card: PluginCard) -> Table | None:
    """A diagnostic measure's numeric details per model, titled by its card. A
    `normality_check` test gets the item count and a verdict (p below the audit's alpha: not
    normal); any other measure its value with CI (e.g. the score gap, Liu 2024, Table 4)."""
    measures = index.measures_named(dataset, card.name)
    if not measures:
        return None
    test = card.has_role("normality_check")
    alpha = index.result.alpha
    found = [
        (unit, m)
        for measure in measures
        for unit in index.units(dataset)
        if (m := index.get(unit, dataset, measure, "all")) is not None
    ]
    keys: list[str] = []
    for _, m in found:
        keys += [k for k, v in m.details.items() if _is_number(v) and k not in keys]
    value_heading = card.table_value_heading or f"{card.short_title} (CI)"
    maker = cells.TableMaker(
        id=_slug(dataset, card.name),
        title=f"{dataset}: {card.table_title or card.title}",
        caption=(card.table_caption or card.direction).replace("{alpha}", f"{alpha:g}"),
        columns=(
            ["Model", "Scorer", "Items", *keys, "Verdict"]
            if test
            else ["Model", "Scorer", *keys, value_heading]
        ),
        key_columns=2,
    )
    for unit, m in found:
        row = [model_cell(index, unit.model), cells.text(index.cards.scorer_name(unit.scorer))]
        if test:
            row.append(cells.count(m.n))
        row += [_detail_cell(k, m.details.get(k)) for k in keys]
        if not test:
            row.append(cells.estimate(m, 3))
        elif m.status != "ok" or m.p_value is None:
            row.append(cells.verdict("undefined", "warn", note=m.note))
        elif m.p_value < alpha:
            row.append(cells.verdict("not normal", "warn"))
        else:
            row.append(cells.verdict("normal", "good"))
        maker.add(row)
    return maker.table().model_copy(update={"detail": True})


def _detail_cell(key: str, value: Any) -> cells.Cell:
    if isinstance(value, bool):
        return cells.text("yes" if value else "no")
    if isinstance(value, int):
        return cells.count(value)
    if value is None:
        return cells.number(None)
    if key == "p" or key.startswith("p_") or key.endswith("_p"):
        return cells.pvalue(float(value))
    return cells.number(float(value), 3)


def _is_number(value: Any) -> bool:
    return isinstance(value, bool | int | float) or value is None


def _has_all(index: MeasurementIndex, units: list[Unit], dataset: str, measure: PluginId) -> bool:
    return any(index.get(u, dataset, measure, "all") is not None for u in units)


def measure_digits(index: MeasurementIndex, dataset: str, measure: PluginId) -> int:
    """Decimals for the values of `measure` on `dataset` (`cells.digits_for` of them all)."""
    values = [m.value for m in index.of_dataset(dataset) if m.measure == measure]
    return cells.digits_for(values)


def _heading(cards: MeasureCards, measure: PluginId) -> str:
    ideal = cards.ideal_value(measure)
    title = cards.title(measure)
    return (
        title if ideal is None else f"{title} (ideal {fmt_num(ideal, 0 if ideal % 1 == 0 else 2)})"
    )


def _ideal_text(cards: MeasureCards, measure: PluginId) -> str:
    ideal = cards.ideal_value(measure)
    if ideal is None:
        return ""
    return f"Ideal (unbiased) value: {fmt_num(ideal, 0 if ideal % 1 == 0 else 2)}."


def slug(*parts: str) -> str:
    """An HTML id from parts: lower case, non-alphanumerics as '-'."""
    return _slug(*parts)
