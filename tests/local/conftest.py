"""Fixtures for the embedded model's tests.

The real-model tests share one loaded model per test session (loading is seconds, and the
suite must stay fast on two cores); the assembled file comes from the shared model cache
that ``make install`` filled. Before anything loads it in this process, the runtime is
proven in a child process: a llama.cpp build that crashes on this CPU fails the tests that
need the model, with the signal named, instead of killing the whole run. HARNESS_HOME is
always a fresh tmp dir (``harness_home``, in tests/conftest.py).

The tests of mechanics that do not depend on what the model says (batches, states, cancel,
streaming, the grammar's shape, load progress) run the tiny model of ``_tiny.py`` instead:
the default model's tokenizer and chat template, tiny random weights. It is written once
per machine into the model cache, named by the file it copies and by ``_tiny.py``'s own
content, so a change of recipe writes it again.
"""

from __future__ import annotations

import hashlib
import os
import shutil
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

from . import _tiny


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


@pytest.fixture(scope="session")
def tiny_model_path(default_model_path: Path) -> Path:
    """The tiny model (see ``_tiny.py``), written into the model cache the first time."""
    recipe = hashlib.sha256(Path(_tiny.__file__).read_bytes()).hexdigest()[:12]
    path = default_model_path.parent / "tiny" / f"{default_model_path.stem}-tiny-{recipe}.gguf"
    if not path.is_file():
        path.parent.mkdir(exist_ok=True)
        part = path.with_name(f"{path.name}.{os.getpid()}.part")  # xdist workers race here
        _tiny.write_tiny(default_model_path, part)
        part.replace(path)
        for old in path.parent.glob("*-tiny-*.gguf"):  # an earlier recipe's, 45 MB each
            if old != path:
                old.unlink(missing_ok=True)
    return path


@pytest.fixture(scope="session")
def tiny_cache(tmp_path_factory: pytest.TempPathFactory, default_model_path: Path) -> Path:
    """A model cache of its own for the tiny model's providers, so their saved prompt
    states never evict the default model's; the runtime's proof on this machine (made by
    ``default_model_path``) is carried over, so no load proves it again."""
    cache = tmp_path_factory.mktemp("tiny-cache")
    shutil.copytree(default_model_path.parent / "runtime-ok", cache / "runtime-ok")
    return cache


@pytest.fixture(scope="session")
def tiny_provider(tiny_model_path: Path, tiny_cache: Path) -> Iterator[LocalProvider]:
    """One provider with the tiny model loaded, for the whole test session; its model name
    is the file's path (``tiny_name``)."""
    provider = LocalProvider({"HARNESS_MODEL_CACHE": str(tiny_cache)})
    provider.preload(str(tiny_model_path)).wait()
    yield provider
    trio.run(provider.aclose)


@pytest.fixture
def tiny_name(tiny_model_path: Path) -> str:
    """The tiny model as a provider names it: the path of its file."""
    return str(tiny_model_path)


@pytest.fixture
def tiny_model(tiny_provider: LocalProvider, tiny_name: str) -> LoadedModel:
    """The tiny model, loaded once for the whole test session."""
    return tiny_provider.preload(tiny_name).wait()
