"""Masking secrets in tool output before the model, the events or the log see it.

The values masked: provider keys given to the session, and every environment
variable whose name looks secret (``*KEY*``, ``*TOKEN*``, ``*SECRET*``,
``*PASSWORD*``). Short values (under 6 characters) are left alone: masking
``"1"`` or ``"true"`` would garble ordinary output and protect nothing.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

__all__ = ["MASK", "SecretMasker", "looks_secret"]

MASK = "[REDACTED]"
_SECRET_NAME = re.compile(r"KEY|TOKEN|SECRET|PASSWORD|PASSWD", re.IGNORECASE)
_MIN_LEN = 6


def looks_secret(name: str) -> bool:
    """True for environment variable names that usually hold a secret."""
    return bool(_SECRET_NAME.search(name))


class SecretMasker:
    """Replace known secret values in text with :data:`MASK`.

    Args:
        environ: the environment whose secret-looking values are masked.
        extra: more values to mask (provider keys from the keys store).
    """

    def __init__(self, environ: Mapping[str, str], extra: Iterable[str] = ()) -> None:
        self._values: list[str] = []
        self._pattern: re.Pattern[str] | None = None
        self._use({v for k, v in environ.items() if looks_secret(k) and v} | set(extra))

    def _use(self, values: Iterable[str]) -> None:
        self._values = sorted({v for v in values if len(v) >= _MIN_LEN}, key=len, reverse=True)
        # one alternation, longest first, so a key containing another is masked whole
        self._pattern = (
            re.compile("|".join(re.escape(v) for v in self._values)) if self._values else None
        )

    def add(self, value: str) -> None:
        """Mask *value* from now on."""
        if value and len(value) >= _MIN_LEN and value not in self._values:
            self._use([*self._values, value])

    def __bool__(self) -> bool:
        return self._pattern is not None

    def mask(self, text: str) -> str:
        """*text* with every secret value replaced."""
        if self._pattern is None or not text:
            return text
        return self._pattern.sub(MASK, text)
