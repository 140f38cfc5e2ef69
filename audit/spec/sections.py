"""The parts of a spec the semantic checks read, validated one list item at a time.

When pydantic rejects one part of a spec (say one model's source), the rest is still
checked against the registries, so a user sees every problem in one run. A list item
that did not validate is None (its problems come from pydantic); a whole part that did
not validate, or a required part that is missing, is None.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Annotated, Any, Generic, TypeVar

from pydantic import TypeAdapter, ValidationError

from audit.spec.models import (
    AuditSpec,
    DatasetSpec,
    ExtrinsicSpec,
    GateSpec,
    ModelSpec,
    PluginRef,
    ScorerSelection,
    VariantSpec,
    dataset_item,
    plugin_ref,
)

T = TypeVar("T")


@dataclass(frozen=True)
class Items(Generic[T]):
    """A spec list whose items validated one by one: None where an item did not."""

    items: tuple[T | None, ...]

    def valid(self) -> list[tuple[int, T]]:
        """(index in the spec list, item) for every item that validated."""
        return [(i, item) for i, item in enumerate(self.items) if item is not None]

    @property
    def complete(self) -> bool:
        """True when every item validated (so a name missing from them is truly absent)."""
        return all(item is not None for item in self.items)

    @classmethod
    def of(cls, values: Sequence[T]) -> Items[T]:
        return cls(tuple(values))


@dataclass(frozen=True)
class SpecSections:
    """Validated parts of a spec, as far as they validated."""

    models: Items[ModelSpec] | None
    datasets: Items[DatasetSpec] | None
    scorers: ScorerSelection | None
    measures: Items[PluginRef] | None
    variants: Items[VariantSpec] | None
    extrinsic: Items[ExtrinsicSpec] | None
    gates: Items[GateSpec] | None

    @classmethod
    def of_spec(cls, spec: AuditSpec) -> SpecSections:
        """All parts of a spec that validated whole."""
        return cls(
            models=Items.of(spec.models),
            datasets=Items.of(spec.datasets),
            scorers=spec.scorers,
            measures=Items.of(spec.measures),
            variants=Items.of(spec.variants),
            extrinsic=Items.of(spec.extrinsic),
            gates=Items.of(spec.gates),
        )

    @classmethod
    def of_data(cls, data: Any) -> SpecSections:
        """Validate each part of raw spec data on its own (used after the whole failed)."""
        return cls(
            models=_items(data, "models", ModelSpec),
            datasets=_items(data, "datasets", DatasetSpec),
            scorers=_whole(data, "scorers", ScorerSelection),
            measures=_items(data, "measures", PluginRef),
            variants=_items(data, "variants", VariantSpec),
            extrinsic=_items(data, "extrinsic", ExtrinsicSpec),
            gates=_items(data, "gates", GateSpec),
        )


def _raw(data: Any, name: str) -> tuple[bool, Any]:
    if not isinstance(data, dict) or name not in data:
        return False, None
    value = data[name]
    if name == "datasets" and isinstance(value, list):
        value = [dataset_item(v) for v in value]
    elif name == "measures" and isinstance(value, list):
        value = [plugin_ref(v) for v in value]
    return True, value


def _default(name: str) -> Any:
    field = AuditSpec.model_fields[name]
    return None if field.is_required() else field.get_default(call_default_factory=True)


def _items(data: Any, name: str, item_type: type[T]) -> Items[T] | None:
    present, value = _raw(data, name)
    if not present:
        default = _default(name)
        return None if default is None else Items.of(default)
    if not isinstance(value, list):
        return None
    adapter: TypeAdapter[T] = TypeAdapter(item_type)
    validated: list[T | None] = []
    for item in value:
        try:
            validated.append(adapter.validate_python(item))
        except ValidationError:
            validated.append(None)
    return Items(tuple(validated))


def _whole(data: Any, name: str, part_type: type[T]) -> T | None:
    present, value = _raw(data, name)
    if not present:
        default: T | None = _default(name)
        return default
    field = AuditSpec.model_fields[name]
    annotation: Any = Annotated[part_type, *field.metadata] if field.metadata else part_type
    adapter: TypeAdapter[T] = TypeAdapter(annotation)
    try:
        return adapter.validate_python(value)
    except ValidationError:
        return None
