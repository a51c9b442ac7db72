"""``harness`` / ``python -m harness``: parse the command line, then start what it needs.

The command line is parsed first, with nothing imported but argparse and the words
its choices name (:mod:`harness.words`): ``--version``, ``--help`` and a usage error
end there, having started nothing. A run then reads the settings file, takes the
keys out of the environment, starts what runs beside it (the workers' fork server,
a fork of this process once it has imported what the two share, or a batch's task
server; their imports overlap the command's own), and only then imports the frontend.
"""

from __future__ import annotations

import atexit
import gc
import os
import sys
from typing import NoReturn

#: Commands with a command line of their own (``harness batch ...``); ``trust``,
#: ``hooks``, ``mcp`` and ``prime`` start nothing, so their command lines are left to
#: them; ``acp`` takes harness's own flags.
COMMANDS = ("batch", "trust", "hooks", "mcp", "prime", "acp")


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    command = args[0] if args and args[0] in COMMANDS else None
    ray = None
    headless = False
    if command == "batch":
        from harness.cli import build_batch_parser

        ray = build_batch_parser().parse_args(args[1:]).ray
    elif command is None or command == "acp":
        from harness.cli import build_parser

        parsed = build_parser().parse_args(args[1:] if command else args)
        headless = command is None and parsed.prompt is not None
    if command == "acp":
        from harness.acp import claim_stdout

        claim_stdout()  # stdout is the editor's protocol: nothing else may print there
    from harness.settings import load_settings

    # the settings file first: a key kept there is taken into memory like any other
    for problem in load_settings():
        print(f"harness: {problem}", file=sys.stderr)
    if command == "batch" and ray is None:
        # A batch driver runs no workers or commands of its own: its tasks are child
        # harness processes, which take the keys out of their own environment as they
        # start. A local batch forks them from a task server, which imports for as
        # long as the driver does: it starts now, so the two overlap.
        from harness.batch import start_task_server

        start_task_server(os.environ)
    elif command in (None, "acp"):
        from harness.keys import take_keys

        take_keys()  # before any worker or command starts: none of them gets a key
        _start_fork_server(headless)
        if headless and argv is None:
            _import_frontend()
    from harness.cli import main as cli_main

    status = cli_main(args)
    if headless and argv is None:  # this process is the run: nothing follows its end
        _exit_now(status)
    return status


def _exit_now(status: int) -> NoReturn:
    """End this process with *status* without the interpreter's teardown of every module
    it imported, which a -p run's end does not need (a tenth of a second of CPU, and
    0.3 s to the exit at a load of 4: ``python -m bench headless``). What is registered
    to run at exit still runs, and the standard streams are flushed; the session log was
    closed when the session was."""
    try:
        atexit._run_exitfuncs()
    finally:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (OSError, ValueError):  # a closed pipe: the run already said so
                pass
        os._exit(status)


def _import_frontend() -> None:
    """Import the conversation (most of what the ``-p`` frontend imports) with the garbage
    collector paused, then freeze what the import made, as :func:`_start_fork_server`
    does for what the two processes share: it lives as long as the process, and
    collections run while it was made walked it again and again (5% of the import's
    instructions, valgrind)."""
    gc.disable()
    try:
        import harness.conversation  # noqa: F401
    finally:
        gc.freeze()
        gc.enable()


def _start_fork_server(headless: bool = False) -> None:
    """Start the workers' fork server: this process, forked once it has imported what
    the two share (trio, the channel, the message vocabulary, the model worker's
    face), so that it is imported once instead of again by a new interpreter. The
    server then imports the rest of what the workers need while this process
    imports the frontend, the two overlapping: for a *headless* run, what the model
    worker needs alone (the tools and shell workers start at their first calls and
    import their own modules then: a run that calls no tool never pays for them)."""
    # What these imports make lives as long as the process (and is shared with every
    # worker forked from the server): a collection run while they are made only walks
    # it again and again, 8% of their work (instructions counted by valgrind). Frozen
    # once they are done, it is left out of every later collection too.
    gc.disable()
    import trio  # noqa: F401

    import harness.actors.model
    import harness.ipc
    import harness.messages  # noqa: F401
    from harness._forkstart import (
        MODEL_PRELOAD,
        WORKER_PRELOAD,
        EarlyServer,
        forked_session,
        spawn_server,
        start_early,
        start_servers_with,
    )
    from harness.keys import forget_keys
    from harness.supervisor import fork_server_here

    # A batch task's session, forked by its task server, is forked again the same way;
    # its server found the memory of the command line for the workers' titles.
    from_server = forked_session()

    def fork_server(preload: tuple[str, ...], warm: tuple[str, ...]) -> EarlyServer | None:
        forked = fork_server_here(preload, warm, forked=from_server, in_child=forget_keys)
        return forked or spawn_server(preload, warm)  # a new interpreter if it cannot

    gc.freeze()
    gc.enable()  # before the fork: the server and its workers collect as usual
    start_servers_with(fork_server)
    start_early(MODEL_PRELOAD if headless else WORKER_PRELOAD)


if __name__ == "__main__":
    sys.exit(main())
