"""MCP sign-in records on disk: one 0600 JSON file per server URL, in a 0700 folder under
``$HARNESS_HOME`` (:func:`harness.home.mcp_auth_dir`).

A record is keyed by the server's exact URL: the file's name is a hash of it and the file
holds the URL, checked on every read. So a server renamed in a configuration keeps its
sign-in, and an entry that names another URL under a known server's name (a project's
``.mcp.json``, say) finds nothing: a token only ever goes back to the URL it was got for.
Writes are atomic (a new file renamed over the old), so a crash mid-write leaves the old
record or the new one, never half of one.

Light (no SDK): ``harness mcp logout`` and the bridge both use it.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import uuid
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from harness.home import mcp_auth_dir

__all__ = ["TokenStore"]


class TokenStore:
    """The sign-in records of MCP servers, by URL.

    Args:
        folder: where the records are (default: :func:`harness.home.mcp_auth_dir` of
            *environ*).
        environ: the environment that names ``HARNESS_HOME`` (default ``os.environ``).
    """

    def __init__(
        self,
        folder: str | os.PathLike[str] | None = None,
        *,
        environ: Mapping[str, str] | None = None,
    ) -> None:
        self.folder = Path(folder) if folder is not None else mcp_auth_dir(environ)

    def path(self, url: str) -> Path:
        """The file that holds *url*'s record."""
        return self.folder / (hashlib.sha256(url.encode()).hexdigest()[:40] + ".json")

    def read(self, url: str) -> dict[str, Any] | None:
        """*url*'s record, or ``None`` (none, unreadable, or not for this exact URL)."""
        try:
            data = json.loads(self.path(url).read_bytes())
        except (OSError, ValueError):
            return None
        if not isinstance(data, dict) or data.get("url") != url:
            return None
        return data

    def write(self, url: str, record: Mapping[str, Any]) -> None:
        """Replace *url*'s record, atomically; the file is 0600, its folder 0700."""
        self.folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        os.chmod(self.folder, 0o700)  # an older folder made with a wider mode
        body = json.dumps({**record, "url": url}, ensure_ascii=False).encode()
        final = self.path(url)
        tmp = final.with_name(f".{final.stem}.{uuid.uuid4().hex}.tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(body)
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, final)
        except BaseException:
            with contextlib.suppress(OSError):
                tmp.unlink()
            raise

    def update(self, url: str, **fields: Any) -> dict[str, Any]:
        """Set *fields* in *url*'s record (made if there is none); the record."""
        record = self.read(url) or {}
        record.update(fields)
        self.write(url, record)
        return record

    def remove(self, url: str) -> bool:
        """Forget *url*'s record; whether there was one."""
        if self.read(url) is None:
            return False
        with contextlib.suppress(FileNotFoundError):
            self.path(url).unlink()
        return True

    def secrets(self, url: str) -> list[str]:
        """The secret values of *url*'s record (tokens, client secret), for masking."""
        record = self.read(url) or {}
        found = [
            part.get(key)
            for part, key in (
                (record.get("tokens"), "access_token"),
                (record.get("tokens"), "refresh_token"),
                (record.get("client"), "client_secret"),
            )
            if isinstance(part, dict)
        ]
        return [v for v in found if isinstance(v, str) and v]

    def signed_in(self, url: str) -> bool:
        """Whether *url* has tokens stored."""
        record = self.read(url)
        return bool(record and isinstance(record.get("tokens"), dict))
