"""The engine driven directly: streaming, cancellation, prompt states, bad files.

Everything here is mechanics, so it runs the tiny model (``_tiny.py``: the default model's
tokenizer and chat template, random weights), whose replies are noise that never ends by
itself: each generation is bounded by its ``max_tokens``."""

from __future__ import annotations

import importlib
import os
import threading
import time
from pathlib import Path

import pytest

from harness.actors.model.local import ModelLoadError
from harness.actors.model.local._engine import LoadedModel
from harness.actors.model.local._load import load_model
from harness.actors.model.local._sizing import (
    DEFAULT_BATCH,
    default_batch,
    default_threads,
    others_running,
    threads_now,
)
from harness.actors.model.local._states import STATES_KEPT

pytestmark = pytest.mark.slow

ASK = [{"role": "user", "content": "Count from 1 to 30, separated by spaces."}]


def test_threads_default_to_one_less_than_the_cores() -> None:
    import os

    cores = len(os.sched_getaffinity(0))
    assert default_threads({}) == max(1, cores - 1)
    assert default_threads({"HARNESS_LOCAL_THREADS": "3"}) == 3
    assert default_threads({"HARNESS_LOCAL_THREADS": "0"}) == 1
    assert default_threads({"HARNESS_LOCAL_THREADS": "many"}) == max(1, cores - 1)


def test_the_prompt_is_read_in_batches_of_the_set_size() -> None:
    assert default_batch({}) == DEFAULT_BATCH
    assert default_batch({"HARNESS_LOCAL_BATCH": "128"}) == 128
    assert default_batch({"HARNESS_LOCAL_BATCH": "1"}) == 8
    assert default_batch({"HARNESS_LOCAL_BATCH": "lots"}) == DEFAULT_BATCH


def _tasks(folder: Path, *states: str) -> str:
    """A folder laid out as /proc/self/task: one thread a state (R runs)."""
    for i, state in enumerate(states, 1):
        (folder / str(i)).mkdir(parents=True)
        # the thread's name may hold a space and a bracket: the state follows the last ")"
        (folder / str(i) / "stat").write_text(f"{i} (pool) x) {state} 1 1 1 0 -1\n")
    return str(folder)


def test_a_prompt_is_read_and_written_with_every_core_only_while_nothing_else_runs(
    tiny_model: LoadedModel, tmp_path: Path
) -> None:
    assert threads_now(2, 1, 0) == 2
    assert threads_now(2, 1, 1) == 1
    assert threads_now(4, 3, 5) == 3
    assert threads_now(1, 2, 0) == 2  # never fewer than set
    one = _tasks(tmp_path / "one", "R", "S", "S")
    loadavg = tmp_path / "loadavg"
    assert others_running(str(loadavg), tasks=one) == 0  # not there: taken as quiet
    loadavg.write_text("0.50 0.40 0.30 1/120 4242\n")  # this thread alone
    assert others_running(str(loadavg), tasks=one) == 0
    loadavg.write_text("3.90 3.60 3.50 4/120 4242\n")
    assert others_running(str(loadavg), tasks=one) == 3
    # this process's own threads at work (the model writing) are not others
    assert others_running(str(loadavg), tasks=_tasks(tmp_path / "three", "R", "R", "R")) == 1
    assert others_running(str(loadavg), tasks=str(tmp_path / "none")) == 3  # unread: one
    # a moment's work (the conversation that just sent the prompt) is gone at a later look
    busy = tmp_path / "busy"
    busy.write_text("0.50 0.40 0.30 3/120 4242\n")

    def settle() -> None:
        time.sleep(0.005)
        quiet = tmp_path / "quiet"
        quiet.write_text("0.50 0.40 0.30 1/120 4242\n")
        os.replace(quiet, busy)

    settling = threading.Thread(target=settle)
    settling.start()
    assert others_running(str(busy), looks=200, gap=0.002, tasks=one) == 0
    settling.join()
    # the engine reads each prompt, and writes, with what the machine leaves it (this
    # process's real threads: the busy file counts more than this test runs)
    loadavg.write_text("3.90 3.60 3.50 9/120 4242\n")
    ctx = tiny_model.llama._ctx.ctx
    low = tiny_model._lib
    cores, threads = tiny_model.cores, tiny_model.threads
    try:
        tiny_model.cores, tiny_model.threads, tiny_model.loadavg = 2, 1, str(loadavg)
        tiny_model.generate(ASK, lambda _: None, threading.Event(), max_tokens=1)
        assert (low.llama_n_threads_batch(ctx), low.llama_n_threads(ctx)) == (1, 1)
        loadavg.write_text("0.50 0.40 0.30 1/120 4242\n")
        tiny_model.generate(ASK, lambda _: None, threading.Event(), max_tokens=1)
        assert (low.llama_n_threads_batch(ctx), low.llama_n_threads(ctx)) == (2, 2)
        # work that begins while the model writes takes a core from it within 16 tokens,
        # and work that ends gives it back
        for before, after, threads_after in (("1/120", "9/120", 1), ("9/120", "1/120", 2)):
            loadavg.write_text(f"0.50 0.40 0.30 {before} 4242\n")
            written: list[str] = []

            def heard(piece: str, after: str = after, written: list[str] = written) -> None:
                written.append(piece)
                if len(written) == 2:
                    loadavg.write_text(f"0.50 0.40 0.30 {after} 4242\n")

            tiny_model.generate(ASK, heard, threading.Event(), max_tokens=24)
            assert len(written) > 16
            assert low.llama_n_threads(ctx) == threads_after
    finally:
        tiny_model.cores, tiny_model.threads, tiny_model.loadavg = cores, threads, "/proc/loadavg"


