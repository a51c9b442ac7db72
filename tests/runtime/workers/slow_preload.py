"""A module that takes a while to import and starts no thread: a fork server warming it
is busy for that while."""

import time

time.sleep(0.3)
