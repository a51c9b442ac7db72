"""The house rules, checked from the code itself.

- Imports run one way: ``ipc`` <- ``messages`` <- ``supervisor`` <- ``worker`` <- ``actors``;
  the conversation sits above the workers and below the frontends (``api``, ``cli``); the
  sub-agent runner alone imports the conversation's face.
- No module imports another package's private module: a package's ``__init__`` is its
  face. Private modules of the top package (``harness._version``) are shared leaves.
- Only ``cli`` talks to the screen (rich, prompt_toolkit).
- Every public exception harness defines is a :class:`harness.errors.HarnessError`.
- Inside the conversation: no import circles, no module over 400 lines, the core
  (the modules listed in ``CORE``, and its event vocabulary ``events``) imports none
  of its rooms (``context``, ``session``, ``mcp``, ``subagents``, ``workers``,
  ``strategies``: they plug in through ports), rooms import each other only through
  their faces, and no module but the loop's assigns an attribute of a
  ``Conversation``.
"""

from __future__ import annotations

import ast
import importlib
import inspect
from pathlib import Path

import pytest

from harness.errors import HarnessError

SRC = Path(__file__).resolve().parents[1] / "src"
ROOT = SRC / "harness"

# Modules every layer may import: they import nothing but each other.
LEAVES = {
    "harness",
    "harness.errors",
    "harness.git",
    "harness.home",
    "harness.keys",
    "harness.settings",
    "harness.terminal",
    "harness._version",
    "harness._frontmatter",
    # atomic state files (a temporary file, fsync, rename): any part that keeps state
    "harness._atomic",
    # a package face whose names are imported on first use
    "harness._lazy",
    # the provider names and permission modes, which the command line offers as choices
    "harness.words",
    # the command a prompt says fails, which harness.words reads to hear a fix asked for
    "harness.failing",
    "harness.trust",
    # started before anything else is imported (see its docstring), so it imports nothing
    "harness._forkstart",
}

# What each part of harness may import besides itself and the leaves.
ALLOWED: dict[str, set[str]] = {
    "harness.ipc": set(),
    "harness.messages": {"harness.ipc"},
    "harness.supervisor": {"harness.ipc", "harness._forkstart"},
    "harness.worker": {"harness.ipc", "harness.supervisor"},
    # each actor: the runtime below it, never another actor or anything above; the tool
    # table (harness.actors.tools's face) is data every side reads
    "harness.actors": {
        "harness.ipc",
        "harness.messages",
        "harness.supervisor",
        "harness.worker",
        "harness.actors.tools",
    },
    "harness.skills": set(),
    # the workspace's map for the system prompt: reads the folder, imports nothing of harness
    "harness.workspace_map": set(),
    # agents and commands kept as files: the tool table's names and the workspace jail
    "harness.custom": {"harness.actors.tools"},
    "harness.instructions": set(),
    # hooks: commands run in process trees of their own, killed with the supervisor's ladder
    "harness.hooks": {"harness.supervisor"},
    "harness.conversation": {
        "harness.ipc",
        "harness.messages",
        "harness.supervisor",
        "harness.actors",
        "harness.skills",
        "harness.instructions",
        "harness.workspace_map",
        "harness.custom",
        "harness.hooks",
        "harness._forkstart",
    },
    # batch runs drive headless sessions as child processes: they need no session inside
    "harness.batch": {"harness.messages", "harness.supervisor"},
}
# The one exception: the sub-agent runner runs the conversation loop itself (a sub-agent
# is its parent's loop in a process of its own), so that actor, and no other, imports
# the conversation's face.
RUNNER = ("harness.actors.subagent", "harness.conversation")
# Frontends may import every part below them, but not each other's insides.
FRONTENDS = ("harness.api", "harness.cli", "harness.acp", "harness.__main__")

SCREEN_LIBRARIES = ("rich", "prompt_toolkit")

# Exceptions used as control flow, not failures (a command asking the app to leave).
CONTROL_FLOW = {"harness.cli.tui._commands.ExitApp"}


def _module_name(path: Path, src: Path = SRC) -> str:
    parts = path.relative_to(src).with_suffix("").parts
    name = ".".join(parts)
    return name.removesuffix(".__init__")


def _package_of(module: str, path: Path) -> str:
    return module if path.name == "__init__.py" else module.rsplit(".", 1)[0]


