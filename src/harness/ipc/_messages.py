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

from typing import Any, ClassVar, TypeVar

import cattrs
from cattrs.errors import ClassValidationError

from harness.ipc._errors import ProtocolError

__all__ = ["Message", "converter", "decode_message", "encode_message", "message_types"]

M = TypeVar("M", bound="Message")

# One converter for the whole process. Structuring code is generated once per
# class and cached, which keeps a typed round trip close to raw orjson.
converter = cattrs.Converter(forbid_extra_keys=False)

_registry: dict[str, type[Message]] = {}

_JSON_OBJECT = dict[str, Any]


def _is_json_object(tp: Any) -> bool:
    return bool(tp == _JSON_OBJECT or tp == _JSON_OBJECT | None)


def _structure_json_object(value: Any, tp: Any) -> Any:
    if value is None and tp != _JSON_OBJECT:
        return None
    if not isinstance(value, dict):
        raise TypeError(f"expected a JSON object, got {type(value).__name__}")
    return value


# A ``dict[str, Any]`` field holds JSON as it came (tool arguments, schemas): it
# crosses as-is. Walking it value by value would cost more than the rest of a
# message, and every model request carries the whole history of them.
converter.register_structure_hook_func(_is_json_object, _structure_json_object)
converter.register_unstructure_hook_func(_is_json_object, lambda value: value)


class Message:
    """Base of every typed message. Subclasses pass ``tag=`` and use ``@attrs.frozen``."""

    TAG: ClassVar[str] = ""

    def __init_subclass__(cls, tag: str | None = None, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
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


def message_types() -> dict[str, type[Message]]:
    """Every registered message class by tag (a copy)."""
    return dict(_registry)


def encode_message(msg: Message) -> dict[str, Any]:
    """Unstructure *msg* into a JSON-ready dict carrying its ``type`` tag."""
    data: dict[str, Any] = converter.unstructure(msg)
    data["type"] = type(msg).TAG
    return data


def decode_message(data: Any, expect: type[M] | None = None) -> M:
    """Structure *data* into its registered class.

    Raises:
        ProtocolError: not a dict, no or unknown ``type``, fields that do not fit,
            or a class other than *expect* (when given).
    """
    if not isinstance(data, dict):
        raise ProtocolError(f"a message must be an object, got {type(data).__name__}")
    tag = data.get("type")
    if not isinstance(tag, str):
        raise ProtocolError("message has no 'type' tag")
    cls = _registry.get(tag)
    if cls is None:
        raise ProtocolError(f"unknown message type {tag!r}")
    if expect is not None and not issubclass(cls, expect):
        raise ProtocolError(f"expected {expect.__name__}, got message type {tag!r}")
    try:
        return converter.structure(data, cls)  # type: ignore[return-value]
    except ClassValidationError as exc:
        details = "; ".join(str(e) for e in exc.exceptions) or str(exc)
        raise ProtocolError(f"message {tag!r} does not fit its type: {details}") from None
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise ProtocolError(f"message {tag!r} does not fit its type: {exc!r}") from None
