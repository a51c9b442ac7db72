"""What the terminal remembers: the chosen provider and model per workspace.

Kept in ``$HARNESS_HOME/tui.json``, written to a temporary file and renamed into
place, so a kill mid-write never empties it. A file that does not parse is
treated as empty (and rewritten on the next choice).
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

__all__ = ["Prefs"]


class Prefs:
    """The per-workspace choices in ``<home>/tui.json``."""

    def __init__(self, home: Path, workspace: Path) -> None:
        self.path = home / "tui.json"
        self.workspace = str(workspace)

    def _load(self) -> dict[str, Any]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        return data if isinstance(data, dict) else {}

    def get(self) -> dict[str, Any]:
        """This workspace's saved choices (``provider``, ``model``, ``base_url``)."""
        ws = self._load().get("workspaces", {}).get(self.workspace, {})
        return dict(ws) if isinstance(ws, dict) else {}

    def update(self, **values: Any) -> None:
        """Save *values* for this workspace (``None`` removes a key)."""
        data = self._load()
        spaces = data.setdefault("workspaces", {})
        if not isinstance(spaces, dict):
            spaces = data["workspaces"] = {}
        current = dict(spaces.get(self.workspace) or {})
        for k, v in values.items():
            if v is None:
                current.pop(k, None)
            else:
                current[k] = v
        spaces[self.workspace] = current
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=self.path.parent, prefix=".tui.", suffix=".tmp")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                json.dump(data, f, indent=2)
            os.replace(tmp, self.path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
