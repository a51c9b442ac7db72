"""One client, from its ``initialize`` to the end of its input."""

from __future__ import annotations

import os
import signal
from collections.abc import Mapping

import trio

from harness.acp._agent import HarnessAgent, OptionsFor
from harness.acp._rpc import Connection
from harness.acp._stdio import protocol_fds

__all__ = ["serve", "serve_streams"]


async def serve_streams(
    receive: trio.abc.ReceiveStream,
    send: trio.abc.SendStream,
    options_for: OptionsFor,
    environ: Mapping[str, str],
) -> None:
    """Answer the client on *receive* / *send* until its input ends; every session
    is closed (its log written) before this returns."""
    from acp.agent.router import build_agent_router

    async with trio.open_nursery() as sessions:

        async def handle(method: str, params: object, notification: bool) -> object:
            return await router(method, params, notification)

        conn = Connection(receive, send, handle)
        agent = HarnessAgent(conn, sessions, options_for, environ)
        # the unstable methods of the pinned SDK: session/fork, session/resume, session/close
        router = build_agent_router(agent, use_unstable_protocol=True)  # type: ignore[arg-type]
        async with trio.open_nursery() as reading:

            async def on_signal() -> None:
                # an editor that quits sends SIGTERM (a terminal, SIGINT or SIGHUP): the
                # same as the end of its input, so every log is closed whole
                with trio.open_signal_receiver(
                    signal.SIGTERM, signal.SIGINT, signal.SIGHUP
                ) as signals:
                    async for _ in signals:
                        await receive.aclose()  # run() goes the way of the end of input
                        return

            reading.start_soon(on_signal)
            await conn.run(on_eof=agent.close_all)
            reading.cancel_scope.cancel()
        await agent.close_all(grace=0)


def serve(options_for: OptionsFor, environ: Mapping[str, str] | None = None) -> int:
    """Serve the editor on stdin/stdout (see :func:`harness.acp.claim_stdout`); the
    exit status (0 once the client closed its end)."""
    env = os.environ if environ is None else environ
    fd_in, fd_out = protocol_fds()

    async def main() -> None:
        receive = trio.lowlevel.FdStream(fd_in)
        send = trio.lowlevel.FdStream(fd_out)
        async with receive, send:
            await serve_streams(receive, send, options_for, env)

    trio.run(main)
    return 0
