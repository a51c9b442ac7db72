"""llama.cpp's own ``llama-server``, built from the same llama.cpp the embedded model uses.

The embedded provider's llama.cpp comes from the pinned ``llama-cpp-python`` sdist, which
carries llama.cpp's whole source tree (``vendor/llama.cpp``). :func:`server_binary` builds
its ``llama-server`` target once, native with AMX off (as the embedded build: some VMs
advertise AMX and fault on it), into the model cache, keyed by the requirement and the
flags; later runs reuse it. The sdist comes from the package index through pip, like
everything else; a first build takes about 10 minutes on two cores.

:func:`running_server` starts it on the embedded default's model file, on loopback, with
the embedded provider's window and threads, and stops it afterwards.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
import socket
import subprocess
import sys
import tarfile
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import IO

from harness.actors.model.local import DEFAULT_MODEL, lookup
from harness.actors.model.local._assemble import assemble
from harness.actors.model.local._loader import DEFAULT_CONTEXT, model_cache_dir
from harness.actors.model.local._runtime import NO_AMX, requirement
from harness.actors.model.local._sizing import default_threads

_FLAGS = (
    "-DCMAKE_BUILD_TYPE=Release",
    "-DLLAMA_CURL=OFF",
    "-DLLAMA_OPENSSL=OFF",
    "-DLLAMA_BUILD_TESTS=OFF",
    "-DLLAMA_BUILD_EXAMPLES=OFF",
    "-DLLAMA_BUILD_SERVER=ON",
    "-DGGML_NATIVE=ON",
    f"-DCMAKE_C_FLAGS={NO_AMX}",
    f"-DCMAKE_CXX_FLAGS={NO_AMX}",
)


def server_binary() -> Path:
    """The path of ``llama-server``, built first if this machine has none yet."""
    req = requirement()
    key = hashlib.sha256("\0".join((req, *_FLAGS)).encode()).hexdigest()[:16]
    home = model_cache_dir() / "llama-server" / key
    binary = home / "llama-server"
    if binary.exists():
        return binary
    print(f"building llama-server from {req} (once; about 10 minutes)", file=sys.stderr)
    with tempfile.TemporaryDirectory(prefix="llama-server-build-") as tmp:
        pip = [sys.executable, "-m", "pip", "download", req, "--no-binary", ":all:"]
        subprocess.run([*pip, "--no-deps", "-q", "-d", tmp], check=True)
        sdist = next(Path(tmp).glob("*.tar.gz"))
        with tarfile.open(sdist) as tar:
            tar.extractall(tmp, filter="data")
        source = next(Path(tmp).glob("*/vendor/llama.cpp"))
        build = source / "build"
        subprocess.run(["cmake", "-S", source, "-B", build, *_FLAGS], check=True)
        jobs = str(len(os.sched_getaffinity(0)))
        subprocess.run(
            ["cmake", "--build", build, "--target", "llama-server", "-j", jobs], check=True
        )
        staging = home.with_name(key + ".part")
        shutil.rmtree(staging, ignore_errors=True)
        shutil.copytree(build / "bin", staging, symlinks=True)
        shutil.rmtree(home, ignore_errors=True)
        staging.rename(home)
    return binary


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@contextlib.contextmanager
def running_server() -> Iterator[str]:
    """Start ``llama-server`` on the embedded default's file; yield its ``/v1`` base URL."""
    entry = lookup(DEFAULT_MODEL)
    assert entry is not None
    model = assemble(entry, model_cache_dir())
    binary = server_binary()
    port = _free_port()
    # as the embedded provider: generation on cores - 1, prompt reading on every core
    argv = [str(binary), "-m", str(model), "--host", "127.0.0.1", "--port", str(port)]
    argv += ["-c", str(DEFAULT_CONTEXT), "--threads", str(default_threads())]
    argv += ["--threads-batch", str(len(os.sched_getaffinity(0))), "--parallel", "1"]
    env = {**os.environ, "LD_LIBRARY_PATH": str(binary.parent)}
    with tempfile.TemporaryFile() as log:
        proc = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, env=env)
        try:
            yield _ready(proc, port, log)
        finally:
            proc.terminate()
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


def _ready(proc: subprocess.Popen[bytes], port: int, log: IO[bytes]) -> str:
    """Wait for the server's ``/health``; its base URL."""
    deadline = time.monotonic() + 300
    while True:
        if proc.poll() is not None:
            log.seek(0)
            tail = log.read()[-2000:].decode(errors="replace")
            raise RuntimeError(f"llama-server exited ({proc.returncode}): {tail}")
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=2) as r:
                if r.status == 200:
                    return f"http://127.0.0.1:{port}/v1"
        except OSError:
            pass
        if time.monotonic() > deadline:
            raise RuntimeError("llama-server did not become ready in 300 s")
        time.sleep(0.5)  # a one-off start-up wait in a bench, not a loop of the product