def _part(module: str) -> str:
    """The part of harness *module* belongs to (``harness.actors.shell._pool`` ->
    ``harness.actors``; ``harness.ipc._channel`` -> ``harness.ipc``)."""
    return ".".join(module.split(".")[:2])


def _imports(path: Path) -> list[tuple[int, str]]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    out: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            out.append((node.lineno, node.module))
            # ``from harness import _forkstart`` names a module too
            out.extend((node.lineno, f"{node.module}.{a.name}") for a in node.names)
        elif isinstance(node, ast.Import):
            out.extend((node.lineno, a.name) for a in node.names)
    return out


SOURCES = sorted(ROOT.rglob("*.py"))
IMPORTS = {path: _imports(path) for path in SOURCES}


def _is_module(name: str) -> bool:
    path = SRC.joinpath(*name.split("."))
    return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()


def test_the_rules_see_the_code() -> None:
    assert len(SOURCES) > 100
    assert sum(len(v) for v in IMPORTS.values()) > 500


def test_imports_run_one_way() -> None:
    wrong: list[str] = []
    for path, imports in IMPORTS.items():
        module = _module_name(path)
        part = _part(module)
        if module in LEAVES:
            allowed = LEAVES
        elif part in FRONTENDS or module in FRONTENDS:
            continue
        elif part in ALLOWED:
            allowed = ALLOWED[part] | LEAVES
            if module == RUNNER[0] or module.startswith(RUNNER[0] + "."):
                allowed |= {RUNNER[1]}
        else:
            wrong.append(f"{module}: not placed in any layer (add it to ALLOWED)")
            continue
        own = ".".join(module.split(".")[:3]) if part == "harness.actors" else part
        for line, name in imports:
            if not name.startswith("harness.") or not _is_module(name):
                continue
            target = ".".join(name.split(".")[:3]) if name.startswith("harness.actors.") else name
            if target == own or target.startswith(own + "."):
                continue
            if (
                name.startswith("harness.actors.")
                and part == "harness.actors"
                and not name.startswith("harness.actors.tools")
            ):
                wrong.append(f"{module}:{line} imports another actor, {name}")
                continue
            # "harness" (the top package) is a leaf by itself, not everything under it
            if not any(name == a or (a != "harness" and name.startswith(a + ".")) for a in allowed):
                wrong.append(f"{module}:{line} imports {name}, above or beside it")
    assert not wrong, "\n".join(wrong)


def test_no_module_imports_another_packages_private_module() -> None:
    wrong: list[str] = []
    for path, imports in IMPORTS.items():
        module = _module_name(path)
        package = _package_of(module, path)
        for line, name in imports:
            if not name.startswith("harness.") or not _is_module(name):
                continue
            parts = name.split(".")
            for i, piece in enumerate(parts):
                if piece.startswith("_") and not piece.startswith("__"):
                    owner = ".".join(parts[:i])
                    if owner != "harness" and not (
                        package == owner or package.startswith(owner + ".")
                    ):
                        wrong.append(f"{module}:{line} imports {name}")
                    break
    assert not wrong, "\n".join(wrong)


def test_only_the_terminal_imports_screen_libraries() -> None:
    wrong = [
        f"{_module_name(path)}:{line} imports {name}"
        for path, imports in IMPORTS.items()
        for line, name in imports
        if name.split(".")[0] in SCREEN_LIBRARIES
        and not _module_name(path).startswith("harness.cli")
    ]
    assert not wrong, "\n".join(wrong)


def _importable(path: Path) -> bool:
    # a worker's __main__ starts serving state at import; its exceptions live elsewhere
    return path.name != "__main__.py"


@pytest.mark.parametrize(
    "module",
    [_module_name(p) for p in SOURCES if _importable(p)],
)
def test_every_public_exception_is_a_harness_error(module: str) -> None:
    try:
        mod = importlib.import_module(module)
    except ImportError as exc:  # an optional extra (the embedded model) not installed
        pytest.skip(f"{module} needs {exc.name}")
    for name, obj in vars(mod).items():
        if not (inspect.isclass(obj) and issubclass(obj, BaseException)):
            continue
        if obj.__module__ != module or name.startswith("_"):
            continue
        if f"{module}.{name}" in CONTROL_FLOW:
            continue
        assert issubclass(obj, HarnessError), (
            f"{module}.{name} derives from {[b.__name__ for b in obj.__mro__[1:-2]]}, "
            "not harness.errors.HarnessError"
        )


