# mypy: disable-error-code="operator"
"""LMS, SS and ICAT by hand."""

from __future__ import annotations

import pytest

from audit.measures.base import MeasureCall, MeasureOptions
from audit.measures.catalog import load_measure
from audit.measures.stereoset import ICAT, LMS
from tests.measures.frames_factory import AUL, pair_frame

SS = load_measure("ss")  # StereoSet's SS is the bias score

ST, AT, UN = [-1.0, -2.0], [-3.0, -1.5], [-2.5, -1.8]


def _first(measure, frame):  # type: ignore[no-untyped-def]
    return measure.compute(
        frame, MeasureCall(scorer=AUL, options=MeasureOptions(), seed=0, n_bootstrap=100)
    )[0]


def test_lms_ss_icat_by_hand() -> None:
    frame = pair_frame(ST, AT, unrelated=UN)
    # st beats unrelated in item 0 only; at beats unrelated in item 1 only -> 2 of 4
    assert _first(LMS, frame).value == 50.0
    assert _first(SS, frame).value == 50.0  # item 0 prefers st, item 1 prefers at
    icat = _first(ICAT, frame)
    assert icat.value == pytest.approx(50.0 * 50.0 / 50.0)
    assert icat.details["lms"] == 50.0 and icat.details["ss"] == 50.0
    frame2 = pair_frame([0.0, 0.0, 0.0, 0.0], [-1.0, -1.0, -1.0, 1.0], unrelated=[-5.0] * 4)
    assert _first(ICAT, frame2).value == pytest.approx(100.0 * 25.0 / 50.0)


def test_without_unrelated_sentences_lms_and_icat_are_undefined() -> None:
    frame = pair_frame(ST, AT)
    for measure in (LMS, ICAT):
        value = _first(measure, frame)
        assert value.status == "undefined" and "unrelated" in value.note
    assert _first(SS, frame).status == "ok"
