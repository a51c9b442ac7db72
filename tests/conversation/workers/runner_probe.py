"""A worker that writes down which of the modules named by ``PROBE_MODULES`` (space
separated) it started with, and its parent's pid, in the file named by ``PROBE_FILE``, then
ends.

Forked, it is the fork server's child and starts with what the server had imported: it
imports nothing of harness itself, so what ``sys.modules`` holds of harness is what the
fork gave it.
"""

import json
import os
import sys

names = os.environ["PROBE_MODULES"].split()
with open(os.environ["PROBE_FILE"], "w") as f:
    json.dump({"ppid": os.getppid(), "imported": [m for m in names if m in sys.modules]}, f)
