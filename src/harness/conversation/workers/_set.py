"""The workers: the model, tools and shell workers under one supervisor, as the loop's ports.

Each worker is ``python -m harness.actors.<name>`` with cwd = the workspace. The
session opens once the model worker answers (:data:`FIRST`); the tools, shell and search
workers start at the first call routed to each, which waits for it, or is told why it
could not start. The supervisor's own events (a worker exited, restarted, was given up)
become conversation events for whoever listens.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import TYPE_CHECKING, TypeVar

import attrs
import trio

from harness.conversation import events as ev
from harness.ipc import IpcError, Message, ProtocolError, WorkerUnavailable
from harness.messages.model import ChatRequest
from harness.messages.tools import ToolInvoke, ToolOutcome, ToolPreview, ToolPreviewResult

if TYPE_CHECKING:
    from harness.supervisor import Supervisor, SupervisorEvent, WorkerHandle, WorkerStatus

__all__ = [
    "DEFAULT_MODULES",
    "FIRST",
    "FORK_WARM_ENV",
    "ON_DEMAND",
    "RSS_LIMITS",
    "SUBAGENT_PREFIX",
    "WorkerSettings",
    "Workers",
    "open_workers",
    "session_warm",
]

_Reply = TypeVar("_Reply", bound=Message)

DEFAULT_MODULES: dict[str, str] = {
    "model": "harness.actors.model",
    "tools": "harness.actors.tools",
    "shell": "harness.actors.shell",
    "search": "harness.actors.search",
}

#: Sub-agent runners are supervised as ``subagent:<id>``.
SUBAGENT_PREFIX = "subagent:"

#: Workers started by the first call routed to them alone, even in a session that starts
#: the others early (:meth:`Workers.start_rest`): most sessions never fetch a page.
ON_DEMAND: frozenset[str] = frozenset({"search"})

#: The workers a session starts as it opens, and waits for: its first request needs
#: only the model worker (the tool table is data, known without the tools worker). The
#: others start at the first call routed to each: a run that calls no tool starts none
#: of them, and started beside the first request they took the CPU its answer waited
#: for (``python -m bench headless``). A first call waits for its worker's start, a
#: fork from the fork server, far less than the model's reply that asked for it.
FIRST: frozenset[str] = frozenset({"model"})

#: Worker events kept for a first listener that has not come yet (the newest).
_UNHEARD = 64

#: Resident memory past which a worker is killed, for the workers that read what the
#: network sends (a page, a compressed body): a bug that lets one grow costs that one
#: call, not the machine's memory. The search worker needs about 80 MB.
RSS_LIMITS: Mapping[str, int] = {"search": 512 * 1024 * 1024}


@attrs.define
class WorkerSettings:
    """How the session starts its workers.

    Attributes:
        workspace: every worker's cwd.
        modules: worker name -> module run as ``python -m``; tests may add workers
            or replace a module.
        env: extra environment per worker name (``{"shell": {"HARNESS_SHELL_SANDBOX": ...}}``).
        heartbeat_interval: seconds between pings (``None``: off).
        rss_limit: resident memory limit per worker, bytes.
    """

    workspace: str
    modules: dict[str, str] = attrs.field(factory=lambda: dict(DEFAULT_MODULES))
    env: dict[str, dict[str, str]] = attrs.field(factory=dict)
    heartbeat_interval: float | None = 2.0
    rss_limit: int | None = None


def _rss_limit(own: int | None, every: int | None) -> int | None:
    """The lower of a worker's own memory limit and the one set for every worker."""
    limits = [n for n in (own, every) if n is not None]
    return min(limits) if limits else None


