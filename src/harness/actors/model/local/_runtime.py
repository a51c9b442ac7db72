"""The llama.cpp runtime this machine can run: built for its CPU, then proven by running.

A ``-march=native`` build uses every instruction the CPU advertises in cpuid, and some
cloud VMs advertise what their hypervisor does not really enable: AMX is the one seen
(cpuid, XCR0 and ``arch_prctl(ARCH_REQ_XCOMP_PERM)`` all say yes, and the first
``ldtilecfg`` still dies with a general protection fault). Nothing short of running the
code tells, so:

- the build is native with AMX always off (``-mno-amx-*``); when that build crashes too
  it is rebuilt portable (``GGML_NATIVE=OFF``: AVX2, no AVX-512);
- each wheel is kept in the model cache, in a folder named by a hash of its requirement
  and its CMake flags, so a change of flags always builds, and an unchanged set is built
  once per machine (pip's own wheel cache keys a source build by its URL only);
- :func:`prove` loads a model in a child process and generates a few tokens. A native
  crash there is a signal in the child's exit status, never a crash of the caller.
  :func:`check_once` runs it once per machine and runtime, and remembers a success.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import os
import platform
import shlex
import signal
import subprocess
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

import attrs

__all__ = [
    "BUILDS",
    "NO_AMX",
    "Proof",
    "build_args",
    "check_once",
    "install_runtime",
    "prove",
    "requirement",
    "runtime_key",
    "wheel_dir",
]

NO_AMX = "-mno-amx-tile -mno-amx-int8 -mno-amx-bf16"

BUILDS = ("native", "portable")
"""``native``: this CPU's instructions minus AMX; ``portable``: ``GGML_NATIVE=OFF``."""

# How long a proof may take: a model load and a few tokens are seconds; a machine under
# load is slow, and a hang is as bad as a crash.
PROOF_TIMEOUT = 300.0

_PROOF_CODE = """
import sys
import llama_cpp
llama = llama_cpp.Llama(model_path=sys.argv[1], n_ctx=256, n_threads=1, n_batch=64,
                        verbose=False)
out = llama.create_completion("def add(a, b):", max_tokens=4, temperature=0.0)
print(repr(out["choices"][0]["text"]))
"""


def requirement() -> str:
    """The pinned ``llama-cpp-python`` requirement of harness's ``local`` extra."""
    for req in importlib.metadata.requires("harness") or ():
        if req.startswith("llama-cpp-python"):
            return req.split(";", 1)[0].strip()
    return "llama-cpp-python"


def build_args(kind: str, base: str = "") -> str:
    """The ``CMAKE_ARGS`` for a build of *kind* (see :data:`BUILDS`), after *base*."""
    if kind == "native":
        extra = f"-DCMAKE_C_FLAGS='{NO_AMX}' -DCMAKE_CXX_FLAGS='{NO_AMX}'"
    elif kind == "portable":
        extra = "-DGGML_NATIVE=OFF"
    else:
        raise ValueError(f"unknown build {kind!r} (known: {', '.join(BUILDS)})")
    return f"{base} {extra}".strip()


def wheel_dir(cache_dir: Path, req: str, cmake_args: str) -> Path:
    """Where the wheel built from *req* with *cmake_args* is kept: one folder per flag
    set (and machine architecture), so different flags never share a wheel."""
    flags = [_content_named(arg) for arg in shlex.split(cmake_args)]
    key = "\0".join((req, " ".join(flags), platform.machine(), sys.version))
    return cache_dir / "wheels" / hashlib.sha256(key.encode()).hexdigest()[:16]


def _content_named(arg: str) -> str:
    """*arg* with a file path it names replaced by the file's hash: clones of the project
    in two folders share a wheel, and an edited CMake include builds a new one."""
    name, eq, value = arg.partition("=")
    if eq and os.sep in value and Path(value).is_file():
        return f"{name}=sha256:{hashlib.sha256(Path(value).read_bytes()).hexdigest()}"
    return arg


Run = Callable[[Sequence[str], dict[str, str]], int]


def _run(cmd: Sequence[str], env: dict[str, str]) -> int:
    return subprocess.run(list(cmd), env=env, check=False).returncode


