"""The context budget: estimate a request's tokens, calibrate, trim, decide to summarise.

The estimate is characters / 4 times a factor that learns from the prompt token
counts providers report (an exponential average of reported / raw estimate), so
it tracks the real tokenizer after a request or two.

When a request nears the budget (``window - reserve``, times ``threshold``):

1. old tool results are trimmed first, oldest first: the call stays, its output
   becomes a note saying how much was cut;
2. if that is not enough, :meth:`ContextBudget.plan` says which prefix of the
   history to summarise with the model (the loop does it and records a
   ``compacted`` event).

Never touched: the system prompt (instruction files such as ``AGENTS.md`` and the
user's standing instructions live there) and the current turn (everything from
the last user prompt on). A request that still does not fit is refused before
it is sent (:class:`BudgetExceeded`).
"""

from __future__ import annotations

import operator
from collections.abc import Sequence

import attrs
import orjson

from harness.errors import SessionError
from harness.messages.model import ChatMessage, ToolSchema

__all__ = [
    "DEFAULT_WINDOWS",
    "BudgetExceeded",
    "ContextBudget",
    "ContextSettings",
    "Plan",
]

# Conservative per-provider defaults; a model's own setting overrides them.
DEFAULT_WINDOWS = {
    "ollama": 8192,
    "local": 8192,
    "openai": 128_000,
    "anthropic": 200_000,
    "gemini": 1_000_000,
}
_PER_MESSAGE = 4  # role and framing tokens per message
TRIMMED = "[output trimmed to save context: {n} characters cut; call the tool again if needed]"


class BudgetExceeded(SessionError):
    """The request does not fit the model's window even after trimming and summarising."""


