"""The tool table: one declaration per tool, from which schemas, binding and rules come.

A :class:`ToolSpec` is plain data. A :class:`ToolTable` holds the specs by name,
turns them into the :class:`~harness.messages.model.ToolSchema` the model sees,
validates and binds a call's arguments against the JSON schema (a small, strict
subset of JSON Schema: ``type``, ``properties``, ``required``, ``enum``,
``items``, ``minimum``, ``maximum``, ``additionalProperties``), and names the
main argument that permission rules match against. MCP tools join at run time
with :meth:`ToolTable.register`.

This module imports nothing heavy: the conversation (main process) reads it.
"""

from __future__ import annotations

import copy
import posixpath
import shlex
from collections.abc import Iterable, Iterator, Mapping
from typing import Any, Literal

import attrs

from harness.actors.tools._addresses import url_nearness
from harness.errors import ToolError
from harness.messages.model import ToolCall, ToolSchema

__all__ = [
    "EXECUTORS",
    "HOP_ARG",
    "KINDS",
    "REDACTED",
    "Executor",
    "Kind",
    "ToolArgumentError",
    "ToolSpec",
    "ToolTable",
    "UnknownToolError",
]

Kind = Literal["read", "mutating", "network", "shell", "agent"]
Executor = Literal["tools", "shell", "search", "conversation", "frontend", "mcp"]
KINDS: tuple[str, ...] = ("read", "mutating", "network", "shell", "agent")
EXECUTORS: tuple[str, ...] = ("tools", "shell", "search", "conversation", "frontend", "mcp")

#: The argument harness itself adds to a ``get_url``/``call_api`` call to make it one hop
#: of a redirect chain the conversation decides (``{"private", "redirects", "origin"}``).
#: No tool's schema has it, so a model's call cannot carry it.
HOP_ARG = "_hop"

#: What a secret argument's value is replaced with wherever a call is recorded.
REDACTED = "[REDACTED]"

# Keys of a secret object (HTTP headers) whose values are never credentials: they
# stay readable in the log and are not masked in output (masking every
# "application/json" in a response would garble it and protect nothing).
_PLAIN_KEYS = frozenset(
    {
        "accept",
        "accept-encoding",
        "accept-language",
        "cache-control",
        "content-language",
        "content-type",
        "if-modified-since",
        "if-none-match",
        "user-agent",
        "x-github-api-version",
        "x-requested-with",
    }
)

_JSON_TYPES = ("string", "integer", "number", "boolean", "object", "array", "null")


class ToolArgumentError(ToolError, ValueError):
    """A call's arguments do not fit the tool's schema; the message says which and why."""

    def __init__(self, tool: str, message: str) -> None:
        super().__init__(f"{tool}: {message}")
        self.tool = tool
        self.detail = message


class UnknownToolError(ToolError, KeyError):
    """No tool of that name is in the table."""

    def __init__(self, name: str, known: Iterable[str] = ()) -> None:
        names = ", ".join(sorted(known))
        super().__init__(name)
        self.name = name
        self.text = f"unknown tool {name!r}" + (f"; the tools are: {names}" if names else "")

    def __str__(self) -> str:
        return self.text


def _check_schema(name: str, schema: Mapping[str, Any]) -> None:
    if schema.get("type") != "object":
        raise ValueError(f"tool {name!r}: parameters must be a JSON schema of type 'object'")
    props = schema.get("properties", {})
    if not isinstance(props, Mapping):
        raise ValueError(f"tool {name!r}: 'properties' must be an object")
    for req in schema.get("required", ()):
        if req not in props:
            raise ValueError(f"tool {name!r}: required parameter {req!r} is not in properties")