def test_a_prompt_is_read_with_no_more_threads_than_the_model_was_loaded_with(
    tiny_model_path: Path,
) -> None:
    model = load_model(tiny_model_path, "one", n_ctx=256, threads=1, threads_batch=1)
    try:
        assert model.cores == 1
        # the engine takes it from llama.cpp's model, not from a second setting beside it
        llama_cpp = importlib.import_module("llama_cpp")
        again = LoadedModel(model.llama, llama_cpp, "again", tiny_model_path, 1)
        assert again.cores == 1
    finally:
        model.close()


def test_generation_streams_piece_by_piece(tiny_model: LoadedModel) -> None:
    pieces: list[str] = []
    result = tiny_model.generate(ASK, pieces.append, threading.Event(), max_tokens=16)
    assert result.finish_reason == "length"
    assert len(pieces) >= 10
    assert all(pieces)
    assert result.completion_tokens == 16
    assert result.prompt_tokens == len(tiny_model.tokenize(tiny_model.render(ASK)))
    # greedy: the same prompt streams the same pieces again
    again: list[str] = []
    tiny_model.generate(ASK, again.append, threading.Event(), max_tokens=16)
    assert again == pieces


def test_cancel_stops_within_one_token(tiny_model: LoadedModel) -> None:
    cancel = threading.Event()
    pieces: list[str] = []

    def on_text(piece: str) -> None:
        pieces.append(piece)
        if len(pieces) == 3:
            cancel.set()

    result = tiny_model.generate(ASK, on_text, cancel, max_tokens=200, temperature=0.0)
    assert result.finish_reason == "cancelled"
    # Set while the third token was handed out: no fourth one reaches anybody.
    assert len(pieces) == 3
    assert result.completion_tokens == 3


def test_cancel_during_a_long_prompt_aborts_the_prompt(tiny_model: LoadedModel) -> None:
    long = [{"role": "user", "content": "word " * 1500 + "\nHow many words?"}]
    cancel = threading.Event()

    def read(done: int, _total: int) -> None:
        if done:  # set once the first batch is read: llama.cpp is inside the prompt
            cancel.set()

    result = tiny_model.generate(long, lambda _p: None, cancel, max_tokens=5, on_read=read)
    assert result.finish_reason == "cancelled"
    assert result.completion_tokens == 0
    # The prompt was not evaluated to its end: llama.cpp stopped inside it.
    assert tiny_model.llama.n_tokens < result.prompt_tokens
    # And the model is fine afterwards.
    pieces: list[str] = []
    after = tiny_model.generate(ASK, pieces.append, threading.Event(), max_tokens=8)
    assert after.completion_tokens == 8
    assert pieces


def test_a_second_turn_reuses_the_shared_prefix(tiny_model: LoadedModel) -> None:
    system = {"role": "system", "content": "You are terse. " * 40}
    first = [system, {"role": "user", "content": "Say hi."}]
    tiny_model.generate(first, lambda _p: None, threading.Event(), max_tokens=1)
    second = [system, {"role": "user", "content": "Say bye."}]
    result = tiny_model.generate(second, lambda _p: None, threading.Event(), max_tokens=1)
    assert result.cached_tokens > 100


def test_a_file_that_is_not_gguf_is_refused(tmp_path: Path) -> None:
    bad = tmp_path / "model.gguf"
    bad.write_bytes(b"<html>not a model</html>")
    with pytest.raises(ModelLoadError, match="is not a GGUF model file"):
        load_model(bad, "bad", n_ctx=512, threads=1)


def test_a_truncated_gguf_is_a_clear_error(tmp_path: Path, default_model_path: Path) -> None:
    bad = tmp_path / "cut.gguf"
    with default_model_path.open("rb") as f:
        bad.write_bytes(f.read(1 << 20))
    with pytest.raises(ModelLoadError, match=r"llama\.cpp could not load cut\.gguf"):
        load_model(bad, "cut", n_ctx=512, threads=1)