@attrs.define
class ContextSettings:
    """The model's window and the part of it kept for the answer.

    Attributes:
        window: context window in tokens (``None``: the provider's default).
        reserve: tokens kept free for the reply, the most it may write (default: a
            quarter of the window, at most 8192).
        threshold: fraction of the usable budget at which trimming starts (0.8).
        windows, reserves: by model name, what that model uses instead of *window*
            and *reserve*.
    """

    window: int | None = None
    reserve: int | None = None
    threshold: float = 0.8
    windows: dict[str, int] = attrs.field(factory=dict)
    reserves: dict[str, int] = attrs.field(factory=dict)

    def explicit(self, model: str) -> bool:
        """Whether the user set *model*'s window (for it, or for every model)."""
        return model in self.windows or self.window is not None

    def resolved(
        self, provider: str, model: str = "", served: int | None = None
    ) -> tuple[int, int]:
        """``(window, reserve)`` with defaults filled in for *provider*'s *model*.

        Args:
            served: the window the server says the model has (Ollama's ``/api/show``),
                used when the user set none.
        """
        window = (
            self.windows.get(model)
            or self.window
            or served
            or DEFAULT_WINDOWS.get(provider, 32_768)
        )
        reserve = self.reserves.get(model, self.reserve)
        if reserve is None:
            reserve = min(8192, window // 4)
        return window, reserve


@attrs.frozen
class Plan:
    """What to do before sending: the (maybe trimmed) messages, and whether to
    summarise the first ``summarise`` messages of the history."""

    messages: list[ChatMessage]
    tokens: int
    summarise: int = 0
    trimmed: int = 0


class ContextBudget:
    """Estimates and fits requests for one session.

    Args:
        provider: decides the default window.
        settings: window, reserve, threshold.
    """

    def __init__(
        self, provider: str, settings: ContextSettings | None = None, model: str = ""
    ) -> None:
        self.settings = settings or ContextSettings()
        self.window, self.reserve = self.settings.resolved(provider, model)
        self.factor = 1.0
        self._last_raw = 0
        # Every round measures the whole history again. Messages are immutable, so
        # the history measured last and its running sums serve again as long as the
        # new one starts with the very same messages (checked at C speed); anything
        # else (a trimmed copy, a compaction) is measured per message, by identity.
        self._seq: list[ChatMessage] = []
        self._sums: list[int] = [0]
        self._measured: dict[int, tuple[ChatMessage, int]] = {}
        self._tools_measured: tuple[Sequence[ToolSchema], int] | None = None

    def retarget(self, provider: str, model: str, served: int | None = None) -> None:
        """Use *provider*'s *model*'s window and reserve from the next request on
        (*served*: the window the server says it has)."""
        self.window, self.reserve = self.settings.resolved(provider, model, served)

    @property
    def limit(self) -> int:
        """Tokens a request may hold."""
        return max(1, self.window - self.reserve)

    @property
    def soft_limit(self) -> int:
        """Tokens at which trimming starts."""
        return int(self.limit * self.settings.threshold)

    def _raw(
        self, system: str, messages: Sequence[ChatMessage], tools: Sequence[ToolSchema]
    ) -> int:
        if len(self._measured) > 2 * len(messages) + 256:
            # drop what left the history (compaction, trimming, another request)
            keep = {id(m) for m in messages}
            self._measured = {k: v for k, v in self._measured.items() if k in keep}
        seq, sums = self._seq, self._sums
        if len(seq) <= len(messages) and all(map(operator.is_, seq, messages)):
            for m in messages[len(seq) :]:
                seq.append(m)
                sums.append(sums[-1] + self._measure(m))
            chars = len(system) + sums[len(messages)]
        else:
            chars = len(system) + sum(self._measure(m) for m in messages)
            self._seq, self._sums = [], [0]  # follow whichever comes next
        if not isinstance(tools, tuple):  # a list may change under the same identity
            return (chars + _tools_chars(tools)) // 4 + 1
        cached = self._tools_measured
        if cached is None or cached[0] is not tools:
            cached = self._tools_measured = (tools, _tools_chars(tools))
        return (chars + cached[1]) // 4 + 1

    def _measure(self, m: ChatMessage) -> int:
        hit = self._measured.get(id(m))
        if hit is None or hit[0] is not m:
            hit = self._measured[id(m)] = (m, _message_chars(m))
        return hit[1]

    def estimate(
        self, system: str, messages: Sequence[ChatMessage], tools: Sequence[ToolSchema] = ()
    ) -> int:
        """Estimated prompt tokens of a request (calibrated)."""
        return int(self._raw(system, messages, tools) * self.factor)

    def note_sent(
        self, system: str, messages: Sequence[ChatMessage], tools: Sequence[ToolSchema]
    ) -> None:
        """Remember the raw estimate of the request just sent, for :meth:`calibrate`."""
        self._last_raw = self._raw(system, messages, tools)

    def calibrate(self, reported_prompt_tokens: int | None) -> None:
        """Move the factor toward what the provider reported for the last request."""
        if not reported_prompt_tokens or not self._last_raw:
            return
        ratio = reported_prompt_tokens / self._last_raw
        ratio = min(4.0, max(0.25, ratio))
        self.factor = ratio if self.factor == 1.0 else 0.5 * self.factor + 0.5 * ratio

    def plan(
        self,
        system: str,
        history: Sequence[ChatMessage],
        tools: Sequence[ToolSchema],
        current_start: int,
    ) -> Plan:
        """Fit *history* for the next request.

        Args:
            current_start: index in *history* where the current turn starts; nothing
                from there on is trimmed or summarised.

        Raises:
            BudgetExceeded: the system prompt, tools and current turn alone do not fit.
        """
        messages = list(history)
        tokens = self.estimate(system, messages, tools)
        if tokens <= self.soft_limit:
            return Plan(messages, tokens)
        trimmed = 0
        for i in range(min(current_start, len(messages))):
            m = messages[i]
            if m.role != "tool" or m.content.startswith("[output trimmed"):
                continue
            if len(m.content) < 200:
                continue
            messages[i] = attrs.evolve(m, content=TRIMMED.format(n=len(m.content)))
            trimmed += 1
            tokens = self.estimate(system, messages, tools)
            if tokens <= self.soft_limit:
                return Plan(messages, tokens, trimmed=trimmed)
        floor = self.estimate(system, messages[current_start:], tools)
        if floor > self.limit:
            raise BudgetExceeded(
                f"the request needs about {floor} tokens but the model's window allows "
                f"{self.limit} ({self.window} minus {self.reserve} for the answer); "
                "shorten the prompt or choose a model with a larger window"
            )
        # summarise everything before the current turn (keep the split on a
        # user message so no tool result loses its call)
        summarise = current_start if current_start > 0 else 0
        return Plan(messages, tokens, summarise=summarise, trimmed=trimmed)


def _message_chars(m: ChatMessage) -> int:
    chars = len(m.content) + _PER_MESSAGE * 4
    for c in m.tool_calls:
        chars += len(c.name) + len(orjson.dumps(c.arguments))
    return chars


def _tools_chars(tools: Sequence[ToolSchema]) -> int:
    return sum(len(t.name) + len(t.description) + len(orjson.dumps(t.parameters)) for t in tools)
