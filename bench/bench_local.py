"""Benchmarks of the embedded model (issue 8), the worker beside llama-cpp-python itself.

In one run, alternating so both see the same machine:

- load time: llama-cpp-python's ``Llama(...)`` on the assembled file, beside a model
  worker's cold start (process, imports, load) to the first token of a one-word reply;
- prompt tokens/s: one reply of one token to a ~600-token prompt that shares no prefix
  with the one before, through ``ChatRequest`` on the model worker, beside
  ``Llama.create_completion`` on the same rendered prompt;
- generated tokens/s: 64 tokens, first token to last, both ways;
- time to first token of a short prompt, both ways;
- the lazy tool-call grammar's cost per token while it waits for a call to start (its
  trigger search over everything generated), at the end of a 1,500-token reply without a
  call, beside the same sampler chain without the grammar.

The goal: the worker adds under 5%. Then:

- prompt tokens/s by batch size (llama.cpp's ``n_batch``, ``HARNESS_LOCAL_BATCH``), each
  size loaded beside the others and read in turn;
- writing with every free core against the threads set alone, quiet and beside a busy
  process (:mod:`bench._local_cores`);
- where a one-tool question's and a one-line edit's seconds go, through the whole
  program, in a new folder and a known one (:mod:`bench._local_split`).

``BENCH_LOCAL_PARTS`` (comma-separated ``worker``, ``batch``, ``cores``, ``split``; default all)
picks parts. Run: ``python -m bench local``.
"""

from __future__ import annotations

import os
import statistics
import sys
import time
from pathlib import Path

import trio

from bench._local_cores import cores_rows
from bench._local_split import split_rows
from harness.actors.model.local import DEFAULT_MODEL, lookup
from harness.actors.model.local._assemble import assemble
from harness.actors.model.local._loader import DEFAULT_CONTEXT, model_cache_dir
from harness.actors.model.local._sizing import default_threads, usable_cores
from harness.messages.model import (
    ChatMessage,
    ChatOptions,
    ChatRequest,
    ModelDone,
    ModelError,
    TextDelta,
    Usage,
)
from harness.supervisor import ChildSpec, WorkerHandle, open_supervisor

REPS = 3
GEN_TOKENS = 64
LONG = " ".join(
    f"Line {i}: the function parse_{i} reads a record and checks it." for i in range(40)
)
COUNT = "Count from 1 to 200, separated by spaces, and nothing else."
SHORT = "Say hello."


def _messages(user: str, tag: int) -> list[dict[str, str]]:
    # A different first line each time: no reuse of the previous prompt's cache.
    return [
        {"role": "system", "content": f"Session {tag}. You are a helpful coding assistant."},
        {"role": "user", "content": user},
    ]


class Direct:
    """llama-cpp-python called directly, with the same file, context and threads."""

    def __init__(self, path: Path, threads: int, batch: int = 512) -> None:
        import llama_cpp
        from llama_cpp.llama_chat_format import Jinja2ChatFormatter

        started = time.perf_counter()
        self.llm = llama_cpp.Llama(
            model_path=str(path),
            n_ctx=DEFAULT_CONTEXT,
            n_threads=threads,
            n_threads_batch=threads,
            n_batch=batch,
            verbose=False,
        )
        self.load_s = time.perf_counter() - started
        eos = self.llm.token_eos()
        self.fmt = Jinja2ChatFormatter(
            template=self.llm.metadata["tokenizer.chat_template"],
            eos_token=self.llm._model.token_get_text(eos),
            bos_token="",
        )

    def run(self, messages: list[dict[str, str]], max_tokens: int) -> dict[str, float]:
        prompt = self.fmt(messages=messages).prompt
        tokens = self.llm.tokenize(prompt.encode(), add_bos=False, special=True)
        started = time.perf_counter()
        first = last = started
        n = 0
        for _chunk in self.llm.create_completion(
            tokens, max_tokens=max_tokens, temperature=0.0, stream=True
        ):
            last = time.perf_counter()
            if n == 0:
                first = last
            n += 1
        return {"prompt": len(tokens), "ttft": first - started, "gen": n, "gen_s": last - first}

    def close(self) -> None:
        self.llm.close()