class Workers:
    """The running workers, seen by the loop as a :class:`ModelPort` and an
    :class:`ExecutorPort`. Build it with :func:`open_workers`."""

    def __init__(self, supervisor: Supervisor, settings: WorkerSettings) -> None:
        self.supervisor = supervisor
        self.settings = settings
        self._listeners: list[Callable[[ev.ConversationEvent], None]] = []
        # what happened before anyone listened (a worker that failed while the session
        # was opening), for the first listener
        self._unheard: list[ev.ConversationEvent] = []
        self.session_id = ""
        self._nursery: trio.Nursery | None = None
        # workers started after the session opened: set once each is up or has failed
        self._booting: dict[str, trio.Event] = {}
        # why a worker started so could not start (its calls are told)
        self._failed: dict[str, str] = {}

    def start_soon(self, fn: Callable[[], Awaitable[object]], *, after_start: bool = False) -> None:
        """Run *fn* beside the workers until the workers stop; with *after_start*, once
        the workers starting at that moment are up (:meth:`wait_started`)."""
        nursery = self._nursery
        if nursery is None:
            raise RuntimeError("the workers are not running")

        async def later() -> None:
            await self.wait_started()
            await fn()

        nursery.start_soon(later if after_start else fn)

    # --- ModelPort --------------------------------------------------------------------

    def stream(self, request: ChatRequest) -> AbstractAsyncContextManager[AsyncIterator[Message]]:
        """Stream a model reply from the model worker."""
        return self._handle("model").stream(request, timeout=None)

    # --- ExecutorPort -----------------------------------------------------------------

    async def invoke(
        self, executor: str, request: ToolInvoke, timeout: float | None
    ) -> ToolOutcome:
        """Run *request* on the *executor* worker (started by its first call)."""
        return await self.call(executor, request, ToolOutcome, timeout=timeout)

    async def preview(self, request: ToolPreview) -> ToolPreviewResult | None:
        """Ask the tools worker (started by its first call) what a mutating call would
        change."""
        await self._started("tools")
        if "tools" not in self.supervisor:
            return None
        reply = await self._handle("tools").request(request, timeout=10)
        return reply if isinstance(reply, ToolPreviewResult) else None

    def _handle(self, name: str) -> WorkerHandle:
        if name not in self.supervisor:
            raise WorkerUnavailable(f"there is no {name} worker in this session", worker=name)
        return self.supervisor.get(name)

    # --- workers ----------------------------------------------------------------------

    async def call(
        self, worker: str, message: Message, answer: type[_Reply], *, timeout: float | None
    ) -> _Reply:
        """Send *message* to *worker* and return its reply, which must be an *answer*.

        Raises:
            WorkerUnavailable: there is no such worker in this session.
            ProtocolError: the worker answered with another message.
            IpcError: the call failed on its way (see :mod:`harness.ipc`).
        """
        await self._started(worker)
        reply = await self._handle(worker).request(message, timeout=timeout)
        if not isinstance(reply, answer):
            raise ProtocolError(
                f"{worker} worker answered {type(reply).__name__}, not {answer.__name__}"
            )
        return reply

    def status(self) -> list[WorkerStatus]:
        """The supervisor tree (``/status``)."""
        return list(self.supervisor.status())

    def subscribe(self, listener: Callable[[ev.ConversationEvent], None]) -> None:
        """Receive worker events as conversation events (the first listener also those
        from before it came)."""
        self._listeners.append(listener)
        unheard, self._unheard = self._unheard, []
        for event in unheard:  # told before the session had its id
            listener(attrs.evolve(event, session_id=self.session_id))

    async def start(self, names: Sequence[str]) -> None:
        """Start the named workers, concurrently."""
        async with trio.open_nursery() as nursery:
            for name in names:
                nursery.start_soon(self._start_one, name)

    async def _start_one(self, name: str) -> None:
        from harness.supervisor import ChildSpec

        s = self.settings
        spec = ChildSpec(
            name=name,
            module=s.modules[name],
            cwd=s.workspace,
            env=dict(s.env.get(name, {})),
            heartbeat_interval=s.heartbeat_interval,
            rss_limit=_rss_limit(RSS_LIMITS.get(name), s.rss_limit),
            request_timeout=None,
            # A cancelled command's tree is killed before its call answers.
            request_grace=5.0 if name == "shell" else 2.0,
            shutdown_grace=3.0,
        )
        await self.supervisor.start(spec)

    def start_beside(self, names: Sequence[str]) -> None:
        """Start the named workers in the background; calls to one wait until it is up,
        or are told why it could not start."""
        if self._nursery is None:
            raise RuntimeError("the workers are not running")
        for name in names:
            self._booting[name] = trio.Event()
            self._nursery.start_soon(self._boot, name)

    def start_rest(self) -> None:
        """Start now, in the background, the workers not started yet but the
        :data:`ON_DEMAND` ones, rather than at their first calls: for a terminal, where
        the user's typing leaves the CPU free, so that a first call finds its worker up."""
        self.start_beside(
            [
                n
                for n in self.settings.modules
                if n not in ON_DEMAND and n not in self._booting and n not in self.supervisor
            ]
        )

    async def _boot(self, name: str) -> None:
        # The supervisor's events since this start, to say why it failed: the exits come
        # before the give-up that ends the wait, so they are all in the feed by then.
        feed = self.supervisor.subscribe()
        try:
            await self._start_one(name)
        except IpcError as exc:
            why = _start_failure(name, exc, feed)
            self._failed[name] = why
            self._tell(ev.ErrorEvent(session_id=self.session_id, kind="worker", message=why))
        finally:
            feed.close()
            self._booting[name].set()

    async def warm_runners(self) -> None:
        """Have the fork server import what a sub-agent runner imports beyond the default
        workers (``harness._forkstart.RUNNER_PRELOAD``), unless ``HARNESS_FORK_WARM=0``.
        For once the workers are up: while they start, the import takes their CPU."""
        from harness._forkstart import RUNNER_PRELOAD
        from harness.actors.subagent import MODULE

        if session_warm():
            await self.supervisor.warm(MODULE, RUNNER_PRELOAD)

    async def wait_started(self) -> None:
        """Wait until every worker started in the background so far is up, or has failed
        to start (said in an ``error`` event and to each call made to it)."""
        for booting in list(self._booting.values()):
            await booting.wait()

    async def _started(self, name: str) -> None:
        """Start *name* if it is a worker of this session not started yet, and wait while
        it starts (a call that comes meanwhile waits too: the event is set at once).

        Raises:
            WorkerUnavailable: it could not start, and is down for good.
        """
        booting = self._booting.get(name)
        if booting is None:
            if name in self.supervisor or name not in self.settings.modules:
                return
            self.start_beside([name])
            booting = self._booting[name]
        await booting.wait()
        why = self._failed.get(name)
        if why is not None and self.supervisor.get(name).state in ("gave_up", "stopped"):
            raise WorkerUnavailable(why, worker=name)

    def _tell(self, event: ev.ConversationEvent) -> None:
        if not self._listeners:
            self._unheard = [*self._unheard[-(_UNHEARD - 1) :], event]
        for listener in list(self._listeners):
            listener(event)

    async def _forward(self, events: trio.MemoryReceiveChannel[SupervisorEvent]) -> None:
        from harness.supervisor import WorkerExited, WorkerGaveUp, WorkerRestarted

        async for e in events:
            if e.name.startswith(SUBAGENT_PREFIX):
                continue  # a runner's end is its report (subagent_finished), not a worker event
            sid = self.session_id
            out: ev.ConversationEvent | None = None
            if isinstance(e, WorkerExited):
                out = ev.WorkerExited(
                    session_id=sid,
                    worker=e.name,
                    pid=e.pid,
                    exit_code=e.exit_code,
                    reason=e.reason,
                    description=f"{e.name} worker (pid {e.pid}) {e.description}",
                )
            elif isinstance(e, WorkerRestarted):
                out = ev.WorkerRestarted(
                    session_id=sid, worker=e.name, pid=e.pid, restarts=e.restarts
                )
            elif isinstance(e, WorkerGaveUp):
                out = ev.WorkerGaveUp(
                    session_id=sid,
                    worker=e.name,
                    reason=f"{e.restarts} restarts within {e.period:g} s",
                )
            if out is not None:
                self._tell(out)


