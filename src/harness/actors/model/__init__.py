"""The model actor: one stream of typed events out of every provider.

The worker (``python -m harness.actors.model``) answers
:class:`~harness.messages.model.ChatRequest`,
:class:`~harness.messages.model.ListModels`, :class:`~harness.messages.model.Embed` and
:class:`~harness.messages.model.DescribeModel`. This package surface stays light
(no HTTP client): the provider seam other providers implement, and the text tool protocol
(prompt section, history rendering, streaming filter, lenient parser) that any provider
producing raw text reuses; and each model's profile (:func:`profile_for`). Only the
profile loads with the package; the rest on first use of its names.
"""

import typing

from harness._lazy import lazy_names as _lazy_names
from harness.actors.model._profile import (
    DEFAULT_PROFILE,
    NUDGE_RULES,
    SMALL_MODEL,
    ModelProfile,
    profile_for,
)

__all__ = [
    "DEFAULT_PROFILE",
    "ERROR_KINDS",
    "NUDGE_RULES",
    "SMALL_MODEL",
    "Describer",
    "Embedder",
    "Finish",
    "ModelProfile",
    "ParsedCall",
    "ParsedReply",
    "Provider",
    "ProviderCall",
    "ProviderError",
    "ProviderEvent",
    "ProviderFactory",
    "TextStreamFilter",
    "body_params",
    "forget_key",
    "parse_reply",
    "profile_for",
    "providers_path",
    "render_call",
    "render_text_history",
    "resolve_credentials",
    "save_key",
    "strip_think",
    "text_protocol_prompt",
]

if typing.TYPE_CHECKING:
    from harness.actors.model._credentials import (
        forget_key,
        providers_path,
        resolve_credentials,
        save_key,
    )
    from harness.actors.model._filter import TextStreamFilter
    from harness.actors.model._parsed import ParsedCall, ParsedReply
    from harness.actors.model._provider import (
        ERROR_KINDS,
        Describer,
        Embedder,
        Finish,
        Provider,
        ProviderCall,
        ProviderError,
        ProviderEvent,
        ProviderFactory,
    )
    from harness.actors.model._textproto import (
        body_params,
        render_call,
        render_text_history,
        text_protocol_prompt,
    )
    from harness.actors.model._toolparse import parse_reply, strip_think

# The profile loads with the package: the conversation reads it to settle a session.
# The rest is the model worker's (providers, the text tool protocol) and loads on
# first use of its names, so the main process does not pay for it before its first
# request; the fork server imports it with the worker's engine.
_LAZY = {
    **dict.fromkeys(
        ("forget_key", "providers_path", "resolve_credentials", "save_key"),
        "harness.actors.model._credentials",
    ),
    "TextStreamFilter": "harness.actors.model._filter",
    "ParsedCall": "harness.actors.model._parsed",
    "ParsedReply": "harness.actors.model._parsed",
    **dict.fromkeys(
        (
            "ERROR_KINDS",
            "Describer",
            "Embedder",
            "Finish",
            "Provider",
            "ProviderCall",
            "ProviderError",
            "ProviderEvent",
            "ProviderFactory",
        ),
        "harness.actors.model._provider",
    ),
    **dict.fromkeys(
        ("body_params", "render_call", "render_text_history", "text_protocol_prompt"),
        "harness.actors.model._textproto",
    ),
    "parse_reply": "harness.actors.model._toolparse",
    "strip_think": "harness.actors.model._toolparse",
}


__getattr__ = _lazy_names(__name__, _LAZY)
