"""The tools only a person answers, in the terminal: ``get_user_input`` and ``submit_plan``.

A question is shown with its options; the user picks one with the arrow keys or its
number and Enter, or picks "type my own answer" and writes one (a question without
options is a line to type). The answers go back to the model as the tool's result.

A plan is drawn as markdown, then the user approves it (the session switches to
``ask`` mode and the model is told to implement it), rejects it with feedback (the
model revises it and submits again) or lets the model keep planning. Both results
carry ``continue``, so the run goes on instead of ending at ``submit_plan``.

Ctrl+C or Ctrl+D on a question tells the model the user gave no answer; on a plan it
cancels the run, leaving the plan as the session's last word.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

import trio
from rich.text import Text

from harness.cli.tui._markdown import markdown
from harness.cli.tui._sanitize import clean_line
from harness.messages.tools import ToolOutcome

if TYPE_CHECKING:
    from harness.cli.tui._context import CommandContext

__all__ = ["FREE_TEXT", "PLAN_CHOICES", "answer_questions", "review_plan"]

_T = TypeVar("_T")

#: the label of the option that opens a line for the user's own words
FREE_TEXT = "Type my own answer"

#: what the user may do with a plan, in the order offered
PLAN_CHOICES: tuple[tuple[str, str], ...] = (
    ("approve", "Approve: switch to ask mode and implement it"),
    ("reject", "Reject, with feedback: the model revises the plan"),
    ("keep", "Keep planning: the model looks further before submitting again"),
)


class _NoAnswer(Exception):
    """The user left the question with Ctrl+C or Ctrl+D."""


async def _on_thread(fn: Callable[[], _T]) -> _T:
    # prompt_toolkit runs its own asyncio loop: on a thread, as the prompt does
    from prompt_toolkit.patch_stdout import patch_stdout

    with patch_stdout(raw=True):
        try:
            return await trio.to_thread.run_sync(fn)
        except (KeyboardInterrupt, EOFError):
            raise _NoAnswer from None


#: what :func:`_pick` returns, before the letter, when the user starts typing words
_TYPED = "typed:"


def _choose(message: str, options: Sequence[tuple[str, str]], typing: bool) -> str:
    # prompt_toolkit's own choice() cannot be used for questions: its list takes every
    # letter for itself (j and k move, others jump to an option), and Enter then sends
    # the highlighted option, so words typed there were lost.
    from prompt_toolkit.application import Application
    from prompt_toolkit.formatted_text import FormattedText
    from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
    from prompt_toolkit.keys import Keys
    from prompt_toolkit.layout import Layout, Window
    from prompt_toolkit.layout.controls import FormattedTextControl

    at = 0
    count = len(options)

    def lines() -> FormattedText:
        parts = [("bold", f"{message}\n")] if message.strip() else []
        for i, (_, label) in enumerate(options):
            here = i == at
            parts.append(("reverse" if here else "", f"  {'>' if here else ' '} {i + 1}. {label}"))
            parts.append(("", "\n"))
        return FormattedText(parts)

    keys = KeyBindings()

    @keys.add("up")
    def _up(event: KeyPressEvent) -> None:
        nonlocal at
        at = (at - 1) % count

    @keys.add("down")
    def _down(event: KeyPressEvent) -> None:
        nonlocal at
        at = (at + 1) % count

    for n in range(1, min(count, 9) + 1):

        @keys.add(str(n))
        def _number(event: KeyPressEvent, n: int = n) -> None:
            nonlocal at
            at = n - 1

    @keys.add("enter")
    def _enter(event: KeyPressEvent) -> None:
        event.app.exit(result=options[at][0])

    @keys.add("c-c")
    def _interrupt(event: KeyPressEvent) -> None:
        event.app.exit(exception=KeyboardInterrupt)

    @keys.add("c-d")
    def _eof(event: KeyPressEvent) -> None:
        event.app.exit(exception=EOFError)

    if typing:
        # A letter starts the user's own words: the picker ends, and a line that starts
        # with it takes the rest (the keys after it wait in prompt_toolkit's type-ahead).
        @keys.add(Keys.Any)
        def _typed(event: KeyPressEvent) -> None:
            ch = event.data
            if len(ch) == 1 and ch.isprintable() and not ch.isdigit():
                event.app.exit(result=_TYPED + ch)

    control = FormattedTextControl(lines, focusable=True, show_cursor=False)
    app: Application[str] = Application(
        layout=Layout(Window(control, dont_extend_height=True)),
        key_bindings=keys,
        full_screen=False,
    )
    return app.run()


async def _pick(message: str, options: Sequence[tuple[str, str]], *, typing: bool = False) -> str:
    """The value of the option picked (arrow keys or its number, then Enter); with
    *typing*, a letter typed instead ends the picker as ``_TYPED`` + the letter."""
    return await _on_thread(lambda: _choose(message, options, typing))


async def _line(label: str, default: str = "") -> str:
    from prompt_toolkit import PromptSession

    session: PromptSession[str] = PromptSession()
    return (await _on_thread(lambda: session.prompt(label, default=default))).strip()


async def _ask_one(question: str, options: list[str]) -> str:
    if not options:
        return await _line("  answer: ")
    labelled = [(str(i), clean_line(o)) for i, o in enumerate(options)]
    picked = await _pick("  ", [*labelled, ("free", FREE_TEXT)], typing=True)
    if picked == "free":
        return await _line("  your answer: ")
    if picked.startswith(_TYPED):
        typed = await _line("  your answer: ", default=picked.removeprefix(_TYPED))
        # the words of an option are that option, as the model wrote it
        same = [o for o in options if o.strip().casefold() == typed.casefold()]
        return same[0] if same else typed
    return options[int(picked)]


async def answer_questions(ctx: CommandContext, arguments: dict[str, Any]) -> ToolOutcome:
    """Ask the user each question of a ``get_user_input`` call; their answers."""
    questions = [q for q in arguments.get("questions", []) if isinstance(q, dict)]
    answers: list[tuple[str, str]] = []
    async with ctx.host.holding_terminal():
        for q in questions:
            text = str(q.get("question", ""))
            options = [str(o) for o in q.get("options") or []]
            ctx.console.print(Text.assemble(("? ", "bold magenta"), (clean_line(text), "bold")))
            try:
                answer = await _ask_one(text, options)
            except _NoAnswer:
                ctx.console.print(Text("  (no answer)", style="yellow"))
                return ToolOutcome(
                    ok=False,
                    output="The user closed the question without answering. Do not ask "
                    "again; go on with your best judgement and say what you assumed.",
                )
            ctx.console.print(Text(f"  → {clean_line(answer)}", style="green"))
            answers.append((text, answer))
    if len(answers) == 1:
        return ToolOutcome(ok=True, output=f"The user answered: {answers[0][1]}")
    lines = [f"Q: {q}\nA: {a}" for q, a in answers]
    return ToolOutcome(ok=True, output="The user answered:\n\n" + "\n\n".join(lines))


async def review_plan(ctx: CommandContext, arguments: dict[str, Any]) -> ToolOutcome:
    """Show a ``submit_plan`` plan and let the user approve, reject or keep planning."""
    plan = str(arguments.get("plan", ""))
    live = ctx.live
    async with ctx.host.holding_terminal():
        ctx.console.print(Text("The plan", style="bold magenta"))
        ctx.console.print(markdown(plan))
        try:
            picked = await _pick("What now?", PLAN_CHOICES)
            note = ""
            if picked == "reject":
                note = await _line("  what should change? ")
            elif picked == "keep":
                note = await _line("  anything to look at? (Enter: no) ")
        except _NoAnswer:
            ctx.console.print(Text("  (plan left unreviewed; run cancelled)", style="yellow"))
            ctx.host.cancel_run()
            return ToolOutcome(ok=True, output=plan, data={"plan": True})
    label = dict(PLAN_CHOICES)[picked].split(":", 1)[0]
    ctx.console.print(Text(f"  → {label}" + (f": {clean_line(note)}" if note else ""), "green"))
    data: dict[str, Any] = {"plan": True, "continue": True, "review": picked}
    if picked == "approve":
        if live is not None:
            live.set_permission_mode("ask")
        return ToolOutcome(
            ok=True,
            output="The user approved the plan. The session is now in ask mode: you may "
            "change files and run commands (each change is shown to the user for "
            "approval). Implement the plan now.",
            data=data,
        )
    if picked == "reject":
        return ToolOutcome(
            ok=True,
            output=f"The user rejected the plan. Their feedback: {note or '(none given)'}\n"
            "Revise the plan to answer it, then submit it again with submit_plan.",
            data=data,
        )
    extra = f" They ask you to look at: {note}" if note else ""
    return ToolOutcome(
        ok=True,
        output="The user has not approved the plan yet and wants you to keep planning: "
        f"look further (read-only), then submit a fuller plan with submit_plan.{extra}",
        data=data,
    )