@attrs.frozen
class ToolSpec:
    """One tool as declared once for every part of harness.

    Attributes:
        name: the name the model calls.
        description: what the model is told the tool does.
        parameters: JSON schema (type ``object``) of the arguments.
        main_arg: the argument permission patterns match (``run_cmd(git *)``);
            ``None`` when rules can only name the tool.
        kind: ``read`` runs without asking; ``mutating``, ``network``, ``shell`` and
            ``agent`` (hiring a sub-agent) ask.
        executor: who runs it: the ``tools``, ``shell`` or ``search`` worker, the
            ``conversation`` itself, the ``frontend`` (questions, plans) or an ``mcp`` bridge.
        terminating: a successful call ends the run.
        secret_args: arguments whose values are credentials (``call_api``'s
            ``headers``): recorded as :data:`REDACTED`, and masked in the tool's output.
        also_match: further arguments rules check like the main one (a copy's
            destination): a deny rule for any of them denies, and an allow rule must
            cover each of them.
        place_arg: the argument naming the folder the call runs in. When it is given
            and is not the workspace root, the main value is ``cd DIR && <main>``: a
            command run in another folder is a different command.
        paths: the main and ``also_match`` arguments name workspace paths, which rules
            match by the place they name (``./a.py``, ``b/../a.py`` and the absolute
            path are all ``a.py``), not by how they are written.
        reads_when: ``(argument, values)``: a ``network`` tool whose call changes
            nothing only when *argument* is one of *values* (``call_api``'s method:
            ``GET``, ``HEAD``); plan mode and deepthink's reading stages refuse the rest.
        url_arg: the argument holding the URL a ``network`` tool reaches; a URL that
            names this machine or a private network asks even in auto mode unless a
            rule allows it (:func:`~._addresses.url_nearness`).
    """

    name: str
    description: str
    parameters: dict[str, Any]
    main_arg: str | None = None
    kind: Kind = "read"
    executor: Executor = "tools"
    terminating: bool = False
    secret_args: tuple[str, ...] = ()
    also_match: tuple[str, ...] = ()
    place_arg: str | None = None
    paths: bool = False
    reads_when: tuple[str, tuple[str, ...]] | None = None
    url_arg: str | None = None

    def __attrs_post_init__(self) -> None:
        if not self.name or any(c.isspace() or c in "()" for c in self.name):
            raise ValueError(f"bad tool name {self.name!r}")
        if self.kind not in KINDS:
            raise ValueError(f"tool {self.name!r}: kind must be one of {KINDS}")
        if self.executor not in EXECUTORS:
            raise ValueError(f"tool {self.name!r}: executor must be one of {EXECUTORS}")
        _check_schema(self.name, self.parameters)
        props = self.parameters.get("properties", {})
        reads_arg = self.reads_when[0] if self.reads_when else None
        for arg in (self.main_arg, self.place_arg, *self.also_match, reads_arg, self.url_arg):
            if arg is not None and arg not in props:
                raise ValueError(f"tool {self.name!r}: {arg!r} is not a parameter")

    @property
    def mutating(self) -> bool:
        """True for tools that change files (switched off in plan mode)."""
        return self.kind == "mutating"

    @property
    def asks(self) -> bool:
        """True when the tool needs approval unless a rule or the mode says otherwise."""
        return self.kind != "read"

    def changes_remotely(self, arguments: Mapping[str, Any]) -> str | None:
        """Why this call may change something beyond the machine (``call_api`` with a
        ``POST``), or ``None`` when it only reads (see *reads_when*)."""
        if self.reads_when is None:
            return None
        arg, values = self.reads_when
        value = str(arguments.get(arg) or values[0]).upper()
        if value in values:
            return None
        return (
            f"{self.name} with {arg} {value} may change things on the server; only "
            f"{' and '.join(values)} are sent while planning"
        )

    def near_target(self, arguments: Mapping[str, Any]) -> str | None:
        """What the URL this call reaches names when it is this machine or a private
        network (``None``: a public host, or a name only DNS can tell)."""
        if self.url_arg is None:
            return None
        url = arguments.get(self.url_arg)
        return url_nearness(url) if isinstance(url, str) else None

    def schema(self) -> ToolSchema:
        """The tool as the model sees it (a deep copy: callers may not change the table)."""
        return ToolSchema(
            name=self.name,
            description=self.description,
            parameters=copy.deepcopy(self.parameters),
        )

    def bind(self, arguments: Mapping[str, Any] | None) -> dict[str, Any]:
        """Validate *arguments* and return them with defaults filled in.

        Models are lenient writers, so a few harmless coercions are made: a numeric
        string for an ``integer``/``number``, ``"true"``/``"false"`` for a
        ``boolean``; and a tool that only reads drops arguments it does not have
        (small models add some, such as a ``content`` to ``read_file``; reading
        anyway does what they meant, and nothing can change by it). Anything else
        that does not fit raises :class:`ToolArgumentError` naming the argument and
        what was expected.
        """
        if arguments is None:
            arguments = {}
        if not isinstance(arguments, Mapping):
            raise ToolArgumentError(
                self.name, f"arguments must be an object, got {_json_type(arguments)}"
            )
        given = dict(arguments)
        props = self.parameters.get("properties", {})
        if self.kind == "read" and props:
            given = {k: v for k, v in given.items() if k in props}
        bound = _validate(self.name, self.parameters, given, "")
        assert isinstance(bound, dict)
        return bound

    def secret_values(self, arguments: Any) -> list[str]:
        """The text values of this call's secret arguments (an object's values, or a string)."""
        out: list[str] = []
        if not isinstance(arguments, Mapping):
            return out
        for name in self.secret_args:
            value = arguments.get(name)
            if isinstance(value, Mapping):
                items = [v for k, v in value.items() if str(k).lower() not in _PLAIN_KEYS]
            else:
                items = [value]
            out.extend(v for v in items if isinstance(v, str) and v)
        return out

    def redact(self, arguments: Any) -> Any:
        """*arguments* as they may be recorded: each secret argument's values replaced
        (an object keeps its keys, so a log still shows which headers were sent)."""
        if not self.secret_args or not isinstance(arguments, Mapping):
            return arguments
        out = dict(arguments)
        for name in self.secret_args:
            value = out.get(name)
            if isinstance(value, Mapping):
                out[name] = {
                    k: v if str(k).lower() in _PLAIN_KEYS else REDACTED for k, v in value.items()
                }
            elif value is not None:
                out[name] = REDACTED
        return out

    def main_value(self, arguments: Mapping[str, Any]) -> str | None:
        """The value permission patterns match, as text (``None`` when there is none)."""
        if self.main_arg is None:
            return None
        value = arguments.get(self.main_arg)
        if value is None:
            return None
        text = value if isinstance(value, str) else str(value)
        place = self.place(arguments)
        return text if place is None else f"cd {shlex.quote(place)} && {text}"

    def place(self, arguments: Mapping[str, Any]) -> str | None:
        """The folder the call runs in, when it is not the workspace root."""
        value = arguments.get(self.place_arg) if self.place_arg else None
        if not isinstance(value, str) or not value.strip():
            return None
        norm = posixpath.normpath(value.strip())
        return None if norm == "." else norm

    def checked_values(self, arguments: Mapping[str, Any]) -> list[str | None]:
        """Every value rules check: the main one, then :attr:`also_match`'s."""
        out = [self.main_value(arguments)]
        for arg in self.also_match:
            value = arguments.get(arg)
            out.append(None if value is None else str(value))
        return out


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list | tuple):
        return "array"
    if isinstance(value, Mapping):
        return "object"
    return type(value).__name__


