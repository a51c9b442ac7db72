import io

from rich.console import Console

from harness.cli.tui._view import RunView
from harness.conversation import events as ev

SID = "s1"


class Clock:
    def __init__(self) -> None:
        self.t = 100.0

    def __call__(self) -> float:
        return self.t


def make(width: int = 70, **kw: object) -> tuple[RunView, Console, Clock]:
    console = Console(file=io.StringIO(), width=width, color_system=None, _environ={})
    clock = Clock()
    view = RunView(console, clock=clock, live=False, **kw)  # type: ignore[arg-type]
    return view, console, clock


def test_answer_tool_timeline_and_usage() -> None:
    view, console, clock = make(provider="openai", model="gpt-4o-mini")
    view.handle(ev.TurnStarted(session_id=SID, turn=1, model="gpt-4o-mini"))
    view.handle(
        ev.ToolCallRequested(
            session_id=SID,
            call_id="c1",
            name="read_file",
            arguments={"path": "a.txt"},
            main_argument="a.txt",
        )
    )
    view.handle(
        ev.ToolCallApproved(session_id=SID, call_id="c1", name="read_file", how="read_only")
    )
    view.handle(ev.ToolCallStarted(session_id=SID, call_id="c1", name="read_file"))
    clock.t += 0.25
    view.handle(
        ev.ToolCallFinished(
            session_id=SID, call_id="c1", name="read_file", ok=True, output="hello\n"
        )
    )
    view.handle(
        ev.ToolCallRequested(
            session_id=SID, call_id="c2", name="run_cmd", main_argument="make test"
        )
    )
    view.handle(ev.ToolCallStarted(session_id=SID, call_id="c2", name="run_cmd"))
    view.handle(
        ev.ToolCallFinished(
            session_id=SID,
            call_id="c2",
            name="run_cmd",
            ok=False,
            output="E1\nE2\nE3\nE4\nE5\n",
            duration=1.5,
        )
    )
    for piece in ["The file ", "says **hello**.\n\n", "Bye."]:
        view.handle(ev.TextDelta(session_id=SID, text=piece))
    view.handle(ev.UsageReported(session_id=SID, prompt_tokens=1000, completion_tokens=200))
    view.handle(
        ev.Result(
            session_id=SID,
            ok=True,
            text="",
            turns=2,
            usage={"prompt_tokens": 1000, "completion_tokens": 200},
            duration=4.0,
        )
    )
    out = console.file.getvalue()
    lines = [ln.rstrip() for ln in out.splitlines()]
    assert lines[0] == "  ✓ read_file a.txt  0.2s"
    assert lines[1] == "  ✗ run_cmd make test  1.5s"
    assert lines[2:5] == ["    │ E1", "    │ E2", "    │ E3"]
    assert lines[5] == "    … 2 more lines (/expand)"
    assert "The file says hello." in out
    assert "Bye." in out
    # usage: tokens, rate, calls, time and the price of gpt-4o-mini
    assert lines[-1] == "  1,000 in · 200 out · 50.0 tok/s · 2 model calls · 4.0s · $0.0003"
    assert [r.name for r in view.finished_tools] == ["read_file", "run_cmd"]


def test_the_usage_line_says_how_much_of_the_prompt_the_cache_held() -> None:
    view, console, _ = make()
    view.handle(ev.TextDelta(session_id=SID, text="Reading."))
    # the first request read the whole prompt; the second found most of it cached; a
    # provider that does not say counts for nothing
    view.handle(ev.UsageReported(session_id=SID, prompt_tokens=1200, completion_tokens=20))
    view.handle(
        ev.UsageReported(
            session_id=SID, prompt_tokens=1300, completion_tokens=30, cached_tokens=1210
        )
    )
    view.handle(ev.Result(session_id=SID, ok=True, text="", turns=2, duration=5.0))
    last = [ln.rstrip() for ln in console.file.getvalue().splitlines()][-1]
    assert last.startswith("  2,500 in (1,210 cached) · 50 out · 10.0 tok/s")


def test_thinking_hidden_by_default_and_dim_when_on() -> None:
    view, console, _ = make()
    view.handle(ev.ThinkingDelta(session_id=SID, text="secret plan\n"))
    view.handle(ev.TextDelta(session_id=SID, text="answer"))
    view.close()
    assert "secret plan" not in console.file.getvalue()
    view, console, _ = make(show_thinking=True)
    view.handle(ev.ThinkingDelta(session_id=SID, text="secret plan\n"))
    view.handle(ev.TextDelta(session_id=SID, text="answer"))
    view.close()
    out = console.file.getvalue()
    assert out.index("secret plan") < out.index("answer")


