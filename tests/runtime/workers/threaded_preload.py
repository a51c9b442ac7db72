"""A module that starts a thread when imported: the fork server must not fork after it."""

from __future__ import annotations

import threading
import time

threading.Thread(target=time.sleep, args=(3600,), daemon=True).start()
