"""Fixtures: sessions on real workers whose model is the scripted one, routed per agent."""

from __future__ import annotations

import os
import threading
import time
from typing import Any

import psutil

from tests.conversation.conftest import options_for  # noqa: F401
from tests.scripted import Reply, ScriptedModel, ScriptEntry

__all__ = ["Router", "runners"]


class Router:
    """Plays one script per conversation, told apart by its first user message.

    ``Router({"parent prompt": [...], "task A": [...]})``: a request whose first user
    message contains a key gets that key's next reply; the last reply repeats.
    """

    def __init__(self, scripts: dict[str, list[ScriptEntry]]) -> None:
        self.scripts = scripts
        self.played: dict[str, int] = dict.fromkeys(scripts, 0)
        self._lock = threading.Lock()

    def __call__(self, body: dict[str, Any]) -> Reply:
        first = next(str(m["content"]) for m in body["messages"] if m["role"] == "user")
        with self._lock:
            for key, replies in self.scripts.items():
                if key in first:
                    i = self.played[key]
                    self.played[key] = i + 1
                    entry = replies[min(i, len(replies) - 1)]
                    break
            else:
                raise AssertionError(f"no script for {first[:80]!r}")
        return entry(body) if callable(entry) else entry

    def serve(self, server: ScriptedModel, requests: int = 400) -> None:
        server.add(*([self] * requests))


def runners(root: int | None = None) -> list[psutil.Process]:
    """Sub-agent runners under *root* (default: this process) alive now; zombies
    count as gone."""
    try:
        procs = psutil.Process(root or os.getpid()).children(recursive=True)
    except psutil.NoSuchProcess:
        return []
    out = []
    for p in procs:
        try:
            if p.status() == psutil.STATUS_ZOMBIE:
                continue
            if "harness.actors.subagent" in " ".join(p.cmdline()):
                out.append(p)
        except psutil.NoSuchProcess:
            continue
    return out


def still_alive(procs: list[psutil.Process], timeout: float) -> list[psutil.Process]:
    """Those of *procs* still running after up to *timeout* seconds (a zombie is gone:
    its parent has yet to reap it)."""
    end = time.monotonic() + timeout
    while True:
        alive = []
        for p in procs:
            try:
                if p.status() != psutil.STATUS_ZOMBIE:
                    alive.append(p)
            except psutil.NoSuchProcess:
                continue
        if not alive or time.monotonic() >= end:
            return alive
        time.sleep(0.02)
