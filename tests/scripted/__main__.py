"""Serve a JSON script until killed: ``python -m tests.scripted script.json``.

Prints the base URL on the first line of stdout; on SIGTERM/SIGINT it writes the
requests it received as JSON lines to ``--record`` (when given).
"""

from __future__ import annotations

import argparse
import json
import signal
import sys
import threading

from tests.scripted._server import ScriptedModel, load_script


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.scripted")
    parser.add_argument("script", help="JSON file: a list of replies")
    parser.add_argument("--record", help="write received requests here (JSON lines) on exit")
    args = parser.parse_args()
    with open(args.script, encoding="utf-8") as f:
        script = load_script(json.load(f))
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    with ScriptedModel(script) as model:
        print(model.base_url, flush=True)
        stop.wait()
        if args.record:
            with open(args.record, "w", encoding="utf-8") as f:
                for body in model.requests:
                    f.write(json.dumps(body) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