def install_runtime(
    kind: str,
    cache_dir: Path,
    *,
    base_args: str = "",
    say: Callable[[str], None],
    run: Run = _run,
    prefix: Path | None = None,
) -> bool:
    """Build (unless its wheel is kept) and install llama-cpp-python as *kind*.

    Returns whether it is installed. *run* runs a command (pip) and returns its status;
    *prefix* (default: this environment's) holds a stamp naming the wheel installed, so
    an unchanged one is not installed again.
    """
    req = requirement()
    args = build_args(kind, base_args)
    folder = wheel_dir(cache_dir, req, args)
    wheels = sorted(folder.glob("*.whl"))
    env = {**os.environ, "CMAKE_ARGS": args}
    pip = [sys.executable, "-m", "pip"]
    if not wheels:
        say(f"building {req} ({kind}: {args}); this takes many minutes the first time")
        folder.mkdir(parents=True, exist_ok=True)
        build = [*pip, "wheel", "-q", "--no-deps", "--no-cache-dir", req, "-w", str(folder)]
        if run(build, env) != 0:
            return False
        wheels = sorted(folder.glob("*.whl"))
        if not wheels:
            return False
        (folder / "CMAKE_ARGS").write_text(args + "\n")
    stamp = (prefix or Path(sys.prefix)) / ".llama-cpp-build"
    if stamp.is_file() and stamp.read_text() == str(wheels[-1]):
        return True
    install = [*pip, "install", "-q", "--no-deps", "--force-reinstall", str(wheels[-1])]
    if run(install, env) != 0:
        return False
    stamp.write_text(str(wheels[-1]))
    return True


@attrs.frozen
class Proof:
    """What running the runtime in a child process showed.

    Attributes:
        ok: the model loaded and generated.
        signal: the signal that killed the child (``SIGSEGV``, ``SIGILL`` ...), or ``""``.
        detail: the tail of the child's stderr, or what it printed.
    """

    ok: bool
    signal: str = ""
    detail: str = ""

    def describe(self) -> str:
        """One line: what happened."""
        if self.ok:
            return "the embedded model runs on this machine"
        if self.signal:
            return f"llama.cpp crashed on this CPU ({self.signal})"
        return f"llama.cpp failed its test run: {self.detail}"


def _signal_name(returncode: int) -> str:
    try:
        return signal.Signals(-returncode).name
    except ValueError:
        return f"signal {-returncode}"


def prove(
    model_path: Path, *, command: Sequence[str] | None = None, timeout: float = PROOF_TIMEOUT
) -> Proof:
    """Load *model_path* in a child process and generate a few tokens.

    *command* replaces the child's command line (the model path is appended).
    """
    cmd = list(command) if command is not None else [sys.executable, "-c", _PROOF_CODE]
    try:
        proc = subprocess.run(
            [*cmd, str(model_path)],
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
            env={**os.environ, "OMP_NUM_THREADS": "1"},
        )
    except subprocess.TimeoutExpired:
        return Proof(False, detail=f"no tokens within {timeout:g} s")
    tail = (proc.stderr or "").strip()[-500:]
    if proc.returncode < 0:
        return Proof(False, signal=_signal_name(proc.returncode), detail=tail)
    if proc.returncode != 0:
        return Proof(False, detail=tail.splitlines()[-1] if tail else f"exit {proc.returncode}")
    return Proof(True, detail=proc.stdout.strip())


def runtime_key() -> str:
    """Names this machine and this llama.cpp runtime: the CPU's flags, the machine id,
    and the installed library files (path, size, mtime). A copied venv on another
    machine, or a rebuilt library, gets a new key."""
    parts: list[str] = [platform.machine()]
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as f:
            parts += sorted({line for line in f if line.startswith(("flags", "model name"))})
    except OSError:
        parts.append(platform.processor())
    for name in ("/etc/machine-id", "/var/lib/dbus/machine-id"):
        try:
            parts.append(Path(name).read_text().strip())
            break
        except OSError:
            continue
    try:
        files = importlib.metadata.files("llama-cpp-python") or ()
    except importlib.metadata.PackageNotFoundError:
        files = ()
    for file in files:
        if file.suffix == ".so" or ".so." in file.name:
            path = Path(str(file.locate()))
            try:
                st = path.stat()
            except OSError:
                continue
            parts.append(f"{path}:{st.st_size}:{st.st_mtime_ns}")
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()[:16]


def check_once(model_path: Path, cache_dir: Path, *, command: Sequence[str] | None = None) -> Proof:
    """:func:`prove` the runtime on *model_path* unless it was proven already on this
    machine (a stamp in *cache_dir* named by :func:`runtime_key`)."""
    stamp = cache_dir / "runtime-ok" / runtime_key()
    if command is None and stamp.is_file():
        return Proof(True, detail="proven before")
    proof = prove(model_path, command=command)
    if proof.ok and command is None:
        try:
            stamp.parent.mkdir(parents=True, exist_ok=True)
            stamp.write_text(proof.detail + "\n")
        except OSError:
            pass  # unproven next time: one more test run, nothing worse
    return proof
