"""Every figure on page 1 against the results.json it was written from (issue 29 item 5).

Page 1 is what a compliance reviewer signs, so its words must follow the numbers. This
module reads the texts of a built report's page 1 (`ReportModel.summary.page_one` and the
verdict line), finds every printed figure in them, and checks it two ways:

1. **Structured checks** (`check_page`) parse the sentences that carry a claim and test
   each figure against the record the sentence speaks of: a comparison's move against its
   `ComparisonRecord` and the list's order by |difference|; the counts of distinct
   comparisons by corrected verdict; the smallest detectable change; the intrinsic x
   extrinsic range, strongest pair, count of significant pairs and detection limit (and
   that an underpowered study never says the measures "do not predict"); the
   meta-evaluation's rank 1, the set that ties with it and its ranks, and how many series
   follow r; the largest language-modelling change by its absolute size, with its sign;
   plus the smaller sentences that count records (gates, headlines, SEAT, robustness,
   correlation between measures, extrinsic tasks, caveats). A study that results.json
   has but whose sentence the check cannot find is a problem too, so no check passes by
   matching nothing. A figure a structured check confirmed is *vouched for*.
2. **The generic check**: every figure not vouched for must be traceable to results.json
   at the precision shown: a number in the file (its JSON walked, as this version reads
   it), 100 times a number for a percentage, a count its records give (a list's length,
   how many records of a list share one or two field values, a field's distinct values,
   the sum of an integer field), or one of the few derived values in
   `NumberIndex._derived` (pair counts as shares of their pairs, a perplexity ratio as a
   change). `WHITELIST` holds the figures that are legitimately not in the file.

`check_page` returns `Problem`s, each naming where on page 1, the sentence and the figure.
"""

from __future__ import annotations

import math
import re
from bisect import bisect_left
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, replace
from itertools import combinations, pairwise
from typing import Any

from audit.gates import gate_exit_code
from audit.report.cards import MeasureCards
from audit.report.model import ReportModel, SummaryBlock, Table
from audit.results import (
    AuditResult,
    ComparisonRecord,
    CorrelationRecord,
    CorrelationWithRatio,
    DetectionLimit,
    MetaEvaluation,
)
from audit.results.studies import DOWNSTREAM_FAMILY

# -- page 1 as texts ---------------------------------------------------------------------


@dataclass(frozen=True)
class Text:
    """One text of page 1: where it is ('findings[3].items[0]'), the heading of its block
    and the text itself."""

    where: str
    heading: str
    text: str


@dataclass(frozen=True)
class Block:
    """A paragraph of page 1 (a gate or a finding): its heading, text and items."""

    where: str
    heading: Text
    text: Text
    items: list[Text]

    @property
    def texts(self) -> list[Text]:
        return [self.heading, self.text, *self.items]


@dataclass(frozen=True)
class Page:
    """Page 1 as the checks read it."""

    title: Text
    description: Text
    facts: list[Text]
    models: list[Text]
    captions: list[Text]
    verdict: Text
    gates_line: Text
    gates: list[Block]
    gate_rows: list[tuple[int, Text]]
    findings: list[Block]
    caveats: Text

    @property
    def texts(self) -> list[Text]:
        out = [self.title, self.description, *self.facts, *self.models, *self.captions]
        out += [self.verdict, self.gates_line]
        out += [t for b in [*self.gates, *self.findings] for t in b.texts]
        out += [t for _, t in self.gate_rows]
        return [*out, self.caveats]

    def blocks(self, heading: str) -> list[Block]:
        """The findings whose heading contains `heading` (case-insensitive)."""
        return [b for b in self.findings if heading.lower() in b.heading.text.lower()]


def _block(where: str, b: SummaryBlock) -> Block:
    return Block(
        where=where,
        heading=Text(f"{where}.heading", b.heading, b.heading),
        text=Text(f"{where}.text", b.heading, b.text),
        items=[Text(f"{where}.items[{j}]", b.heading, i) for j, i in enumerate(b.items)],
    )


#: What a gate table's value cell adds after a worst possible value.
WORST = " (the worst possible value)"


def _gate_rows(table: Table | None) -> list[tuple[int, Text]]:
    """Each row of page 1's gate table as (gate number, 'VERDICT check value [lo, hi]'),
    the form a listed check had before the table."""
    if table is None:
        return []
    rows = []
    for j, row in enumerate(table.rows):
        gate, check, value, _, verdict, _ = (c.text for c in row)
        text = f"{verdict} {check} {value.removesuffix(WORST)}"
        rows.append((int(gate), Text(f"gate_table.rows[{j}]", f"Gate {gate}", text)))
    return rows


def read_page(report: ReportModel) -> Page:
    """Every text of page 1 (the template `report.html.j2` lays out these fields)."""
    summary = report.summary
    page = summary.page_one
    if page is None:
        raise ValueError("the report has no page 1")
    gates = report.gates
    return Page(
        title=Text("title", "", report.cover.audit_name),
        description=Text("description", "", report.cover.description),
        facts=[Text(f"facts[{f.label}]", f.label, f.value) for f in page.facts],
        models=[Text(f"models[{m.label}]", m.label, m.value) for m in page.models],
        captions=[
            Text("models caption", "Models", page.models_caption),
            Text("gates caption", "Release gates", page.gates_caption),
        ],
        verdict=Text("verdict", "Verdict", summary.verdict_text),
        gates_line=Text(
            "gates line",
            "Gates",
            f"{gates.n_pass} pass · {gates.n_fail} fail · {gates.n_inconclusive} inconclusive"
            if gates.overall != "NONE"
            else "",
        ),
        gates=[_block(f"gates[{i}]", b) for i, b in enumerate(page.gates)],
        gate_rows=_gate_rows(page.gate_table),
        findings=[_block(f"findings[{i}]", b) for i, b in enumerate(page.findings)],
        caveats=Text("caveats", "Caveats", page.caveat_text),
    )


# -- figures -----------------------------------------------------------------------------

_TOKEN = re.compile(
    r"(?P<below><\s?(?=0\.001(?![0-9])))?(?P<sign>[+\-−])?(?P<int>[0-9]+(?:,[0-9]{3})*)(?P<frac>\.[0-9]+)?"
    r"(?P<exp>e[+\-][0-9]+)?(?P<pct>%)?"
)
_WORD = re.compile(r"[A-Za-z0-9_]")


@dataclass(frozen=True)
class Figure:
    """A number as page 1 prints it: '+7.3', '1,508', '55.6%', '< 0.001', '1.15e-06'."""

    token: str
    start: int
    end: int
    value: float
    decimals: int
    scientific: bool = False
    percent: bool = False
    below: bool = False
    signed: bool = False
    in_estimate: bool = False

    def shows(self, value: float | None, *, share: bool = False) -> bool:
        """Whether this figure is `value` at the precision it is printed with (`share`:
        the figure is a percentage of the share `value`)."""
        if value is None or not math.isfinite(value):
            return False
        return self.close(100 * value if share else value)

    def close(self, value: float) -> bool:
        """Whether `value`, on the printed scale, prints as this figure."""
        if self.below:
            return 0 <= value < self.value
        if self.scientific:
            digits = len(self.token.split("e")[0].lstrip("+-−").replace(".", "")) - 1
            return f"{value:.{digits}e}" == f"{self.value:.{digits}e}"
        return abs(value - self.value) <= self.tolerance

    @property
    def tolerance(self) -> float:
        """Half a unit of the last decimal shown (a rounding boundary included)."""
        return 0.5 * 10.0**-self.decimals * (1 + 1e-9) + 1e-12


def _figure(text: str, m: re.Match[str]) -> Figure | None:
    """The match as a figure, or None when it is part of a word, an id or a version."""
    start, end = m.span()
    lead = m.start("sign") if m.group("sign") else m.start("int")
    before = text[lead - 1] if lead > 0 else " "
    if _WORD.match(before) or before == ".":
        return None
    if end < len(text) and _WORD.match(text[end]):
        return None
    if text[end : end + 1] == "." and _WORD.match(text[end + 1 : end + 2] or " "):
        return None  # '0.1.0', a version
    number = m.group("int").replace(",", "") + (m.group("frac") or "") + (m.group("exp") or "")
    sign = m.group("sign") or ""
    value = float(number) * (-1 if sign in "-−" and sign else 1)
    frac = m.group("frac")
    return Figure(
        token=text[start:end],
        start=start,
        end=end,
        value=value,
        decimals=len(frac) - 1 if frac else 0,
        scientific=bool(m.group("exp")),
        percent=bool(m.group("pct")),
        below=bool(m.group("below")),
        signed=bool(sign),
    )


_ESTIMATE = re.compile(r"(\S+) \[(\S+), (\S+)\]")


def figures(text: str, names: re.Pattern[str] | None = None) -> list[Figure]:
    """Every figure in `text`, left to right; ids from results.json that contain digits
    ('minilm-bc-r0.5', 'STS-bias[max_templates=30]') are masked first (`names`)."""
    masked = text if names is None else names.sub(lambda m: "#" * len(m.group()), text)
    found = [f for m in _TOKEN.finditer(masked) if (f := _figure(masked, m)) is not None]
    # a value with its interval, 'v [lo, hi]': a float printed without decimals there
    estimates = {
        pos for m in _ESTIMATE.finditer(masked) for pos in (m.start(1), m.start(2), m.start(3))
    }
    return [replace(f, in_estimate=True) if f.start in estimates else f for f in found]


# -- problems and what the structured checks vouched for -------------------------------


@dataclass(frozen=True)
class Problem:
    """A figure (or a sentence) of page 1 that results.json does not bear out."""

    where: str
    sentence: str
    figure: str
    why: str

    def __str__(self) -> str:
        shown = f" {self.figure!r}" if self.figure else ""
        return f"{self.where}:{shown} in {self.sentence!r}: {self.why}"


_BOUNDARY = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9(|])")


def sentence_at(text: str, pos: int) -> str:
    """The sentence of `text` that holds position `pos`."""
    start = 0
    for m in _BOUNDARY.finditer(text):
        if m.start() >= pos:
            return text[start : m.start()]
        start = m.end()
    return text[start:]


