#!/usr/bin/python3
"""imports_test.py — the modules of reports/ import each other without a cycle, each imports on
its own, and the report's sections get their inputs from inputs.py rather than opening files.

A cycle (charts → inputs → real_faults → charts, once) works only while some import stays
inside a function, and breaks the day someone moves it to the top; a module that imports only
after another was imported first fails when a tool imports it alone. The graph is read from the
source (every `import` and `from … import`, at the top or inside a function), so a cycle is
found before anything runs.

    /usr/bin/python3 reports/imports_test.py
"""
from __future__ import annotations

import ast
import os
import subprocess
import sys
import unittest

from testsupport import require

require("matplotlib", "scipy")

HERE = os.path.dirname(os.path.abspath(__file__))

# The modules that build the report's sections: they read loaded results, never a file.
SECTIONS = ("content", "decision", "real_faults", "real_systems", "real_systems_locality",
            "locality_rows", "worker_ids_section", "derived_ids_section", "charts")


def modules(directory: str = HERE) -> list[str]:
    """The modules of reports/: every .py but the tests."""
    return sorted(f[:-3] for f in os.listdir(directory)
                  if f.endswith(".py") and not f.endswith("_test.py"))


def imports_of(path: str, names: set[str]) -> set[str]:
    """The modules among `names` that the file at `path` imports, anywhere in it."""
    with open(path, encoding="utf-8") as f:
        tree = ast.parse(f.read(), path)
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module.split(".")[0])
    return found & names


def import_graph(directory: str = HERE) -> dict[str, set[str]]:
    names = set(modules(directory))
    return {m: imports_of(os.path.join(directory, m + ".py"), names) - {m} for m in names}


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One cycle of the graph as a path (first node repeated at the end), or None."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(n: str) -> list[str] | None:
        state[n] = 1
        path.append(n)
        for m in sorted(graph.get(n, ())):
            if state.get(m) == 1:
                return path[path.index(m):] + [m]
            if m not in state:
                found = visit(m)
                if found:
                    return found
        path.pop()
        state[n] = 2
        return None

    for n in sorted(graph):
        if n not in state:
            found = visit(n)
            if found:
                return found
    return None


class ImportGraphTest(unittest.TestCase):
    def test_the_modules_of_reports_import_each_other_without_a_cycle(self):
        graph = import_graph()
        self.assertIn("inputs", graph["charts"])  # the scan sees imports at all
        cycle = find_cycle(graph)
        self.assertIsNone(cycle, cycle and " → ".join(cycle))

    def test_a_planted_cycle_is_found(self):
        self.assertEqual(find_cycle({"charts": {"inputs"}, "inputs": {"real_faults"},
                                     "real_faults": {"charts"}, "units": set()}),
                         ["charts", "inputs", "real_faults", "charts"])
        self.assertIsNone(find_cycle({"a": {"b"}, "b": {"c"}, "c": set()}))

    def test_an_import_inside_a_function_counts(self):
        import tempfile
        with tempfile.TemporaryDirectory() as d:
            for name, text in (("a", "import b\n"),
                               ("b", "def f():\n    from a import x\n    return x\n")):
                with open(os.path.join(d, name + ".py"), "w") as f:
                    f.write(text)
            self.assertEqual(find_cycle(import_graph(d)), ["a", "b", "a"])

    def test_every_module_imports_on_its_own(self):
        env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1", MPLBACKEND="Agg")
        failed = {}
        for m in modules():
            p = subprocess.run([sys.executable, "-c", f"import {m}"], cwd=HERE, env=env,
                               capture_output=True, text=True, timeout=120)
            if p.returncode != 0:
                failed[m] = p.stderr.strip().splitlines()[-1:]
        self.assertEqual(failed, {})

    def test_the_sections_read_no_file_themselves(self):
        """worker_ids.json and derived_ids.json come through inputs.load_results, like every
        other input: no section calls open(), json.load or os.path."""
        for m in SECTIONS:
            with open(os.path.join(HERE, m + ".py"), encoding="utf-8") as f:
                tree = ast.parse(f.read())
            calls = []
            for node in ast.walk(tree):
                if isinstance(node, ast.Call):
                    fn = node.func
                    name = (fn.id if isinstance(fn, ast.Name) else
                            f"{getattr(fn.value, 'id', '?')}.{fn.attr}"
                            if isinstance(fn, ast.Attribute) else "?")
                    if name in ("open", "json.load", "wi.load") or name.startswith("os."):
                        calls.append(f"{name} at line {node.lineno}")
                elif isinstance(node, ast.Attribute) and node.attr == "path" and getattr(
                        node.value, "id", "") == "os":
                    calls.append(f"os.path at line {node.lineno}")
            self.assertEqual(calls, [], m)


if __name__ == "__main__":
    unittest.main(verbosity=2)