async def _worker_run(
    handle: WorkerHandle, messages: list[dict[str, str]], max_tokens: int
) -> dict[str, float]:
    system = messages[0]["content"]
    history = tuple(ChatMessage(role=m["role"], content=m["content"]) for m in messages[1:])
    req = ChatRequest(
        provider="local",
        models=(DEFAULT_MODEL,),
        messages=history,
        system=system,
        options=ChatOptions(max_tokens=max_tokens, temperature=0.0),
    )
    started = time.perf_counter()
    first = last = started
    n = 0
    prompt = 0
    async with handle.stream(req) as events:
        async for ev in events:
            if isinstance(ev, TextDelta):
                last = time.perf_counter()
                if n == 0:
                    first = last
                n += 1
            elif isinstance(ev, Usage):
                prompt = ev.prompt_tokens or 0
                n = ev.completion_tokens or n
            elif isinstance(ev, ModelError):
                raise RuntimeError(f"{ev.kind}: {ev.message}")
            elif isinstance(ev, ModelDone):
                break
    return {"prompt": prompt, "ttft": first - started, "gen": n, "gen_s": last - first}


def _spec(threads: int) -> ChildSpec:
    root = Path(__file__).resolve().parents[1]
    env = {
        "PYTHONPATH": os.pathsep.join([str(root), *sys.path]),
        "HARNESS_LOCAL_THREADS": str(threads),
    }
    return ChildSpec(name="model", module="harness.actors.model", env=env)


def _ratio(worker: float, direct: float, higher_is_better: bool) -> str:
    if direct <= 0 or worker <= 0:
        return "n/a"
    over = (direct / worker - 1) if higher_is_better else (worker / direct - 1)
    return f"worker {100 * over:+.1f}% vs direct (goal < 5%)"


async def _bench(direct: Direct, threads: int) -> list[tuple[str, str, str]]:
    rows: list[tuple[str, str, str]] = []
    async with open_supervisor() as sup:
        started = time.perf_counter()
        handle = await sup.start(_spec(threads))
        await _worker_run(handle, _messages(SHORT, 0), 1)
        cold_s = time.perf_counter() - started
        direct_cold = direct.run(_messages(SHORT, 0), 1)
        rows.append(
            (
                "load: worker cold start to first token",
                f"{cold_s:.2f} s",
                f"direct Llama() {direct.load_s:.2f} s + first token {direct_cold['ttft']:.2f} s",
            )
        )
        p_w, p_d, g_w, g_d, t_w, t_d = [], [], [], [], [], []
        for rep in range(REPS):
            tag = 100 + rep
            w = await _worker_run(handle, _messages(LONG, tag), 1)
            d = direct.run(_messages(LONG, tag + 50), 1)
            p_w.append(w["prompt"] / w["ttft"])
            p_d.append(d["prompt"] / d["ttft"])
            w = await _worker_run(handle, _messages(COUNT, tag), GEN_TOKENS)
            d = direct.run(_messages(COUNT, tag + 50), GEN_TOKENS)
            g_w.append((w["gen"] - 1) / w["gen_s"])
            g_d.append((d["gen"] - 1) / d["gen_s"])
            w = await _worker_run(handle, _messages(SHORT, tag + 200), 1)
            d = direct.run(_messages(SHORT, tag + 250), 1)
            t_w.append(w["ttft"])
            t_d.append(d["ttft"])
        pw, pd = statistics.median(p_w), statistics.median(p_d)
        gw, gd = statistics.median(g_w), statistics.median(g_d)
        tw, td = statistics.median(t_w), statistics.median(t_d)
        rows.append(
            (
                "prompt tokens/s (~600-token prompt)",
                f"{pw:.1f}",
                f"direct {pd:.1f}; " + _ratio(pw, pd, True),
            )
        )
        rows.append(
            (
                f"generated tokens/s ({GEN_TOKENS} tokens)",
                f"{gw:.1f}",
                f"direct {gd:.1f}; " + _ratio(gw, gd, True),
            )
        )
        rows.append(
            (
                "time to first token, short prompt",
                f"{1000 * tw:.0f} ms",
                f"direct {1000 * td:.0f} ms; " + _ratio(tw, td, False),
            )
        )
        rows.append(("threads", str(threads), f"cores {len(os.sched_getaffinity(0))}"))
    return rows