@dataclass
class Findings:
    """What the checks found: problems, and the figures they confirmed."""

    names: re.Pattern[str] | None
    problems: list[Problem] = field(default_factory=list)
    vouched: set[tuple[str, int]] = field(default_factory=set)
    _figures: dict[str, list[Figure]] = field(default_factory=dict)

    def figures(self, text: Text) -> list[Figure]:
        if text.where not in self._figures:
            self._figures[text.where] = figures(text.text, self.names)
        return self._figures[text.where]

    def figure(self, text: Text, pos: int) -> Figure | None:
        return next((f for f in self.figures(text) if f.start == pos), None)

    def problem(self, text: Text, pos: int, figure: str, why: str) -> None:
        self.problems.append(Problem(text.where, sentence_at(text.text, pos), figure, why))

    def missing(self, where: str, why: str) -> None:
        """A sentence results.json calls for that page 1 does not have."""
        self.problems.append(Problem(where, "", "", why))

    def vouch_all(self, text: Text) -> None:
        self.vouched |= {(text.where, f.start) for f in self.figures(text)}

    def expect(
        self,
        text: Text,
        m: re.Match[str],
        group: str,
        value: float | None,
        what: str,
        *,
        share: bool = False,
        signed: bool = False,
        absolute: bool = False,
    ) -> bool:
        """The figure of group `group` of `m` shows `value` (`signed`: with its sign
        printed; `absolute`: |value|); a problem naming the figure when it does not."""
        pos = m.start(group)
        if pos < 0:
            self.problem(text, m.start(), "", f"{what}: no figure where one is expected")
            return False
        figure = self.figure(text, pos)
        token = m.group(group)
        if figure is None:
            self.problem(text, pos, token, f"{what}: not read as a figure")
            return False
        shown = abs(value) if absolute and value is not None else value
        ok = figure.shows(shown, share=share)
        if ok and signed and shown is not None:
            zero = figure.shows(0.0, share=share)
            ok = zero or (figure.signed and (figure.value < 0) == (shown < 0))
        if not ok:
            self.problem(text, pos, token, f"{what}: results.json has {shown!r}")
            return False
        self.vouched.add((text.where, pos))
        return True

    def expect_count(self, text: Text, m: re.Match[str], group: str, count: int, what: str) -> bool:
        return self.expect(text, m, group, float(count), what)


# -- the generic check: an index of the file's numbers -----------------------------------


def _flat(record: dict[str, Any], prefix: str = "") -> Iterator[tuple[str, Any]]:
    """A record's scalar fields with dotted keys (a PluginId by its label)."""
    for key, value in record.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict):
            if set(value) >= {"name", "options", "label"}:
                yield name, value["label"]
            elif prefix.count(".") < 2:
                yield from _flat(value, name + ".")
        elif isinstance(value, str | bool) or value is None:
            yield name, value
        elif isinstance(value, list):
            yield name + "#len", len(value)
        else:
            yield name + "#set", True


class NumberIndex:
    """The numbers a results.json holds or its records count, built once per file."""

    def __init__(self, result: AuditResult) -> None:
        data = result.model_dump(mode="json")
        self.numbers: list[float] = []
        self.counts: set[int] = set()
        self.strings: set[str] = set()
        self._walk(data)
        shares, counts = self._derived(result)
        self.counts |= counts | {int(v) for v in self.numbers if float(v).is_integer()}
        self.values = sorted(self.numbers)
        self.percents = sorted(100 * v for v in [*self.numbers, *shares])
        self.names = name_pattern(self.strings)

    def _walk(self, node: Any) -> None:
        if isinstance(node, bool):
            return
        if isinstance(node, int | float):
            self.numbers.append(float(node))
        elif isinstance(node, str):
            self.strings.add(node)
        elif isinstance(node, dict):
            for value in node.values():
                self._walk(value)
        elif isinstance(node, list):
            self.counts.add(len(node))
            for value in node:
                self._walk(value)
            records = [r for r in node if isinstance(r, dict)]
            if records:
                self._count(records)

    def _count(self, records: list[dict[str, Any]]) -> None:
        """How many records share one field value, or two; distinct values of a field;
        the sum of an integer field."""
        ones: Counter[tuple[str, Any]] = Counter()
        twos: Counter[tuple[tuple[str, Any], tuple[str, Any]]] = Counter()
        distinct: dict[str, set[Any]] = {}
        sums: Counter[str] = Counter()
        for record in records:
            fields = sorted(dict(_flat(record)).items(), key=lambda kv: kv[0])
            ones.update(fields)
            twos.update(combinations(fields, 2))
            for key, value in fields:
                distinct.setdefault(key, set()).add(value)
            for key, value in record.items():
                if isinstance(value, int) and not isinstance(value, bool):
                    sums[key] += value
        self.counts |= set(ones.values()) | set(twos.values()) | set(sums.values())
        self.counts |= {len(v) for v in distinct.values()}

    @staticmethod
    def _derived(result: AuditResult) -> tuple[list[float], set[int]]:
        """Values page 1 derives from the file's numbers: (shares, counts).

        - a headline's pair counts as shares of their pairs (`st_preferred`,
          `at_preferred`, `ties` over the sign test's `trials` or the measurement's `n`);
        - a safety score's statement pairs, `n_harmful` x `n_benign`;
        - a precision check's flipped verdicts as a share of its verdicts;
        - a perplexity ratio as a change, ratio - 1 (page 1: '−65%').
        """
        shares: list[float] = []
        counts: set[int] = set()
        for m in result.measurements:
            d = m.details
            interval = d.get("interval") if isinstance(d.get("interval"), dict) else {}
            trials = [n for n in (m.n, (interval or {}).get("trials")) if isinstance(n, int) and n]
            for key in ("st_preferred", "at_preferred", "ties"):
                if isinstance(d.get(key), int):
                    shares += [d[key] / n for n in trials]
            if isinstance(d.get("n_harmful"), int) and isinstance(d.get("n_benign"), int):
                counts.add(d["n_harmful"] * d["n_benign"])
        shares += [
            c.flipped / c.verdicts for c in result.precision_checks if c.flipped and c.verdicts
        ]
        if result.lm_quality is not None:
            shares += [r.ratio - 1 for r in result.lm_quality.records]
        return shares, counts

    @staticmethod
    def _near(values: list[float], figure: Figure, sign: float) -> bool:
        """Whether some value (on the printed scale) prints as `figure` times `sign`."""
        shown = replace(figure, value=sign * figure.value)
        i = bisect_left(values, shown.value - 2 * shown.tolerance)
        while i < len(values) and values[i] <= shown.value + 2 * shown.tolerance:
            if shown.close(values[i]):
                return True
            i += 1
        return False

    def traces(self, figure: Figure, *, absolute: bool = False) -> bool:
        """Whether `figure` is a number of the file at the precision shown."""
        signs = (1.0, -1.0) if absolute and not figure.signed else (1.0,)
        if figure.below:
            return any(figure.close(v) for v in self.numbers)
        if figure.scientific:
            return any(figure.close(s * v) for v in self.numbers if v for s in signs)
        if figure.percent:
            return any(self._near(self.percents, figure, s) for s in signs)
        if figure.decimals == 0 and not figure.in_estimate:
            return any(
                figure.value.is_integer() and s * int(figure.value) in self.counts for s in signs
            )
        return any(self._near(self.values, figure, s) for s in signs)


#: Figures that are legitimately not in results.json: (pattern, why). The pattern's groups
#: are the figures it allows; the other texts not in the file (the date, the spec's hash and
#: path, the tool's version, fingerprints, gate ordinals, the exit code, the caveat counts)
#: are checked against their source by the structured checks instead.
WHITELIST: list[tuple[re.Pattern[str], str]] = [
    (
        re.compile(r"(50%|0\.5) would be no preference"),
        "the no-preference point of a pair or statement preference: the measure's definition",
    ),
    (
        re.compile(r"[Ee]xact sign test against (50%)"),
        "the sign test's null hypothesis, by definition",
    ),
    (
        re.compile(
            r"whole interval lies (?:above|below) (50|0\.5)[:.]|interval includes (50|0\.5):"
        ),
        "a headline's lean is judged against the no-preference point, 50 (or 0.5 for a share)",
    ),
    (
        re.compile(r"\((0) is no differential association\)"),
        "SEAT's effect size for no association, by definition",
    ),
    (
        re.compile(r"(?:before|results_version) (2\.3|3\.0|4\.0)\b"),
        "the results.json versions that brought corrected p-values (2.3, 3.0) and power (4.0): "
        "the format's history, not a result",
    ),
]

_ABSOLUTE = re.compile(r"\|[^|\s]{1,4}\|[^;]*$")


def generic_check(page: Page, index: NumberIndex, found: Findings) -> None:
    """Every figure on page 1 that no structured check vouched for is traceable to
    results.json (`NumberIndex.traces`), or whitelisted."""
    for text in page.texts:
        allowed = {
            m.start(g)
            for pattern, _why in WHITELIST
            for m in pattern.finditer(text.text)
            for g in range(1, (pattern.groups or 0) + 1)
            if m.start(g) >= 0
        }
        for figure in found.figures(text):
            if (text.where, figure.start) in found.vouched or figure.start in allowed:
                continue
            absolute = bool(_ABSOLUTE.search(text.text[: figure.start]))
            if not index.traces(figure, absolute=absolute):
                found.problem(
                    text,
                    figure.start,
                    figure.token,
                    "not in results.json at the precision shown (no number, share or count "
                    "of the file)",
                )


# -- the structured checks ---------------------------------------------------------------

#: A figure in a pattern: '1,508', '-0.55', '+7.3', '−65%', '1.15e-06'.
NUM = r"[+\-−]?[0-9]+(?:,[0-9]{3})*(?:\.[0-9]+)?(?:e[+\-][0-9]+)?%?"
#: A p-value as page 1 prints it: '0.006', '< 0.001', '1.15e-06'.
PV = rf"(?:< )?{NUM}"

