"""The llama.cpp runtime: wheels kept by their flags, and proofs run in a child process."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

import pytest

from harness.actors.model.local._runtime import (
    NO_AMX,
    build_args,
    install_runtime,
    prove,
    requirement,
    wheel_dir,
)


def test_the_native_build_turns_amx_off_and_the_portable_one_is_not_native() -> None:
    native = build_args("native", "-DLLAVA_BUILD=OFF")
    assert native.startswith("-DLLAVA_BUILD=OFF ")
    assert f"-DCMAKE_C_FLAGS='{NO_AMX}'" in native
    assert f"-DCMAKE_CXX_FLAGS='{NO_AMX}'" in native
    assert "-DGGML_NATIVE=OFF" in build_args("portable")
    with pytest.raises(ValueError, match="unknown build"):
        build_args("fast")


def test_a_wheel_folder_is_named_by_the_flags_and_the_content_of_named_files(
    tmp_path: Path,
) -> None:
    one, two = tmp_path / "a" / "x.cmake", tmp_path / "b" / "x.cmake"
    for f in (one, two):
        f.parent.mkdir()
        f.write_text("set(X ON)\n")
    req = requirement()
    assert req.startswith("llama-cpp-python==")
    native = wheel_dir(tmp_path, req, build_args("native", f"-DINC={one}"))
    # the same flags from a clone in another folder: the same wheel
    assert wheel_dir(tmp_path, req, build_args("native", f"-DINC={two}")) == native
    assert wheel_dir(tmp_path, req, build_args("portable", f"-DINC={one}")) != native
    assert wheel_dir(tmp_path, "llama-cpp-python==0.0.1", build_args("native")) != native
    two.write_text("set(X OFF)\n")
    assert wheel_dir(tmp_path, req, build_args("native", f"-DINC={two}")) != native


def test_a_wheel_is_built_once_per_flag_set_and_installed_once(tmp_path: Path) -> None:
    ran: list[tuple[str, str]] = []

    def run(cmd: Sequence[str], env: dict[str, str]) -> int:
        ran.append((cmd[3], env["CMAKE_ARGS"]))
        if cmd[3] == "wheel":
            folder = Path(cmd[cmd.index("-w") + 1])
            (folder / "llama_cpp_python-0-py3-none-linux_x86_64.whl").write_bytes(b"PK")
        return 0

    said: list[str] = []
    kw = {"base_args": "-DLLAVA_BUILD=OFF", "say": said.append, "run": run, "prefix": tmp_path}
    assert install_runtime("native", tmp_path / "cache", **kw)  # type: ignore[arg-type]
    assert [c for c, _ in ran] == ["wheel", "install"]
    assert NO_AMX in ran[0][1]
    assert said
    assert "building" in said[0]
    ran.clear()
    assert install_runtime("native", tmp_path / "cache", **kw)  # type: ignore[arg-type]
    assert ran == []  # kept and already installed
    assert install_runtime("portable", tmp_path / "cache", **kw)  # type: ignore[arg-type]
    assert [c for c, _ in ran] == ["wheel", "install"]
    assert "GGML_NATIVE=OFF" in ran[0][1]
    ran.clear()
    assert install_runtime("native", tmp_path / "cache", **kw)  # type: ignore[arg-type]
    assert [c for c, _ in ran] == ["install"]  # switched back: reinstalled, not rebuilt


def test_a_failed_build_says_so(tmp_path: Path) -> None:
    def run(cmd: Sequence[str], env: dict[str, str]) -> int:
        return 1

    assert not install_runtime("native", tmp_path, say=lambda _t: None, run=run, prefix=tmp_path)


def test_a_native_crash_in_the_proof_is_a_named_signal_not_a_crash(tmp_path: Path) -> None:
    crash = [sys.executable, "-c", "import ctypes; ctypes.string_at(0)"]
    proof = prove(tmp_path / "m.gguf", command=crash)
    assert not proof.ok
    assert proof.signal == "SIGSEGV"
    assert "SIGSEGV" in proof.describe()


def test_a_proof_that_fails_without_a_crash_gives_its_last_line(tmp_path: Path) -> None:
    fail = [sys.executable, "-c", "import sys; sys.exit('cannot load ' + sys.argv[1])"]
    proof = prove(tmp_path / "m.gguf", command=fail)
    assert (proof.ok, proof.signal) == (False, "")
    assert proof.detail == f"cannot load {tmp_path / 'm.gguf'}"


def test_the_installed_runtime_runs_a_model_in_a_child(tiny_model_path: Path) -> None:
    # the proof ``make install`` runs, on the tiny model (``_tiny.py``): the same loading
    # and generating code as for the default model, which the tests' ``default_model_path``
    # proves once per runtime (``check_once``)
    proof = prove(tiny_model_path)
    assert proof.ok, proof.detail
    assert proof.detail  # the tokens it generated
