"""The held-out text a variant's language-modelling quality is measured on: read, kept
apart from every sentence any variant trains on, and sampled.

Built-in `sts_b_test`: sentence1 and sentence2 of every pair of the STS Benchmark test
split, `<data_dir>/sts_b/sts-test.tsv` (the file STS-bias reads; the built-in training
corpus `sts_b` holds only the train and dev splits). A user file is read as a training
corpus is (`audit.variants.corpus.read_user_sentences`). Either way each sentence is
stripped, repeats are dropped (keeping the first), and every sentence that a variant of
the spec trains on (its corpus, and the sentences its method built from it: CDA's
swapped copies, AT's target and attribute sentences) is removed, compared with case and
runs of white space ignored; how many were removed is recorded. Then `sentences` of them
are drawn with the spec's seed and kept in file order.

The result is a `LoadedDataset` of single sentences, so the run scores it as it scores
any dataset: through the score units, the executor and the score cache.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from audit.data.items import LabelledItem, LoadedDataset
from audit.errors import DataError
from audit.lm_quality.settings import STS_B_TEST, HeldOutTextSpec

#: The dataset name of the held-out text's score units (a spec dataset of that name is
#: refused when the run is planned).
HELD_OUT_DATASET = "lm-quality:held-out"
FIELD = "lm_quality.text"


@dataclass(frozen=True)
class HeldOutText:
    """The held-out sentences as a dataset, and an account of how they were chosen."""

    dataset: LoadedDataset
    label: str  # the built-in name or the user file as the spec gives it
    source: str  # the file read
    description: str  # what the text is, in words, for the report's caveats
    read: int  # unique sentences in the text
    overlap_removed: int  # of those, sentences a variant trains on
    available: int  # read - overlap_removed
    seed: int


def normalised(sentence: str) -> str:
    """The form in which a held-out and a training sentence are compared."""
    return " ".join(sentence.split()).casefold()


def load_heldout(
    spec: HeldOutTextSpec,
    *,
    data_dir: Path | None,
    base_dir: Path,
    training_text: Iterable[str],
    sentences: int,
    seed: int,
) -> HeldOutText:
    """The held-out text of `spec`, without any of `training_text`, `sentences` of it drawn
    with `seed` (all when it has fewer). A DataError (exit 2) names `lm_quality.text` when
    the text cannot be read or nothing is left of it."""
    if spec.name == STS_B_TEST:
        raw, source = _sts_b_test(data_dir)
        description = (
            f"the STS Benchmark test split ({source}), which the built-in training corpus "
            "sts_b leaves out"
        )
    else:
        assert spec.path is not None
        path = Path(spec.path).expanduser()
        path = path if path.is_absolute() else base_dir / path
        from audit.variants.corpus import read_user_sentences

        raw = read_user_sentences(path, spec.column, field=FIELD)
        source = str(path)
        description = f"the user file {path}"
    unique = list(dict.fromkeys(s.strip() for s in raw if s.strip()))
    trained = {normalised(s) for s in training_text}
    kept = [s for s in unique if normalised(s) not in trained]
    if not kept:
        raise DataError(
            f"{FIELD}: every one of the {len(unique):,} sentences of {source} is also in a "
            "variant's training text, so nothing is held out; give another text with "
            "`lm_quality: {text: {path: ...}}`"
        )
    chosen = sample_in_order(kept, sentences, seed)
    items = [
        LabelledItem(item_id=str(i), text=text, label="benign", toxicity=1.0, groups=())
        for i, text in enumerate(chosen)
    ]
    digest = hashlib.sha256("\n".join(chosen).encode("utf-8")).hexdigest()
    dataset = LoadedDataset(
        name=HELD_OUT_DATASET,
        shape="labelled",
        items=items,
        source=source,
        sha256=digest,
        rows_read=len(raw),
        skipped={"repeated": len(raw) - len(unique)} if len(raw) > len(unique) else {},
        filtered={"in a variant's training text": len(unique) - len(kept)}
        | ({"sample": len(kept) - len(chosen)} if len(chosen) < len(kept) else {}),
    )
    return HeldOutText(
        dataset=dataset,
        label=spec.label,
        source=source,
        description=description,
        read=len(unique),
        overlap_removed=len(unique) - len(kept),
        available=len(kept),
        seed=seed,
    )


def sample_in_order(sentences: list[str], n: int, seed: int) -> list[str]:
    """`n` of `sentences` drawn without replacement with `seed`, in their order; all of
    them when there are no more than `n`."""
    if len(sentences) <= n:
        return list(sentences)
    rng = np.random.default_rng(seed)
    picked = np.sort(rng.choice(len(sentences), size=n, replace=False))
    return [sentences[int(i)] for i in picked]


def _sts_b_test(data_dir: Path | None) -> tuple[list[str], str]:
    from audit.data.tasks.sts_b import load_sts_b, sts_b_path

    if data_dir is None:
        raise DataError(
            f"{FIELD}: the built-in held-out text {STS_B_TEST} is the STS Benchmark test "
            "split, read from <data folder>/sts_b/sts-test.tsv, and no data folder was "
            "given; pass --data-dir ../shared/data (or set AUDIT_DATA_DIR), give your own "
            "text with `lm_quality: {text: {path: ...}}`, or leave the measurement out with "
            "`lm_quality: {enabled: false}`"
        )
    try:
        rows = load_sts_b(data_dir, "test")
    except DataError as exc:
        raise DataError(
            f"{FIELD} ({STS_B_TEST}): {exc}; or give your own held-out text with "
            "`lm_quality: {text: {path: ...}}`, or `lm_quality: {enabled: false}`"
        ) from None
    return [s for row in rows for s in (row.sentence1, row.sentence2)], str(
        sts_b_path(data_dir, "test")
    )