VERDICTS = (
    "closer to the ideal",
    "further from the ideal",
    "changed",
    "borderline",
    "no detectable change",
    "undefined",
)
MOVED = frozenset({"closer to the ideal", "further from the ideal", "changed"})
CORRECTIONS = {"holm": "Holm", "bh": "Benjamini-Hochberg"}

#: Words that conclude an absence of association, which no correlation test shows (an
#: underpowered one least of all): page 1 never says them ('no evidence that ... do not
#: predict' is not such a conclusion).
FORBIDDEN = re.compile(r"\b(?:do|does) not predict\b|\bno correlation\b|\buncorrelated\b", re.I)
NOT_A_CONCLUSION = re.compile(r"no evidence that [^.;]*?\b(?:do|does) not predict\b", re.I)


@dataclass
class Context:
    result: AuditResult
    report: ReportModel
    page: Page
    cards: MeasureCards
    found: Findings

    @property
    def alpha(self) -> float:
        return self.result.alpha


def _search(pattern: str, text: Text, pos: int = 0) -> re.Match[str] | None:
    return re.compile(pattern).search(text.text, pos)


def check_facts(c: Context) -> None:
    """Title, description, owner, date, spec path and sha256, tool version and seed, each
    model's fingerprint: equal to the file's, whatever digits they hold."""
    audit, page, found = c.result.audit, c.page, c.found
    expected = {
        "Owner": audit.owner or "not stated in the spec",
        "Spec": audit.spec_path,
        "Spec sha256": audit.spec_sha256,
        "Tool": f"bias-audit {c.result.tool_version}, seed {audit.seed}",
    }
    for text in [page.title, page.description, *page.facts]:
        if text.where == "title":
            want = audit.name
        elif text.where == "description":
            want = audit.description
        elif text.heading == "Date":
            stamp = c.result.created_at
            want = f"{stamp:%Y-%m-%d %H:%M}"
            if not text.text.startswith(want):
                found.problem(text, 0, text.text, f"the run's time is {stamp.isoformat()}")
            found.vouch_all(text)
            continue
        else:
            want = expected.get(text.heading, text.text)
        if text.text != want:
            found.problem(text, 0, text.text, f"results.json has {want!r}")
        found.vouch_all(text)
    ids = [m.id for m in c.result.models]
    if [t.heading for t in page.models] != ids:
        found.missing("models", f"page 1 lists {[t.heading for t in page.models]}, not {ids}")
    shown = {len(t.text) for t in page.models}
    for text, model in zip(page.models, c.result.models, strict=False):
        if text.text != model.fingerprint[: len(text.text)] or len(shown) != 1:
            found.problem(text, 0, text.text, f"the fingerprint is {model.fingerprint}")
        found.vouch_all(text)
    caption = page.captions[0]
    if (m := _search(rf"first (?P<n>{NUM}) hex digits", caption)) and shown:
        found.expect_count(caption, m, "n", max(shown), "hex digits shown of each fingerprint")


def _overall(verdicts: Sequence[str]) -> str:
    kinds = set(verdicts)
    return "FAIL" if "FAIL" in kinds else "INCONCLUSIVE" if "INCONCLUSIVE" in kinds else "PASS"


def check_gates(c: Context) -> None:
    """The verdict line's tally and exit code; per gate its number and overall verdict,
    its tally, each check of the gate table against a verdict record of that gate, and
    the checks 'N more not in the table' counts."""
    verdicts = list(c.result.gate_verdicts)
    found = c.found
    tally: Counter[str] = Counter(v.verdict for v in verdicts)
    text = c.page.verdict
    pattern = (
        rf"Of (?P<n>{NUM}) gate checks?, (?P<PASS>{NUM}) pass, (?P<FAIL>{NUM}) fail and "
        rf"(?P<INCONCLUSIVE>{NUM}) (?:is|are) inconclusive; audit run exits with code "
        rf"(?P<code>{NUM}) \((?P<zero>{NUM}) only"
    )
    if verdicts:
        m = _search(pattern, text)
        if m is None:
            found.missing(text.where, "no tally of the gate checks")
        else:
            found.expect_count(text, m, "n", len(verdicts), "gate checks")
            for kind in ("PASS", "FAIL", "INCONCLUSIVE"):
                found.expect_count(text, m, kind, tally[kind], f"{kind} checks")
            found.expect_count(text, m, "code", gate_exit_code(verdicts), "the exit code")
            found.expect_count(text, m, "zero", 0, "the exit code of a pass")
        line = c.page.gates_line
        m = _search(
            rf"(?P<PASS>{NUM}) pass · (?P<FAIL>{NUM}) fail · (?P<INCONCLUSIVE>{NUM}) inconclusive",
            line,
        )
        if m is not None:
            for kind in ("PASS", "FAIL", "INCONCLUSIVE"):
                found.expect_count(line, m, kind, tally[kind], f"{kind} checks")
    gates = list(dict.fromkeys(v.gate_index for v in verdicts))
    if len(c.page.gates) != len(gates):
        found.missing("gates", f"{len(gates)} gates were judged, page 1 has {len(c.page.gates)}")
    for block, gate in zip(c.page.gates, gates, strict=False):
        head = _search(rf"Gate (?P<n>{NUM}): (?P<verdict>[A-Z]+)\.", block.heading)
        if head is None:
            found.missing(block.where, "a gate block without 'Gate N: VERDICT.'")
            continue
        found.expect_count(block.heading, head, "n", gate + 1, "the gate's number in the spec")
        mine = [v for v in verdicts if v.gate_index == gate]
        if head.group("verdict") != _overall([v.verdict for v in mine]):
            found.problem(block.heading, head.start("verdict"), "", "not the gate's verdict")
        band = _search(
            rf"(?:between (?P<low>{NUM}) and (?P<high>{NUM})|at least (?P<least>{NUM})|at most "
            rf"(?P<most>{NUM}))",
            block.text,
        )
        if band is None:
            found.missing(block.text.where, "the gate's band is not stated")
        else:
            for group, value in (
                ("low", mine[0].low),
                ("high", mine[0].high),
                ("least", mine[0].low),
                ("most", mine[0].high),
            ):
                if band.group(group) is not None:
                    found.expect(block.text, band, group, value, "the gate's band")
        counts: Counter[str] = Counter(v.verdict for v in mine)
        m = _search(
            rf"(?P<n>{NUM}) checks?: (?P<PASS>{NUM}) pass, (?P<FAIL>{NUM}) fail, "
            rf"(?P<INCONCLUSIVE>{NUM}) inconclusive",
            block.text,
        )
        if m is not None:
            found.expect_count(block.text, m, "n", len(mine), "checks of the gate")
            for kind in ("PASS", "FAIL", "INCONCLUSIVE"):
                found.expect_count(block.text, m, kind, counts[kind], f"{kind} checks of the gate")
        elif len(mine) > 1:
            found.missing(block.text.where, "no tally of the gate's checks")
        listed: Counter[str] = Counter()
        rows = [row for number, row in c.page.gate_rows if number == gate + 1]
        for item in [*rows, *block.items]:
            check = _search(r"^(?P<verdict>PASS|FAIL|INCONCLUSIVE) ", item)
            if check is not None:
                listed[check.group("verdict")] += 1
                _gate_check(c, item, [v for v in mine if v.verdict == check.group("verdict")])
                continue
            more = _search(rf"^(?P<n>{NUM}) more not in the table: ", item)
            if more is None:
                found.missing(item.where, "neither a check nor 'N more not in the table'")
                continue
            found.expect_count(
                item, more, "n", len(mine) - sum(listed.values()), "checks not listed"
            )
            for m in re.finditer(rf"(?P<n>{NUM}) (?P<kind>PASS|FAIL|INCONCLUSIVE)", item.text):
                kind = m.group("kind")
                found.expect_count(item, m, "n", counts[kind] - listed[kind], f"{kind} not listed")


def _gate_check(c: Context, item: Text, candidates: list[Any]) -> None:
    """A listed check 'FAIL gpt2 · Jewish 0.278 [0.218, 0.338]' is a verdict record of its
    gate with that verdict, value and interval."""
    m = _search(rf"(?P<v>{NUM}) \[(?P<lo>{NUM}), (?P<hi>{NUM})\]$", item)
    if m is None:
        return  # 'no value (...)': nothing to compare
    groups = ("v", "lo", "hi")
    figures = [c.found.figure(item, m.start(g)) for g in groups]

    def agree(v: Any) -> list[bool]:
        values = (v.value, v.ci_low, v.ci_high)
        return [f is not None and f.shows(x) for f, x in zip(figures, values, strict=True)]

    if not candidates:
        c.found.problem(item, 0, "", "no check of this gate has this verdict")
        return
    best = max(candidates, key=lambda v: sum(agree(v)))
    for group, ok in zip(groups, agree(best), strict=True):
        if ok:
            c.found.vouched.add((item.where, m.start(group)))
        else:
            nearest = f"{best.value} [{best.ci_low}, {best.ci_high}]"
            why = f"no check of this gate has it (nearest: {nearest})"
            c.found.problem(item, m.start(group), m.group(group), why)


def check_caveats(c: Context) -> None:
    """The caveat counts are the Caveats section's (the report's, not results.json's)."""
    caveats = c.report.caveats
    text = c.page.caveats
    if not caveats:
        if "No caveat" not in text.text:
            c.found.missing(text.where, "no caveat is triggered, and page 1 does not say so")
        return
    warnings = sum(v.severity == "warning" for v in caveats)
    for pattern, count in (
        (rf"(?P<n>{NUM}) caveats?, listed under Caveats", len(caveats)),
        (rf"(?P<n>{NUM}) qualif(?:y|ies) these numbers", warnings),
        (rf"(?P<n>{NUM}) for information", len(caveats) - warnings),
    ):
        m = _search(pattern, text)
        if m is not None:
            c.found.expect_count(text, m, "n", count, "caveats")
        elif count:
            c.found.missing(text.where, f"no count for {pattern!r}")


