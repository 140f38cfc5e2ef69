"""YAML aliases are limited (count and expanded size) before the spec is expanded: an
alias bomb is refused at the line of the alias that goes over, in well under a second."""

from __future__ import annotations

import time

import pytest

from audit.spec.yaml_aliases import MAX_ALIASES, MAX_VALUES
from audit.spec.yaml_source import YamlSyntaxError, parse_yaml


def alias_bomb(levels: int = 9, width: int = 9) -> str:
    """`levels` lines each holding `width` aliases of the line above: width**levels values."""
    lines = ["a0: &a0 [" + ", ".join(['"lol"'] * width) + "]"]
    for level in range(1, levels):
        aliases = ", ".join([f"*a{level - 1}"] * width)
        lines.append(f"a{level}: &a{level} [{aliases}]")
    return "\n".join(lines) + "\n"


def test_an_alias_bomb_is_refused_at_the_alias_that_goes_over() -> None:
    started = time.monotonic()
    with pytest.raises(YamlSyntaxError) as caught:
        parse_yaml(alias_bomb())
    assert time.monotonic() - started < 5
    error = caught.value
    # lines 1-5 hold 74,732 values; the list of line 6 (a5) goes over 100,000
    assert (error.line, error.col) == (6, 5)
    assert error.message.startswith(
        f"the aliases ('*name') expand the spec to more than {MAX_VALUES:,} values"
    )


def test_too_many_aliases_are_refused_at_the_first_one_over() -> None:
    text = "base: &b {x: 1}\nlist:\n" + "".join("  - *b\n" for _ in range(MAX_ALIASES + 1))
    with pytest.raises(YamlSyntaxError) as caught:
        parse_yaml(text)
    assert (caught.value.line, caught.value.col) == (3, 3)  # the list holding them
    assert caught.value.message.startswith(f"more than {MAX_ALIASES} aliases ('*name')")


def test_ordinary_aliases_and_merge_keys_are_read() -> None:
    text = (
        "training: &t {steps: 2, batch_size: 4}\n"
        "variants:\n"
        "  - {id: a, training: *t}\n"
        "  - {id: b, training: {<<: *t, steps: 3}}\n"
    )
    data = parse_yaml(text).data
    assert data["variants"][0]["training"] == {"steps": 2, "batch_size": 4}
    assert data["variants"][1]["training"] == {"steps": 3, "batch_size": 4}
