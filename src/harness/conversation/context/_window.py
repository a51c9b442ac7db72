"""The model's window from the server that runs it (Ollama's ``/api/show``).

When the user set no window for an Ollama model, the server is asked once per model
and address, through the model worker: the window is the Modelfile's ``num_ctx`` when
it sets one, else the smaller of the model's own ``context_length`` and harness's
default for Ollama (never more than the model supports, and never more than the
default: Ollama allocates its cache for the whole window it is sent). A failure or a
slow answer keeps the default.

The question goes out as the session opens and after each ``/model`` switch, beside
everything else; a model round waits for it briefly (``WINDOW_WAIT``), so the first
request already carries the window, and Ollama does not reload the model for a new
``num_ctx`` at the second.
"""

from __future__ import annotations

import trio

from harness.conversation._budget import DEFAULT_WINDOWS
from harness.conversation._loop import Conversation
from harness.conversation.context._bounds import bound
from harness.conversation.workers import Workers
from harness.errors import HarnessError
from harness.keys import provider_key
from harness.messages.model import DescribeModel, ModelFacts

__all__ = ["ASK_TIMEOUT", "ask_window", "served_window"]

#: seconds the server has to answer
ASK_TIMEOUT = 3.0


def served_window(facts: ModelFacts, provider: str = "ollama") -> int | None:
    """The window *facts* give (``None``: they say nothing usable)."""
    if facts.num_ctx:
        return facts.num_ctx
    if facts.context_length:
        return min(facts.context_length, DEFAULT_WINDOWS[provider])
    return None


def needs_asking(conv: Conversation) -> bool:
    """Whether the conversation's model is one whose window the server should say."""
    cfg = conv.config
    key = conv.window_key()
    return (
        cfg.profile().asks_window
        and bool(key[2])
        and not cfg.context.explicit(key[2])
        and key not in conv.served_windows
    )


def ask_window(conv: Conversation, workers: Workers) -> None:
    """Ask the server for the window of *conv*'s model in the background (when it
    should be asked); the conversation's next round waits for it a moment."""
    if not needs_asking(conv):
        return
    done = trio.Event()
    conv.served_windows.expect(done)
    key = conv.window_key()

    async def ask() -> None:
        try:
            request = DescribeModel(
                provider=key[0],
                model=key[2],
                base_url=key[1] or None,
                api_key=provider_key(key[0]),
            )
            wait = bound(ASK_TIMEOUT)
            with trio.move_on_after(wait):
                facts = await workers.call("model", request, ModelFacts, timeout=wait)
                window = served_window(facts, key[0])
                if window:
                    conv.learn_window(key, window)
        except HarnessError:
            pass  # the default stays
        finally:
            done.set()

    workers.start_soon(ask)
