"""What a Python file's new imports get wrong, said in a change's result: a module that
is neither the workspace's, nor the standard library's, nor one Python here can import;
and a name taken from a module of the workspace that does not define it.

A test written for a project imports what it tests, and a small model writes that import
from the name it expects: measured (bench local-tasks, the fresh set's half A), asked for
a unittest test that an electric bike's day pass costs 36, the 1.5B model wrote ``from
project.electric_bike import calculate_day_pass_cost`` (``fees.py`` defines ``day_pass``);
asked for one of ``litres_for``, ``from lettuce import lettuce_for``. Each file was
"created", and the run ended ``ok`` on a test that cannot load. Only imports the change
brought are said (one already there is the user's business), and a module is looked for
where Python would find it when run from the workspace: beside the file, at the
workspace's root, or under ``src/``."""

from __future__ import annotations

import ast
import importlib.util
import sys
from pathlib import Path, PurePosixPath

from harness.actors.tools._jail import Workspace
from harness.errors import ToolError

__all__ = ["import_notes"]

# names of a module shown at most beside a name it does not define
_SHOWN_NAMES = 8


def _imports(text: str) -> set[tuple[str, str]]:
    """The absolute ``from`` imports of *text*, as (module, name); ``("x", "")`` for an
    ``import x``. Empty for a file that does not parse."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return set()
    found: set[tuple[str, str]] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found |= {(node.module, alias.name) for alias in node.names}
        elif isinstance(node, ast.Import):
            found |= {(alias.name, "") for alias in node.names}
    return found


def _module_file(ws: Workspace, shown: str, module: str) -> Path | None:
    """The workspace's file or package folder of *module* (``fees`` is ``fees.py``,
    ``shop.cart`` is ``shop/cart.py`` or ``shop/cart/``), beside *shown*, at the root or
    under ``src/``; ``None`` where the workspace has none."""
    parts = module.split(".")
    bases = [PurePosixPath(shown).parent, PurePosixPath("."), PurePosixPath("src")]
    for base in dict.fromkeys(bases):
        stem = base.joinpath(*parts)
        for candidate in (stem.with_suffix(".py"), stem / "__init__.py", stem):
            try:
                # through the jail: a symlink out of the workspace is no module of it
                real = ws.resolve(candidate.as_posix(), alias=False)
            except ToolError:
                continue
            if real.exists():
                return real
    return None


def _top_names(path: Path) -> tuple[set[str], set[str]] | None:
    """The names the module at *path* binds at its top level, and of those the ones it
    defines itself (not by an import); ``None`` where that cannot be told (it does not
    parse, imports ``*``, or is a folder, whose submodules are names too)."""
    if path.is_dir():
        return None
    try:
        tree = ast.parse(path.read_text(errors="replace"))
    except (OSError, SyntaxError, ValueError):
        return None
    names: set[str] = set()
    imported: set[str] = set()
    todo = list(tree.body)
    while todo:
        node = todo.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            if any(alias.name == "*" for alias in node.names):
                return None
            imported |= {(a.asname or a.name).split(".")[0] for a in node.names}
        elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                names |= {n.id for n in ast.walk(target) if isinstance(n, ast.Name)}
        elif isinstance(node, (ast.If, ast.Try, ast.With, ast.For, ast.While)):
            # a name bound on a branch is bound ("if __name__ == ...", "try: import x")
            todo += [n for n in ast.iter_child_nodes(node) if isinstance(n, ast.stmt)]
            todo += [s for h in getattr(node, "handlers", ()) for s in h.body]
    return names | imported, names


def _importable(module: str) -> bool:
    """Whether *module*'s top package is the standard library's or one Python here can
    import (found without running it)."""
    top = module.split(".")[0]
    if top in sys.stdlib_module_names or top in sys.builtin_module_names:
        return True
    try:
        return importlib.util.find_spec(top) is not None
    except (ImportError, ValueError):
        return False


def _modules(ws: Workspace, shown: str) -> list[str]:
    """The workspace's Python modules at its root and under ``src/`` that are not tests,
    by name, at most eight: where a module that is not there was meant to be."""
    found: list[str] = []
    for base in (ws.root, ws.root / "src"):
        for path in sorted(base.glob("*.py")) if base.is_dir() else ():
            rel = path.relative_to(ws.root).as_posix()
            if rel != shown and not path.stem.startswith("test") and path.stem != "setup":
                found.append(path.stem)
    return found[:_SHOWN_NAMES]


def import_notes(ws: Workspace, shown: str, old: str | None, new: str) -> str:
    """The notes on the imports the change from *old* to *new* of the Python file
    *shown* brought that cannot work: ``""`` where none."""
    notes: list[str] = []
    brought = sorted(_imports(new) - (_imports(old) if old else set()))
    missing: set[str] = set()
    for module, name in brought:
        path = _module_file(ws, shown, module)
        if path is None:
            if module not in missing and not _importable(module):
                missing.add(module)
                ours = _modules(ws, shown)
                notes.append(
                    f"\nnote: {shown} imports {module}, which is no module of this workspace "
                    "and none Python here can import"
                    + (f" (the workspace's modules: {', '.join(ours)})" if ours else "")
                )
            continue
        bound = _top_names(path) if name and name != "*" else None
        if bound is None or name in bound[0]:
            continue
        if (path.parent / name).is_dir() or (path.parent / f"{name}.py").exists():
            continue  # a submodule of a package
        rel = path.relative_to(ws.root).as_posix()
        public = sorted(n for n in bound[1] if not n.startswith("_"))[:_SHOWN_NAMES]
        notes.append(
            f"\nnote: {shown} imports {name} from {module}, but {rel} does not define "
            f"{name} (it defines {', '.join(public) or 'nothing'})"
        )
    return "".join(notes)
