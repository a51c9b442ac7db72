"""A worker held back at its start until the test lets it go: it waits for the file named
by ``GATE_FILE`` to exist, then runs the module named by ``GATED_MODULE`` (a real
worker, ``harness.actors.tools``) as ``__main__``.

A test puts it in a session through the session's own setting of which module runs each
worker, so the real worker starts as late as the test says, with nothing patched.
"""

import os
import runpy
import time

while not os.path.exists(os.environ["GATE_FILE"]):
    time.sleep(0.01)
runpy.run_module(os.environ["GATED_MODULE"], run_name="__main__", alter_sys=True)
