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
from dataclasses import dataclass, replace
from typing import Any, Literal

from audit.cards import PluginKind

#: A card's version when it names none (`PluginCard.version`).
DEFAULT_VERSION = "1"


#: The kinds of code an identity names: the plug-in kinds with cards, and head kinds
#: (`audit.extrinsic.head_kinds`), which have a version but no card.
CodeKind = PluginKind | Literal["head_kind"]


@dataclass(frozen=True)
class CodeIdentity:
    """Which code computes an artefact: the plug-in's kind and name, its card version and
    the distribution it came from ("name==version"; None for a built-in or a plug-in
    registered directly by code). `parts`: other plug-ins whose code also computes it (a
    fine-tuning's head kind beside its task), each in the key only where it is not a
    built-in at version 1."""

    kind: CodeKind
    name: str
    version: str = DEFAULT_VERSION
    distribution: str | None = None
    parts: tuple[CodeIdentity, ...] = ()

    def key_fields(self) -> dict[str, Any]:
        """What a cache key holds of this code: the version when it is not the default,
        the distribution when there is one, and under "with" the parts' own fields where
        they have any (empty for a built-in at version 1 whose parts are too)."""
        fields: dict[str, Any] = {}
        if self.version != DEFAULT_VERSION:
            fields["version"] = self.version
        if self.distribution is not None:
            fields["distribution"] = self.distribution
        parts = {p.label: p.key_fields() for p in self.parts if p.key_fields()}
        if parts:
            fields["with"] = parts
        return fields

    def default(self) -> CodeIdentity:
        """The same plug-in (and parts) as built-ins at version 1: the identity whose key
        is the key the artefact had before versions entered keys."""
        return CodeIdentity(self.kind, self.name, parts=tuple(p.default() for p in self.parts))

    def with_parts(self, *parts: CodeIdentity) -> CodeIdentity:
        return replace(self, parts=self.parts + parts)

    def with_fields(self, fields: Mapping[str, Any]) -> CodeIdentity:
        """The same plug-in with the version, distribution and parts' fields that
        `key_fields` gave."""
        distribution = fields.get("distribution")
        parts_fields = fields.get("with")
        given: Mapping[str, Any] = parts_fields if isinstance(parts_fields, Mapping) else {}
        return CodeIdentity(
            self.kind,
            self.name,
            str(fields.get("version", DEFAULT_VERSION)),
            None if distribution is None else str(distribution),
            tuple(p.with_fields(given.get(p.label, {})) for p in self.parts),
        )

    @property
    def label(self) -> str:
        """ "variant method 'cda'"."""
        return f"{self.kind.replace('_', ' ')} '{self.name}'"

    @property
    def code_text(self) -> str:
        """ "version 2" or "version 2 from my-plugins==0.3", and the parts that are not
        built-ins at version 1: "version 1 (head kind 'span' version 2)"."""
        source = f" from {self.distribution}" if self.distribution is not None else ""
        parts = [f"{p.label} {p.code_text}" for p in self.parts if p.key_fields()]
        return f"version {self.version}{source}" + (f" ({'; '.join(parts)})" if parts else "")


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
