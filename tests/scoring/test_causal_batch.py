"""The padded batch that `ll` and `choice_ll` share (`audit.scoring.causal_batch`)."""

from __future__ import annotations

import numpy as np

from audit.scoring.causal_batch import padded_causal_batch


def test_right_padded_with_targets_from_each_start() -> None:
    batch = padded_causal_batch([[1, 5, 6], [1, 7, 8, 9, 4]], [1, 3], pad_id=0)
    np.testing.assert_array_equal(batch.input_ids, [[1, 5, 6, 0, 0], [1, 7, 8, 9, 4]])
    np.testing.assert_array_equal(batch.attention, [[1, 1, 1, 0, 0], [1, 1, 1, 1, 1]])
    # position p - 1 predicts token p: row 0 from token 1 on, row 1 from token 3 on
    np.testing.assert_array_equal(batch.rows, [0, 0, 1, 1])
    np.testing.assert_array_equal(batch.cols, [0, 1, 2, 3])
    np.testing.assert_array_equal(batch.targets, [5, 6, 9, 4])


def test_a_start_below_one_scores_from_the_second_token() -> None:
    batch = padded_causal_batch([[3, 4]], [0], pad_id=9)
    np.testing.assert_array_equal(batch.targets, [4])
    np.testing.assert_array_equal(batch.cols, [0])


def test_a_sequence_shorter_than_its_start_has_no_targets() -> None:
    batch = padded_causal_batch([[2], [2, 3]], [1, 1], pad_id=0)
    np.testing.assert_array_equal(batch.rows, [1])
    assert batch.rows.dtype == batch.cols.dtype == batch.targets.dtype == np.int64
