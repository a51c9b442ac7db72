"""The first minutes' rough edges in the terminal: a provider that cannot be reached,
pickers, a model that is not installed, and the permission mode across sessions."""

from __future__ import annotations

import json
import re

import pyte
import pytest

from tests.scripted import ScriptedModel, reply
from tests.tui._term import spawn

pytestmark = pytest.mark.slow


def test_an_unreachable_provider_a_missing_model_and_the_mode_across_sessions(  # type: ignore[no-untyped-def]
    term_for, dirs
) -> None:
    ws, home = dirs
    with ScriptedModel([reply("still answering"), reply("A title")]) as model:
        t = term_for(model)
        # no Ollama answers here (the terminal tests point it at a closed port)
        t.line("/connect ollama")
        out = t.expect(r"still on openai:scripted")
        assert "cannot list ollama models" in out
        t.expect("❯")
        t.line("/status")
        assert "provider openai · model scripted" in t.expect(r"permission mode \w+")
        t.line("hello")
        t.expect("still answering")
        prefs = home / "tui.json"
        if prefs.exists():  # nothing about ollama was remembered for the folder
            saved = json.loads(prefs.read_text())["workspaces"].get(str(ws.resolve()), {})
            assert saved.get("provider") != "ollama"

        # the embedded catalogue's models that are not installed say so, and cannot be
        # chosen; after the picker the main prompt is the main prompt again
        t.line("/connect local")
        out = t.expect(r"model \(number, Enter cancels\):")
        assert re.search(r"qwen2\.5-coder-0\.5b\s+\(not installed\)", out)
        number = re.search(r"(\d+)\. qwen2\.5-coder-0\.5b", out).group(1)  # type: ignore[union-attr]
        t.line(number)
        t.expect(r"qwen2\.5-coder-0\.5b is not installed; still on openai:scripted")
        following = t.expect(r"❯|Enter cancels\):", timeout=10)
        assert following.endswith("❯"), following

        # Ctrl+C at a picker cancels it, as Enter does: no traceback, the session goes on
        t.line("/connect local")
        t.expect(r"model \(number, Enter cancels\):")
        t.send("\x03")
        t.line("/status")
        out = t.expect(r"permission mode \w+")
        assert "Traceback" not in out, out
        assert "KeyboardInterrupt" not in out, out
        assert "provider openai · model scripted" in out

        # /clear and /resume keep the permission mode
        t.line("/planmode on")
        t.expect("permission mode plan")
        t.line("/clear")
        t.expect("new session")
        t.line("/status")
        t.expect(r"permission mode plan\b")
        t.line("/automode on")
        t.expect("permission mode auto")
        t.line("/resume")
        t.expect(r"session \(number, Enter cancels\)")
        t.line("1")
        t.expect(r"resumed session \S+")
        t.line("/status")
        t.expect(r"permission mode auto\b")


def test_a_harness_home_that_cannot_be_written_is_one_sentence(dirs) -> None:  # type: ignore[no-untyped-def]
    ws, home = dirs
    blocker = home / "not-a-folder"
    blocker.write_text("")
    with ScriptedModel([reply("never asked")]) as model:
        t = spawn(ws, blocker / "home", base_url=model.base_url)
        try:
            # (a long line: the terminal wraps it)
            out = t.expect(r"(?s)could not start the session: .*?HARNESS_HOME\)", 60)
            out = out[out.index("could not start") :].replace("\n", "")
            assert "Not a directory: " in out
            assert "Errno" not in out
            assert "Traceback" not in t.raw
        finally:
            t.close()


def test_the_embedded_model_loads_as_the_terminal_opens_and_says_so(dirs) -> None:  # type: ignore[no-untyped-def]
    import time

    import pexpect

    from harness.actors.model.local import DEFAULT_MODEL, lookup
    from harness.actors.model.local._assemble import assemble
    from harness.actors.model.local._loader import model_cache_dir

    entry = lookup(DEFAULT_MODEL)
    assert entry is not None
    cache = assemble(entry, model_cache_dir()).parent  # the file make install assembled
    ws, home = dirs
    t = spawn(
        ws,
        home,
        base_url=None,
        args=["--provider", "local", "--model", DEFAULT_MODEL],
        # the toolbar is drawn only once the terminal has said where the cursor is:
        # this test answers those questions, as a terminal does
        env={
            "HARNESS_EMBEDDED": "on",
            "HARNESS_MODEL_CACHE": str(cache),
            "PROMPT_TOOLKIT_NO_CPR": "0",
        },
    )
    try:
        # prompt_toolkit redraws only the characters that changed, so what the toolbar says
        # is read from a screen (pyte, a VT100 emulator) fed everything harness wrote, not
        # from the text with its escape codes removed: there, "100%" drawn over "90%" is
        # "1" and "0% · …", and "loading model" drawn over "local:" is "ading model".
        # The wait is long: it is no speed test, and a slow CI machine took 90 s to load.
        screen = pyte.Screen(120, 40)
        stream = pyte.Stream(screen)
        deadline = time.monotonic() + 300
        answered = 0
        shown: list[str] = []  # each different toolbar seen, in order

        def toolbar() -> str:
            return next((line for line in screen.display if "/help ·" in line), "").strip()

        # nothing typed: the toolbar under the prompt says the model is loading, with how
        # far it has got, and once loaded says only which model is on
        while not (
            any("loading model" in line for line in shown)
            and "ask · /help" in shown[-1]
            and "loading" not in shown[-1]
        ):
            assert time.monotonic() < deadline, "\n".join(shown[-20:]) or screen.display
            try:
                out = t.child.read_nonblocking(65536, timeout=0.5)
            except pexpect.TIMEOUT:
                continue
            t.raw += out
            stream.feed(out)
            while t.raw.count("\x1b[6n") > answered:
                t.send("\x1b[1;1R")
                answered += 1
            if toolbar() and (not shown or shown[-1] != toolbar()):
                shown.append(toolbar())
        assert any(re.search(r"loading model \d+% · local:", line) for line in shown), shown
        assert "Traceback" not in t.raw
    finally:
        t.close()
