"""Running one reply's tool calls: bind, authorise, execute on the right worker, record.

Every call the model made gets exactly one ``tool_call_finished``, whatever
happens (unknown tool, bad arguments, denial, a crashed worker, a call after a
terminating one), so the history stays well-formed for every provider. The runner
is handed the loop as a :class:`CallHost` and the permission policy of the stage it
runs in; it adds results through the host, and says how the calls ended.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol

import attrs
import orjson
import trio

from harness.conversation import events as ev
from harness.conversation._call_errors import (
    describe_worker_error,
    headless_frontend,
    no_one_to_ask,
)
from harness.conversation._ports import (
    ApprovalRequest,
    Approver,
    ExecutorPort,
    FrontendPort,
    PermissionPolicy,
)
from harness.conversation._preview import preview_call
from harness.conversation._repair import repair_note
from harness.conversation._tool_hooks import asking, post_tool_use, pre_tool_use
from harness.ipc import IpcError
from harness.messages.model import ToolCall
from harness.messages.tools import ToolInvoke, ToolOutcome

if TYPE_CHECKING:
    from harness.actors.tools import ToolSpec, ToolTable
    from harness.conversation._loop_config import LoopConfig
    from harness.conversation._ports import HooksPort
    from harness.conversation._secrets import SecretMasker
    from harness.conversation._seen import SeenFiles
    from harness.hooks import Verdict

__all__ = [
    "DISCOVERY_TOOLS",
    "CallHost",
    "CallRunner",
    "CallsOutcome",
    "LocalTool",
    "describe_worker_error",
]

# Discovery calls repeated with the same arguments in one run are answered from a
# cache (until something changes the workspace).
DISCOVERY_TOOLS = frozenset({"list_dir", "find_files", "search_text"})

LocalTool = Callable[[dict[str, Any]], Awaitable[ToolOutcome]]


class CallHost(Protocol):
    """What the call runner uses of the loop (the loop is one)."""

    session_id: str
    workspace: str
    config: LoopConfig
    table: ToolTable
    executors: ExecutorPort
    approver: Approver | None
    frontend: FrontendPort | None
    local_tools: dict[str, LocalTool]
    masker: SecretMasker
    seen_files: SeenFiles
    agent_name: str
    hooks: HooksPort

    def tool_names(self) -> list[str]: ...
    def hook_said(self, verdict: Verdict) -> None: ...
    def emit(self, event: ev.ConversationEvent) -> None: ...
    def add_tool_result(
        self, call: ToolCall, output: str, images: Sequence[Mapping[str, str]] = ()
    ) -> None: ...


@attrs.frozen
class CallsOutcome:
    """How a reply's calls ended: ``stop`` is ``""``, ``terminated`` or ``denied``;
    *answer* is a terminating call's output, the run's answer when it gave none."""

    stop: str = ""
    stop_text: str = ""
    answer: str = ""


@attrs.define
class _Prepared:
    call: ToolCall
    spec: ToolSpec | None = None
    args: dict[str, Any] = attrs.field(factory=dict)
    main: str = ""
    error: str = ""
    repaired: str = ""

    @property
    def tool(self) -> ToolSpec:
        """The call's spec; only a call prepared without an error is authorised or run."""
        if self.spec is None:
            raise RuntimeError(f"{self.call.name} was not prepared: {self.error}")
        return self.spec