def check_headlines(c: Context) -> None:
    """A dataset's heading counts its kept rows; its headline measure's values of variants
    are counted, and the intervals on each side of the ideal value."""
    titles = {c.cards.dataset_title(d.name): d for d in c.result.datasets}
    variants = {v.id for v in c.result.variants}
    for block in c.page.findings:
        head = _search(
            rf"^(?P<title>.+) \((?P<n>{NUM}) (?:pair|statement|question)s?\)\.$", block.heading
        )
        if head is None or head.group("title") not in titles:
            continue
        dataset = titles[head.group("title")]
        c.found.expect_count(block.heading, head, "n", dataset.rows_kept, "rows kept")
        lead = _search(r"^(?P<measure>[^:]+?), ideal (?P<ideal>[^:]+):", block.text)
        if lead is None:
            continue
        mine = [
            m
            for m in c.result.measurements
            if m.dataset == dataset.name
            and m.group == "all"
            and c.cards.name(m.measure).lower() == lead.group("measure").lower()
        ]
        if not mine:
            c.found.problem(block.text, 0, "", f"no {lead.group('measure')!r} on {dataset.name}")
            continue
        ideal = c.cards.ideal_value(mine[0].measure)
        c.found.expect(block.text, lead, "ideal", ideal, "the measure's ideal value")
        _headline_values(c, block.text, lead.end(), mine)
        m = _search(rf"The (?P<n>{NUM}) values? of variants", block.text)
        if m is not None:
            count = sum(x.model in variants for x in mine)
            c.found.expect_count(block.text, m, "n", count, "values of variants")
        audited = [
            x for x in mine if x.model not in variants and x.value is not None and x.status == "ok"
        ]
        # 'the interval includes B for k of n', against the ideal or a gate's bound B
        pattern = re.compile(rf"interval includes (?P<b>{NUM}) for (?P<k>{NUM}) of (?P<n>{NUM})")
        for m in pattern.finditer(block.text.text):
            bound = float(m.group("b").replace(",", "").replace("−", "-").rstrip("%"))
            inside = sum(
                x.ci_low is not None and x.ci_high is not None and x.ci_low <= bound <= x.ci_high
                for x in audited
            )
            c.found.expect_count(block.text, m, "k", inside, f"intervals that include {bound:g}")
            c.found.expect_count(block.text, m, "n", len(audited), "audited values")


_VALUE = re.compile(
    rf"(?P<v>{NUM})(?: \[(?P<lo>{NUM}), (?P<hi>{NUM})\]|, no interval(?: \([^()]*\))?) "
    r"\((?P<scorer>[^()]+)\)"
)


def _headline_values(c: Context, text: Text, start: int, mine: list[Any]) -> None:
    """'model v [lo, hi] (scorer), v [lo, hi] (scorer); model ...': each value is the
    model's measurement by that scorer (group `all`)."""
    end = re.compile(r"\.(?:\s|$)").search(text.text, start)
    body_end = len(text.text) if end is None else end.start()
    model = ""
    for segment in re.finditer(r"[^;]+", text.text[start:body_end]):
        first = re.match(r"\s*(?P<model>\S+) ", segment.group())
        if first is not None and not re.match(NUM, first.group("model")):
            model = first.group("model")
        for m in _VALUE.finditer(segment.group()):
            shift = start + segment.start()
            record = next(
                (x for x in mine if x.model == model and x.scorer.label == m.group("scorer")), None
            )
            if record is None:
                c.found.problem(
                    text, shift + m.start(), m.group("v"), f"no value of {model} by that scorer"
                )
                continue
            for group, value in (
                ("v", record.value),
                ("lo", record.ci_low),
                ("hi", record.ci_high),
            ):
                if m.group(group) is None:
                    continue
                figure = c.found.figure(text, shift + m.start(group))
                if figure is not None and figure.shows(value):
                    c.found.vouched.add((text.where, shift + m.start(group)))
                else:
                    c.found.problem(
                        text,
                        shift + m.start(group),
                        m.group(group),
                        f"{model}'s {group} is {value!r}",
                    )


def check_seat(c: Context) -> None:
    """'k of n tests on m models had a one-sided permutation p-value below alpha'."""
    seat = c.result.seat
    if seat is None or not seat.tests:
        return
    blocks = c.page.blocks("SEAT")
    m = (
        None
        if not blocks
        else _search(
            rf"(?P<k>{NUM}) of (?P<n>{NUM}) tests? on (?P<m>{NUM}) models? had a one-sided "
            rf"permutation p-value below (?P<alpha>{NUM})",
            blocks[0].text,
        )
    )
    if m is None:
        c.found.missing("findings", "results.json has SEAT tests; page 1 has no SEAT count")
        return
    text = blocks[0].text
    c.found.expect_count(text, m, "k", sum(t.p_value < seat.alpha for t in seat.tests), "tests")
    c.found.expect_count(text, m, "n", len(seat.tests), "SEAT tests")
    c.found.expect_count(text, m, "m", len({t.model for t in seat.tests}), "models")
    c.found.expect(text, m, "alpha", seat.alpha, "SEAT's alpha")


def check_robustness(c: Context) -> None:
    """The robustness counts and the measures not robust, 'and N more' included."""
    records = list(c.result.robustness)
    if not records:
        return
    blocks = c.page.blocks("robustness")
    pattern = (
        rf"Of (?P<n>{NUM}) measure checks?.*?, (?P<robust>{NUM}) kept .*? and "
        rf"(?P<not>{NUM}) did not(?:; (?P<undefined>{NUM}) undefined)?"
    )
    m = None if not blocks else _search(pattern, blocks[0].text)
    if m is None:
        c.found.missing("findings", "results.json has robustness records; page 1 has no count")
        return
    text = blocks[0].text
    verdicts = Counter(r.verdict for r in records)
    c.found.expect_count(text, m, "n", len(records), "measure checks")
    c.found.expect_count(text, m, "robust", verdicts["robust"], "robust checks")
    c.found.expect_count(text, m, "not", verdicts["not robust"], "checks not robust")
    if m.group("undefined") is not None:
        c.found.expect_count(text, m, "undefined", verdicts["undefined"], "undefined checks")
    named = len(re.findall(r"\(agreement ", text.text))
    more = _search(rf"and (?P<n>{NUM}) more\.$", text)
    if more is not None:
        c.found.expect_count(text, more, "n", verdicts["not robust"] - named, "not named")
    elif named != verdicts["not robust"]:
        c.found.missing(text.where, "not every check that is not robust is named or counted")


def _extrinsic_pairs(c: Context) -> list[CorrelationRecord]:
    """The correlations of an intrinsic with an extrinsic series (by the cards' roles)."""
    return [
        r
        for r in c.result.correlations
        if c.cards.has_role(r.x.measure, "extrinsic") != c.cards.has_role(r.y.measure, "extrinsic")
    ]


def _best(records: Sequence[CorrelationRecord]) -> DetectionLimit | None:
    found = [r.detection for r in records if r.detection is not None]
    return max(found, key=lambda d: (d.power_at_effect, d.n), default=None)


def _forbidden(c: Context, text: Text) -> None:
    """No assertive 'do not predict' / 'no correlation' (see FORBIDDEN)."""
    cleared = NOT_A_CONCLUSION.sub(lambda m: "#" * len(m.group()), text.text)
    for m in FORBIDDEN.finditer(cleared):
        c.found.problem(
            text,
            m.start(),
            "",
            f"{m.group()!r} concludes an absence of association the study could not detect",
        )


def _detection_words(
    c: Context, text: Text, detection: DetectionLimit, symbol: str, *, any_significant: bool
) -> None:
    """The detection limit as page 1 words it, long or short form: its models, tests,
    critical value and powers; and when nothing is significant and the test did not have
    the power asked for, what the study could not have detected."""
    found = c.found
    m = _search(rf"[Ww]ith (?P<n>{NUM}) models? and (?P<m>{NUM}) tests?", text)
    if m is None:
        found.missing(text.where, "the detection limit's models and tests are not named")
        return
    found.expect_count(text, m, "n", detection.n, "models of the detection limit")
    found.expect_count(text, m, "m", detection.family_size, "tests of the detection limit")
    critical = detection.critical_kendall_tau if symbol == "τ" else detection.critical_spearman_rho
    reach = _search(rf"\|{symbol}\| had to reach (?P<c>{NUM})", text)
    if critical is None:
        if reach is not None:
            found.problem(
                text, reach.start("c"), reach.group("c"), "no value can reach significance"
            )
    elif reach is None:
        found.missing(text.where, f"the critical |{symbol}| {critical:.2f} is not stated")
    else:
        found.expect(text, reach, "c", critical, f"critical |{symbol}|")
    for p in re.finditer(rf"(?P<p>{NUM}%) at τ (?P<t>{NUM})", text.text):
        tau = found.figure(text, p.start("t"))
        at = None if tau is None else next((x for x in detection.power if tau.shows(x.tau)), None)
        if at is None:
            found.problem(text, p.start("t"), p.group("t"), "no power simulated at this τ")
            continue
        found.expect(text, p, "t", at.tau, "simulated τ")
        found.expect(text, p, "p", at.power, "power at that τ", share=True)
    undetectable = _search(
        rf"could not have detected a correlation of τ (?P<e>{NUM}) \(power (?P<p>{NUM}%) < "
        rf"(?P<q>{NUM}%)\)",
        text,
    )
    if detection.powered:
        if undetectable is not None:
            found.problem(text, undetectable.start(), "", "the test had the power asked for")
        return
    if undetectable is None:
        if not any_significant:
            why = "nothing significant and underpowered: say what it could not have detected"
            found.missing(text.where, why)
        return
    found.expect(text, undetectable, "e", detection.effect_size, "the spec's effect size")
    found.expect(text, undetectable, "p", detection.power_at_effect, "power", share=True)
    found.expect(text, undetectable, "q", detection.target_power, "target power", share=True)


