"""Token rates and the usage line printed after each turn (with cost where prices are known)."""

from __future__ import annotations

from rich.text import Text

from harness.words import HOSTED_PROVIDERS

__all__ = ["PRICES", "cost", "usage_line"]

#: USD per million (input, output) tokens for hosted models, matched by name prefix
#: (longest prefix wins). Local and Ollama models cost nothing and show no cost.
PRICES: dict[str, tuple[float, float]] = {
    "gpt-4o-mini": (0.15, 0.60),
    "gpt-4o": (2.50, 10.00),
    "gpt-4.1-mini": (0.40, 1.60),
    "gpt-4.1-nano": (0.10, 0.40),
    "gpt-4.1": (2.00, 8.00),
    "o3-mini": (1.10, 4.40),
    "o4-mini": (1.10, 4.40),
    "claude-3-5-haiku": (0.80, 4.00),
    "claude-haiku-4": (1.00, 5.00),
    "claude-3-7-sonnet": (3.00, 15.00),
    "claude-sonnet-4": (3.00, 15.00),
    "claude-opus-4": (15.00, 75.00),
    "gemini-2.5-flash": (0.30, 2.50),
    "gemini-2.5-pro": (1.25, 10.00),
    "gemini-2.0-flash": (0.10, 0.40),
}


def cost(provider: str, model: str, prompt_tokens: int, completion_tokens: int) -> float | None:
    """The price in USD of a turn, or ``None`` when the model's price is not known."""
    if provider not in HOSTED_PROVIDERS:
        return None
    name = model.rsplit("/", 1)[-1]
    best = max((p for p in PRICES if name.startswith(p)), key=len, default=None)
    if best is None:
        return None
    pin, pout = PRICES[best]
    return (prompt_tokens * pin + completion_tokens * pout) / 1e6


def usage_line(
    *,
    prompt_tokens: int | None,
    completion_tokens: int | None,
    seconds: float,
    cached_tokens: int | None = None,
    turns: int = 1,
    provider: str = "",
    model: str = "",
) -> Text:
    """The dim one-line summary of a finished run: tokens (with how many of the prompt's
    the server's cache held, where it said), rate, time, cost."""
    parts: list[str] = []
    if prompt_tokens is not None or completion_tokens is not None:
        held = f" ({cached_tokens:,} cached)" if cached_tokens else ""
        parts.append(f"{prompt_tokens or 0:,} in{held} · {completion_tokens or 0:,} out")
        if completion_tokens and seconds > 0:
            parts.append(f"{completion_tokens / seconds:.1f} tok/s")
    if turns > 1:
        parts.append(f"{turns} model calls")
    parts.append(f"{seconds:.1f}s")
    price = cost(provider, model, prompt_tokens or 0, completion_tokens or 0)
    if price is not None:
        parts.append(f"${price:.4f}")
    return Text("  " + " · ".join(parts), style="dim")