def _start_failure(
    name: str, exc: IpcError, feed: trio.MemoryReceiveChannel[SupervisorEvent]
) -> str:
    """One sentence on why worker *name* could not start: its last exit and the last line
    it wrote, else what the wait for it raised."""
    from harness.supervisor import WorkerExited

    last: WorkerExited | None = None
    while True:
        try:
            e = feed.receive_nowait()
        except (trio.WouldBlock, trio.EndOfChannel):
            break
        if isinstance(e, WorkerExited) and e.name == name:
            last = e
    if last is None:
        return f"the {name} worker could not start: {exc}"
    lines = [line for line in last.stderr_tail.splitlines() if line.strip()]
    said = f": {lines[-1].strip()[:300]}" if lines else ""
    return f"the {name} worker could not start ({last.description}){said}"


#: ``HARNESS_FORK_WARM=0`` leaves the session's warm out: its fork server then imports
#: only what every worker shares, not also what the default workers and a sub-agent
#: runner import (``harness._forkstart.WORKER_PRELOAD``, and ``RUNNER_PRELOAD``, which
#: the sub-agent pool asks for once the workers are up), and each worker imports its
#: own modules as it starts. A session opened in a process that has imported harness
#: already (the API's, the tests') starts its workers at once, so its server imports
#: those modules beside them: a session that lives a second, as the test suite opens
#: hundreds, saves the quarter second of CPU this costs. The server ``harness`` starts
#: early imports them while the command line does, before any worker, and keeps them.
FORK_WARM_ENV = "HARNESS_FORK_WARM"


def session_warm(environ: Mapping[str, str] | None = None) -> tuple[str, ...]:
    """What a session's fork server imports once it is ready: the default workers'
    modules, or nothing when *environ* (default: this process's) sets
    ``HARNESS_FORK_WARM=0``."""
    from harness._forkstart import WORKER_PRELOAD

    env = os.environ if environ is None else environ
    return () if env.get(FORK_WARM_ENV) == "0" else WORKER_PRELOAD


@asynccontextmanager
async def open_workers(
    settings: WorkerSettings, names: Sequence[str] | None = None
) -> AsyncIterator[Workers]:
    """Start the workers (default: the :data:`FIRST` ones; the others start at their
    first call) and stop them all on exit. Returns once the :data:`FIRST` workers answer;
    other *names* start then, beside the session's first request."""
    from harness.supervisor import open_supervisor

    async with open_supervisor(warm=session_warm()) as sup, trio.open_nursery() as nursery:
        workers = Workers(sup, settings)
        workers._nursery = nursery
        nursery.start_soon(workers._forward, sup.subscribe())
        try:
            if names is None:
                names = [n for n in settings.modules if n in FIRST]
            await workers.start([n for n in names if n in FIRST])
            # the others once the model worker is up: its start is the one a first
            # request waits for, and theirs would share the fork server and the CPU with it
            workers.start_beside([n for n in names if n not in FIRST])
            yield workers
        finally:
            nursery.cancel_scope.cancel()


def worker_env(
    environ: Mapping[str, str], *, sandbox: str | None = None
) -> dict[str, dict[str, str]]:
    """Per-worker environment additions for the command-line choices."""
    out: dict[str, dict[str, str]] = {}
    if sandbox and sandbox != "off":
        out["shell"] = {"HARNESS_SHELL_SANDBOX": sandbox}
    del environ
    return out