def _too_few(c: Context, text: Text, records: Sequence[CorrelationRecord]) -> None:
    """'with 4 models and 480 tests corrected by Holm, the smallest corrected Kendall
    p-value attainable is 1, above alpha 0.05'."""
    floors = [r for r in records if r.kendall_p_floor is not None]
    m = _search(
        rf"with (?P<n>{NUM}) models? and (?P<m>{NUM}) tests? corrected by [\w-]+, the smallest "
        rf"corrected Kendall p-value attainable is (?P<floor>{NUM}), above alpha (?P<alpha>{NUM})",
        text,
    )
    if not floors or m is None:
        if floors:
            c.found.missing(text.where, "the smallest attainable p-value is not stated")
        return
    best = min(floors, key=lambda r: r.kendall_p_floor or 1.0)
    c.found.expect_count(text, m, "n", best.n, "models")
    c.found.expect_count(text, m, "m", best.family_size or 0, "tests")
    c.found.expect(text, m, "floor", best.kendall_p_floor, "smallest corrected Kendall p")
    c.found.expect(text, m, "alpha", c.alpha, "alpha")
    if (best.kendall_p_floor or 0) <= c.alpha:
        c.found.problem(text, m.start("floor"), m.group("floor"), "the floor is not above alpha")


def check_intrinsic_extrinsic(c: Context) -> None:
    """The range of τ, the strongest pair (largest |τ|, with its sign, interval and
    corrected p), how many pairs are significant, and the detection limit; no conclusion
    stronger than the detection limit allows."""
    pairs = _extrinsic_pairs(c)
    for block in c.page.findings:
        for text in block.texts:
            _forbidden(c, text)
    if not pairs:
        return
    blocks = c.page.blocks("intrinsic vs extrinsic")
    if not blocks:
        c.found.missing("findings", "results.json has intrinsic x extrinsic correlations")
        return
    text, found = blocks[0].text, c.found
    if (lead := _search(rf"^(?P<n>{NUM}) intrinsic-extrinsic pairs?", text)) is not None:
        found.expect_count(text, lead, "n", len(pairs), "intrinsic-extrinsic pairs")
    m = _search(rf"(?i:over|across) up to (?P<n>{NUM}) models?", text)
    if m is None:
        found.missing(text.where, "the number of models is not stated")
    else:
        found.expect_count(text, m, "n", max(r.n for r in pairs), "models")
    old = any(r.correction is None for r in pairs)
    counted = [r for r in pairs if r.kendall_tau is not None and not r.trivial]
    detection = None if old else _best(counted)
    taus = [r.kendall_tau for r in counted if r.kendall_tau is not None]
    span = _search(rf"τ[^;]*?from (?P<a>{NUM}) to (?P<b>{NUM})", text)
    if taus and span is None and (detection is None or detection.critical_kendall_tau is not None):
        found.missing(text.where, "the range of Kendall τ is not stated")
    elif taus and span is not None:
        found.expect(text, span, "a", min(taus), "the smallest τ")
        found.expect(text, span, "b", max(taus), "the largest τ")
    if old:
        return
    significant = [
        r for r in counted if r.kendall_p_corrected is not None and r.kendall_p_corrected <= c.alpha
    ]
    k = _search(rf"(?P<k>{NUM}) of (?P<m>{NUM}) (?:pairs )?had a corrected p <= (?P<a>{NUM})", text)
    if detection is not None and detection.critical_kendall_tau is None:
        if "too few models to conclude anything" not in text.text:
            found.missing(text.where, "no τ can be significant; page 1 must say so")
        _too_few(c, text, pairs)
        _detection_words(c, text, detection, "τ", any_significant=False)
        return
    if k is None:
        if taus:
            found.missing(text.where, "the count of significant pairs is not stated")
    else:
        found.expect_count(
            text, k, "k", len(significant), "pairs with a corrected Kendall p <= alpha"
        )
        found.expect_count(text, k, "m", len(counted), "pairs tested")
        found.expect(text, k, "a", c.alpha, "alpha")
    if detection is None:
        return
    if taus:
        _strongest(c, text, counted)
    _detection_words(c, text, detection, "τ", any_significant=bool(significant))
    if not significant and detection.powered:
        m = _search(rf"With (?P<p>{NUM}%) power at τ (?P<e>{NUM})", text)
        if m is None:
            found.missing(text.where, "a powered study must state its power")
        else:
            found.expect(text, m, "p", detection.power_at_effect, "power", share=True)
            found.expect(text, m, "e", detection.effect_size, "effect size")


def _strongest(c: Context, text: Text, counted: list[CorrelationRecord]) -> None:
    m = _search(
        rf"the strongest was (?P<x>.+?) with (?P<y>.+?) \(τ (?P<t>{NUM})(?: \[(?P<lo>{NUM}), "
        rf"(?P<hi>{NUM})\])?, p (?P<p>{PV}) corrected by (?P<method>[\w-]+) over (?P<m>{NUM}) "
        r"tests?\)",
        text,
    )
    if m is None:
        c.found.missing(text.where, "the strongest pair is not named with τ and corrected p")
        return
    top = max(abs(r.kendall_tau or 0.0) for r in counted)
    tied = [r for r in counted if abs(abs(r.kendall_tau or 0.0) - top) < 1e-12]
    named = [
        r
        for r in tied
        if c.cards.title(r.x.measure) in m.group("x") and c.cards.title(r.y.measure) in m.group("y")
    ]
    record = (named or tied)[0]
    if not named:
        c.found.problem(
            text, m.start("x"), "", f"the strongest pair is {record.x.label} with {record.y.label}"
        )
    found = c.found
    found.expect(text, m, "t", record.kendall_tau, "the strongest τ (largest |τ|)")
    if record.kendall_tau_ci_low is not None:
        found.expect(text, m, "lo", record.kendall_tau_ci_low, "τ interval, low")
        found.expect(text, m, "hi", record.kendall_tau_ci_high, "τ interval, high")
    elif m.group("lo") is not None:
        found.problem(text, m.start("lo"), m.group("lo"), "results.json has no interval of τ")
    found.expect(text, m, "p", record.kendall_p_corrected, "corrected Kendall p")
    found.expect_count(text, m, "m", record.family_size or 0, "tests corrected")
    if m.group("method") != CORRECTIONS.get(record.correction or "", ""):
        found.problem(text, m.start("method"), "", f"the correction is {record.correction}")


def check_correlations(c: Context) -> None:
    """Correlation between measures: pairs, models, significant and trivial pairs, and the
    detection limit (or the smallest attainable p-value)."""
    extrinsic = {id(r) for r in _extrinsic_pairs(c)}
    records = [r for r in c.result.correlations if id(r) not in extrinsic]
    if not records:
        return
    blocks = c.page.blocks("correlation between measures")
    text = blocks[0].text if blocks else None
    m = (
        None
        if text is None
        else _search(rf"^(?P<n>{NUM}) pairs? of measures across up to (?P<m>{NUM}) models?", text)
    )
    if text is None or m is None:
        c.found.missing("findings", "results.json has correlations; page 1 has no count")
        return
    found = c.found
    found.expect_count(text, m, "n", len(records), "pairs of measures")
    found.expect_count(text, m, "m", max(r.n for r in records), "models")
    if any(r.correction is None for r in records):
        return
    detection = _best(records)
    if "too few models to conclude anything" in text.text:
        if detection is not None:
            found.problem(text, 0, "", "results.json 4.0 states what the study could detect")
        _too_few(c, text, records)
        return
    counted = [r for r in records if not r.trivial and r.kendall_tau is not None]
    significant = [
        r
        for r in counted
        if any(
            p is not None and p <= c.alpha
            for p in (r.pearson_p_corrected, r.spearman_p_corrected, r.kendall_p_corrected)
        )
    ]
    k = _search(rf"(?P<k>{NUM}) of the (?P<m>{NUM}) distinct pairs? significant", text)
    if k is None:
        found.missing(text.where, "the count of significant pairs is not stated")
    else:
        found.expect_count(text, k, "k", len(significant), "significant pairs")
        found.expect_count(text, k, "m", len(counted), "distinct pairs")
    trivial = sum(bool(r.trivial) for r in records)
    t = _search(rf"(?P<n>{NUM}) pairs? (?:is|are) one by construction", text)
    if t is not None:
        found.expect_count(text, t, "n", trivial, "pairs one by construction")
    elif trivial:
        found.missing(text.where, f"{trivial} pairs one by construction are not said")
    if detection is not None:
        _detection_words(c, text, detection, "τ", any_significant=bool(significant))
        power = _search(rf"; power (?P<p>{NUM}%) at τ (?P<e>{NUM})", text)
        if power is not None:
            found.expect(text, power, "e", detection.effect_size, "effect size")


def _items(block: Block) -> list[Text]:
    return [t for t in block.items if not t.text.startswith("and ")]


_MOVE = re.compile(
    rf"^(?P<model>\S+): (?P<what>.+) \((?P<scorer>[^()]+)\) (?P<b>{NUM}) → (?P<a>{NUM}) "
    rf"\((?P<d>{NUM})(?: \[(?P<lo>{NUM}), (?P<hi>{NUM})\])?\), (?P<verdict>.+)$"
)


def _move_values(r: ComparisonRecord) -> dict[str, tuple[float | None, bool]]:
    return {
        "b": (r.value_b, False),
        "a": (r.value_a, False),
        "d": (r.difference, True),
        "lo": (r.difference_ci_low, True),
        "hi": (r.difference_ci_high, True),
    }


def _move_agrees(c: Context, item: Text, m: re.Match[str], r: ComparisonRecord) -> bool:
    for group, (value, signed) in _move_values(r).items():
        if m.group(group) is None:
            if group in ("lo", "hi") and value is not None:
                return False
            continue
        figure = c.found.figure(item, m.start(group))
        if figure is None or not figure.shows(value):
            return False
        if signed and value is not None and not figure.shows(0.0) and not figure.signed:
            return False
    return m.group("verdict") == r.verdict