def _coerce(value: Any, want: str) -> tuple[bool, Any]:
    """Try to make *value* a JSON *want*; ``(ok, value)``."""
    have = _json_type(value)
    if have == want or (want == "number" and have == "integer"):
        return True, value
    if want == "integer" and have == "number" and float(value).is_integer():
        return True, int(value)
    if isinstance(value, str):
        text = value.strip()
        if want == "integer":
            try:
                return True, int(text)
            except ValueError:
                return False, value
        if want == "number":
            try:
                return True, float(text)
            except ValueError:
                return False, value
        if want == "boolean" and text.lower() in ("true", "false"):
            return True, text.lower() == "true"
    return False, value


def _validate(tool: str, schema: Mapping[str, Any], value: Any, where: str) -> Any:
    label = where or "arguments"
    want = schema.get("type")
    if want is not None:
        wants = [want] if isinstance(want, str) else list(want)
        for w in wants:
            ok, coerced = _coerce(value, w)
            if ok:
                value = coerced
                break
        else:
            raise ToolArgumentError(
                tool, f"{label} must be {' or '.join(wants)}, got {_json_type(value)}"
            )
    enum = schema.get("enum")
    if enum is not None and value not in enum:
        choices = ", ".join(repr(e) for e in enum)
        raise ToolArgumentError(tool, f"{label} must be one of {choices}, got {value!r}")
    if isinstance(value, int | float) and not isinstance(value, bool):
        low, high = schema.get("minimum"), schema.get("maximum")
        if low is not None and value < low:
            raise ToolArgumentError(tool, f"{label} must be at least {low}, got {value}")
        if high is not None and value > high:
            raise ToolArgumentError(tool, f"{label} must be at most {high}, got {value}")
    if isinstance(value, list | tuple):
        items = schema.get("items")
        if schema.get("minItems") is not None and len(value) < schema["minItems"]:
            raise ToolArgumentError(tool, f"{label} needs at least {schema['minItems']} item(s)")
        if isinstance(items, Mapping):
            value = [_validate(tool, items, v, f"{label}[{i}]") for i, v in enumerate(value)]
        else:
            value = list(value)
    if isinstance(value, Mapping):
        value = _validate_object(tool, schema, value, where)
    return value


