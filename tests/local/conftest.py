"""Fixtures for the embedded model's tests.

The real-model tests share one loaded model per test session (loading is seconds, and the
suite must stay fast on two cores); the assembled file comes from the shared model cache
that ``make install`` filled. Before anything loads it in this process, the runtime is
proven in a child process: a llama.cpp build that crashes on this CPU fails the tests that
need the model, with the signal named, instead of killing the whole run. HARNESS_HOME is
always a fresh tmp dir (``harness_home``, in tests/conftest.py).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import trio

from harness.actors.model.local import DEFAULT_MODEL, lookup
from harness.actors.model.local._assemble import assemble
from harness.actors.model.local._engine import LoadedModel
from harness.actors.model.local._loader import model_cache_dir
from harness.actors.model.local._provider import LocalProvider
from harness.actors.model.local._runtime import check_once


@pytest.fixture(scope="session")
def default_model_path() -> Path:
    """The verified default model file (assembled by `make install`)."""
    entry = lookup(DEFAULT_MODEL)
    assert entry is not None
    path = assemble(entry, model_cache_dir())
    proof = check_once(path, model_cache_dir())
    if not proof.ok:
        pytest.fail(f"{proof.describe()}: {proof.detail}", pytrace=False)
    return path


@pytest.fixture(scope="session")
def shared_provider(default_model_path: Path) -> Iterator[LocalProvider]:
    """One provider with the default model loaded, for the whole test session."""
    provider = LocalProvider({"HARNESS_MODEL_CACHE": str(default_model_path.parent)})
    provider.preload(DEFAULT_MODEL).wait()
    yield provider
    trio.run(provider.aclose)


@pytest.fixture
def loaded_model(shared_provider: LocalProvider) -> LoadedModel:
    """The default model, loaded once for the whole test session."""
    return shared_provider.preload(DEFAULT_MODEL).wait()
