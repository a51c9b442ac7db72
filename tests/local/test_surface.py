"""The package's public surface, and that importing it stays light."""

from __future__ import annotations

import subprocess
import sys

import harness.actors.model.local as local


def test_exported_names() -> None:
    assert set(local.__all__) == {
        "CATALOGUE",
        "DEFAULT_MODEL",
        "CatalogueEntry",
        "CatalogueError",
        "ChecksumMismatch",
        "LocalModelError",
        "LoopWatch",
        "ModelLoadError",
        "ModelNotInstalled",
        "NoModelAvailable",
        "PartPackage",
        "StartupChoice",
        "TRIGGERS",
        "cannot_prime",
        "catalogue",
        "choose_startup_model",
        "embedded_installed",
        "lookup",
        "make_provider",
        "primed",
        "probe_ollama",
        "shared_prompt",
        "stream_load",
        "text_guide",
    }
    for name in local.__all__:
        assert getattr(local, name).__doc__ or name.isupper(), name


def test_importing_the_package_loads_neither_llama_cpp_nor_httpx() -> None:
    code = (
        "import sys, harness.actors.model.local as m; "
        "print(sorted(k for k in ('llama_cpp', 'httpx', 'numpy') if k in sys.modules))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == "[]"