def _moves(c: Context, block: Block, records: list[ComparisonRecord], *, complete: bool) -> None:
    """Each move names a distinct record that moved, with both values, the signed
    difference and its interval, and its corrected verdict; largest |difference| first;
    every move listed (`complete`), or the largest ones and the rest counted."""
    found = c.found
    moved = [
        r for r in records if not r.same_test_as and r.verdict in MOVED and r.difference is not None
    ]
    items = _items(block)
    listed: list[tuple[Text, re.Match[str], ComparisonRecord]] = []
    for item in items:
        m = _MOVE.match(item.text)
        if m is None:
            found.missing(
                item.where,
                "a move that does not read '<model>: <measure> ... b → a (±d [lo, hi]), verdict'",
            )
            continue
        named = [
            r
            for r in moved
            if r.model_a == m.group("model")
            and r.scorer.label == m.group("scorer")
            and f"{c.cards.name(r.measure)} on {c.cards.dataset_title(r.dataset)}"
            == m.group("what")
        ]
        record = next(
            (
                r
                for r in named
                if _move_agrees(c, item, m, r) and all(r is not x for _, _, x in listed)
            ),
            None,
        )
        if record is None:
            if not named:
                found.problem(item, 0, "", "no distinct comparison that moved has these names")
                continue
            record = next((r for r in named if r.verdict == m.group("verdict")), named[0])
            if m.group("verdict") != record.verdict:
                found.problem(
                    item, m.start("verdict"), "", f"the corrected verdict is {record.verdict!r}"
                )
            for group, (value, signed) in _move_values(record).items():
                if m.group(group) is not None:
                    found.expect(item, m, group, value, f"the comparison's {group}", signed=signed)
        else:
            found.vouched |= {
                (item.where, m.start(g)) for g in ("b", "a", "d", "lo", "hi") if m.group(g)
            }
        listed.append((item, m, record))
    for (_, _, before), (item, m, after) in pairwise(listed):
        if abs(after.difference or 0.0) > abs(before.difference or 0.0) + 1e-12:
            why = "listed after a smaller change: not largest first"
            found.problem(item, m.start("d"), m.group("d"), why)
    shown = [r for _, _, r in listed]
    left = [r for r in moved if all(r is not x for x in shown)]
    if complete and left:
        found.missing(block.where, f"{len(left)} comparisons that moved are not listed")
    if shown and left:
        smallest = min(abs(r.difference or 0.0) for r in shown)
        larger = [r for r in left if abs(r.difference or 0.0) > smallest + 1e-12]
        if larger:
            r = larger[0]
            why = f"a larger change is left out: {r.model_a} {r.measure.label} {r.difference}"
            found.missing(block.where, why)
    if moved and not items:
        found.missing(block.where, "comparisons moved, and page 1 lists none")
    for item in block.items:
        more = _search(rf"^and (?P<n>{NUM}) more", item)
        if more is not None:
            found.expect_count(item, more, "n", len(left), "moves not listed")
        elif item.text.startswith("and "):
            found.missing(item.where, "an 'and ...' item without a count")
    if left and not complete and not any(i.text.startswith("and ") for i in block.items):
        found.missing(block.where, f"{len(left)} moves are neither listed nor counted")


def _comparison_words(
    c: Context, block: Block, records: list[ComparisonRecord], *, complete: bool
) -> None:
    """The count of distinct comparisons, their family, the tally by corrected verdict,
    what was undetectable, the twins and the moves."""
    text, found = block.text, c.found
    distinct = [r for r in records if not r.same_test_as]
    m = _search(rf"[Oo]f (?P<n>{NUM}) distinct paired comparisons?", text)
    if m is None:
        found.missing(text.where, "the count of distinct paired comparisons is not stated")
        return
    found.expect_count(text, m, "n", len(distinct), "distinct paired comparisons")
    _judged_words(c, block, records, m, complete=complete)


def _downstream_words(c: Context, records: list[ComparisonRecord]) -> None:
    """The 'Debiasing, downstream.' block: each debiased variant against its base after
    fine-tuning (their own family), counted and tallied as the intrinsic comparisons are."""
    blocks = c.page.blocks("debiasing, downstream")
    if not blocks:
        c.found.missing("findings", "results.json compares variants downstream; page 1 does not")
        return
    text = blocks[0].text
    m = _search(rf"^Of (?P<n>{NUM}) debiased variants? fine-tuned on", text)
    if m is None:
        c.found.missing(text.where, "the count of variants compared downstream is not stated")
        return
    distinct = [r for r in records if not r.same_test_as]
    c.found.expect_count(text, m, "n", len(distinct), "variants compared downstream")
    _judged_words(c, blocks[0], records, m, complete=True)


def _judged_words(
    c: Context,
    block: Block,
    records: list[ComparisonRecord],
    m: re.Match[str],
    *,
    complete: bool,
) -> None:
    """After a block's count (`m`): the family and correction, the tally by corrected
    verdict, what was undetectable, the twins and the moves."""
    text, found = block.text, c.found
    distinct = [r for r in records if not r.same_test_as]
    family = _search(
        r"\((?P<family>[^()]*(?:Holm|Benjamini-Hochberg|uncorrected)[^()]*)\)", text, m.end()
    )
    if family is None:
        found.missing(text.where, "the comparisons' family and correction are not stated")
        return
    judged = {(CORRECTIONS[r.correction], r.family_size) for r in records if r.correction}
    if "uncorrected" in family.group("family"):
        if judged:
            found.problem(text, family.start(), "", "results.json corrects these comparisons")
    else:
        printed = list(
            re.finditer(
                rf"(?P<c>Holm|Benjamini-Hochberg)\S* over (?:the )?(?P<m>{NUM})",
                family.group("family"),
            )
        )
        for p in printed:
            size = next(
                (
                    s
                    for name, s in judged
                    if name == p.group("c") and s == int(p.group("m").replace(",", ""))
                ),
                None,
            )
            pos = family.start("family") + p.start("m")
            if size is None:
                found.problem(
                    text, pos, p.group("m"), f"no family of this size: {sorted(judged, key=str)}"
                )
            else:
                found.vouched.add((text.where, pos))
        if len(printed) != len(judged):
            found.problem(text, family.start(), "", f"the families are {sorted(judged, key=str)}")
    tally = _search(r"\)(?:, the later was)?: (?P<tally>[^.]*)", text, family.start())
    if tally is None:
        found.missing(text.where, "the verdicts are not counted")
        return
    counts: Counter[str] = Counter(r.verdict for r in distinct)
    seen = set()
    for p in re.finditer(rf"(?P<n>{NUM}) (?P<v>{'|'.join(VERDICTS)})", tally.group("tally")):
        seen.add(p.group("v"))
        pos = tally.start("tally") + p.start("n")
        figure = found.figure(text, pos)
        if figure is not None and figure.shows(float(counts[p.group("v")])):
            found.vouched.add((text.where, pos))
        else:
            found.problem(
                text,
                pos,
                p.group("n"),
                f"{counts[p.group('v')]} distinct comparisons are {p.group('v')!r}",
            )
    for verdict, n in counts.items():
        if n and verdict not in seen:
            found.problem(text, tally.start(), "", f"{n} {verdict!r} are not counted")
    none = re.search(r"none (?P<rest>.*)$", tally.group("tally"))
    if none is not None:
        said = {
            "closer to the ideal": "closer" in none.group("rest"),
            "further from the ideal": "further" in none.group("rest"),
            "changed": "changed" in none.group("rest"),
        }
        for word, yes in said.items():
            if yes and counts[word]:
                found.problem(text, tally.start(), "", f"'none {word}', but {counts[word]} are")
    _detectable(c, text, distinct)
    twins = [r for r in records if r.same_test_as]
    t = _search(rf"(?P<n>{NUM}) more comparisons? repeat an identical one", text)
    if t is not None:
        found.expect_count(text, t, "n", len(twins), "comparisons repeating another")
    elif twins:
        found.missing(text.where, f"{len(twins)} comparisons repeat another and are not said")
    _moves(c, block, records, complete=complete)


def _detectable(c: Context, text: Text, distinct: list[ComparisonRecord]) -> None:
    """'changes of the <measure> below X (to Y (by comparison)) were undetectable (P
    power)': min and max `detectable_difference` of the named measure's records."""
    with_limit = [r for r in distinct if r.detectable_difference is not None]
    m = _search(
        rf"[Cc]hanges of the (?P<measure>.+?) below (?P<low>{NUM})(?: to (?P<high>{NUM}) \(by "
        rf"comparison\))? were undetectable \((?P<power>{NUM}%) power\)",
        text,
    )
    if m is None:
        if with_limit:
            c.found.missing(
                text.where, "results.json states the detectable differences; page 1 does not"
            )
        return
    mine = [r for r in with_limit if c.cards.name(r.measure) == m.group("measure")]
    if not mine:
        c.found.problem(
            text, m.start("measure"), "", "no comparison of this measure has a detection limit"
        )
        return
    values = [r.detectable_difference for r in mine if r.detectable_difference is not None]
    c.found.expect(text, m, "low", min(values), "smallest detectable difference")
    if m.group("high") is not None:
        c.found.expect(text, m, "high", max(values), "largest detectable difference")
    else:
        low = c.found.figure(text, m.start("low"))
        if low is None or not low.shows(max(values)):
            c.found.problem(text, m.start("low"), m.group("low"), f"the largest is {max(values)!r}")
    c.found.expect(text, m, "power", mine[0].detectable_power, "power", share=True)