def _validate_object(
    tool: str, schema: Mapping[str, Any], value: Mapping[str, Any], where: str
) -> dict[str, Any]:
    props: Mapping[str, Any] = schema.get("properties", {})
    prefix = f"{where}." if where else ""
    out: dict[str, Any] = {}
    extra = schema.get("additionalProperties", not props)
    for key, item in value.items():
        if key in props:
            if item is None and key not in schema.get("required", ()):
                continue  # models send null for "not given"
            out[key] = _validate(tool, props[key], item, f"{prefix}{key}")
        elif extra is False:
            known = ", ".join(props) or "none"
            raise ToolArgumentError(
                tool, f"unknown argument {prefix + key!r} (the arguments are: {known})"
            )
        else:
            out[key] = item
    for key in schema.get("required", ()):
        if key not in out:
            raise ToolArgumentError(tool, f"missing required argument {prefix + key!r}")
    for key, sub in props.items():
        if key not in out and isinstance(sub, Mapping) and "default" in sub:
            out[key] = copy.deepcopy(sub["default"])
    return out


class ToolTable:
    """The tools by name, in declaration order. MCP tools may be added at run time."""

    def __init__(self, specs: Iterable[ToolSpec] = ()) -> None:
        self._specs: dict[str, ToolSpec] = {}
        for spec in specs:
            self.register(spec)

    def register(self, spec: ToolSpec, *, replace: bool = False) -> None:
        """Add *spec*; a second tool of the same name is refused unless *replace*."""
        if spec.name in self._specs and not replace:
            raise ValueError(f"tool {spec.name!r} is already in the table")
        self._specs[spec.name] = spec

    def unregister(self, name: str) -> None:
        """Remove tool *name* (a no-op when it is not there)."""
        self._specs.pop(name, None)

    def copy(self) -> ToolTable:
        """A new table with the same specs (for a session that adds its own tools)."""
        return ToolTable(self._specs.values())

    def __contains__(self, name: object) -> bool:
        return name in self._specs

    def __iter__(self) -> Iterator[ToolSpec]:
        return iter(list(self._specs.values()))

    def __len__(self) -> int:
        return len(self._specs)

    def names(self) -> list[str]:
        """Every tool name, in declaration order."""
        return list(self._specs)

    def get(self, name: str) -> ToolSpec:
        """The spec of *name*; raises :class:`UnknownToolError` naming the known tools."""
        try:
            return self._specs[name]
        except KeyError:
            raise UnknownToolError(name, self._specs) from None

    def kind_of(self, name: str) -> str:
        """The kind of tool *name*; ``other`` for one outside the table (an MCP server's,
        say), which the honest endings take as able to change anything."""
        spec = self._specs.get(name)
        return spec.kind if spec is not None else "other"

    def by_executor(self, executor: str) -> list[ToolSpec]:
        """The specs one executor runs."""
        return [s for s in self._specs.values() if s.executor == executor]

    def schemas(
        self, *, mode: str = "ask", names: Iterable[str] | None = None
    ) -> tuple[ToolSchema, ...]:
        """The schemas to offer the model.

        In ``plan`` mode mutating tools are left out entirely (switched off, not just
        discouraged) and ``submit_plan`` is offered; in every other mode
        ``submit_plan`` is left out. *names* narrows to those tools.
        """
        wanted = None if names is None else set(names)
        out = []
        for spec in self._specs.values():
            if wanted is not None and spec.name not in wanted:
                continue
            if mode == "plan" and spec.mutating:
                continue
            if mode != "plan" and spec.name == "submit_plan":
                continue
            out.append(spec.schema())
        return tuple(out)

    def bind(self, name: str, arguments: Mapping[str, Any] | None) -> dict[str, Any]:
        """Validate and bind a call of *name* (see :meth:`ToolSpec.bind`)."""
        return self.get(name).bind(arguments)

    def loggable(self, call: ToolCall) -> ToolCall:
        """*call* as it may be recorded (events, the session log): secrets redacted."""
        spec = self._specs.get(call.name)
        if spec is None or not spec.secret_args:
            return call
        return attrs.evolve(call, arguments=spec.redact(call.arguments))
