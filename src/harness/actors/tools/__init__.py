"""The tools actor: the one tool table, the permission engine, and the tools worker.

What other processes import from here is light: the table of every built-in
tool (:data:`BUILTIN_TOOLS`, :func:`builtin_table`), argument binding, and the
permission engine (:class:`Permissions`). The worker itself
(``python -m harness.actors.tools``) answers ``ToolInvoke``, ``ToolPreview``,
``Undo``, ``Rewind`` and ``SetAutocommit`` (those messages are imported from
:mod:`harness.messages.tools`, their one path); its file tools, tree-sitter, psutil and
git plumbing load only there.
"""

from harness.actors.tools._addresses import (
    METADATA_ADDRESSES,
    address_nearness,
    address_refusal,
    host_nearness,
    url_nearness,
)
from harness.actors.tools._builtin import BUILTIN_TOOLS, SMALL_MODEL_TOOLS, builtin_table
from harness.actors.tools._edit import unread_edit
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
    HOP_ARG,
    KINDS,
    REDACTED,
    Executor,
    Kind,
    ToolArgumentError,
    ToolSpec,
    ToolTable,
    UnknownToolError,
)

__all__ = [
    "BUILTIN_TOOLS",
    "EXECUTORS",
    "HOP_ARG",
    "KINDS",
    "METADATA_ADDRESSES",
    "REDACTED",
    "SHELL_OPERATORS",
    "SMALL_MODEL_TOOLS",
    "Decision",
    "Executor",
    "Kind",
    "PermissionFileError",
    "Permissions",
    "Rule",
    "RuleError",
    "RuleProblem",
    "RuleSet",
    "ToolArgumentError",
    "ToolSpec",
    "ToolTable",
    "UnknownToolError",
    "Workspace",
    "address_nearness",
    "address_refusal",
    "builtin_table",
    "host_nearness",
    "load_rules",
    "parse_rule",
    "unread_edit",
    "url_nearness",
    "user_rules_path",
]
