"""Every bad spec in tests/specs/bad fails with exactly the errors its first line expects.

The first line of each file is `# expect: <text> || <text> ...`: each text must be the
tail of one formatted error `file:<text>` (so line, column, field and message are all
checked), and the file must have no other error.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from audit.spec.loader import load_spec, validate_spec_file
from audit.spec.problems import SpecError

BAD = Path(__file__).resolve().parents[1] / "specs" / "bad"
BAD_SPECS = sorted(BAD.glob("*.yaml"))


def _expectations(path: Path) -> list[str]:
    first = path.read_text(encoding="utf-8").splitlines()[0]
    assert first.startswith("# expect: "), f"{path.name}: first line must be '# expect: ...'"
    return [e.strip() for e in first.removeprefix("# expect: ").split(" || ")]


def test_there_are_enough_bad_specs() -> None:
    assert len(BAD_SPECS) >= 18


@pytest.mark.usefixtures("plugin_names")
@pytest.mark.parametrize("path", BAD_SPECS, ids=[p.stem for p in BAD_SPECS])
def test_bad_spec_gives_its_expected_errors(path: Path) -> None:
    expected = _expectations(path)
    errors = [p.format() for p in validate_spec_file(path) if p.is_error]
    unmatched = list(errors)
    for text in expected:
        hits = [line for line in unmatched if line.startswith(f"{path}:{text}")]
        assert hits, f"no error starts with {path.name}:{text}\nerrors:\n" + "\n".join(errors)
        unmatched.remove(hits[0])
    assert not unmatched, "unexpected errors:\n" + "\n".join(unmatched)


@pytest.mark.usefixtures("plugin_names")
@pytest.mark.parametrize("path", BAD_SPECS, ids=[p.stem for p in BAD_SPECS])
def test_load_spec_raises_one_error_with_all_problems(path: Path) -> None:
    with pytest.raises(SpecError) as caught:
        load_spec(path)
    error = caught.value
    assert error.exit_code == 2
    assert len(error.problems) == len(_expectations(path))
    text = str(error)
    for noise in ("Traceback", "type=", "https://", "pydantic", "Input should"):
        assert noise not in text
