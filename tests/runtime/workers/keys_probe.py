"""The echo worker, after writing to the file ``HARNESS_TEST_PROBE`` names what it holds
from the process it was forked from: its parent, the keys ``harness.keys`` holds, and
whether ``sys`` carries the mark the test's harness process set before its fork server
started (a new interpreter would not), and whether its garbage collector runs (harness
pauses it while it imports, before the fork server's fork)."""

from __future__ import annotations

import gc
import json
import os
import sys

from harness.keys import held_values
from tests.runtime.workers.echo import worker

if __name__ == "__main__":
    found = {
        "ppid": os.getppid(),
        "held": held_values(),
        "marked": hasattr(sys, "harness_mark"),
        "collects": gc.isenabled(),
    }
    with open(os.environ["HARNESS_TEST_PROBE"], "w", encoding="utf-8") as f:
        json.dump(found, f)
    worker.run()
