"""Deepthink: one request as five stages of one conversation.

plan (read, change nothing) → check (argue against the plan, settle its
assumptions) → implement → review (handed the real ``git diff`` of what changed,
or told to re-read the files it changed outside git) → verify (run it and report
what really came back).

In plan and check the changing tools are switched off, not discouraged: they are
not offered, and a call to one is refused by :class:`StagePolicy` with a message
naming the stage. A question (the plan stage ends with :data:`NOTHING_TO_BUILD`)
ends after the plan; an implement stage that changed nothing ends the chain.

Deepthink is a run strategy (:class:`~harness.conversation._ports.RunStrategy`): the
loop hands :func:`run_stages` its own run of one message, which takes the stage's
policy; the loop's own policy is never replaced.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Literal

from harness.conversation import events as ev
from harness.conversation._ports import PermissionPolicy, StageHost, StageRun
from harness.ipc import IpcError
from harness.messages.tools import ToolInvoke

if TYPE_CHECKING:
    from harness.actors.tools import ToolSpec

__all__ = ["NOTHING_TO_BUILD", "STAGES", "StagePolicy", "run_stages"]

Stage = Literal["plan", "check", "implement", "review", "verify"]
STAGES: tuple[Stage, ...] = ("plan", "check", "implement", "review", "verify")
READ_ONLY_STAGES: frozenset[str] = frozenset({"plan", "check"})

#: The line a plan stage ends with when the request is a question, with nothing to build.
NOTHING_TO_BUILD = "NOTHING TO BUILD"

_DIFF_CHARS = 20_000

_PLAN = (
    "[deepthink, stage 1 of 5: plan] Read what you need and write a plan for the request "
    "above: what to change, where, and how you will know it works. Change nothing: the "
    "tools that change files are switched off in this stage. If the request is a question "
    f"and nothing needs to be built or changed, answer it in full and end with the line "
    f"{NOTHING_TO_BUILD}."
)
_CHECK = (
    "[deepthink, stage 2 of 5: check] Argue against your plan: what could be wrong with "
    "it, which assumptions have you not checked? Check them now with the tools that read, "
    "then state the plan as settled. The changing tools are still switched off."
)
_IMPLEMENT = (
    "[deepthink, stage 3 of 5: implement] Carry out the settled plan now; every tool is back."
)
_REVIEW_DIFF = (
    "[deepthink, stage 4 of 5: review] This is the real diff of what changed (git's, and "
    "each change harness committed for you):\n\n"
    "```diff\n{diff}\n```\n\nReview it against the plan: bugs, missed cases, anything "
    "the plan asked for that is not done. Fix what is wrong."
)
_REVIEW_FILES = (
    "[deepthink, stage 4 of 5: review] There is no git diff to show: "
    "re-read the files you changed ({files}) as they are now, and review them against the "
    "plan: bugs, missed cases, anything not done. Fix what is wrong."
)
_VERIFY = (
    "[deepthink, stage 5 of 5: verify] Run it: the tests, the program or a command that "
    "exercises the change. Report exactly what came back, not what you expect."
)


class StagePolicy:
    """The session's permission policy, with the changing tools switched off in the
    read-only stages (refused with a message naming the stage)."""

    def __init__(self, inner: PermissionPolicy) -> None:
        self.inner = inner
        self.stage: str = ""

    def decide(
        self, spec: ToolSpec, arguments: Mapping[str, Any], mode: str
    ) -> tuple[Literal["allow", "deny", "ask"], str]:
        if self.stage not in READ_ONLY_STAGES:
            return self.inner.decide(spec, arguments, mode)
        if spec.kind in ("mutating", "agent"):
            return "deny", (
                f"{spec.name} is switched off in the {self.stage} stage of deepthink, "
                "which reads and changes nothing; it comes back in the implement stage"
            )
        # what plan mode lets run (reads, commands that only read) runs here too
        decision, why = self.inner.decide(spec, arguments, "plan")
        if decision == "deny":
            why = f"in the {self.stage} stage of deepthink: {why}"
        return decision, why

    def allow_always(self, spec: ToolSpec, arguments: Mapping[str, Any]) -> None:
        self.inner.allow_always(spec, arguments)


def _offered(conv: StageHost, stage: str, chosen: tuple[str, ...] | None) -> tuple[str, ...] | None:
    """The tools offered in *stage*, of those the session *chose* (``None``: all)."""
    if stage not in READ_ONLY_STAGES:
        return chosen
    names = chosen if chosen is not None else conv.table.names()
    return tuple(
        n
        for n in names
        if n in conv.table
        and conv.table.get(n).kind not in ("mutating", "agent")
        and n != "submit_plan"
    )


async def run_stages(conv: StageHost, prompt: str, run: StageRun) -> tuple[str, str]:
    """Run *prompt* as the five stages, each a round of *run* (the loop's own run of
    one user message under the stage's policy, which returns why it ended):
    ``(why the chain ended, the run's answer)``."""
    policy = StagePolicy(conv.policy)
    saved_tools = conv.config.tools
    saved_mode = conv.config.permission_mode
    if saved_mode == "plan":
        # deepthink supersedes plan mode: its own plan stages read, the others change
        conv.configure(permission_mode="ask")
    touched: dict[str, str] = {}  # call id -> path, of the implement stage's changes

    def watch(event: ev.ConversationEvent) -> None:
        if policy.stage != "implement":
            return
        if isinstance(event, ev.ToolCallRequested):
            spec = conv.table.get(event.name) if event.name in conv.table else None
            if spec is not None and spec.kind == "mutating":
                touched[event.call_id] = ""
                watched[event.call_id] = event.main_argument
        elif isinstance(event, ev.ToolCallFinished) and event.call_id in touched and event.ok:
            touched[event.call_id] = watched.get(event.call_id, "") or event.name
            commit, diff = event.data.get("commit"), event.data.get("diff")
            if commit and isinstance(diff, str):
                # committed at once (autocommit): git's own diff no longer shows it
                committed.append(f"# {str(commit)[:12]} ({event.name})\n{diff}")

    watched: dict[str, str] = {}
    committed: list[str] = []
    answer = ""
    unsubscribe = conv.subscribe(watch)
    reason = "done"
    try:
        text = _PLAN
        for i, stage in enumerate(STAGES, start=1):
            policy.stage = stage
            conv.configure(tools=_offered(conv, stage, saved_tools))
            conv.emit(ev.StageStarted(session_id=conv.session_id, stage=stage, index=i))
            message = f"{prompt}\n\n{text}" if stage == "plan" else text
            reason = await run(message, policy, stage in READ_ONLY_STAGES)
            ended = "" if reason in ("done", "terminated") else reason
            if not ended and stage == "plan" and NOTHING_TO_BUILD in conv.final_text:
                answer = conv.final_text.replace(NOTHING_TO_BUILD, "").strip()
                ended = "question"
            if not ended and stage == "implement":
                changed = sorted({p for p in touched.values() if p})
                text, diff = await _review_prompt(conv, changed, committed)
                if not changed and not diff:
                    ended = "nothing_changed"
            elif stage == "plan":
                text = _CHECK
            elif stage == "check":
                text = _IMPLEMENT
            elif stage == "review":
                text = _VERIFY
            conv.emit(
                ev.StageFinished(
                    session_id=conv.session_id, stage=stage, index=i, reason=ended or reason
                )
            )
            if ended:
                return reason, answer if ended == "question" else conv.final_text
        return reason, conv.final_text
    finally:
        unsubscribe()
        conv.configure(tools=saved_tools, permission_mode=saved_mode)


async def _review_prompt(
    conv: StageHost, files: list[str], committed: list[str]
) -> tuple[str, bool]:
    """The review stage's message, and whether there was a diff to hand it: git's diff
    of what is uncommitted, and the diff of each change harness committed itself."""
    in_git = False
    uncommitted = ""
    try:
        out = await conv.executors.invoke(
            "tools",
            ToolInvoke(name="git_diff", arguments={}, workspace=conv.workspace),
            30.0,
        )
        in_git = out.ok
        if out.ok and not out.data.get("empty"):
            uncommitted = out.output.strip()
    except IpcError:
        in_git = False
    if not in_git:
        return _REVIEW_FILES.format(files=", ".join(files) or "the files you changed"), False
    diff = "\n".join(filter(None, [uncommitted, *committed]))
    if not diff:
        return _REVIEW_FILES.format(files=", ".join(files) or "the files you changed"), False
    if len(diff) > _DIFF_CHARS:
        diff = diff[:_DIFF_CHARS] + "\n... (cut; read the files for the rest)"
    text = _REVIEW_DIFF.format(diff=conv.masker.mask(diff))
    unseen = [f for f in files if f not in diff]
    if unseen:
        # new files git does not track yet are not in its diff
        text += f" Also re-read {', '.join(unseen)}: the diff does not show them."
    return text, True
