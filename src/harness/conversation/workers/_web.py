"""``get_url`` and ``call_api`` as chains of hops, each decided by the session's rules.

The search worker makes one request per hop (:data:`~harness.actors.tools.HOP_ARG`)
and answers a redirect with the request that would follow it. Each redirect target
is then decided like a call of its own, by the policy in force (a deny rule, an allow
rule that does not cover it, auto mode's question for this machine or a private
network, deepthink's reading stages): only a hop allowed outright is made. Any other
ends the call with a sentence naming the target, which the model may fetch with a
call of its own, decided (and asked) like any other.

Each hop also says whether its connections may reach this machine or a private
network, which the worker checks on the address DNS gave: yes when the URL itself
names such a host (it was decided as one: even auto mode asks for it), or when an
allow rule covers the URL (the user named that host). A name that only DNS turns
into a private address (rebinding, or a page's link to an internal name) is refused
with a sentence that says how to allow it.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any

import attrs

from harness.actors.tools import HOP_ARG
from harness.messages.tools import ToolInvoke, ToolOutcome

if TYPE_CHECKING:
    from harness.actors.tools import ToolSpec
    from harness.conversation._loop import Conversation

__all__ = ["WEB_TOOLS", "run_web_call"]

#: The search worker's tools whose redirects the conversation decides hop by hop.
WEB_TOOLS = frozenset({"get_url", "call_api"})

_REDIRECTS_CAP = 20  # the worker stops at its own limit first; this only bounds the loop


def _rule_allows(conv: Conversation, spec: ToolSpec, args: Mapping[str, Any]) -> bool:
    """Whether an allow rule (not auto mode) lets this call run."""
    mode = conv.config.permission_mode
    try:
        return conv.policy.decide(spec, args, "ask")[0] == "allow"
    finally:
        conv.policy.decide(spec, args, mode)  # the policy keeps the mode it was last given


def _private(conv: Conversation, spec: ToolSpec, args: Mapping[str, Any]) -> bool:
    """Whether this (already allowed) hop may reach this machine or a private network."""
    return spec.near_target(args) is not None or _rule_allows(conv, spec, args)


async def run_web_call(
    conv: Conversation,
    invoke: Callable[[ToolInvoke], Awaitable[ToolOutcome]],
    request: ToolInvoke,
) -> ToolOutcome:
    """Run *request* (``get_url``/``call_api``, already allowed) hop by hop on the search
    worker through *invoke*, deciding each redirect with *conv*'s policy."""
    spec = conv.table.get(request.name)
    args: dict[str, Any] = dict(request.arguments)
    origin = str(args.get("url", ""))
    for redirects in range(_REDIRECTS_CAP + 1):
        hop = {"private": _private(conv, spec, args), "redirects": redirects, "origin": origin}
        out = await invoke(attrs.evolve(request, arguments={**args, HOP_ARG: hop}))
        follow = out.data.get("redirect")
        if not isinstance(follow, dict):
            return out
        target = str(follow.get("url", ""))
        decision, why = conv.policy.decide(spec, follow, conv.config.permission_mode)
        if decision != "allow":
            again = " (the user will be asked)" if decision == "ask" else ""
            return ToolOutcome(
                ok=False,
                output=(
                    f"{request.name}: {out.data.get('from') or origin} redirects "
                    f"(HTTP {out.data.get('status')}) to {target}, which was not followed: "
                    f"{why}. To fetch it, call {request.name} with that URL{again}."
                ),
                data={"kind": "redirect", "status": out.data.get("status"), "location": target},
            )
        args = dict(follow)
    return ToolOutcome(ok=False, output=f"{request.name}: {origin}: too many redirects")
