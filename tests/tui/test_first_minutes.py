"""The first minutes' rough edges in the terminal: a provider that cannot be reached,
pickers, a model that is not installed, and the permission mode across sessions."""

from __future__ import annotations

import json
import re

import pytest

from tests.scripted import ScriptedModel, reply
from tests.tui._term import ANSI, spawn

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
        deadline = time.monotonic() + 90
        answered = 0

        # nothing typed: the toolbar under the prompt says the model is loading
        # prompt_toolkit redraws only the characters that changed, so the figures come
        # one by one; "100%", a figure longer than the ones before it, moves the rest
        # of the line and is written with it. A redraw asked for is drawn once its loop
        # gets to it: on a busy machine the status may be gone ("ready") before "100%"
        # was drawn, and then the line loses "loading model N% · " and keeps its "lo":
        # it is redrawn from "cal:" on
        def loaded(seen: str) -> bool:
            if re.search(r"100% · local:", seen):
                return True
            after = seen.rpartition("loading model ")[2]
            return "loading model " in seen and re.search(r"(?<!lo)cal:\S", after) is not None

        while not loaded(ANSI.sub("", t.raw)):
            assert time.monotonic() < deadline, ANSI.sub("", t.raw)[-2000:]
            try:
                t.raw += t.child.read_nonblocking(65536, timeout=0.5)
            except pexpect.TIMEOUT:
                continue
            while t.raw.count("\x1b[6n") > answered:
                t.send("\x1b[1;1R")
                answered += 1
        assert "Traceback" not in t.raw
    finally:
        t.close()
