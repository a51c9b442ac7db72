"""Typed messages: frozen attrs classes registered under a ``type`` tag.

Every message that crosses a process boundary is a subclass of :class:`Message`
declared with a tag::

    @attrs.frozen
    class RunCmd(Message, tag="shell.run_cmd"):
        command: str
        timeout: float | None = None

The tag goes on the wire as the ``type`` field; :func:`decode_message` turns a
dict back into the registered class, and every way that can fail (unknown tag,
missing field, wrong type) becomes a :class:`~harness.ipc.ProtocolError`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar, TypeVar, cast

import attrs
import cattrs
from cattrs.errors import ClassValidationError

from harness.ipc._errors import ProtocolError

__all__ = ["Message", "converter", "decode_message", "encode_message", "message_types"]

M = TypeVar("M", bound="Message")

_JSON_OBJECT = dict[str, Any]


def _is_json_object(tp: Any) -> bool:
    return bool(tp == _JSON_OBJECT or tp == _JSON_OBJECT | None)


def _structure_json_object(value: Any, tp: Any) -> Any:
    if value is None and tp != _JSON_OBJECT:
        return None
    if not isinstance(value, dict):
        raise TypeError(f"expected a JSON object, got {type(value).__name__}")
    return value


def _converter(*, detailed: bool) -> cattrs.Converter:
    conv = cattrs.Converter(forbid_extra_keys=False, detailed_validation=detailed)
    # A ``dict[str, Any]`` field holds JSON as it came (tool arguments, schemas):
    # it crosses as-is. Walking it value by value would cost more than the rest
    # of a message, and every model request carries the whole history of them.
    conv.register_structure_hook_func(_is_json_object, _structure_json_object)
    conv.register_unstructure_hook_func(_is_json_object, lambda value: value)
    return conv


# One converter for the whole process. Its structuring code is generated once per
# class, without the bookkeeping that says which field failed: a message that
# does not fit is structured again by ``_explainer``, which says where.
converter = _converter(detailed=False)
_explainer = _converter(detailed=True)

_registry: dict[str, type[Message]] = {}
# Each class's functions, fetched at its first use (hooks are registered at import,
# before any message crosses): a round trip skips the converter's dispatch.
_decoders: dict[str, tuple[type[Message], Callable[[Any, type[Any]], Any]]] = {}
_encoders: dict[type[Message], Callable[[Any], dict[str, Any]]] = {}


class Message:
    """Base of every typed message. Subclasses pass ``tag=`` and use ``@attrs.frozen``."""

    TAG: ClassVar[str] = ""

    def __init_subclass__(cls, tag: str | None = None, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        # One __repr__ for every message, put on each class as its own: attrs leaves a
        # class's own __repr__ alone, so it does not write and compile one per class,
        # which every process paid at its start (the -p frontend's import: 1,204 million
        # instructions with them, 1,125 million without; docs/ARCHITECTURE.md).
        if "__repr__" not in cls.__dict__:
            cls.__repr__ = Message.__repr__  # type: ignore[method-assign]
        if tag is not None:
            cls.TAG = tag
        own = cls.__dict__.get("TAG")
        # attrs' slotted classes are built anew from the decorated one, which calls
        # this hook a second time; the later (final) class replaces the first.
        if own:
            previous = _registry.get(own)
            if previous is not None and previous.__qualname__ != cls.__qualname__:
                raise TypeError(f"message tag {own!r} is already used by {previous.__qualname__}")
            _registry[own] = cls
            _decoders.pop(own, None)

    def __repr__(self) -> str:
        """``RunCmd(command='ls', timeout=None)``: the fields attrs would show, as it would."""
        cls = type(self)
        shown = (
            f"{a.name}={(a.repr if callable(a.repr) else repr)(getattr(self, a.name))}"
            for a in (attrs.fields(cls) if attrs.has(cls) else ())
            if a.repr
        )
        return f"{cls.__name__}({', '.join(shown)})"


def message_types() -> dict[str, type[Message]]:
    """Every registered message class by tag (a copy)."""
    return dict(_registry)


def encode_message(msg: Message) -> dict[str, object]:
    """Unstructure *msg* into a JSON-ready dict carrying its ``type`` tag."""
    cls = type(msg)
    hook = _encoders.get(cls)
    if hook is None:
        hook = _encoders[cls] = converter.get_unstructure_hook(cls)
    data: dict[str, object] = hook(msg)
    data["type"] = cls.TAG
    return data


def decode_message(data: object, expect: type[M] | None = None) -> M:
    """Structure *data* into its registered class.

    Raises:
        ProtocolError: not a dict, no or unknown ``type``, fields that do not fit,
            or a class other than *expect* (when given).
    """
    tag = data.get("type") if isinstance(data, dict) else None
    found = _decoders.get(tag) if isinstance(tag, str) else None
    cls, hook = found if found is not None else _decoder(data)
    if expect is not None and not issubclass(cls, expect):
        raise ProtocolError(f"expected {expect.__name__}, got message type {cls.TAG!r}")
    try:
        return cast(M, hook(data, cls))
    except Exception:
        raise ProtocolError(
            f"message {cls.TAG!r} does not fit its type: {_explain(data, cls)}"
        ) from None


def _decoder(data: object) -> tuple[type[Message], Callable[[Any, type[Any]], Any]]:
    """The class and structure function for *data*, or why it has none."""
    if not isinstance(data, dict):
        raise ProtocolError(f"a message must be an object, got {type(data).__name__}")
    tag = data.get("type")
    if not isinstance(tag, str):
        raise ProtocolError("message has no 'type' tag")
    cls = _registry.get(tag)
    if cls is None:
        raise ProtocolError(f"unknown message type {tag!r}")
    found = _decoders[tag] = (cls, converter.get_structure_hook(cls))
    return found


def _explain(data: object, cls: type[Message]) -> str:
    """Which fields of *data* do not fit *cls*, and how."""
    try:
        _explainer.structure(data, cls)
    except ClassValidationError as exc:
        return "; ".join(cattrs.transform_error(exc, path="message"))
    except Exception as exc:  # any failure is the explanation
        return repr(exc)
    return "it does not structure"  # the fast converter failed where this one did not
