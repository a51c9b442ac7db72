"""Messages between the conversation and an MCP bridge worker (``mcp:<server>``).

A tool call is the shared :class:`~harness.messages.tools.ToolInvoke` (with the server's
own tool name) answered by a :class:`~harness.messages.tools.ToolOutcome`, or
:class:`McpCall`, the same call as a stream that also carries the server's progress
(:class:`McpProgress`) and its questions to the user (:class:`McpQuestion`, answered with
:class:`McpAnswer`). The rest is here: the bridge's state as a stream (:class:`McpWatch`
→ :class:`McpStatus` on every change), resources, prompts and a restart.
"""

from __future__ import annotations

from typing import Any, Literal

import attrs

from harness.ipc import Message

McpState = Literal["starting", "ready", "restarting", "down", "failed"]
MCP_STATES: tuple[McpState, ...] = ("starting", "ready", "restarting", "down", "failed")
"""``starting`` (first connect), ``ready``, ``restarting`` (after a crash, with backoff),
``down`` (never came up; retried in the background), ``failed`` (too many restarts)."""


@attrs.frozen
class McpTool:
    """One tool as the server lists it (the name is the server's own)."""

    name: str
    description: str = ""
    input_schema: dict[str, Any] = attrs.field(factory=dict)
    read_only: bool = False
    destructive: bool | None = None
    title: str = ""


@attrs.frozen
class McpWatch(Message, tag="mcp.watch"):
    """Stream :class:`McpStatus`: the current one at once, then one per change.

    ``server`` is the server's entry (``McpServerConfig.to_json_data``): the first watch a
    bridge gets starts it, so the entry never sits in the bridge's environment."""

    server: dict[str, Any] = attrs.field(factory=dict)


@attrs.frozen
class McpStatus(Message, tag="mcp.status"):
    """Where a server is.

    Attributes:
        server: the server's name in the configuration.
        transport: ``stdio``, ``http`` or ``sse``.
        state: see :data:`MCP_STATES`.
        tools: its tools while ``ready`` (empty otherwise).
        instructions: what the server asks to be put in the system prompt.
        error: the last thing that went wrong, one line (empty if nothing did).
        stderr_tail: the last lines the server wrote to stderr.
        restarts: restarts of the server since the bridge started.
        protocol: the negotiated protocol revision.
        generation: counts connections, so a watcher can tell a reconnect from a change.
    """

    server: str
    transport: str
    state: McpState
    tools: tuple[McpTool, ...] = ()
    instructions: str = ""
    error: str = ""
    stderr_tail: str = ""
    restarts: int = 0
    protocol: str = ""
    generation: int = 0


@attrs.frozen
class McpResource:
    """One resource a server offers."""

    uri: str
    name: str = ""
    description: str = ""
    mime_type: str = ""


@attrs.frozen
class McpListResources(Message, tag="mcp.list_resources"):
    """The server's resources; answered with :class:`McpResources`."""


@attrs.frozen
class McpResources(Message, tag="mcp.resources"):
    resources: tuple[McpResource, ...] = ()


@attrs.frozen
class McpReadResource(Message, tag="mcp.read_resource"):
    """Read one resource; answered with a ``ToolOutcome`` (its text)."""

    uri: str


@attrs.frozen
class McpPromptInfo:
    """One prompt a server offers, with its argument names (``required`` first)."""

    name: str
    description: str = ""
    arguments: tuple[str, ...] = ()
    required: tuple[str, ...] = ()


@attrs.frozen
class McpListPrompts(Message, tag="mcp.list_prompts"):
    """The server's prompts; answered with :class:`McpPrompts`."""


@attrs.frozen
class McpPrompts(Message, tag="mcp.prompts"):
    prompts: tuple[McpPromptInfo, ...] = ()


@attrs.frozen
class McpGetPrompt(Message, tag="mcp.get_prompt"):
    """Render prompt ``name``; answered with :class:`McpPromptText`."""

    name: str
    arguments: dict[str, Any] = attrs.field(factory=dict)


@attrs.frozen
class McpPromptText(Message, tag="mcp.prompt_text"):
    """A rendered prompt as one user message (``ok`` false: ``text`` says why not)."""

    ok: bool
    text: str


@attrs.frozen
class McpRestart(Message, tag="mcp.restart"):
    """Restart the server now, forgetting earlier failures; answered with :class:`McpStatus`."""


@attrs.frozen
class McpCall(Message, tag="mcp.call"):
    """Call the server's tool ``name`` as a stream: :class:`McpProgress` and
    :class:`McpQuestion` items while it runs, then its
    :class:`~harness.messages.tools.ToolOutcome` as the last item."""

    name: str
    arguments: dict[str, Any] = attrs.field(factory=dict)


@attrs.frozen
class McpProgress(Message, tag="mcp.progress"):
    """A progress notification of the server for the call: ``progress`` of ``total``
    (0 when the server gave none) and its message."""

    progress: float
    total: float = 0.0
    message: str = ""


@attrs.frozen
class McpQuestion(Message, tag="mcp.question"):
    """The server asks the user something during the call (elicitation): ``message``
    and the ``schema`` of the answer's fields (a flat JSON Schema object). Answer it with
    :class:`McpAnswer` carrying the same ``id``."""

    id: str
    message: str
    schema: dict[str, Any] = attrs.field(factory=dict)


@attrs.frozen
class McpAnswer(Message, tag="mcp.answer"):
    """The user's answer to :class:`McpQuestion` ``id``: ``accept`` (with ``content``),
    ``decline`` or ``cancel``; ``reason`` says why it was not accepted (shown in the
    bridge's log, never to the server). Answered with :class:`McpAnswer` as taken (an
    unknown or late ``id``: ``action`` ``cancel``, ``reason`` says so)."""

    id: str
    action: Literal["accept", "decline", "cancel"]
    content: dict[str, Any] = attrs.field(factory=dict)
    reason: str = ""
