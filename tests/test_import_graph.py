"""No import cycles between the package's modules, nor between its subpackages.

Every `import` counts, including those inside functions (a function-level import only
delays a cycle, it does not remove it) and those under `if TYPE_CHECKING:` (they do not
run, but they still tie the two modules together: neither can be read, type-checked or
moved without the other). A top-level module (audit/engine.py) is a unit of its own at
the package level; a subpackage (audit/scoring/) is one unit with all its modules.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

PACKAGE_ROOT = Path(__file__).resolve().parents[1] / "audit"


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE_ROOT.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _modules() -> dict[str, Path]:
    return {_module_name(p): p for p in PACKAGE_ROOT.rglob("*.py")}


def _import_nodes(node: ast.AST) -> Iterator[ast.Import | ast.ImportFrom]:
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.Import | ast.ImportFrom):
            yield child
        yield from _import_nodes(child)


def _resolve(name: str, modules: dict[str, Path]) -> str | None:
    """The deepest module of the package that `name` names (a.b.attr -> a.b)."""
    while name:
        if name in modules:
            return name
        name = name.rpartition(".")[0]
    return None


def _imports(module: str, path: Path, modules: dict[str, Path]) -> set[str]:
    tree = ast.parse(path.read_text(), filename=str(path))
    is_package = path.name == "__init__.py"
    found: set[str] = set()
    for node in _import_nodes(tree):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        else:
            base = node.module or ""
            if node.level:
                anchor = module.split(".")
                drop = node.level - 1 if is_package else node.level
                anchor = anchor[: len(anchor) - drop] if drop else anchor
                base = ".".join([*anchor, base] if base else anchor)
            targets = [f"{base}.{alias.name}" for alias in node.names] + [base]
        for target in targets:
            resolved = _resolve(target, modules)
            if resolved is not None and resolved != module:
                found.add(resolved)
    return found


def _graph() -> dict[str, set[str]]:
    modules = _modules()
    return {name: _imports(name, path, modules) for name, path in modules.items()}


def _unit(module: str) -> str:
    parts = module.split(".")
    return ".".join(parts[:2])


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one node (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []
    counter = [0]

    def visit(node: str) -> None:
        index[node] = low[node] = counter[0]
        counter[0] += 1
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return out


def _explain(graph: dict[str, set[str]], component: list[str]) -> str:
    members = set(component)
    edges = [f"{a} -> {b}" for a in component for b in sorted(graph[a]) if b in members]
    return "; ".join(edges)


def test_no_import_cycle_between_modules() -> None:
    graph = _graph()
    cycles = _cycles(graph)
    assert not cycles, "import cycles between modules:\n" + "\n".join(
        _explain(graph, c) for c in cycles
    )


def test_no_import_cycle_between_packages() -> None:
    graph: dict[str, set[str]] = {}
    for module, targets in _graph().items():
        unit = _unit(module)
        graph.setdefault(unit, set()).update(_unit(t) for t in targets if _unit(t) != unit)
    cycles = _cycles(graph)
    assert not cycles, "import cycles between packages:\n" + "\n".join(
        _explain(graph, c) for c in cycles
    )


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("from audit.b import f\n", {"audit.b"}),
        ("def g():\n    import audit.b\n", {"audit.b"}),
        ("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import audit.b\n", {"audit.b"}),
        ("if TYPE_CHECKING:\n    pass\nelse:\n    from audit.b import f\n", {"audit.b"}),
    ],
)
def test_the_checker_sees_imports(tmp_path: Path, source: str, expected: set[str]) -> None:
    path = tmp_path / "a.py"
    path.write_text(source)
    modules = {"audit.a": path, "audit.b": tmp_path / "b.py"}
    assert _imports("audit.a", path, modules) == expected


def test_the_checker_finds_a_cycle() -> None:
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
