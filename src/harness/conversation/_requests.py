"""The model requests the loop sends: built from its settings and its budget, and the
quiet ones beside the conversation (a summary, a title, an aside) that add no events
and no history."""

from __future__ import annotations

from collections.abc import Callable

import attrs
import trio

from harness.conversation._budget import ContextBudget
from harness.conversation._loop_config import LoopConfig
from harness.conversation._ports import ModelPort
from harness.conversation._reply import ModelFailed, read_reply
from harness.conversation._titles import TITLE_SYSTEM, plain_title, title_from, title_request
from harness.keys import provider_key
from harness.messages import model as pm

__all__ = ["Requests"]


class Requests:
    """Builds and sends the loop's requests to *model*, with the settings *config()*
    gives at the time and the window and output reserve of *budget*."""

    def __init__(
        self, model: ModelPort, config: Callable[[], LoopConfig], budget: ContextBudget
    ) -> None:
        self._model = model
        self._config = config
        self._budget = budget

    def build(
        self, messages: list[pm.ChatMessage], *, system: str, tools: tuple[pm.ToolSchema, ...]
    ) -> pm.ChatRequest:
        """The request carrying *messages* under *system*, offering *tools*; a model that
        does not see images gets none, not even those results sent an earlier model of
        the session (each result's text keeps its note of them)."""
        cfg = self._config()
        if not cfg.profile().images:
            messages = [attrs.evolve(m, images=()) if m.images else m for m in messages]
        return pm.ChatRequest(
            provider=cfg.provider,
            models=cfg.models,
            messages=tuple(messages),
            system=system,
            tools=tools,
            tool_protocol=cfg.tool_protocol,
            base_url=cfg.base_url,
            api_key=cfg.api_key or provider_key(cfg.provider),
            options=pm.ChatOptions(
                temperature=cfg.temperature,
                seed=cfg.seed,
                max_tokens=self._budget.reserve,
                context_window=self._budget.window,
                thinking=cfg.keep_thinking,
            ),
        )

    async def ask(self, system: str, content: str) -> str:
        """One quiet request: the answer's text.

        Raises:
            ModelFailed: the model or its worker failed.
        """
        request = self.build(
            [pm.ChatMessage(role="user", content=content)], system=system, tools=()
        )
        return (await read_reply(self._model, request)).text

    async def aside(self, system: str, content: str, timeout: float) -> str | None:
        """One quiet request: the answer's text, or ``None`` when it failed, was a call,
        or took over *timeout* seconds."""
        request = self.build(
            [pm.ChatMessage(role="user", content=content)], system=system, tools=()
        )
        with trio.move_on_after(timeout):
            try:
                reply = await read_reply(self._model, request)
            except ModelFailed:
                return None
            return None if reply.calls else reply.text
        return None

    async def title(self, prompt: str, answer: str) -> str:
        """A title for a session that began with *prompt* and *answer*: the model's, else
        the user's words; ``""`` when the model failed (a title that cannot be had is none)."""
        request = self.build(
            [pm.ChatMessage(role="user", content=title_request(prompt, answer))],
            system=TITLE_SYSTEM,
            tools=(),
        )
        try:
            reply = await read_reply(self._model, request)
        except ModelFailed:
            return ""
        # a reply that is a call or markup is no title: the user's words are
        title = "" if reply.calls else title_from(reply.text)
        return title or plain_title(prompt)