def check_comparisons(c: Context) -> None:
    """Each base's debiased variants against their base, and the paired comparisons of
    other models: counted by corrected verdict, moves largest first."""
    variants = {v.id: v for v in c.result.variants}
    debiased: dict[str, list[str]] = {}
    for v in c.result.variants:
        if v.ratio is None:
            debiased.setdefault(v.base, []).append(v.id)
    blocks = c.page.blocks("debiased variants")
    for base, ids in debiased.items():
        pattern = rf"^(?P<n>{NUM}) debiased variants? of {re.escape(base)} \("
        mine = [(b, m) for b in blocks if (m := _search(pattern, b.text)) is not None]
        if not mine:
            c.found.missing("findings", f"no sentence on the debiased variants of {base}")
            continue
        block, m = mine[0]
        c.found.expect_count(block.text, m, "n", len(ids), f"debiased variants of {base}")
        records = [r for r in c.result.comparisons if r.model_a in ids and r.model_b == base]
        intrinsic = [r for r in records if r.test_family != DOWNSTREAM_FAMILY]
        if intrinsic:
            _comparison_words(c, block, intrinsic, complete=True)
        downstream = [r for r in records if r.test_family == DOWNSTREAM_FAMILY]
        if downstream:
            _downstream_words(c, downstream)
    others = [
        r
        for r in c.result.comparisons
        if not (r.model_a in variants and variants[r.model_a].base == r.model_b)
    ]
    if others:
        study = c.page.blocks("paired comparison")
        if not study:
            c.found.missing("findings", "results.json has paired comparisons; page 1 has none")
            return
        _comparison_words(c, study[0], others, complete=False)


def _series(meta: MetaEvaluation) -> list[list[CorrelationWithRatio]]:
    """The rows grouped by identical values (one series under several names)."""
    groups: list[list[CorrelationWithRatio]] = []
    for row in meta.rows:
        same = next((g for g in groups if g[0].values == row.values), None)
        if same is None:
            groups.append([row])
        else:
            same.append(row)
    return groups


def _ranked(meta: MetaEvaluation) -> dict[int, list[CorrelationWithRatio]]:
    ranks: dict[int, list[CorrelationWithRatio]] = {}
    for row in meta.rows:
        if row.rank is not None:
            ranks.setdefault(row.rank, []).append(row)
    return dict(sorted(ranks.items()))


def _rho(
    c: Context, text: Text, m: re.Match[str], rows: list[CorrelationWithRatio], name: str
) -> None:
    """Rank 1 named (`name`: the group holding its name) with its ρ and interval."""
    row = rows[0]
    if not any(c.cards.name(r.measure) in (m.group(name) or "") for r in rows):
        c.found.problem(text, m.start(name), "", f"rank 1 is {row.label}")
    c.found.expect(text, m, "rho", row.spearman, "rank 1's Spearman ρ")
    if m.group("lo") is not None:
        c.found.expect(text, m, "lo", row.spearman_ci_low, "ρ interval, low")
        c.found.expect(text, m, "hi", row.spearman_ci_high, "ρ interval, high")
    elif row.spearman_ci_low is not None:
        c.found.missing(text.where, "rank 1's interval of ρ is not stated")


def _named_ranks(
    c: Context,
    text: Text,
    named: re.Match[str],
    ranks: dict[int, list[CorrelationWithRatio]],
    want: list[int],
) -> None:
    """The series named as tied with rank 1, each '<series> (rank k)', then 'N more (ranks
    ...)': each named rank is the named series' row's and ties with rank 1 (`ties_first`),
    and together they are every tied rank, in order (`want`)."""
    found = c.found
    offset = named.start("named")
    segment = named.group("named")
    shown: list[tuple[int, int, str]] = []  # (rank, position, token)
    start = 0
    for p in re.finditer(rf"\(rank (?P<k>{NUM})\)", segment):
        rank, pos = int(p.group("k")), offset + p.start("k")
        rows, name = ranks.get(rank, []), segment[start : p.start()]
        start = p.end()
        shown.append((rank, pos, p.group("k")))
        if rows and not any(c.cards.name(r.measure) in name for r in rows):
            found.problem(text, pos, p.group("k"), f"rank {rank} is {rows[0].label}")
    more = re.search(rf"(?P<n>{NUM}) more \(ranks? (?P<ranks>[^)]*)\)", segment)
    if more is not None:
        before = len(shown)
        ranges = re.finditer(rf"(?P<a>{NUM})(?: to (?P<b>{NUM}))?", more.group("ranks"))
        for p in ranges:  # '5, 7 to 9 and 12': a run of ranks is written 'a to b'
            first, last = int(p.group("a")), int(p.group("b") or p.group("a"))
            at_a = (offset + more.start("ranks") + p.start("a"), p.group("a"))
            at_b = (
                (offset + more.start("ranks") + p.start("b"), p.group("b"))
                if p.group("b")
                else at_a
            )
            # each rank of a run is read at its first figure, the last at its own
            shown += [(k, *(at_b if k == last else at_a)) for k in range(first, last + 1)]
        count = found.figure(text, offset + more.start("n"))
        rest = len(want) - before
        if count is not None and count.shows(float(rest)):
            found.vouched.add((text.where, offset + more.start("n")))
        else:
            found.problem(text, offset + more.start("n"), more.group("n"), f"{rest} more tie")
    for i, (rank, pos, token) in enumerate(shown):
        rows = ranks.get(rank, [])
        if not rows or rows[0].ties_first is not True:
            tie = rows[0].ties_first if rows else "no such rank"
            found.problem(text, pos, token, f"rank {rank} does not tie with rank 1 ({tie})")
        elif i >= len(want) or want[i] != rank:
            found.problem(text, pos, token, f"the ranks that tie with rank 1 are {want}")
        else:
            found.vouched.add((text.where, pos))
    if len(shown) < len(want):
        found.problem(text, named.start("named"), "", f"the ranks that tie are {want}")


def check_meta_evaluations(c: Context) -> None:
    """Each meta-evaluation: its ratio models, the control check, rank 1 with its ρ and
    interval, the set that ties with it and their ranks, the spread of |ρ| among them,
    the ranks between told apart, and how many distinct series follow r."""
    blocks = c.page.blocks("meta-evaluation")
    for meta in c.result.meta_evaluations:
        pattern = (
            rf"^(?P<n>{NUM}) bias-controlled models? of {re.escape(meta.base)} "
            rf"\(r = (?P<lo>{NUM}) to (?P<hi>{NUM})\)"
        )
        mine = [(b, m) for b in blocks if (m := _search(pattern, b.text)) is not None]
        if not mine:
            c.found.missing("findings", f"no sentence on the meta-evaluation of {meta.base}")
            continue
        block, m = mine[0]
        text, found = block.text, c.found
        found.expect_count(text, m, "n", len(meta.models), "ratio models")
        found.expect(text, m, "lo", min(meta.ratios), "smallest r")
        found.expect(text, m, "hi", max(meta.ratios), "largest r")
        ranks = _ranked(meta)
        if not meta.control.worked:
            if "did not work" not in text.text:
                found.missing(text.where, "the control did not work; page 1 must say so")
            if re.search(r"rank 1|follows it best", text.text):
                found.problem(text, 0, "", "a failed control ranks nothing")
            continue
        if not ranks:
            continue
        first = ranks[1] if 1 in ranks else next(iter(ranks.values()))
        rest = [rows for rank, rows in ranks.items() if rows is not first]
        tied = [rows for rows in rest if rows[0].ties_first]
        untested = any(rows[0].ties_first is None for rows in rest)
        rho = rf"\(Spearman (?P<rho>{NUM})(?: \[(?P<lo>{NUM}), (?P<hi>{NUM})\])?\)"
        clear = _search(
            rf"follows it best is (?P<name>.+?) {rho}; a paired bootstrap tells it apart", text
        )
        tie = _search(
            rf"rank (?P<one>{NUM}), (?P<first>.+?) {rho}, is not told apart by a paired "
            rf"bootstrap from (?P<named>.+?); \|ρ\| (?P<a>{NUM})(?: to (?P<b>{NUM}))? among "
            rf"these (?P<k>{NUM})"
            rf"(?:; ranks? (?P<apart>[^,]*(?:, [^,]*)*?), between them, (?:are|is) told apart "
            rf"from rank (?P<one_again>{NUM}))?\.",
            text,
        )
        only = _search(
            rf"(?:Only (?P<name>.+?) has a defined correlation with r|strongest correlation "
            rf"with r is (?P<other>.+?)'s) {rho}",
            text,
        )
        if rest and not untested and not tied:
            if clear is None:
                found.missing(
                    text.where,
                    "rank 1 is told apart from every other series; page 1 must say it follows best",
                )
            else:
                _rho(c, text, clear, first, "name")
        elif tied and not untested:
            if clear is not None:
                found.problem(
                    text, clear.start(), "", "rank 1 ties with other series: it is not the best"
                )
            if tie is None:
                found.missing(
                    text.where, "the series that tie with rank 1 are not named with their ranks"
                )
            else:
                _rho(c, text, tie, first, "first")
                found.expect_count(text, tie, "one", 1, "rank 1")
                want = sorted(rows[0].rank for rows in tied if rows[0].rank is not None)
                _named_ranks(c, text, tie, ranks, want)
                group = [first, *tied]
                rhos = [abs(rows[0].spearman or 0.0) for rows in group]
                found.expect(text, tie, "a", min(rhos), "smallest |ρ| of the tied set")
                if tie.group("b") is not None:
                    found.expect(text, tie, "b", max(rhos), "largest |ρ| of the tied set")
                found.expect_count(text, tie, "k", len(group), "series in the tied set")
                last = max(want, default=1)
                apart = [r for r in range(2, last) if r in ranks and r not in want]
                if tie.group("apart") is not None:
                    printed = list(re.finditer(NUM, tie.group("apart")))
                    for i, p in enumerate(printed):
                        pos = tie.start("apart") + p.start()
                        if i < len(apart) and int(p.group()) == apart[i]:
                            found.vouched.add((text.where, pos))
                        else:
                            why = f"the ranks between the ties, told apart, are {apart}"
                            found.problem(text, pos, p.group(), why)
                    found.expect_count(text, tie, "one_again", 1, "rank 1")
                    if len(printed) != len(apart):
                        found.problem(
                            text,
                            tie.start("apart"),
                            "",
                            f"the ranks told apart between are {apart}",
                        )
                elif apart:
                    found.missing(
                        text.where, f"ranks {apart} lie between the ties and are told apart"
                    )
        elif only is not None:
            _rho(c, text, only, first, "name" if only.group("name") else "other")
        else:
            found.missing(text.where, "no sentence on the top of the ranking")
        _following(c, text, meta)


