"""The tools actor: the one tool table, the permission engine, and the tools worker.

What other processes import from here is light: the table of every built-in
tool (:data:`BUILTIN_TOOLS`, :func:`builtin_table`), argument binding, and the
permission engine (:class:`Permissions`). The worker itself
(``python -m harness.actors.tools``) answers ``ToolInvoke``, ``ToolPreview``,
``Undo`` and ``SetAutocommit``; its file tools, tree-sitter, psutil and git
plumbing load only there.
"""

from harness.actors.tools._builtin import BUILTIN_TOOLS, SMALL_MODEL_TOOLS, builtin_table
from harness.actors.tools._jail import Workspace
from harness.actors.tools._permissions import (
    SHELL_OPERATORS,
    Decision,
    PermissionFileError,
    Permissions,
    Rule,
    RuleError,
    RuleProblem,
    RuleSet,
    load_rules,
    parse_rule,
    user_rules_path,
)
from harness.actors.tools._table import (
    EXECUTORS,
    KINDS,
    REDACTED,
    Executor,
    Kind,
    ToolArgumentError,
    ToolSpec,
    ToolTable,
    UnknownToolError,
)
from harness.messages.tools import (
    AutocommitState,
    SetAutocommit,
    ToolInvoke,
    ToolOutcome,
    ToolPreview,
    ToolPreviewResult,
    Undo,
    UndoResult,
)

__all__ = [
    "BUILTIN_TOOLS",
    "EXECUTORS",
    "KINDS",
    "REDACTED",
    "SHELL_OPERATORS",
    "SMALL_MODEL_TOOLS",
    "AutocommitState",
    "Decision",
    "Executor",
    "Kind",
    "PermissionFileError",
    "Permissions",
    "Rule",
    "RuleError",
    "RuleProblem",
    "RuleSet",
    "SetAutocommit",
    "ToolArgumentError",
    "ToolInvoke",
    "ToolOutcome",
    "ToolPreview",
    "ToolPreviewResult",
    "ToolSpec",
    "ToolTable",
    "Undo",
    "UndoResult",
    "UnknownToolError",
    "Workspace",
    "builtin_table",
    "load_rules",
    "parse_rule",
    "user_rules_path",
]
