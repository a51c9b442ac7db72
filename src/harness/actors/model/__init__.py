"""The model actor: one stream of typed events out of every provider.

The worker (``python -m harness.actors.model``) answers
:class:`~harness.messages.model.ChatRequest`,
:class:`~harness.messages.model.ListModels`, :class:`~harness.messages.model.Embed` and
:class:`~harness.messages.model.DescribeModel`. This package surface stays light
(no HTTP client): the provider seam other providers implement, and the text tool protocol
(prompt section, history rendering, streaming filter, lenient parser) that any provider
producing raw text reuses; and each model's profile (:func:`profile_for`).
"""

from harness.actors.model._credentials import (
    forget_key,
    providers_path,
    resolve_credentials,
    save_key,
)
from harness.actors.model._filter import TextStreamFilter
from harness.actors.model._parsed import ParsedCall, ParsedReply
from harness.actors.model._profile import (
    DEFAULT_PROFILE,
    NUDGE_RULES,
    SMALL_MODEL,
    ModelProfile,
    profile_for,
)
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