def _following(c: Context, text: Text, meta: MetaEvaluation) -> None:
    """'k of m distinct series follow r after Holm (|ρ| had to reach c; power p% at τ e)'."""
    series = [g[0] for g in _series(meta) if g[0].spearman_p_corrected is not None]
    m = _search(
        rf"(?P<k>{NUM}) of (?P<m>{NUM}) distinct series follow r after (?P<method>[\w-]+) "
        rf"\((?:\|ρ\| had to reach (?P<c>{NUM})|none could); power (?P<p>{NUM}%) at τ "
        rf"(?P<e>{NUM})\)",
        text,
    )
    detection = meta.detection
    if not series or detection is None:
        if m is not None:
            c.found.problem(text, m.start(), "", "results.json has no corrected test of the series")
        return
    if m is None:
        c.found.missing(text.where, "how many distinct series follow r after the correction")
        return
    follow = [r for r in series if (r.spearman_p_corrected or 1.0) <= c.alpha]
    c.found.expect_count(text, m, "k", len(follow), "series following r")
    c.found.expect_count(text, m, "m", len(series), "distinct series")
    if detection.critical_spearman_rho is not None:
        c.found.expect(text, m, "c", detection.critical_spearman_rho, "critical |ρ|")
    elif m.group("c") is not None:
        c.found.problem(text, m.start("c"), m.group("c"), "no |ρ| can be significant")
    c.found.expect(text, m, "p", detection.power_at_effect, "power", share=True)
    c.found.expect(text, m, "e", detection.effect_size, "the spec's effect size")


_PPL = (
    rf"(?P<kind>[\w-]+) (?P<b>{NUM}) → (?P<a>{NUM}) \((?P<pct>{NUM}), ratio (?P<r>{NUM})"
    rf"(?: \[(?P<lo>{NUM}), (?P<hi>{NUM})\]|, no interval)\)"
)


def _ppl(c: Context, text: Text, m: re.Match[str], record: Any) -> None:
    found = c.found
    found.expect(text, m, "b", record.base_perplexity.value, "base perplexity")
    found.expect(text, m, "a", record.variant_perplexity.value, "variant perplexity")
    found.expect(text, m, "pct", record.ratio - 1, "change (ratio - 1)", share=True, signed=True)
    found.expect(text, m, "r", record.ratio, "ratio")
    if m.group("lo") is not None:
        found.expect(text, m, "lo", record.ratio_ci_low, "ratio interval, low")
        found.expect(text, m, "hi", record.ratio_ci_high, "ratio interval, high")
    if m.group("kind") != record.kind:
        found.problem(text, m.start("kind"), "", f"measured as {record.kind}")


def check_lm_cost(c: Context) -> None:
    """The damaged and possibly damaged variants, each with its perplexities and ratio;
    when none is, the largest change by |ratio - 1|, with its sign."""
    section = c.result.lm_quality
    if section is None or not section.records:
        return
    found = c.found
    records = list(section.records)
    damaged = [r for r in records if r.damage == "damaged"]
    unclear = [r for r in records if r.damage == "unclear"]
    threshold = section.damage_threshold
    for heading, group in (("damaged by debiasing", damaged), ("possibly damaged", unclear)):
        blocks = c.page.blocks(heading)
        if group and not blocks:
            found.missing(
                "findings", f"{len(group)} variants are {heading!r}; page 1 has no such block"
            )
            continue
        if not blocks:
            continue
        block = blocks[0]
        m = _search(rf"^(?P<n>{NUM}) variants?(?: of (?P<of>{NUM}))?", block.text)
        if m is not None:
            found.expect_count(block.text, m, "n", len(group), heading)
            if m.group("of") is not None:
                found.expect_count(block.text, m, "of", len(records), "variants measured")
        _sentences_and_threshold(c, block.text, section.text.sentences, threshold)
        named: list[str] = []
        for item in block.items:
            p = re.match(rf"^(?P<variant>\S+) \(of (?P<base>\S+)\): {_PPL}$", item.text)
            record = (
                None
                if p is None
                else next((r for r in group if r.variant == p.group("variant")), None)
            )
            if p is None or record is None:
                found.problem(item, 0, "", f"not a variant that is {heading!r}")
                continue
            named.append(record.variant)
            _ppl(c, item, p, record)
        if sorted(named) != sorted(r.variant for r in group):
            found.missing(
                block.where, f"{heading!r}: {sorted(r.variant for r in group)}, listed {named}"
            )
    if damaged or unclear:
        return
    blocks = c.page.blocks("language-modelling cost")
    m = (
        None
        if not blocks
        else _search(rf"largest change: (?P<variant>\S+), {_PPL}", blocks[0].text)
    )
    if m is None:
        found.missing("findings", "no variant is damaged: page 1 must name the largest change")
        return
    text = blocks[0].text
    _sentences_and_threshold(c, text, section.text.sentences, threshold)
    top = max(abs(r.ratio - 1) for r in records)
    largest = [r for r in records if abs(abs(r.ratio - 1) - top) < 1e-12]
    record = next((r for r in largest if r.variant == m.group("variant")), None)
    if record is None:
        found.problem(
            text,
            m.start("variant"),
            "",
            f"the largest change by |ratio - 1| is {largest[0].variant}'s ({largest[0].ratio:.3f})",
        )
        record = next((r for r in records if r.variant == m.group("variant")), largest[0])
    _ppl(c, text, m, record)
    # the threshold is one-sided (a rise); 'within +10%' says |change| <= 10%
    within = _search(rf"within (?P<t>{NUM}%)", text)
    if within is not None and top > threshold:
        change = f"{100 * (largest[0].ratio - 1):+.0f}%"
        why = f"'within' the threshold, but the largest change is {change}"
        found.problem(text, within.start("t"), within.group("t"), why)


def _sentences_and_threshold(c: Context, text: Text, sentences: int, threshold: float) -> None:
    m = _search(rf"on (?P<n>{NUM}) held-out sentences?", text)
    if m is not None:
        c.found.expect_count(text, m, "n", sentences, "held-out sentences")
    for m in re.finditer(rf"(?:within|more than|spans the) (?P<t>{NUM}%)", text.text):
        c.found.expect(text, m, "t", threshold, "damage threshold", share=True, signed=True)


def check_extrinsic(c: Context) -> None:
    """Each extrinsic task: its fine-tuned models, lowest and highest value with their
    models, and how many did not learn the task."""
    tasks: dict[str, list[Any]] = {}
    for r in c.result.extrinsic:
        if r.value is not None:
            tasks.setdefault(r.task, []).append(r)
    blocks = c.page.blocks("extrinsic bias")
    pattern = (
        rf"on (?P<n>{NUM}) fine-tuned models?: from (?P<low>{NUM}) \((?P<lm>\S+)\) to "
        rf"(?P<high>{NUM}) \((?P<hm>\S+)\)(?:; (?P<failed>{NUM}) did not learn)?"
    )
    matches = [(b.text, m) for b in blocks if (m := _search(pattern, b.text)) is not None]
    for task, mine in tasks.items():
        low = min(r.value for r in mine)
        high = max(r.value for r in mine)
        lows = {r.model for r in mine if r.value == low}
        highs = {r.model for r in mine if r.value == high}
        here = [(t, m) for t, m in matches if m.group("lm") in lows and m.group("hm") in highs]
        if not here:
            c.found.missing(
                "findings", f"no sentence on {task} ({len(mine)} models, {low} to {high})"
            )
            continue
        text, m = here[0]
        c.found.expect_count(text, m, "n", len(mine), "fine-tuned models")
        c.found.expect(text, m, "low", low, "lowest value")
        c.found.expect(text, m, "high", high, "highest value")
        failed = sum(r.dev_check is not None and not r.dev_check.passed for r in mine)
        if m.group("failed") is not None:
            c.found.expect_count(text, m, "failed", failed, "models that did not learn the task")
        elif failed:
            c.found.missing(text.where, f"{failed} models did not learn {task}: not said")


CHECKS = (
    check_facts,
    check_gates,
    check_caveats,
    check_headlines,
    check_seat,
    check_robustness,
    check_intrinsic_extrinsic,
    check_correlations,
    check_comparisons,
    check_meta_evaluations,
    check_lm_cost,
    check_extrinsic,
)


def name_pattern(strings: set[str]) -> re.Pattern[str] | None:
    """Ids of results.json that hold digits and no space ('minilm-bc-r0.5', 'Q4_1',
    'STS-bias[max_templates=30]'), as they appear on page 1: masked before figures are
    read, longest first."""
    ids = sorted(
        (
            s
            for s in strings
            if len(s) <= 100
            and not re.search(r"\s", s)
            and re.search(r"[0-9]", s)
            and re.search(r"[A-Za-z]", s)
        ),
        key=len,
        reverse=True,
    )
    if not ids:
        return None
    return re.compile(r"(?<![\w.\-])(?:" + "|".join(map(re.escape, ids)) + r")(?![\w\-]|\.\w)")


def run_checks(
    report: ReportModel, result: AuditResult, index: NumberIndex | None = None
) -> tuple[Page, Findings]:
    """Page 1 as read, and what every check found on it (problems, vouched figures)."""
    index = NumberIndex(result) if index is None else index
    found = Findings(index.names)
    page = read_page(report)
    context = Context(result, report, page, MeasureCards.of(result), found)
    for check in CHECKS:
        check(context)
    generic_check(page, index, found)
    return page, found


def check_page(
    report: ReportModel, result: AuditResult, index: NumberIndex | None = None
) -> list[Problem]:
    """Every problem with page 1's figures, one per sentence and figure (see the module
    docstring); [] when the words follow the numbers."""
    _page, found = run_checks(report, result, index)
    merged: dict[tuple[str, str, str], list[str]] = {}
    for p in found.problems:
        merged.setdefault((p.where, p.sentence, p.figure), []).append(p.why)
    return [Problem(w, s, f, "; ".join(dict.fromkeys(whys))) for (w, s, f), whys in merged.items()]
