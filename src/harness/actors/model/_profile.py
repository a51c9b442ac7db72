"""What harness does differently for one model: its profile, chosen once.

A :class:`ModelProfile` is data: the tools offered, strict writes, the call grammar and the
temperature of a guided reply, the repeat cap, which nudge rules are on, and the questions
asked of the server that runs the model. :func:`profile_for` is the one place that looks
at which provider and model are in use; everything else reads the profile it returns.

The embedded ``local`` model (a 1.5B model by default) gets :data:`SMALL_MODEL`: a short
tool list, strict writes, the call grammar, greedy sampling, the repeat cap and the
nudges. Why each is there, and what was measured, is in ``docs/models.md``.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Mapping
from typing import Any

import attrs

from harness.actors.tools import SMALL_MODEL_TOOLS

__all__ = [
    "DEFAULT_PROFILE",
    "NUDGE_RULES",
    "SMALL_MODEL",
    "ModelProfile",
    "profile_for",
]

#: The nudge rules, in the order they are tried (the names of
#: ``harness.actors.model.local``'s rules; a test checks that both lists agree).
NUDGE_RULES: tuple[str, ...] = (
    "finish-rename",
    "left-broken",
    "finish-files",
    "old-value-left",
    "rerun-failing",
    "broken-data",
    "read-first",
    "look-before-write",
    "shown-fix",
    "shown-file",
    "file-not-written",
    "described-program",
    "name-in-error",
    "missing-argument",
    "rename-asked",
    "new-value",
    "value-wanted",
    "switch-wanted",
    "entry-gone",
    "value-in-error",
    "still-listed",
    "read-to-change",
    "empty-after-result",
    "echoed-question",
    "call-as-text",
    "did-you-mean",
    "nothing-found",
    "said-absent-is-there",
    "repeated-result",
    "claimed-run",
    "skipped-run",
    "claimed-change",
    "change-not-begun",
    "guessed-file",
    "named-definer",
    "announced-action",
    "file-not-given",
    "made-up-figure",
    "figure-not-given",
    "read-named",
    "unlooked-answer",
)


@attrs.frozen
class ModelProfile:
    """How harness treats one model.

    Attributes:
        name: what the profile is called (shown in docs and status).
        tools: the tools offered when the user names none (``None``: every tool).
        strict_writes: ``write_file`` only creates files and ``edit_file`` changes only
            files the model has seen.
        grammar: constrain text-protocol tool calls with the call grammar (where the
            engine's sampler can be reached: the embedded model, a llama.cpp server).
        temperature: the temperature of a guided reply whose request sets none
            (``None``: the engine's own).
        repeat_cap: identical tool calls in a row before the model is told to answer
            (one more and no generation runs); 0 turns the cap off.
        nudges: the nudge rules that are on, by name (see :data:`NUDGE_RULES`).
        stops_at_announcement: stop a reply to the prompt, before any call, as soon as
            it announces a look (a read, a search, a listing) and names its
            target, and ask for that call (``announced-action``, which must be on).
        asks_window: ask the server for the model's context window (Ollama's
            ``/api/show``) when the user set none.
        preloads: start loading the model in the model worker as the session opens.
        images: the model reads images: an MCP tool's image result goes to it in the
            provider's form (else only the result's note of each image does).
        maps_workspace: the system prompt holds the workspace's map, its files and
            what each defines (:mod:`harness.workspace_map`).
    """

    name: str
    tools: tuple[str, ...] | None = None
    strict_writes: bool = False
    grammar: bool = False
    temperature: float | None = None
    repeat_cap: int = 0
    nudges: tuple[str, ...] = ()
    stops_at_announcement: bool = False
    asks_window: bool = False
    preloads: bool = False
    images: bool = False
    maps_workspace: bool = False

    def __attrs_post_init__(self) -> None:
        unknown = [n for n in self.nudges if n not in NUDGE_RULES]
        if unknown:
            raise ValueError(f"unknown nudge rule(s): {', '.join(unknown)}")
        if self.repeat_cap < 0:
            raise ValueError("the repeat cap must be 0 (off) or more")


DEFAULT_PROFILE = ModelProfile("default")
"""A model that needs nothing special: every tool, its own sampling, no nudges."""

SMALL_MODEL = ModelProfile(
    "small",
    tools=SMALL_MODEL_TOOLS,
    strict_writes=True,
    grammar=True,
    temperature=0.0,
    repeat_cap=2,
    nudges=NUDGE_RULES,
    stops_at_announcement=True,
)
"""A small model whose sampler harness reaches (the embedded model, a llama.cpp server
asked through its own endpoints): the short tool list, strict writes, the call grammar,
greedy sampling, the repeat cap, every nudge rule, and a reply stopped at the look it
announces."""

_SEES = attrs.evolve(DEFAULT_PROFILE, name="sees images", images=True)
_OLLAMA = attrs.evolve(DEFAULT_PROFILE, name="ollama", asks_window=True)
_OLLAMA_SEES = attrs.evolve(_OLLAMA, name="ollama vision", images=True)
# Ollama's vision models, by the names they are pulled as
_OLLAMA_VISION = (
    "*llava*", "*vision*", "*-vl*", "qwen*vl*", "gemma3*", "llama4*", "minicpm-v*",
    "moondream*", "mistral-small3.*",
)  # fmt: skip

# (provider, model pattern, profile): the first match wins
_TABLE: tuple[tuple[str, str, ModelProfile], ...] = (
    ("local", "*", attrs.evolve(SMALL_MODEL, name="embedded", preloads=True)),
    *(("ollama", pattern, _OLLAMA_SEES) for pattern in _OLLAMA_VISION),
    ("ollama", "*", _OLLAMA),
    ("anthropic", "claude-*", _SEES),
    ("gemini", "gemini-*", _SEES),
    *(
        ("openai", pattern, _SEES)
        for pattern in ("gpt-4o*", "chatgpt-4o*", "gpt-4.1*", "gpt-5*", "o3*", "o4*")
    ),
)

_FIELDS = frozenset(a.name for a in attrs.fields(ModelProfile))


def profile_for(
    provider: str, model: str = "", overrides: Mapping[str, Any] | None = None
) -> ModelProfile:
    """The profile of *model* served by *provider*, with *overrides* (field name ->
    value; a ``None`` value leaves that field as the profile has it).

    Raises:
        ValueError: an override names no field of :class:`ModelProfile`, or gives a
            value it cannot hold.
    """
    profile = next(
        (p for prov, pattern, p in _TABLE if prov == provider and fnmatch.fnmatch(model, pattern)),
        DEFAULT_PROFILE,
    )
    changes = {k: v for k, v in (overrides or {}).items() if v is not None}
    unknown = sorted(changes.keys() - _FIELDS)
    if unknown:
        raise ValueError(f"no such profile setting: {', '.join(unknown)}")
    return attrs.evolve(profile, **changes) if changes else profile
