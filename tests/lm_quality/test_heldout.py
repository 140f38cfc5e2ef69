"""The held-out text: the STS-B test split or a user file, stripped and de-duplicated,
without the variants' training sentences, sampled with the seed in file order."""

from __future__ import annotations

from pathlib import Path

import pytest

from audit.errors import DataError
from audit.lm_quality.heldout import HELD_OUT_DATASET, load_heldout, sample_in_order
from audit.lm_quality.settings import HeldOutTextSpec

ROWS = [
    ("A man is playing a guitar.", "A woman is slicing onions. "),
    ("A dog runs in the park.", "A man is playing a guitar."),  # a repeat
    ("The Cat Sat.", "Birds fly south in winter."),
]


def _sts_folder(root: Path) -> Path:
    folder = root / "sts_b"
    folder.mkdir(parents=True)
    lines = [f"main-captions\tMSRvid\t2012test\t{i:04d}\t2.5\t{a}\t{b}" for i, (a, b) in
             enumerate(ROWS)]  # fmt: skip
    (folder / "sts-test.tsv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return root


def _spec(**values: object) -> HeldOutTextSpec:
    return HeldOutTextSpec.model_validate(values)


def test_sts_b_test_without_training_sentences(tmp_path: Path) -> None:
    data = _sts_folder(tmp_path / "data")
    text = load_heldout(
        _spec(name="sts_b_test"),
        data_dir=data,
        base_dir=tmp_path,
        training_text=["the  cat sat.", "unrelated"],  # case and spaces do not matter
        sentences=100,
        seed=0,
    )
    assert [i.text for i in text.dataset.labelled_items()] == [
        "A man is playing a guitar.",
        "A woman is slicing onions.",
        "A dog runs in the park.",
        "Birds fly south in winter.",
    ]
    assert (text.read, text.overlap_removed, text.available) == (5, 1, 4)
    assert text.dataset.name == HELD_OUT_DATASET and text.dataset.rows_read == 6
    assert text.dataset.filtered == {"in a variant's training text": 1}
    assert "STS Benchmark test split" in text.description
    assert text.source.endswith("sts_b/sts-test.tsv")


def test_a_sample_keeps_file_order_and_follows_the_seed(tmp_path: Path) -> None:
    sentences = [f"sentence {i} ." for i in range(50)]
    picked = sample_in_order(sentences, 10, seed=3)
    assert len(picked) == 10 and picked == sorted(picked, key=sentences.index)
    assert picked == sample_in_order(sentences, 10, seed=3)
    assert picked != sample_in_order(sentences, 10, seed=4)
    assert sample_in_order(sentences, 60, seed=3) == sentences
    path = tmp_path / "held.txt"
    path.write_text("\n".join(sentences) + "\n")
    text = load_heldout(
        _spec(path="held.txt"), data_dir=None, base_dir=tmp_path, training_text=[],
        sentences=10, seed=3,
    )  # fmt: skip
    assert [i.text for i in text.dataset.labelled_items()] == picked
    assert text.dataset.filtered == {"in a variant's training text": 0, "sample": 40}


def test_errors_name_the_field_and_the_fix(tmp_path: Path) -> None:
    with pytest.raises(DataError, match=r"lm_quality.text: .* no data folder was given; "):
        load_heldout(_spec(name="sts_b_test"), data_dir=None, base_dir=tmp_path,
                     training_text=[], sentences=5, seed=0)  # fmt: skip
    with pytest.raises(DataError, match=r"lm_quality.text \(sts_b_test\): STS-B test split: "):
        load_heldout(_spec(name="sts_b_test"), data_dir=tmp_path, base_dir=tmp_path,
                     training_text=[], sentences=5, seed=0)  # fmt: skip
    with pytest.raises(DataError, match=r"lm_quality.text.path: .*gone.txt: file not found"):
        load_heldout(_spec(path="gone.txt"), data_dir=None, base_dir=tmp_path,
                     training_text=[], sentences=5, seed=0)  # fmt: skip
    (tmp_path / "same.txt").write_text("a b c\nd e f\n")
    with pytest.raises(DataError, match=r"every one of the 2 sentences .* nothing is held out"):
        load_heldout(_spec(path="same.txt"), data_dir=None, base_dir=tmp_path,
                     training_text=["A B C", "d e f"], sentences=5, seed=0)  # fmt: skip


@pytest.mark.parametrize(
    ("values", "message"),
    [
        ({"name": "wikitext"}, "'wikitext' is not a built-in held-out text"),
        ({"name": "sts_b_test", "path": "a.txt"}, "either a built-in `name` or a user file"),
        ({}, "either a built-in `name` or a user file"),
    ],
)
def test_text_spec_validation(values: dict[str, object], message: str) -> None:
    from pydantic import ValidationError

    with pytest.raises(ValidationError, match=message):
        _spec(**values)
