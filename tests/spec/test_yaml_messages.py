"""YAML syntax errors in plain words, at the line and column where the fix goes."""

from __future__ import annotations

import pytest

from audit.spec.yaml_source import YamlSyntaxError, parse_yaml

CASES = [
    # (text, line, column, start of the message after "invalid YAML: ")
    (
        "models:\n  - id: a\n  source: b\n",
        3,
        3,
        "the indentation does not match the lines above",
    ),
    ("a: 1\n  b: 2\n", 2, 4, "unexpected ':' here"),
    ("description: note: this\n", 1, 18, "unexpected ':' here"),
    ("a: 1\nb\nc: 2\n", 2, 1, "this line has no ':' after its key"),
    ("a: {b: 1\nc: 2\n", 2, 2, "the '{' at line 1, column 4 is not closed"),
    ("a: [1, 2\nc: 2\n", 2, 2, "the '[' at line 1, column 4 is not closed"),
    ("a:\n  - x\n - y\n", 3, 2, "this list item ('- ') is not indented like the lines above"),
    ("a:\n\tb: 1\n", 2, 1, "a tab character; indent with spaces"),
    ("a: 'abc\nb: 2\n", 1, 4, "this quote is never closed"),
    ("a: `x`\n", 1, 4, "a value cannot start with '`': put the value in quotes"),
    ("a: 1\n---\nb: 2\n", 2, 1, "a second YAML document"),
]


@pytest.mark.parametrize(("text", "line", "col", "message"), CASES)
def test_syntax_errors_are_explained(text: str, line: int, col: int, message: str) -> None:
    with pytest.raises(YamlSyntaxError) as caught:
        parse_yaml(text)
    error = caught.value
    assert (error.line, error.col) == (line, col)
    assert error.message.startswith(f"invalid YAML: {message}"), error.message
    for jargon in ("<block end>", "block mapping", "simple key", "scanning"):
        assert jargon not in error.message
