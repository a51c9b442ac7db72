"""git run on the user's behalf, hardened in one place: :func:`run_git`.

harness runs git for its tools (``git_status``, ``git_diff``), for autocommit and
undo, and for batch runs (copying a task's workspace and diffing what it did). The
repository those calls read is not trusted: a model can write a whole repository into
the workspace or change the config of the one there, and a batch task can configure
its own copy. So every call:

- runs no program a config names. Each setting git documents as running one
  (fsmonitor, hooks, pager, ssh, editors, signing, credential helpers...) is set to
  something inert, and so is every filter, diff and merge driver named by any config
  git reads for the call: the repository's ``config``, its ``config.worktree``, every
  ``include.path`` and ``includeIf`` file, and the user's global file (the system file
  is not read). The one exception is a driver defined in a global file that lies
  outside the repository and its work tree: the user's own (git-lfs is one). The
  overrides travel in ``GIT_CONFIG_COUNT``/``GIT_CONFIG_KEY_<n>``/``GIT_CONFIG_VALUE_<n>``,
  which take a key whole: ``git -c key=value`` splits at the first ``=``, so a
  ``[filter "x=y"]`` could not be emptied that way.
- reads only the repository at ``<workdir>/.git``, with the work tree pinned to
  *workdir* (``GIT_DIR``, ``GIT_WORK_TREE``). A ``core.worktree`` naming another folder,
  a ``commondir`` sending git to another repository's refs and objects, a ``HEAD``,
  ``index`` or ref linking outside, or a ``.git`` file or link to a repository
  elsewhere, unless it is a linked worktree or submodule of this folder, is refused
  (:class:`GitRefused`): nothing outside the folder can be shown through a crafted
  index or borrowed refs. A config git cannot parse is refused too.
- takes paths literally (``GIT_LITERAL_PATHSPECS``): a file named ``*`` or
  ``:(glob)**`` is that file alone. Callers put ``--`` before paths.
- has no secret in its environment (:func:`harness.keys.is_secret_name` says what one
  is), and none of the caller's ``GIT_*`` variables but who is committing, which global
  config is read and which certificates a clone trusts.

The settings are listed by git itself just before each call, so a config changed in
between, by a command running at that moment, is not seen: git cannot be handed a
config to use instead of the repository's.
"""

from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Iterable, Mapping, Sequence

from harness.errors import HarnessError
from harness.keys import is_secret_name, is_secret_value

__all__ = ["SAFE_CONFIG", "GitRefused", "git_env", "run_git", "work_tree_git_dir"]

# Settings that name a program git would run, each set to something inert.
SAFE_CONFIG: tuple[tuple[str, str], ...] = (
    ("core.fsmonitor", "false"),
    ("core.hooksPath", "/dev/null"),
    ("core.pager", "cat"),
    ("core.sshCommand", "false"),
    ("core.editor", "false"),
    ("core.askPass", "false"),
    ("core.gitProxy", "false"),
    ("core.alternateRefsCommand", "false"),
    ("core.attributesFile", "/dev/null"),
    ("sequence.editor", "false"),
    ("diff.external", ""),
    ("diff.trustExitCode", "false"),
    ("credential.helper", ""),
    ("commit.gpgSign", "false"),
    ("tag.gpgSign", "false"),
    ("gpg.program", "false"),
    ("gpg.ssh.program", "false"),
    ("gpg.x509.program", "false"),
    ("uploadpack.packObjectsHook", "false"),
    ("protocol.allow", "never"),
    ("protocol.file.allow", "never"),
    ("protocol.ext.allow", "never"),
    ("safe.bareRepository", "explicit"),
    # a checkout or status that walks into a submodule reads that repository's config,
    # which nobody listed
    ("submodule.recurse", "false"),
    ("status.submoduleSummary", "false"),
    ("maintenance.auto", "false"),
    ("gc.auto", "0"),
    ("core.quotepath", "off"),
)

# Settings whose name a repository chooses, each running a program: `filter.<x>.clean`...
_DRIVERS = re.compile(
    r"^(?:(?:filter|diff|merge)\..+\.(?:clean|smudge|process|textconv|command|driver)"
    r"|credential\..+\.helper|(?:diff|merge)tool\..+\.cmd)$"
)

# The caller's git variables that say who commits, and which certificates a clone
# trusts; every other GIT_* (GIT_DIR, GIT_CONFIG_PARAMETERS, GIT_SSH_COMMAND,
# GIT_EXTERNAL_DIFF...) is left out.
_KEPT_GIT_ENV = frozenset(
    {
        "GIT_SSL_CAINFO",
        "GIT_SSL_CAPATH",
        "GIT_AUTHOR_NAME",
        "GIT_AUTHOR_EMAIL",
        "GIT_AUTHOR_DATE",
        "GIT_COMMITTER_NAME",
        "GIT_COMMITTER_EMAIL",
        "GIT_COMMITTER_DATE",
        "GIT_CONFIG_GLOBAL",
    }
)
# No terminal, pager or prompt; the same words whatever the locale.
_FIXED_ENV = {
    "GIT_TERMINAL_PROMPT": "0",
    "GIT_PAGER": "cat",
    "PAGER": "cat",
    "GIT_OPTIONAL_LOCKS": "0",
    "GIT_CONFIG_NOSYSTEM": "1",
    "LC_ALL": "C",
}


