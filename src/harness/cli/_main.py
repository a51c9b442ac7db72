"""Dispatch of the command line to the interactive or headless frontend.

Every flag of ``harness`` is declared in :mod:`harness.cli._parser` (``harness batch``,
``harness trust`` and ``harness mcp`` have command lines of their own). ``harness -p
TASK`` runs headless (:mod:`harness.cli._headless`); no task opens the interactive
terminal (:mod:`harness.cli.tui`), imported only then so ``--version`` and ``-p`` stay
fast.

Exit status: 0 the run completed; 1 it did not (denied, cancelled, verify failed,
another error); 2 a usage error; 3 a provider or model error; 4 a limit was
reached (``--max-turns``, the context window); 130 interrupted.
"""

from __future__ import annotations

import sys

from harness.cli._parser import build_parser

__all__ = ["EXIT_CODES", "main"]

EXIT_CODES = {
    "ok": 0,
    "failed": 1,
    "usage": 2,
    "provider": 3,
    "limit": 4,
    "interrupted": 130,
}


def main(argv: list[str]) -> int:
    """Run harness with *argv* (without the program name); the exit status."""
    if argv[:1] == ["batch"]:
        # `harness batch ...` has a command line of its own
        from harness.cli._batch import batch_main

        return batch_main(argv[1:])
    if argv[:1] == ["acp"]:
        # `harness acp`: an editor drives harness over the Agent Client Protocol
        from harness.cli._acp import acp_main

        return acp_main(argv[1:])
    if argv[:1] == ["hooks"]:
        # `harness hooks list|test`: what is active, and a dry run of an event
        from harness.hooks import hooks_main

        return hooks_main(argv[1:])
    if argv[:1] == ["trust"]:
        # `harness trust`: see, approve or revoke this workspace's trust
        from harness.cli._trust import trust_main

        return trust_main(argv[1:])
    if argv[:1] == ["mcp"]:
        # `harness mcp login|logout NAME`: sign in to an MCP server, or out
        from harness.cli._mcp import mcp_main

        return mcp_main(argv[1:])
    if argv[:1] == ["prime"]:
        # `harness prime`: the embedded model reads its shared prompt once (make install)
        from harness.cli._prime import prime_main

        return prime_main(argv[1:])
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.resume and args.continue_:
        parser.error("--resume and --continue cannot be used together")
    if not args.record and (args.resume or args.continue_):
        parser.error("--no-session-persistence cannot resume a session")
    if (args.fork_session or args.rewind_to) and not (args.resume or args.continue_):
        parser.error("--fork-session and --rewind-to need --resume ID or --continue")
    if args.rewind_only and args.rewind_to is None:
        parser.error("--rewind-only needs --rewind-to N")
    if args.prompt is None and (args.verify or not args.record):
        parser.error("--verify and --no-session-persistence need a task: harness -p TASK")
    if args.prompt is None and args.rewind_to is None and args.output_format != "text":
        parser.error("--output-format needs a task (harness -p TASK) or --rewind-to N")
    if args.fork_session:
        from harness.cli._rewind import fork_first

        if status := fork_first(args):
            return status
    if args.prompt is not None or args.rewind_to is not None:
        from harness.cli._headless import run_headless

        return run_headless(args)
    try:
        from harness.cli.tui import run
    except ImportError:
        sys.stderr.write("harness: the interactive terminal is not in this build; use -p TASK\n")
        return EXIT_CODES["usage"]
    return int(run(args))


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main(sys.argv[1:]))
