"""One call on a session: drive it until it exits, waits for input, or times out.

The loop reads what the command prints as it comes, and in each quiet moment asks the
detector whether the terminal's foreground group waits for input. A /proc verdict
must hold for a moment with no output in between before it is believed; the silence
fallback needs its grace period. ``stdin`` answers are typed in at each prompt.
"""

from __future__ import annotations

import trio

from harness.actors.shell._clean import CappedText
from harness.actors.shell._config import ShellConfig
from harness.actors.shell._detect import CpuIdleSampler, proc_waiting
from harness.actors.shell._format import CallResult
from harness.actors.shell._kill import session_processes
from harness.actors.shell._session import Session

__all__ = ["absorb", "destroy", "drain", "drive", "note_survivors"]

# A /proc verdict of "waiting" must hold this long, with no output between, before it
# is believed: a process woken by input just written may not have left read() yet.
_CONFIRM = 0.02
# No /proc look before this much silence: most commands print or exit sooner.
_FIRST_LOOK = 0.02
_MAX_TICK = 0.25


async def drive(s: Session, cfg: ShellConfig) -> CallResult:
    """Drive one call on *s* until it exits, waits for input, or its timeout ends."""
    capture = CappedText(cfg.head_chars, cfg.tail_chars)
    start = trio.current_time()
    deadline = start + s.timeout
    last_output = start
    confirm_from: float | None = None
    use_proc = cfg.detector != "fallback"
    sampler: CpuIdleSampler | None = None
    certain = True
    while True:
        data = s.read_available()
        now = trio.current_time()
        if data:
            absorb(s, capture, data)
            last_output = now
            confirm_from = None
            if sampler is not None:
                sampler.reset()
            # A command printing without pause must not starve the rest of the
            # worker (other sessions, heartbeats): yield between chunks.
            await trio.lowlevel.checkpoint()
            if now < deadline:
                continue
        if s.closed:
            return _finish(s, capture, "ended")
        if s.poll_exit():
            return await _exited(s, capture, cfg)
        if now >= deadline:
            absorb(s, capture, drain(s))
            survivors = await destroy(s, cfg.kill_grace)
            result = _finish(s, capture, "timeout")
            note_survivors(result, survivors)
            return result
        silence = now - last_output
        verdict: bool | None = None
        if silence >= _FIRST_LOOK and not s.eof:
            if use_proc:
                verdict = proc_waiting(s.fd, s.slave_rdev, s.pid)
                if verdict is None and cfg.detector == "proc":
                    verdict = False
            if verdict is None:
                if sampler is None:
                    sampler = CpuIdleSampler(s.pid, cfg.fallback_grace)
                sampler.sample(now)
                verdict = silence >= cfg.fallback_grace and sampler.idle(now)
                certain = False
            else:
                certain = True
        if verdict:
            if confirm_from is None:
                confirm_from = now
            elif now - confirm_from >= _CONFIRM:
                confirm_from = None
                if s.answers:
                    capture.append(s.cleaner.flush_line())
                    await s.write((s.answers.pop(0) + "\n").encode("utf-8"))
                    last_output = now
                    if sampler is not None:
                        sampler.reset()
                    continue
                result = _finish(s, capture, "waiting")
                result.certain = certain
                return result
        else:
            confirm_from = None
        tick = _CONFIRM if confirm_from is not None else min(_MAX_TICK, 0.01 + silence / 8)
        tick = max(0.0, min(tick, deadline - now))
        fd = s.wait_fd()
        if fd is None:
            await trio.sleep(min(tick, 0.0005 + silence / 50) if s.eof else tick)
            continue
        with trio.move_on_after(tick):
            try:
                await trio.lowlevel.wait_readable(fd)
            except trio.ClosedResourceError:
                return _finish(s, capture, "ended")


async def _exited(s: Session, capture: CappedText, cfg: ShellConfig) -> CallResult:
    """The leader exited: collect the last output, stop what it left behind."""
    s.release_terminal()
    absorb(s, capture, drain(s))
    # Inline, not in a thread: only processes newer than the leader are read, a
    # handful, and a thread hop would cost more than the scan.
    leftovers = session_processes(s.pid, s.pid, s.token, group_is_ours=False)
    notes = []
    if leftovers:
        survivors = await destroy(s, cfg.kill_grace)
        notes.append(
            f"the command left {len(leftovers)} process(es) running in the background; "
            "they were stopped (commands may not outlive their call)"
        )
        result = _finish(s, capture, "exited")
        note_survivors(result, survivors)
    else:
        absorb(s, capture, drain(s))
        s.close()
        result = _finish(s, capture, "exited")
    result.notes[:0] = notes
    return result


def _finish(s: Session, capture: CappedText, status: str) -> CallResult:
    if status != "waiting":
        tail = s.decoder.decode(b"", final=True)
        capture.append(s.cleaner.feed(tail))
    capture.append(s.cleaner.flush_line())
    text, cut_chars, cut_lines = capture.render()
    result = CallResult(
        status,
        s.id,
        s.command,
        text,
        cut_chars,
        cut_lines,
        exit_code=s.exit_code,
        exit_signal=s.exit_signal,
        timeout=s.timeout,
        data={"pid": s.pid},
    )
    if s.answers and status != "waiting":
        result.notes.append(f"{len(s.answers)} stdin line(s) were not used")
    if s.decoder.switched:
        result.notes.append(f"the output was not UTF-8; it was decoded as {s.decoder.fallback}")
    return result


def absorb(s: Session, capture: CappedText, data: bytes) -> None:
    """Decode and clean *data* from *s* into *capture*."""
    if data:
        capture.append(s.cleaner.feed(s.decoder.decode(data)))


async def destroy(s: Session, grace: float) -> list[int]:
    """Kill a session's tree (bounded, in a thread) and close its terminal."""
    if s.closed:
        return []
    with trio.CancelScope(shield=True):
        survivors = await trio.to_thread.run_sync(s.kill, grace)
        for fd in s.open_fds():
            trio.lowlevel.notify_closing(fd)
        s.close()
    return survivors


def drain(s: Session) -> bytes:
    """What *s* printed that is ready now, bounded."""
    chunks = []
    for _ in range(64):  # bounded: a flood after exit cannot hold the call
        data = s.read_available()
        if not data:
            break
        chunks.append(data)
    return b"".join(chunks)


def note_survivors(result: CallResult, survivors: list[int]) -> None:
    """Say which processes would not die (there should be none)."""
    if survivors:
        result.notes.append(
            f"{len(survivors)} process(es) could not be stopped: pids "
            + ", ".join(map(str, survivors))
        )
        result.data["survivors"] = survivors