class GitRefused(HarnessError):
    """The repository reaches outside the folder git was run for (a ``core.worktree``
    or a ``.git`` file naming another folder); the message says where."""


def git_env(environ: Mapping[str, str], extra: Mapping[str, str] = {}) -> dict[str, str]:
    """*environ* as git gets it: no secret, none of the caller's ``GIT_*`` but the
    identity ones, no pager or prompt; then *extra* (``GIT_INDEX_FILE``...)."""
    env = {
        k: v
        for k, v in environ.items()
        if not is_secret_name(k)
        and not is_secret_value(v)
        and (not k.startswith("GIT_") or k in _KEPT_GIT_ENV)
    }
    env.update(_FIXED_ENV)
    env.update(extra)
    return env


def _put_config(env: dict[str, str], pairs: Sequence[tuple[str, str]]) -> None:
    env["GIT_CONFIG_COUNT"] = str(len(pairs))
    for i, (key, value) in enumerate(pairs):
        env[f"GIT_CONFIG_KEY_{i}"] = key
        env[f"GIT_CONFIG_VALUE_{i}"] = value


def _inside(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip("/") + "/")


def work_tree_git_dir(work: str) -> str:
    """The repository of the work tree *work* (a real path): its ``.git`` folder, or
    where its ``.git`` file or link points. The path may not exist (no repository)."""
    dot = os.path.join(work, ".git")
    if os.path.isfile(dot) and not os.path.islink(dot):
        try:
            with open(dot, encoding="utf-8", errors="replace") as f:
                first = f.readline(4096).strip()
        except OSError:
            return dot
        if first.startswith("gitdir:"):
            return os.path.realpath(os.path.join(work, first[7:].strip()))
        return dot
    return os.path.realpath(dot)


def _linked_worktree(git_dir: str, work: str) -> bool:
    """Whether *git_dir* is a linked worktree's admin folder that names *work* back."""
    try:
        with open(os.path.join(git_dir, "gitdir"), encoding="utf-8", errors="replace") as f:
            back = f.readline(4096).strip()
    except OSError:
        return False
    return os.path.realpath(back) == os.path.join(work, ".git")


_Entry = tuple[str, str, str, str]
"""One setting git reads: scope, origin, key, value."""


def _settings(env: Mapping[str, str], cwd: str) -> list[_Entry]:
    """Every setting git reads with *env*, includes followed (reading config runs nothing).

    Raises:
        GitRefused: git could not read them all (a malformed file).
    """
    proc = subprocess.run(
        ["git", "config", "--list", "--includes", "--show-scope", "--show-origin", "-z"],
        cwd=cwd,
        env=env,
        capture_output=True,
        check=False,
        stdin=subprocess.DEVNULL,
    )
    if proc.returncode != 0:
        # what git cannot list may still name a driver: nothing runs on it
        words = proc.stderr.decode("utf-8", "replace").strip().splitlines()
        raise GitRefused(f"git cannot read the repository's config: {words[-1] if words else ''}")
    fields = proc.stdout.decode("utf-8", "surrogateescape").split("\0")
    out: list[_Entry] = []
    for i in range(0, len(fields) - 2, 3):
        key, _, value = fields[i + 2].partition("\n")
        out.append((fields[i], fields[i + 1], key, value))
    return out


def _check_work_tree(settings: Iterable[_Entry], work: str, git_dir: str) -> None:
    """Refuse a repository whose work tree git would take to be elsewhere."""
    outside = not _inside(git_dir, work) and not _linked_worktree(git_dir, work)
    for scope, _origin, key, value in settings:
        if key.lower() != "core.worktree" or scope == "command":
            continue
        named = os.path.realpath(os.path.join(git_dir, value))
        if named != work:
            raise GitRefused(
                f"the repository's core.worktree is {value!r}, not the folder harness works in"
            )
        outside = False  # a submodule's repository, kept in its superproject's .git
    if outside:
        raise GitRefused(f"{work}/.git points to a repository outside it ({git_dir})")
    if _inside(git_dir, work):
        _check_links(git_dir, work)
    common = _common_dir(git_dir)
    if common is not None and not _inside(common, work):
        # Refs, objects and config come from there: only a linked worktree's own admin
        # folder, kept in that repository and naming this folder back, may say so.
        admin = _inside(git_dir, os.path.join(common, "worktrees"))
        if not (admin and _linked_worktree(git_dir, work)):
            raise GitRefused(f"the repository's commondir is {common}, outside the workspace")


