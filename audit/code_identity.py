"""The code that computes a cached artefact, as its cache key holds it.

Every cache key (a scorer's score namespace, a variant, a projection, a fine-tuning, a
SEAT entry) includes the identity of the plug-in that computes it: its card's `version`
and, for a plug-in an installed distribution registered through the `bias_audit.plugins`
entry points, that distribution's "name==version". Raising either gives new keys, so
exactly the artefacts that plug-in computes are made again.

A key holds only what differs from the built-in default (version "1", no distribution):
`with_code` adds `"code": {...}` to a key's payload then, and nothing otherwise, so the
keys of built-ins at version 1 are the keys they had before versions entered keys (users'
caches stay valid), and no two identities give the same payload (the field is absent for
exactly one identity). The key under the default identity is where the side records of
`audit.code_records` are kept.

Registries give an entry's identity (`Registry.code_identity`). Imports nothing of the
tool but the card types.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from audit.cards import PluginKind

#: A card's version when it names none (`PluginCard.version`).
DEFAULT_VERSION = "1"


@dataclass(frozen=True)
class CodeIdentity:
    """Which code computes an artefact: the plug-in's kind and name, its card version and
    the distribution it came from ("name==version"; None for a built-in or a plug-in
    registered directly by code)."""

    kind: PluginKind
    name: str
    version: str = DEFAULT_VERSION
    distribution: str | None = None

    def key_fields(self) -> dict[str, str]:
        """What a cache key holds of this code: the version when it is not the default,
        the distribution when there is one (empty for a built-in at version 1)."""
        fields: dict[str, str] = {}
        if self.version != DEFAULT_VERSION:
            fields["version"] = self.version
        if self.distribution is not None:
            fields["distribution"] = self.distribution
        return fields

    def default(self) -> CodeIdentity:
        """The same plug-in as a built-in at version 1: the identity whose key is the key
        the artefact had before versions entered keys."""
        return CodeIdentity(self.kind, self.name)

    def with_fields(self, fields: Mapping[str, Any]) -> CodeIdentity:
        """The same plug-in with the version and distribution that `key_fields` gave."""
        distribution = fields.get("distribution")
        return CodeIdentity(
            self.kind,
            self.name,
            str(fields.get("version", DEFAULT_VERSION)),
            None if distribution is None else str(distribution),
        )

    @property
    def label(self) -> str:
        """ "variant method 'cda'"."""
        return f"{self.kind.replace('_', ' ')} '{self.name}'"

    @property
    def code_text(self) -> str:
        """ "version 2" or "version 2 from my-plugins==0.3"."""
        source = f" from {self.distribution}" if self.distribution is not None else ""
        return f"version {self.version}{source}"


def with_code(payload: Mapping[str, Any], code: CodeIdentity) -> dict[str, Any]:
    """A cache key's payload with the computing code added (see the module docstring)."""
    fields = code.key_fields()
    return {**payload, "code": fields} if fields else dict(payload)


def why_remade(
    earlier: CodeIdentity | None, now: CodeIdentity, *, what: str = "cached copy"
) -> str:
    """Why an artefact made by `earlier` is made again: "the cached copy was made by
    variant method 'x' version 1, now version 2" (`what`: "cached scores" makes it
    "were"). `earlier` None: made under the default key with no record of its code."""
    made = f"the {what} {'were' if what.endswith('s') else 'was'} made by {now.label}"
    if earlier is None:
        return (
            f"{made} at a version its key does not hold (version 1, or made before keys "
            f"held versions), now {now.code_text}"
        )
    return f"{made} {earlier.code_text}, now {now.code_text}"
