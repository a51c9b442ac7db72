"""Commands under bubblewrap: ``--sandbox workspace-write``, and plan mode's read-only world.

``workspace-write``: the whole file system is mounted read-only, the workspace
read-write, ``/tmp`` is a private tmpfs, ``HARNESS_HOME`` (provider keys, sessions) is
hidden behind an empty tmpfs, and the network is cut unless allowed. When bwrap is
missing or cannot create its namespaces, :func:`sandbox_problem` says so in one line
and no command runs: harness never falls back to running unsandboxed on its own.

Plan mode (and deepthink's plan and check stages) runs each command with the
workspace read-only as well, and without the network, wherever bwrap works
(:func:`read_only_bwrap`), so a command that only looked like a reader still changes
nothing. Where it does not, the permission engine's strict reading of the command is
all there is.
"""

from __future__ import annotations

import os
import shutil

__all__ = ["bwrap_argv", "find_bwrap", "read_only_bwrap", "sandbox_problem"]

_probe_cache: dict[str, str | None] = {}


def find_bwrap(search_path: str | None = None) -> str | None:
    """The bwrap executable on *search_path* (default: ``$PATH``), or ``None``."""
    return shutil.which("bwrap", path=search_path)


def sandbox_problem(mode: str, *, search_path: str | None = None) -> str | None:
    """``None`` when *mode* can run commands here, else why not (one line for a user).

    ``off`` never has a problem. For ``workspace-write`` bwrap must be on
    *search_path* (default ``$PATH``) and a trial run of it must succeed (it needs
    user namespaces or root); the trial runs once per process.
    """
    if mode == "off":
        return None
    path = find_bwrap(search_path)
    if path is None:
        return (
            f"--sandbox {mode} needs bubblewrap, and `bwrap` is not installed "
            "(Debian/Ubuntu: apt-get install bubblewrap); the command was not run"
        )
    if path not in _probe_cache:
        import subprocess  # only the sandbox needs it

        try:
            done = subprocess.run(
                [path, "--ro-bind", "/", "/", "--dev", "/dev", "--unshare-net", "true"],
                capture_output=True,
                timeout=10,
                check=False,
            )
        except (OSError, subprocess.TimeoutExpired) as exc:
            _probe_cache[path] = f"bubblewrap ({path}) could not start: {exc}"
        else:
            if done.returncode != 0:
                why = done.stderr.decode("utf-8", "replace").strip().splitlines()
                _probe_cache[path] = (
                    f"bubblewrap ({path}) cannot create a sandbox here: "
                    f"{why[-1] if why else f'exit code {done.returncode}'}"
                )
            else:
                _probe_cache[path] = None
    problem = _probe_cache[path]
    return None if problem is None else f"--sandbox {mode}: {problem}; the command was not run"


def read_only_bwrap(search_path: str | None = None) -> str | None:
    """The bwrap executable to run plan mode's commands under, or ``None`` where bwrap
    is not installed or cannot create a sandbox here (tried once per process)."""
    if sandbox_problem("read-only", search_path=search_path) is not None:
        return None
    return find_bwrap(search_path)


def bwrap_argv(
    argv: list[str],
    *,
    workspace: str,
    cwd: str,
    network: bool,
    hide: tuple[str, ...] = (),
    bwrap: str = "bwrap",
    read_only: bool = False,
) -> list[str]:
    """Wrap *argv* in bwrap for ``workspace-write`` (or plan mode, with *read_only*).

    Args:
        argv: the command to run inside.
        workspace: mounted read-write (everything else read-only).
        cwd: where the command starts (inside the workspace).
        network: keep the host network; without it the sandbox has none.
        hide: folders covered by an empty tmpfs (harness's own state), unless the
            workspace lies inside one.
        bwrap: the bwrap executable.
        read_only: leave the workspace read-only too (default ``False``).
    """
    out = [bwrap, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp"]
    ws = os.path.realpath(workspace)
    for folder in hide:
        real = os.path.realpath(folder)
        if os.path.isdir(real) and os.path.commonpath([ws, real]) != real:
            out += ["--tmpfs", real]
    # after /tmp's tmpfs, so that a workspace under /tmp is still there
    out += ["--ro-bind" if read_only else "--bind", ws, ws]
    if not network:
        out.append("--unshare-net")
    # die-with-parent: a worker killed with -9 takes its sandboxes along at once.
    out += ["--die-with-parent", "--chdir", os.path.realpath(cwd), "--", *argv]
    return out