def _check_links(git_dir: str, work: str) -> None:
    """Refuse a repository in the workspace whose files link outside it: a ``refs``,
    ``packed-refs``, ``HEAD`` or ``index`` that is another repository's would show that
    repository's files (with its objects, which ``alternates`` may lend)."""
    places = [git_dir]
    if not os.path.islink(os.path.join(git_dir, "refs")):
        places += [d for d, _, _ in os.walk(os.path.join(git_dir, "refs"))]
    for place in places:
        try:
            entries = list(os.scandir(place))
        except OSError:
            continue
        for entry in entries:
            if entry.is_symlink() and not _inside(os.path.realpath(entry.path), work):
                raise GitRefused(
                    f"the repository's {os.path.relpath(entry.path, git_dir)} links outside "
                    "the workspace"
                )


def _common_dir(git_dir: str) -> str | None:
    """Where a repository's ``commondir`` file sends git for refs, objects and config."""
    try:
        with open(os.path.join(git_dir, "commondir"), encoding="utf-8", errors="replace") as f:
            named = f.readline(4096).strip()
    except OSError:
        return None
    return os.path.realpath(os.path.join(git_dir, named))


def _driver_overrides(settings: Iterable[_Entry], work: str, git_dir: str) -> list[tuple[str, str]]:
    """An empty value for every driver the settings name, but the user's own."""
    out: list[tuple[str, str]] = []
    seen: set[str] = set()
    for scope, origin, key, _value in settings:
        if key in seen or not _DRIVERS.match(key):
            continue
        if scope == "global" and origin.startswith("file:"):
            where = os.path.realpath(origin[5:])
            if not _inside(where, work) and not _inside(where, git_dir):
                continue  # a driver the user set up (git-lfs): no model wrote that file
        seen.add(key)
        out.append((key, ""))
        if key.startswith("filter."):
            out.append((key.rsplit(".", 1)[0] + ".required", "false"))
    return out


def run_git(
    workdir: str | os.PathLike[str] | None,
    *args: str,
    git_dir: str | os.PathLike[str] | None = None,
    env: Mapping[str, str] | None = None,
    environ: Mapping[str, str] | None = None,
    config: Sequence[tuple[str, str | None]] = (),
    input: bytes | None = None,
    timeout: float | None = None,
    literal: bool = True,
) -> subprocess.CompletedProcess[bytes]:
    """Run ``git args`` for the work tree *workdir*, hardened (see the module docstring).

    Args:
        workdir: the work tree, and where git runs; ``None`` for a call that has no
            repository (``clone``), run in the current folder.
        git_dir: the repository, when it is not *workdir*'s ``.git`` (default ``None``).
        env: variables for this call (``GIT_INDEX_FILE``...), added last.
        environ: the environment to start from (default ``os.environ``), secrets left out.
        config: settings for this call: each replaces :data:`SAFE_CONFIG`'s of the same
            name, ``None`` leaving git's own (a clone's protocols, ssh and credential
            helper are the user's).
        input: bytes for git's stdin (default none: stdin is ``/dev/null``).
        timeout: seconds before :class:`subprocess.TimeoutExpired`.
        literal: paths are literal pathspecs (default ``True``); ``False`` for a caller
            that writes pathspec magic itself, and marks each path it was given
            ``:(literal)``.

    Returns:
        The finished process; a non-zero exit is the caller's to judge.

    Raises:
        GitRefused: the repository's work tree is not *workdir*, or git cannot read
            its config.
        OSError: git could not be started.
    """
    full = git_env(os.environ if environ is None else environ, env or {})
    replaced = {key.lower() for key, _ in config}
    pairs = [(k, v) for k, v in SAFE_CONFIG if k.lower() not in replaced]
    pairs += [(k, v) for k, v in config if v is not None]
    if literal:
        full["GIT_LITERAL_PATHSPECS"] = "1"
    cwd: str | None = None
    if workdir is not None:
        cwd = work = os.path.realpath(workdir)
        repo = work_tree_git_dir(work) if git_dir is None else os.path.realpath(git_dir)
        full["GIT_DIR"] = repo
        full["GIT_WORK_TREE"] = work
        if os.path.isdir(repo):
            _put_config(full, pairs)
            settings = _settings(full, cwd)
            if git_dir is None:
                _check_work_tree(settings, work, repo)
            pairs += _driver_overrides(settings, work, repo)
    _put_config(full, pairs)
    return subprocess.run(
        ["git", *args],
        cwd=cwd,
        env=full,
        input=input,
        capture_output=True,
        check=False,
        stdin=None if input is not None else subprocess.DEVNULL,
        timeout=timeout,
    )
