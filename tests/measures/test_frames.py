# mypy: disable-error-code="operator"
"""Malformed score tables give clear errors naming the item and the problem."""

from __future__ import annotations

import pandas as pd
import pytest

from audit.measures.frames import ScoreTableError, labelled_scores, pair_scores
from tests.measures.frames_factory import AUL, LL, PPL, labelled_frame, pair_frame


def test_missing_column() -> None:
    with pytest.raises(ScoreTableError, match="lacks column"):
        pair_scores(pair_frame([1.0], [0.0]).drop(columns=["side"]), scorer=AUL)


def test_missing_and_duplicated_sides() -> None:
    frame = pair_frame([1.0, 2.0], [0.0, 1.0])
    with pytest.raises(ScoreTableError, match=r"\['1'\] lack the 'at'"):
        pair_scores(frame.drop(index=3), scorer=AUL)
    with pytest.raises(ScoreTableError, match="item '0' has more than one 'st'"):
        pair_scores(pd.concat([frame, frame.iloc[[0]]]), scorer=AUL)


def test_mixed_models_are_refused() -> None:
    frame = pd.concat([pair_frame([1.0], [0.0]), pair_frame([1.0], [0.0], model="other")])
    with pytest.raises(ScoreTableError, match="mixes several models"):
        pair_scores(frame, scorer=AUL)
    reference = pair_frame([1.0], [0.0]).assign(scorer_options='{"compat":"reference"}')
    options = pd.concat([pair_frame([1.0], [0.0]), reference])
    with pytest.raises(ScoreTableError, match="mixes several scorer_options"):
        pair_scores(options, scorer=AUL)


def test_orientation_and_alignment() -> None:
    data = pair_scores(pair_frame([5.0, 3.0], [4.0, 9.0], scorer="ppl"), scorer=PPL)
    assert list(data.st) == [-5.0, -3.0] and list(data.at) == [-4.0, -9.0]


def test_labelled_errors() -> None:
    bad_label = labelled_frame([1.0], ["toxic"], ["a"])
    with pytest.raises(ScoreTableError, match="label"):
        labelled_scores(bad_label, scorer=PPL)
    with pytest.raises(ScoreTableError, match="item '0' has toxicity 0"):
        labelled_scores(labelled_frame([1.0], ["harmful"], ["a"], toxicity=[0]), scorer=PPL)
    with pytest.raises(ScoreTableError, match="n_tokens"):
        labelled_scores(
            labelled_frame([-1.0], ["harmful"], ["a"], n_tokens=[0], scorer="ll"), scorer=LL
        )


def test_labelled_groups_and_strata() -> None:
    data = labelled_scores(
        labelled_frame([1, 2, 3], ["harmful", "benign", "benign"], ["b;a", "a", ""]), scorer=PPL
    )
    assert data.groups == ("a", "b")
    assert data.membership.tolist() == [[True, True], [True, False], [False, False]]
    assert len(set(data.strata.tolist())) == 3