def test_harness_home_has_one_owner() -> None:
    """Only ``harness.home`` reads ``HARNESS_HOME`` to find the folder; other code may
    only pass the value on (to a worker's environment, as a cache key)."""
    readers = []
    for path in SOURCES:
        text = path.read_text(encoding="utf-8")
        if 'Path.home() / ".harness"' in text or '~/.harness")' in text:
            readers.append(_module_name(path))
    assert readers == ["harness.home"], readers


# --- inside the conversation ------------------------------------------------------------

CONVERSATION = "harness.conversation"
LOOP_MODULES = {"harness.conversation._loop"}  # the one that sets a Conversation's state
# The loop core: the loop, its calls, replies, history, budget and ports. A new module
# at the top of the conversation is a choice to make here: a feature goes into a room
# of its own and joins the loop through a port.
CORE = {
    "_budget",
    "_call_errors",
    "_calls",
    "_ending_changes",
    "_ending_claims",
    "_ending_words",
    "_endings",
    "_history",
    "_listeners",
    "_loop",
    "_loop_config",
    "_offered",
    "_ports",
    "_preview",
    "_repair",
    "_reply",
    "_requests",
    "_retry",
    "_run_log",
    "_secrets",
    "_seen",
    "_sync",
    "_titles",
    "_tool_hooks",
    "_transcript",
    "_turns",
    "_verify",
    "_windows",
}
# Sub-packages that belong to the core, not rooms: the event vocabulary every part speaks.
CORE_PACKAGES = {"events"}


def _conversation_modules(src: Path) -> dict[str, Path]:
    root = src.joinpath(*CONVERSATION.split("."))
    return {_module_name(p, src): p for p in sorted(root.rglob("*.py"))}


def _edges(src: Path) -> dict[str, set[str]]:
    """Module -> the conversation's modules it names in an import (``from p import m``
    names the module ``p.m`` when there is one, else ``p``)."""
    modules = _conversation_modules(src)
    out: dict[str, set[str]] = {}
    for name, path in modules.items():
        targets: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                for alias in node.names:
                    full = f"{node.module}.{alias.name}"
                    targets.add(full if full in modules else node.module)
            elif isinstance(node, ast.Import):
                targets.update(a.name for a in node.names)
        out[name] = {t for t in targets if t in modules and t != name}
    return out