def test_the_state_after_the_system_prompt_is_kept_for_the_next_start(
    tmp_path: Path, tiny_model_path: Path
) -> None:
    model = load_model(
        tiny_model_path, "state", n_ctx=1024, threads=1, state_dir=tmp_path, model_key="m"
    )
    for n in range(STATES_KEPT + 2):  # older states of other prompts
        old = tmp_path / f"old-{n}.state"
        old.write_bytes(b"x")
        os.utime(old, (1000 + n, 1000 + n))
    try:
        system = {"role": "system", "content": "You answer in one word. " * 30}
        ask = [system, {"role": "user", "content": "Say hi."}]
        first = model.generate(ask, lambda _p: None, threading.Event(), max_tokens=1)
        assert first.cached_tokens == 0
        saved = list(tmp_path.glob("m-*.state"))
        assert len(saved) == 1
        # the cache is bounded: the least recently used states go
        assert len(list(tmp_path.glob("*.state"))) == STATES_KEPT
        assert not (tmp_path / "old-0.state").exists()
        # a new start: nothing in the context, the state comes from the file
        model.llama._ctx.kv_cache_seq_rm(-1, 0, -1)
        model.llama.n_tokens = 0
        again = [system, {"role": "user", "content": "Say bye."}]
        pieces: list[str] = []
        second = model.generate(again, pieces.append, threading.Event(), max_tokens=4)
        assert second.cached_tokens > 150
        assert pieces  # and the model still answers from it
        # a file that is not a state is ignored (and removed), never trusted
        saved[0].write_bytes(b"garbage")
        model.llama._ctx.kv_cache_seq_rm(-1, 0, -1)
        model.llama.n_tokens = 0
        third = model.generate(again, lambda _p: None, threading.Event(), max_tokens=1)
        assert third.cached_tokens == 0
    finally:
        model.close()


def test_a_side_request_between_two_turns_does_not_cost_the_next_turn_its_prompt(
    tiny_model: LoadedModel,
) -> None:
    system = {"role": "system", "content": "You help with code. Be brief. " * 60}
    turn = [system, {"role": "user", "content": "Say one word."}]
    first = tiny_model.generate(turn, lambda _p: None, threading.Event(), max_tokens=2)
    # a title request: another prompt altogether
    side = [{"role": "user", "content": "Give a title for: say one word"}]
    tiny_model.generate(side, lambda _p: None, threading.Event(), max_tokens=2)
    later = [*turn, {"role": "assistant", "content": "Hi."}, {"role": "user", "content": "Again."}]
    second = tiny_model.generate(later, lambda _p: None, threading.Event(), max_tokens=2)
    assert second.cached_tokens >= first.prompt_tokens - 2


def test_a_new_project_loads_the_state_every_project_shares(
    tmp_path: Path, tiny_model_path: Path
) -> None:
    model = load_model(
        tiny_model_path, "shared", n_ctx=1024, threads=1, state_dir=tmp_path, model_key="m"
    )
    static = "You answer in one word. " * 30
    try:
        for n, folder in enumerate(("/home/a/shop", "/srv/other/project")):
            # a new start in another project: nothing in the context
            model.llama._ctx.kv_cache_seq_rm(-1, 0, -1)
            model.llama.n_tokens = 0
            system = {"role": "system", "content": f"{static}\n\nWorkspace: {folder} (Linux)."}
            ask = [system, {"role": "user", "content": "Say hi."}]
            got = model.generate(
                ask, lambda _p: None, threading.Event(), max_tokens=1, static=static
            )
            if n == 0:
                assert got.cached_tokens == 0
                # one state after the static part, one after the whole system prompt
                assert len(list(tmp_path.glob("m-*.state"))) == 2
            else:
                # the second project read only its own lines and the question
                assert got.cached_tokens > 150
                assert got.prompt_tokens - got.cached_tokens < 40
                assert len(list(tmp_path.glob("m-*.state"))) == 3
    finally:
        model.close()


def test_a_long_prompt_is_read_a_batch_at_a_time_and_says_how_far(
    tiny_model: LoadedModel,
) -> None:
    seen: list[tuple[int, int]] = []
    long = [{"role": "user", "content": "Here is a note. " * 300 + "Say ok."}]
    got = tiny_model.generate(
        long,
        lambda _p: None,
        threading.Event(),
        max_tokens=1,
        on_read=lambda d, t: seen.append((d, t)),
    )
    total = got.prompt_tokens - got.cached_tokens
    assert total > tiny_model.batch
    assert seen[0] == (0, total)
    assert seen[-1] == (total, total)
    assert [d for d, _ in seen] == sorted(d for d, _ in seen)
    assert len(seen) == 2 + (total - 1) // tiny_model.batch
    assert got.read_seconds > 0