def _trigger_cost() -> tuple[str, str, str]:
    """ms per token of the grammar sampler over the last 300 tokens of a long reply."""
    from harness.actors.model.local._grammar import tool_call_grammar
    from harness.actors.model.local._provider import LocalProvider
    from harness.actors.tools import SMALL_MODEL_TOOLS, builtin_table

    model = LocalProvider().preload(DEFAULT_MODEL).wait()
    reply = "".join(
        f"{i}. **Step {i}**:\n\nI looked at `calc.py` again and checked line {i}.\n\n"
        for i in range(1, 200)
    )
    tokens = model.tokenize(reply)[:1500]
    grammar = tool_call_grammar(builtin_table().schemas(names=SMALL_MODEL_TOOLS))
    per_token = []
    for g in (grammar, ""):
        sampler = model._sampler(0.2, 1, g)
        for token in tokens[:-300]:
            sampler.accept(token)
        t0 = time.perf_counter()
        for token in tokens[-300:]:
            sampler.accept(token)
        per_token.append((time.perf_counter() - t0) / 300 * 1000)
        sampler.close()
    model.close()
    return (
        "grammar waiting for a call, per token at 1,500 tokens",
        f"{per_token[0]:.3f} ms",
        f"{per_token[1]:.3f} ms without the grammar",
    )


BATCHES = (32, 64, 128, 512)


def _batch_rows(path: Path) -> list[tuple[str, str, str]]:
    """Prompt tokens/s of a ~600-token prompt for each batch size, in turn, twice."""
    # every core reads the prompt, as in the worker (threads only generate)
    loaded = {b: Direct(path, usable_cores(), batch=b) for b in BATCHES}
    rates: dict[int, list[float]] = {b: [] for b in BATCHES}
    try:
        for rep in range(2):
            for b, direct in loaded.items():
                got = direct.run(_messages(LONG, 1000 + 10 * rep + b), 1)
                rates[b].append(got["prompt"] / got["ttft"])
    finally:
        for direct in loaded.values():
            direct.close()
    best = max(statistics.median(r) for r in rates.values())
    load = os.getloadavg()[0]
    return [
        (
            f"prompt tokens/s, batch {b}",
            f"{statistics.median(r):.1f}",
            f"{100 * statistics.median(r) / best:.0f}% of the best (load {load:.1f})",
        )
        for b, r in rates.items()
    ]


def run() -> list[tuple[str, str, str]]:
    """Measure; rows of (what, figure, beside)."""
    parts = os.environ.get("BENCH_LOCAL_PARTS", "worker,batch,cores,split").split(",")
    entry = lookup(DEFAULT_MODEL)
    assert entry is not None
    started = time.perf_counter()
    path = assemble(entry, model_cache_dir())
    verify_s = time.perf_counter() - started
    threads = default_threads()
    rows = [("assembled file ready (cached, stamp check)", f"{verify_s:.3f} s", str(path.name))]
    if "worker" in parts:
        direct = Direct(path, threads)
        try:
            rows += trio.run(_bench, direct, threads)
        finally:
            direct.close()
        rows.append(_trigger_cost())
    if "batch" in parts:
        rows += _batch_rows(path)
    if "cores" in parts:
        rows += cores_rows(path)
    if "split" in parts:
        rows += split_rows()
    return rows


if __name__ == "__main__":
    for row in run():
        print(" | ".join(row))
