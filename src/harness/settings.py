"""Settings kept in a ``.env``-style file in ``HARNESS_HOME``, read at start-up.

``$HARNESS_HOME/.env`` holds ``NAME=value`` lines (``export NAME=value`` too; ``#``
starts a comment; a value may be quoted, and a double-quoted one knows ``\\n``, ``\\t``,
``\\"`` and ``\\\\``). Each variable the environment does not already set is set from
it, before anything else reads the environment: so a provider key in the file is
taken into memory like one exported in the shell (:mod:`harness.keys`), and every
setting harness reads from the environment (``HARNESS_PROVIDER``, ``HARNESS_MODEL``,
``HARNESS_CONTEXT_WINDOW`` ...) can live there. The environment always wins.

A leaf: it imports only :mod:`harness.home`.
"""

from __future__ import annotations

import os
import re
from collections.abc import MutableMapping
from pathlib import Path

from harness.home import harness_home

__all__ = ["SETTINGS_FILE", "load_settings", "parse_env_file"]

#: the file's name inside ``HARNESS_HOME``
SETTINGS_FILE = ".env"

_LINE = re.compile(r"^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*?)\s*$")
_ESCAPES = {"n": "\n", "t": "\t", '"': '"', "\\": "\\"}


def _value(raw: str) -> str | None:
    if raw[:1] == "'":
        end = raw.find("'", 1)
        return None if end < 0 or raw[end + 1 :].strip()[:1] not in ("", "#") else raw[1:end]
    if raw[:1] == '"':
        out: list[str] = []
        i = 1
        while i < len(raw):
            c = raw[i]
            if c == "\\" and i + 1 < len(raw):
                out.append(_ESCAPES.get(raw[i + 1], "\\" + raw[i + 1]))
                i += 2
                continue
            if c == '"':
                rest = raw[i + 1 :].strip()
                return "".join(out) if rest[:1] in ("", "#") else None
            out.append(c)
            i += 1
        return None
    # unquoted: a comment starts at " #"
    return re.split(r"\s+#", raw, maxsplit=1)[0].strip()


def parse_env_file(text: str, name: str = SETTINGS_FILE) -> tuple[dict[str, str], list[str]]:
    """The variables in *text*, and a sentence for each line that could not be read."""
    values: dict[str, str] = {}
    problems: list[str] = []
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        m = _LINE.match(line)
        value = _value(m.group(2)) if m else None
        if m is None or value is None:
            problems.append(f"{name} line {n} is not NAME=value; ignored")
            continue
        values[m.group(1)] = value
    return values, problems


def load_settings(environ: MutableMapping[str, str] | None = None) -> list[str]:
    """Set from ``$HARNESS_HOME/.env`` each variable *environ* (default ``os.environ``)
    does not set; a sentence for each problem (a file that cannot be read, a bad line).
    ``HARNESS_HOME`` itself cannot be set there: the file is found through it."""
    env = os.environ if environ is None else environ
    path = harness_home(env) / SETTINGS_FILE
    try:
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        return []
    except (OSError, UnicodeDecodeError) as exc:
        return [f"{path} cannot be read: {exc}"]
    values, problems = parse_env_file(text, str(path))
    for key, value in values.items():
        if key == "HARNESS_HOME":
            problems.append(f"{path}: HARNESS_HOME cannot be set in the file it names; ignored")
        elif key not in env:
            env[key] = value
    return problems
