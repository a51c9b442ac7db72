"""Run one prompt in a session as its own process (the whole harness), for kill -9 tests.

``python -m tests.conversation.run_session WORKSPACE HOME BASE_URL PROMPT [RESUME]``;
prints the session id on the first line, then the result as JSON.
"""

from __future__ import annotations

import sys
from pathlib import Path

import orjson
import trio

from harness.conversation import events as ev
from harness.conversation import open_session
from tests.conversation.conftest import options_for


class _Url:
    def __init__(self, url: str) -> None:
        self.base_url = url


async def main(workspace: str, home: str, url: str, prompt: str, resume: str | None) -> None:
    opts = options_for(
        Path(workspace),
        Path(home),
        _Url(url),  # type: ignore[arg-type]
        resume=resume,
        names=("model", "tools", "shell"),
    )
    async with open_session(opts) as s:
        print(s.id, flush=True)
        result = await s.run(prompt)
        print(orjson.dumps(ev.encode_event(result)).decode(), flush=True)


if __name__ == "__main__":
    args = sys.argv[1:]
    trio.run(main, args[0], args[1], args[2], args[3], args[4] if len(args) > 4 else None)
