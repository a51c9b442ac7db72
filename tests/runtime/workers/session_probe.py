"""A session for the session forker's tests: reports what it was given, then changes
its own environment (which no later session may see) and waits for its stdin to close.

Prints one JSON object: its pid, parent, session id, argv, folder, the variables named
on the command line, the ``HARNESS_WORKER_TAG`` its environment block shows, and
whether that block holds any of the values named after ``--secret``.
"""

from __future__ import annotations

import json
import os
import sys


def main(argv: list[str]) -> int:
    names, secrets = argv, []
    if "--secret" in argv:
        cut = argv.index("--secret")
        names, secrets = argv[:cut], argv[cut + 1 :]
    with open(f"/proc/{os.getpid()}/environ", "rb") as f:
        block = f.read()
    tags = [e for e in block.split(b"\0") if e.startswith(b"HARNESS_WORKER_TAG=")]
    report = {
        "pid": os.getpid(),
        "ppid": os.getppid(),
        "sid": os.getsid(0),
        "argv": sys.argv[1:],
        "cwd": os.getcwd(),
        "env": {name: os.environ.get(name) for name in names},
        "block_tag": tags[0].decode().partition("=")[2] if tags else None,
        "block_secrets": [s for s in secrets if s.encode() in block],
    }
    print(json.dumps(report), flush=True)
    os.environ["LEFT_BY_A_SESSION"] = "yes"
    os.putenv("LEFT_BY_A_SESSION", "yes")
    sys.stdin.read()  # until the test closes it (or kills us)
    print("bye", file=sys.stderr)
    return 3


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