class CallRunner:
    """Runs the tool calls of *conv*'s replies in one run, under *policy*; with
    *read_only*, commands run on a read-only file system (plan mode, or a stage of
    deepthink that reads only)."""

    def __init__(self, conv: CallHost, policy: PermissionPolicy, *, read_only: bool) -> None:
        self.conv = conv
        self.policy = policy
        self.read_only = read_only
        self.cache: dict[tuple[str, bytes], ToolOutcome] = {}
        self.finished: set[str] = set()

    # --- steps ------------------------------------------------------------------------

    def _prepare(self, call: ToolCall, parse_error: str | None) -> _Prepared:
        conv = self.conv
        p = _Prepared(call=call)
        table = conv.table
        if call.name not in table:
            p.error = f"Unknown tool {call.name!r}. The tools are: {', '.join(conv.tool_names())}."
        elif parse_error:
            p.error = f"The arguments of {call.name} did not parse: {parse_error}. Send valid JSON."
        else:
            p.spec = table.get(call.name)
            try:
                p.args = p.tool.bind(call.arguments)
                p.main = p.tool.main_value(p.args) or ""
            except (ValueError, TypeError) as exc:
                p.error = f"Invalid arguments: {exc}"
            for secret in p.spec.secret_values(call.arguments):
                conv.masker.add(secret)  # a server that echoes a credential back
        conv.emit(
            ev.ToolCallRequested(
                session_id=conv.session_id,
                call_id=call.id,
                name=call.name,
                arguments=dict(table.loggable(call).arguments),
                main_argument=p.main,
            )
        )
        return p

    def _finish(self, p: _Prepared, outcome: ToolOutcome, started: float) -> ToolOutcome:
        conv = self.conv
        output = conv.masker.mask(outcome.output)
        data = outcome.data
        images = data.get("images") if data else None
        if images:  # an MCP tool's images: to the model, not into the session log
            data = {k: v for k, v in data.items() if k != "images"}
        if data and conv.masker:
            raw = orjson.dumps(data).decode()
            masked = conv.masker.mask(raw)
            if masked != raw:
                data = orjson.loads(masked)
        if p.repaired:
            output += repair_note(p.repaired)
        conv.seen_files.saw(p.call.name, p.args, outcome.ok, data)
        outcome = ToolOutcome(ok=outcome.ok, output=output, data=data)
        self.finished.add(p.call.id)
        conv.emit(
            ev.ToolCallFinished(
                session_id=conv.session_id,
                call_id=p.call.id,
                name=p.call.name,
                ok=outcome.ok,
                output=output,
                data=data,
                duration=time.monotonic() - started if started else 0.0,
            )
        )
        conv.add_tool_result(p.call, output, images or ())
        return outcome

    def _fail(self, p: _Prepared, text: str) -> None:
        self._finish(p, ToolOutcome(ok=False, output=text), 0.0)

    async def _authorise(self, p: _Prepared) -> tuple[bool, bool, str]:
        """``(run, user_denied, reason)``."""
        conv = self.conv
        spec = p.tool
        limit = conv.config.tool_limit
        if limit is not None and p.call.name not in limit:
            # a limit is a list of tools, not a rule a hook or an answer could widen
            why = (
                f"{p.call.name} is not among the tools {conv.config.tool_limit_by or 'the run'}"
                f" allows: {', '.join(limit) or 'none'}"
            )
            conv.emit(
                ev.ToolCallDenied(
                    session_id=conv.session_id, call_id=p.call.id, name=p.call.name, reason=why
                )
            )
            return False, False, why
        before = await pre_tool_use(conv, p)  # may refuse, rewrite (bound again), allow, ask
        decision, why = before.decide(self.policy, spec, p.args, conv.config.permission_mode)
        how = why or decision
        # after the rules (a denied call is told so), before it runs or anyone is asked
        unseen = conv.seen_files.refusal(p.call.name, p.args, decision)
        if unseen:
            return False, False, unseen
        if decision == "allow":
            conv.emit(
                ev.ToolCallApproved(
                    session_id=conv.session_id, call_id=p.call.id, name=p.call.name, how=how
                )
            )
            return True, False, ""
        if decision == "deny":
            conv.emit(
                ev.ToolCallDenied(
                    session_id=conv.session_id, call_id=p.call.id, name=p.call.name, reason=why
                )
            )
            return False, False, why
        if conv.approver is None:
            reason = no_one_to_ask(conv.config.permission_mode, why)
            conv.emit(
                ev.ToolCallDenied(
                    session_id=conv.session_id, call_id=p.call.id, name=p.call.name, reason=reason
                )
            )
            return False, True, reason
        summary, diff = await preview_call(conv.executors, conv.workspace, spec, p.args)
        answer = await asking(
            conv,
            conv.approver,
            ApprovalRequest(
                call_id=p.call.id,
                name=p.call.name,
                arguments=p.args,
                main_argument=p.main,
                kind=spec.kind,
                summary=summary,
                diff=conv.masker.mask(diff),
                agent=conv.agent_name,
            ),
        )
        if answer in ("yes", "always"):
            if answer == "always":
                self.policy.allow_always(spec, p.args)
            conv.emit(
                ev.ToolCallApproved(
                    session_id=conv.session_id, call_id=p.call.id, name=p.call.name, how="user"
                )
            )
            return True, False, ""
        reason = "denied by the user"
        conv.emit(
            ev.ToolCallDenied(
                session_id=conv.session_id, call_id=p.call.id, name=p.call.name, reason=reason
            )
        )
        return False, True, reason

    async def _execute(self, p: _Prepared) -> ToolOutcome:
        conv = self.conv
        spec = p.tool
        name = p.call.name
        executor: str = spec.executor
        conv.emit(
            ev.ToolCallStarted(
                session_id=conv.session_id, call_id=p.call.id, name=name, executor=executor
            )
        )
        try:
            if executor == "conversation":
                local = conv.local_tools.get(name)
                if local is None:
                    return ToolOutcome(ok=False, output=f"{name} is not available in this session.")
                return await local(p.args)
            if executor == "frontend":
                if conv.frontend is None:
                    return headless_frontend(name, p.args)
                return await conv.frontend.frontend_tool(name, p.args)
            return await conv.executors.invoke(
                executor,
                ToolInvoke(
                    name=name,
                    arguments=p.args,
                    call_id=p.call.id,
                    session_id=conv.session_id,
                    workspace=conv.workspace,
                    read_only=self.read_only,
                ),
                conv.config.tool_timeout,
            )
        except IpcError as exc:
            return ToolOutcome(ok=False, output=describe_worker_error(exc, name, p.main))
        except Exception as exc:  # a local tool's bug must not end the conversation
            return ToolOutcome(ok=False, output=f"{name} failed: {type(exc).__name__}: {exc}")

    async def _run_one(self, p: _Prepared) -> ToolOutcome:
        key = (p.call.name, orjson.dumps(p.args, option=orjson.OPT_SORT_KEYS))
        if p.call.name in DISCOVERY_TOOLS and key in self.cache:
            cached = self.cache[key]
            return ToolOutcome(
                ok=cached.ok,
                output=cached.output + "\n(The same call earlier in this turn gave this result.)",
                data=cached.data,
            )
        outcome = await post_tool_use(self.conv, p, await self._execute(p))
        if p.call.name in DISCOVERY_TOOLS and outcome.ok:
            self.cache[key] = outcome
        elif p.tool.kind != "read" and outcome.ok:
            self.cache.clear()  # the workspace may have changed
        return outcome

    # --- one reply --------------------------------------------------------------------

    async def run(
        self, calls: list[tuple[ToolCall, str | None]], notes: Mapping[str, str] | None = None
    ) -> CallsOutcome:
        """Run *calls* (each with its parse error, if any) in order; *notes* says, by
        call id, what was repaired in a call to read it (its result says so too)."""
        prepared = [self._prepare(call, err) for call, err in calls]
        for p in prepared:
            p.repaired = (notes or {}).get(p.call.id, "")
        stop, stop_text, answer = "", "", ""
        i = 0
        while i < len(prepared):
            p = prepared[i]
            if stop:
                self._fail(p, f"Not executed: {stop_text}")
                i += 1
                continue
            if p.error:
                self._fail(p, p.error)
                i += 1
                continue
            # consecutive read-only calls on the tools worker, and sub-agents, run concurrently
            batch = [p]
            if _parallel(p):
                j = i + 1
                while j < len(prepared) and not prepared[j].error and _parallel(prepared[j]):
                    batch.append(prepared[j])
                    j += 1
            if len(batch) > 1:
                await self._run_batch(batch)
                i += len(batch)
                continue
            run, user_denied, reason = await self._authorise(p)
            if not run:
                self._fail(p, f"The call was not run: {reason}.")
                if user_denied:
                    stop = "denied"
                    stop_text = f"an earlier call ({p.call.name}) was denied, so the turn ended."
                i += 1
                continue
            started = time.monotonic()
            outcome = self._finish(p, await self._run_one(p), started)
            # a frontend that had a plan reviewed says the run goes on (revise, implement)
            if p.tool.terminating and outcome.ok and not outcome.data.get("continue"):
                stop = "terminated"
                stop_text = f"the run ended at the terminating call {p.call.name}."
                answer = outcome.output
            i += 1
        return CallsOutcome(stop=stop, stop_text=stop_text, answer=answer)

    async def _run_batch(self, batch: list[_Prepared]) -> None:
        allowed: list[_Prepared] = []
        for p in batch:
            run, _denied, reason = await self._authorise(p)
            if run:
                allowed.append(p)
            else:
                self._fail(p, f"The call was not run: {reason}.")
        results: dict[str, tuple[ToolOutcome, float]] = {}

        async def one(p: _Prepared) -> None:
            started = time.monotonic()
            results[p.call.id] = (await self._run_one(p), started)

        async with trio.open_nursery() as nursery:
            for p in allowed:
                nursery.start_soon(one, p)
        for p in allowed:
            outcome, started = results[p.call.id]
            self._finish(p, outcome, started)


def _parallel(p: _Prepared) -> bool:
    spec = p.spec
    if spec is None:
        return False
    # sub-agents are runners of their own: several hired in one reply work together
    return (spec.kind == "read" and spec.executor == "tools") or spec.kind == "agent"
