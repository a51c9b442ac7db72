"""The package's public surface and how light it is to import."""

from __future__ import annotations

import inspect
import subprocess
import sys

import harness.actors.model as model_pkg
from harness.actors.model import Finish, Provider, ProviderError


def test_exported_names_exist() -> None:
    for name in model_pkg.__all__:
        assert hasattr(model_pkg, name), name
    assert len(set(model_pkg.__all__)) == len(model_pkg.__all__)
    public = {
        n for n, v in vars(model_pkg).items() if not n.startswith("_") and not inspect.ismodule(v)
    }
    assert public == set(model_pkg.__all__)


def test_package_import_does_not_pull_httpx() -> None:
    code = "import sys, harness.actors.model; print('httpx' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_unknown_error_kind_becomes_bad_response() -> None:
    assert ProviderError("weird", "x").kind == "bad_response"
    assert ProviderError("auth", "x", status=401).kind == "auth"


def test_a_minimal_provider_satisfies_the_protocol() -> None:
    class Echo:
        name = "echo"

        async def stream(self, call):  # type: ignore[no-untyped-def]
            yield Finish("stop")

        async def list_models(self, base_url, api_key):  # type: ignore[no-untyped-def]
            return ()

        async def supports_tools(self, model, base_url, api_key):  # type: ignore[no-untyped-def]
            return False

        async def aclose(self) -> None:
            return None

    assert isinstance(Echo(), Provider)
    assert not isinstance(object(), Provider)
