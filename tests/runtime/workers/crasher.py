"""A worker that dies as soon as it starts (for restart intensity tests)."""

import sys

sys.stderr.write("crasher: giving up at start\n")
sys.exit(4)
