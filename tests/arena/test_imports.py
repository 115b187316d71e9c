"""The arena package imports without circles: each module's imports of the others, those made inside a
function too, form a graph with no cycle, and the tournament does not reach the command line."""

from __future__ import annotations

import ast
import graphlib
from pathlib import Path

import arena

PACKAGE = Path(arena.__file__).parent


def imports() -> dict[str, set[str]]:
    """Module -> the arena modules it imports anywhere in its text (``from arena import replay`` counts as
    ``arena.replay``)."""
    graph: dict[str, set[str]] = {}
    for path in PACKAGE.glob("*.py"):
        name = "arena" if path.stem == "__init__" else f"arena.{path.stem}"
        found: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module == "arena":
                found |= {f"arena.{a.name}" for a in node.names if (PACKAGE / f"{a.name}.py").exists()}
            elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("arena."):
                found.add(str(node.module))
            elif isinstance(node, ast.Import):
                found |= {a.name for a in node.names if a.name.startswith("arena.")}
        graph[name] = found - {name}
    return graph


def reached(graph: dict[str, set[str]], start: str) -> set[str]:
    seen, todo = set(), [start]
    while todo:
        for nxt in graph.get(todo.pop(), set()) - seen:
            seen.add(nxt)
            todo.append(nxt)
    return seen


def test_arena_modules_import_each_other_without_a_circle():
    graph = imports()
    assert graph["arena.smart"] == {"arena.brain"} and "arena.smart" in graph["arena.bots"]
    order = list(graphlib.TopologicalSorter(graph).static_order())  # CycleError names the circle
    assert order.index("arena.brain") < order.index("arena.smart") < order.index("arena.bots")


def test_the_tournament_does_not_reach_the_command_line():
    graph = imports()
    assert "arena.cli" not in reached(graph, "arena.tournament")
    assert "arena.bots" in reached(graph, "arena.tournament")