def test_worker_restart_is_one_quiet_line() -> None:
    view, console, _ = make()
    view.handle(
        ev.WorkerExited(
            session_id=SID, worker="shell", pid=12, exit_code=-9, reason="killed by signal 9"
        )
    )
    view.handle(ev.WorkerRestarted(session_id=SID, worker="shell", pid=13, restarts=1))
    assert console.file.getvalue() == "  shell worker restarted (killed by signal 9)\n"


def test_denied_call_and_error() -> None:
    view, console, _ = make()
    view.handle(
        ev.ToolCallRequested(session_id=SID, call_id="c", name="edit_file", main_argument="x.py")
    )
    view.handle(
        ev.ToolCallDenied(session_id=SID, call_id="c", name="edit_file", reason="by the user")
    )
    view.handle(
        ev.ToolCallFinished(
            session_id=SID, call_id="c", name="edit_file", ok=False, output="denied"
        )
    )
    view.handle(ev.ErrorEvent(session_id=SID, kind="network", message="cannot reach \x1b[2Jhost"))
    assert console.file.getvalue().splitlines() == [
        "  ⊘ edit_file x.py  denied: by the user",
        "  ✗ cannot reach host",
    ]


def test_hostile_tool_output_and_names_are_stripped() -> None:
    view, console, _ = make()
    view.handle(
        ev.ToolCallRequested(
            session_id=SID, call_id="c", name="run_cmd", main_argument="echo \x1b]0;t\x07[bold]x"
        )
    )
    view.handle(
        ev.ToolCallFinished(
            session_id=SID, call_id="c", name="run_cmd", ok=True, output="\x1b[2J\x1b[Hgone[/]\n"
        )
    )
    out = console.file.getvalue()
    assert "\x1b" not in out
    assert "\x07" not in out
    assert "echo [bold]x" in out
    assert "gone[/]" in out


def test_status_line_rate_from_the_clock() -> None:
    view, _, clock = make()
    view.handle(ev.TextDelta(session_id=SID, text="x" * 400))
    clock.t += 2.0
    assert view.tokens_per_second() == 50.0
    assert "50.0 tok/s" in view.status_line().plain


def test_status_line_says_which_call_is_being_written() -> None:
    view, _, _ = make()
    assert "waiting for the model" in view.status_line().plain
    # a model's name for a tool is its own text: it is shown cleaned, on one line
    view.handle(ev.ToolCallWriting(session_id=SID, name="read_file\x1b[2J"))
    line = view.status_line().plain
    assert "writing a call to read_file" in line
    assert "\x1b" not in line
    assert "tok/s" not in line


def test_status_line_says_the_model_is_asked_again_and_by_which_rule() -> None:
    from harness.actors.model.local._guide import NUDGED_PREFIX

    view, _, _ = make()
    view.handle(ev.TextDelta(session_id=SID, text="I will read notes.txt."))
    # the rule's name is the model worker's text: shown cleaned, on one line
    message = NUDGED_PREFIX + "announced-action\x1b[2J"
    view.handle(ev.ModelProgress(session_id=SID, stage="nudged", message=message))
    line = view.status_line().plain
    assert "asking the model again: announced-action" in line
    assert "\x1b" not in line
    # the call the nudge asked for takes the line over as it is written
    view.handle(ev.ToolCallWriting(session_id=SID, name="read_file"))
    line = view.status_line().plain
    assert "writing a call to read_file" in line
    assert "asking the model again" not in line


def test_status_line_says_the_model_is_loading_or_reading() -> None:
    view, _, _ = make()
    loading = ev.ModelProgress(
        session_id=SID, stage="verifying", done=6, total=10, message="verifying model x: 60%"
    )
    view.handle(loading)
    assert "verifying model x: 60%" in view.status_line().plain
    reading = ev.ModelProgress(
        session_id=SID,
        stage="reading",
        done=518,
        total=1480,
        message="reading 1,480 tokens 35%\x1b[2J",
    )
    view.handle(reading)
    line = view.status_line().plain
    assert "reading 1,480 tokens 35%" in line
    assert "\x1b" not in line
    # the answer's first words take the line over
    view.handle(ev.TextDelta(session_id=SID, text="Hello"))
    assert "reading" not in view.status_line().plain
