"""Validate a plug-in's options (from the spec) against its pydantic options model."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ValidationError

from audit.registry import did_you_mean
from audit.spec.problems import Finding, Loc, one_of
from audit.spec.validation_errors import plain_words


def check_options(
    options: Mapping[str, Any],
    model: type[BaseModel] | None,
    *,
    loc: Loc,
    what: str,
) -> list[Finding]:
    """Findings for `options` (the keys besides `name`) of the plug-in `what` at `loc`.

    `model` None means the plug-in takes no options. Each finding's loc is `loc + (key,)`.
    """
    if model is None:
        return [
            Finding((*loc, key), f"unknown option '{key}': {what} takes no options")
            for key in options
        ]
    allowed = list(model.model_fields)
    try:
        model.model_validate(dict(options))
    except ValidationError as exc:
        findings: list[Finding] = []
        for error in exc.errors(include_url=False):
            error_loc = tuple(error["loc"])
            key = str(error_loc[0]) if error_loc else ""
            if error["type"] == "extra_forbidden":
                message = f"unknown option '{key}' for {what}"
                hint = did_you_mean(key, allowed)
                if hint:
                    message += f"; {hint}"
                findings.append(Finding((*loc, key), message, expected=one_of(allowed)))
                continue
            message, got, expected = plain_words(error, loc + error_loc)
            where = f"option '{key}' of {what}" if key else f"the options of {what}"
            findings.append(Finding(loc + error_loc, f"{where} {message}", got, expected))
        return findings
    return []
