"""The variant registry (debiasing and control variants of a base model).

No variant is registered yet: the spec field `variants` and this registry exist so that
specs and plans already have their place; naming a variant today is a validation error
that lists what is known (nothing).
"""

from __future__ import annotations

from typing import Any

from audit.registry import Registry

VARIANTS: Registry[Any] = Registry("variant")