def _circles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The import circles among *edges* (one path round each, found depth first)."""
    found: list[list[str]] = []
    state: dict[str, int] = {}  # 1: on the current path, 2: done

    def visit(node: str, path: list[str]) -> None:
        state[node] = 1
        for nxt in sorted(edges.get(node, ())):
            if state.get(nxt) == 1:
                found.append([*path[path.index(nxt) :], nxt])
            elif nxt not in state:
                visit(nxt, [*path, nxt])
        state[node] = 2

    for node in sorted(edges):
        if node not in state:
            visit(node, [node])
    return found


def _room(module: str) -> str:
    """``context`` for ``harness.conversation.context`` and its modules; ``""`` for the
    core."""
    first = module.removeprefix(CONVERSATION).lstrip(".").split(".")[0]
    if first in CORE_PACKAGES:
        return ""
    return first if SRC.joinpath(*CONVERSATION.split("."), first, "__init__.py").is_file() else ""


def _conversation_names(func: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    """The names in *func* that hold a conversation: parameters and variables annotated
    ``Conversation`` (or ``Conversation | None``), and the usual names for one."""
    names = {"conv", "conversation"}
    args = [*func.args.posonlyargs, *func.args.args, *func.args.kwonlyargs]
    for arg in args:
        if arg.annotation is not None and "Conversation" in ast.unparse(arg.annotation):
            names.add(arg.arg)
    for node in ast.walk(func):
        if (
            isinstance(node, ast.AnnAssign)
            and isinstance(node.target, ast.Name)
            and "Conversation" in ast.unparse(node.annotation)
        ):
            names.add(node.target.id)
    return names


def _holds_conversation(node: ast.expr, names: set[str]) -> bool:
    """Whether *node* is a conversation: one of *names*, or ``self.conv``,
    ``self._conv``, ``self.conversation``."""
    if isinstance(node, ast.Name):
        return node.id in names
    return (
        isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Name)
        and node.value.id == "self"
        and node.attr in ("conv", "_conv", "conversation", "_conversation")
    )


def _conversation_assignments(src: Path) -> list[str]:
    """``module:line`` of each assignment outside the loop to a conversation's attribute."""
    wrong: list[str] = []
    for module, path in _conversation_modules(src).items():
        if module in LOOP_MODULES:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for func in ast.walk(tree):
            if not isinstance(func, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            names = _conversation_names(func)
            for node in ast.walk(func):
                if isinstance(node, ast.Assign):
                    targets = node.targets
                elif isinstance(node, ast.AugAssign | ast.AnnAssign):
                    targets = [node.target]
                else:
                    continue
                for target in targets:
                    while isinstance(target, ast.Subscript):  # conv.usage["x"] += 1
                        target = target.value
                    if isinstance(target, ast.Attribute) and _holds_conversation(
                        target.value, names
                    ):
                        wrong.append(f"{module}:{node.lineno} sets {ast.unparse(target)}")
    return sorted(set(wrong))


def test_the_conversation_has_no_import_circles() -> None:
    edges = _edges(SRC)
    assert len(edges) > 30
    assert _circles(edges) == []


def test_no_conversation_module_is_over_400_lines() -> None:
    sizes = {
        module: len(path.read_text(encoding="utf-8").splitlines())
        for module, path in _conversation_modules(SRC).items()
    }
    assert {m: n for m, n in sizes.items() if n > 400} == {}


def test_the_conversation_core_imports_none_of_its_rooms() -> None:
    """The loop is handed its features through ports: a core module imports no room
    (the package's face, which only hands names on, aside)."""
    wrong = [
        f"{module} imports {target}"
        for module, targets in _edges(SRC).items()
        if module != CONVERSATION and not _room(module)
        for target in targets
        if _room(target)
    ]
    assert wrong == []


def test_the_conversation_top_level_holds_only_the_core() -> None:
    """Every module at the top of the conversation is a listed part of the loop core;
    everything else lives in a room with a face."""
    root = SRC.joinpath(*CONVERSATION.split("."))
    top = {p.stem for p in root.glob("*.py")} - {"__init__"}
    assert top - CORE == set(), "place these in a room, or list them in CORE"
    assert CORE - top == set(), "CORE names modules that are gone"
    packages = {p.parent.name for p in root.glob("*/__init__.py")}
    assert packages >= CORE_PACKAGES


def test_the_conversation_rooms_import_each_other_through_their_faces() -> None:
    rooms = {_room(m) for m in _edges(SRC)} - {""}
    assert rooms >= {"context", "session", "mcp", "subagents", "workers", "strategies"}
    wrong = [
        f"{module} imports {target}"
        for module, targets in _edges(SRC).items()
        if _room(module)
        for target in targets
        if _room(target) not in ("", _room(module)) and target != f"{CONVERSATION}.{_room(target)}"
    ]
    assert wrong == []


def test_only_the_loop_assigns_a_conversations_attributes() -> None:
    assert _conversation_assignments(SRC) == []


# --- one import path per message ----------------------------------------------------------

# The Python API is the embedder's one import: it offers what its ports return.
MESSAGE_FACADES = {"harness.api"}


def _message_exports() -> list[str]:
    """``module: Name`` for each message class a module offers in its ``__all__``
    although another module defines it."""
    from harness.ipc import Message

    wrong: list[str] = []
    for path in SOURCES:
        if not _importable(path):
            continue
        module = _module_name(path)
        if module in MESSAGE_FACADES:
            continue
        try:
            mod = importlib.import_module(module)
        except ImportError:  # an optional extra (the embedded model) not installed
            continue
        for name in getattr(mod, "__all__", ()):
            obj = getattr(mod, name, None)
            if (
                inspect.isclass(obj)
                and issubclass(obj, Message)
                and obj is not Message
                and obj.__module__ != module
                and not obj.__module__.startswith(module + "._")  # a face of its own package
            ):
                wrong.append(f"{module}: {name} (defined in {obj.__module__})")
    return wrong


def test_each_message_has_one_import_path() -> None:
    """A message class is imported from its actor's module (``harness.messages.tools``
    for ``ToolInvoke``) and offered by no other face."""
    assert _message_exports() == []
