"""A registry entry's code identity (what cache keys hold of the code that computes an
artefact): its card version and, for a plug-in an entry point registered, its
distribution's name and version; a key adds nothing for a built-in at version 1, and a
different payload for every other identity. The records beside the artefacts say which
code made each one."""

from __future__ import annotations

import importlib.metadata
from pathlib import Path

import pytest

from audit.code_identity import CodeIdentity, why_remade, with_code
from audit.code_records import CodeRecords
from audit.measures.catalog import MEASURES
from audit.plugins import GROUP, load_entry_point
from audit.scoring.catalog import SCORERS
from audit.variants.catalog import VARIANT_METHODS


def _entry_point(tmp_path: Path, version: str) -> importlib.metadata.EntryPoint:
    """The entry point of a distribution 'fake-audit-plugin' `version` (a real dist-info
    folder) that registers the measure 'fake_gap'."""
    info = tmp_path / f"fake_audit_plugin-{version}.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(
        f"Metadata-Version: 2.1\nName: fake-audit-plugin\nVersion: {version}\n"
    )
    (info / "entry_points.txt").write_text(
        f"[{GROUP}]\nextra = tests.plugins.fake_plugins:register_extra\n"
    )
    [entry_point] = importlib.metadata.PathDistribution(info).entry_points.select(group=GROUP)
    return entry_point


@pytest.mark.parametrize("version", ["1.2", "1.3"])
def test_an_entry_point_s_plugin_carries_its_distribution(tmp_path: Path, version: str) -> None:
    load_entry_point(_entry_point(tmp_path, version))
    try:
        code = MEASURES.code_identity("fake_gap")
        assert code == CodeIdentity("measure", "fake_gap", "1", f"fake-audit-plugin=={version}")
        assert code.key_fields() == {"distribution": f"fake-audit-plugin=={version}"}
    finally:
        MEASURES.unregister("fake_gap")


def test_a_built_in_has_its_card_version_and_no_distribution() -> None:
    assert SCORERS.code_identity("ll") == CodeIdentity("scorer", "ll")
    assert VARIANT_METHODS.code_identity("cda").key_fields() == {}
    assert with_code({"a": 1}, CodeIdentity("scorer", "ll")) == {"a": 1}


def test_every_other_identity_gives_its_own_payload() -> None:
    identities = [
        CodeIdentity("scorer", "x"),
        CodeIdentity("scorer", "x", "2"),
        CodeIdentity("scorer", "x", "1", "d==1"),
        CodeIdentity("scorer", "x", "1", "d==2"),
        CodeIdentity("scorer", "x", "2", "d==1"),
    ]
    payloads = [repr(sorted(with_code({"a": 1}, c).items())) for c in identities]
    assert len(set(payloads)) == len(identities)
    assert all(CodeIdentity("scorer", "x").with_fields(c.key_fields()) == c for c in identities)


def test_records_name_the_code_of_the_latest_artefact_of_the_same_inputs(
    tmp_path: Path,
) -> None:
    records = CodeRecords(tmp_path)
    v1, v2, v3 = (CodeIdentity("variant_method", "m", v) for v in "123")
    done = {"k1", "k2"}
    records.remember("k1", "k1", v1)
    records.remember("k1", "k2", v2)
    assert records.why_missing("k1", "k3", v3, done.__contains__) == why_remade(v2, v3)
    assert why_remade(v2, v3) == (
        "the cached copy was made by variant method 'm' version 2, now version 3"
    )
    done.discard("k2")  # a removed artefact explains nothing
    assert records.why_missing("k1", "k3", v3, done.__contains__) == why_remade(v1, v3)
    assert records.why_missing("k1", "k1", v1, done.__contains__) is None  # itself
    assert records.why_missing("other", "k3", v3, done.__contains__) is None
