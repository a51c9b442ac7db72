"""The input line: prompt_toolkit with multi-line editing, history and completion.

Enter submits; Ctrl+J, Alt+Enter (and Shift+Enter where the terminal reports it)
insert a newline; a bracketed paste keeps its newlines. Ctrl+C clears the line,
and on an empty line returns :data:`CTRL_C` so the app can exit on the second
one; Ctrl+D on an empty line raises ``EOFError``; Esc Esc on an empty line returns
:data:`REWIND` (``/rewind``).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path

from prompt_toolkit import PromptSession
from prompt_toolkit.application import get_app
from prompt_toolkit.completion import Completer
from prompt_toolkit.filters import Condition
from prompt_toolkit.formatted_text import FormattedText
from prompt_toolkit.history import FileHistory, History, InMemoryHistory
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.keys import Keys

__all__ = ["CTRL_C", "PROMPT", "REWIND", "FirstLine", "build_prompt_session"]

#: what the prompt returns for Ctrl+C on an empty line
CTRL_C = "\x03"
#: what the prompt returns for Esc Esc on an empty line: the command it runs
REWIND = "/rewind"
PROMPT = "❯ "


def _history(path: Path | None) -> History:
    if path is None:
        return InMemoryHistory()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.touch(exist_ok=True)
    except OSError:
        return InMemoryHistory()  # an unwritable home must not stop the prompt
    return FileHistory(str(path))


def _bindings() -> KeyBindings:
    kb = KeyBindings()

    @kb.add("enter")
    def _submit(event: KeyPressEvent) -> None:
        buf = event.current_buffer
        if buf.complete_state and buf.complete_state.current_completion:
            buf.apply_completion(buf.complete_state.current_completion)
            return
        buf.validate_and_handle()

    @kb.add("c-j")
    @kb.add("escape", "enter")
    def _newline(event: KeyPressEvent) -> None:
        event.current_buffer.insert_text("\n")

    # Shift+Enter as terminals that report modifiers send it (CSI u / xterm's
    # modifyOtherKeys): ESC [ 13 ; 2 u  and  ESC [ 27 ; 2 ; 13 ~
    for seq in ("\x1b[13;2u", "\x1b[27;2;13~"):
        try:
            from prompt_toolkit.input.ansi_escape_sequences import ANSI_SEQUENCES

            ANSI_SEQUENCES.setdefault(seq, Keys.ControlJ)
        except ImportError:  # pragma: no cover - layout of prompt_toolkit changed
            pass

    @kb.add("escape", "escape", filter=Condition(lambda: not get_app().current_buffer.text))
    def _rewind(event: KeyPressEvent) -> None:
        event.app.exit(result=REWIND)

    @kb.add("c-c")
    def _ctrl_c(event: KeyPressEvent) -> None:
        buf = event.current_buffer
        if buf.text:
            buf.reset()
        else:
            event.app.exit(result=CTRL_C)

    return kb


def build_prompt_session(
    *,
    history_path: Path | None,
    completer: Completer | None,
    toolbar: Callable[[], str] | None = None,
) -> PromptSession[str]:
    """The prompt session the app reads every line with."""

    def bottom() -> FormattedText:
        return FormattedText([("class:bottom-toolbar", toolbar() if toolbar else "")])

    return PromptSession(
        message=FormattedText([("ansicyan bold", PROMPT)]),
        multiline=True,
        history=_history(history_path),
        completer=completer,
        complete_while_typing=True,
        key_bindings=_bindings(),
        prompt_continuation=lambda width, line, wrap: " " * (width - 2) + "· ",
        bottom_toolbar=bottom if toolbar else None,
        enable_history_search=False,
        mouse_support=False,
    )


class FirstLine:
    """The first prompt's answer, handed from its thread to the app."""

    def __init__(self) -> None:
        self._done = threading.Event()
        self._value: str | None = None
        self._error: BaseException | None = None

    def set(self, value: str | None = None, error: BaseException | None = None) -> None:
        self._value, self._error = value, error
        self._done.set()

    def result(self) -> str:
        """Wait for the line (re-raising ``EOFError`` and the like)."""
        self._done.wait()
        if self._error is not None:
            raise self._error
        return self._value or ""
