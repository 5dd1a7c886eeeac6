#!/usr/bin/env python3
"""The Python suite's shape: files, lines, import arrows among its own modules, and how deep they go.

    tools/import_levels.py results          # a flat folder whose modules import each other by bare name
    tools/import_levels.py bench            # a package: `from bench.analysis import medians`
    tools/import_levels.py bench --order=cli,studies,scenarios,reporting,design,running,registry,analysis
                                            # also every import from a folder to one left of it (exit 1)

Tests (`*_test.py`) are left out: they sit on top and would only lengthen the chains. A module's level is 1 when
it imports none of the suite's modules, else one more than the highest level it imports; the deepest level is
the longest chain of imports. An import that goes back up a chain (a cycle) is reported, not followed.
"""

import ast
import os
import sys


def suite_modules(root):
    """Maps each importable name (`medians`, `bench.analysis.medians`) to its file, tests left out."""
    modules = {}
    package = os.path.basename(os.path.normpath(root))
    for folder, _, files in os.walk(root):
        for name in files:
            if not name.endswith(".py") or name.endswith("_test.py"):
                continue
            path = os.path.join(folder, name)
            relative = os.path.relpath(path, root)[: -len(".py")].split(os.sep)
            if relative[-1] == "__init__":
                relative = relative[:-1]
            modules[".".join([package] + relative)] = path
            modules.setdefault(relative[-1] if relative else package, path)  # bare-name imports (flat folder)
    return modules


def imported_files(path, modules):
    tree = ast.parse(open(path).read(), path)
    found = set()
    for node in ast.walk(tree):
        names = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module] + [f"{node.module}.{alias.name}" for alias in node.names]
        for name in names:
            target = modules.get(name)
            if target and target != path and not target.endswith("__init__.py"):
                found.add(target)
    return found


def main(argv):
    order = [a.split("=", 1)[1].split(",") for a in argv[1:] if a.startswith("--order=")]
    argv = [a for a in argv if not a.startswith("--order=")]
    if len(argv) != 2 or not os.path.isdir(argv[1]):
        print("usage: tools/import_levels.py FOLDER [--order=TOP,...,BOTTOM]", file=sys.stderr)
        return 2
    modules = suite_modules(argv[1])
    files = sorted(set(modules.values()))
    arrows = {path: imported_files(path, modules) for path in files}
    levels, cycles = {}, []

    def level(path, stack):
        if path in levels:
            return levels[path]
        if path in stack:
            cycles.append(" -> ".join(os.path.basename(p) for p in stack[stack.index(path):] + [path]))
            return 0
        levels[path] = 1 + max((level(t, stack + [path]) for t in arrows[path]), default=0)
        return levels[path]

    for path in files:
        level(path, [])
    code = [p for p in files if not p.endswith("__init__.py")]
    lines = sum(sum(1 for _ in open(p)) for p in code)
    folders = sorted({os.path.relpath(os.path.dirname(p), argv[1]) for p in code})
    print(f"{argv[1]}: {len(code)} modules (tests left out) in {len(folders)} folder(s), {lines} lines, "
          f"{sum(len(a) for a in arrows.values())} import arrows, {max(levels.values(), default=0)} levels")
    for depth in sorted(set(levels.values())):
        names = sorted(os.path.relpath(p, argv[1]) for p in code if levels[p] == depth)
        print(f"  level {depth}: {' '.join(names)}")
    for cycle in cycles:
        print(f"  cycle: {cycle}")
    upward = []
    if order:
        rank = {folder: i for i, folder in enumerate(order[0])}

        def folder_of(path):
            return os.path.relpath(path, argv[1]).split(os.sep)[0]

        for path in files:  # tests are left out: a test may use what is above its own folder
            for target in arrows[path]:
                if rank.get(folder_of(target), 0) < rank.get(folder_of(path), 0):
                    upward.append(f"{os.path.relpath(path, argv[1])} -> {os.path.relpath(target, argv[1])}")
        print(f"  imports against --order: {len(upward)}")
        for arrow in upward:
            print(f"    {arrow}")
    return 1 if upward or cycles else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
