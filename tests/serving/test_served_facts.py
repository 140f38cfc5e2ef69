"""A served model's fingerprint and the probe's memory (no server needed): the
fingerprint follows the server's model id, the stated revision and the probe's digest,
not the address; a probe that differs from the previous run's on the same cache is
reported, so that the run can say why no cached score was reused."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from audit.models.served import ServedFacts
from audit.serving.served_model import _remember_probe

FACTS = ServedFacts(
    endpoint="http://127.0.0.1:8080/v1",
    model="smollm2",
    server_model="smollm2",
    revision="r1",
    bos_text="<|im_start|>",
    probe_digest="a" * 64,
    probe_verdict="aligned",
)


def test_the_fingerprint_is_model_revision_and_probe_not_the_address() -> None:
    assert replace(FACTS, endpoint="https://elsewhere.example/v1").fingerprint == FACTS.fingerprint
    for changed in (
        replace(FACTS, server_model="other"),
        replace(FACTS, revision="r2"),
        replace(FACTS, probe_digest="b" * 64),
    ):
        assert changed.fingerprint != FACTS.fingerprint
    assert FACTS.source == "endpoint:http://127.0.0.1:8080/v1 model=smollm2@r1"


def test_a_changed_probe_is_remembered_and_said(tmp_path: Path) -> None:
    first = _remember_probe(FACTS, tmp_path)
    assert first.changed_from is None and first.change_note("m") is None
    assert _remember_probe(FACTS, tmp_path).changed_from is None  # the same probe again
    swapped = _remember_probe(replace(FACTS, probe_digest="b" * 64), tmp_path)
    assert swapped.changed_from == "a" * 64
    note = swapped.change_note("m")
    assert note is not None and "aaaaaaaaaaaa -> bbbbbbbbbbbb" in note
    assert "cached scores are not reused" in note
    # another revision is another record: no change to report
    assert _remember_probe(replace(FACTS, revision="r2"), tmp_path).changed_from is None
