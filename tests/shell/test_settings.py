"""Settings from HARNESS_SHELL_* variables, and the environment commands get."""

from __future__ import annotations

import re

import pytest

import harness.actors.shell as shell
from harness.actors.shell import ShellConfig, command_env, is_secret_name


def test_public_surface() -> None:
    assert set(shell.__all__) == {
        "DETECTORS",
        "SANDBOX_MODES",
        "TOOL_NAMES",
        "SessionPool",
        "ShellConfig",
        "ShellService",
        "command_env",
        "is_secret_name",
        "sandbox_problem",
    }
    for name in shell.__all__:
        assert getattr(shell, name) is not None
    with pytest.raises(AttributeError):
        _ = shell.nothing_here  # type: ignore[attr-defined]


def test_config_round_trips_through_the_environment() -> None:
    config = ShellConfig(
        max_sessions=2, default_timeout=7.5, detector="fallback", sandbox_network=True
    )
    env = config.to_env()
    assert env["HARNESS_SHELL_MAX_SESSIONS"] == "2"
    assert ShellConfig.from_env(env) == config
    assert ShellConfig.from_env({}) == ShellConfig()


@pytest.mark.parametrize(
    ("name", "value", "says"),
    [
        ("HARNESS_SHELL_MAX_SESSIONS", "many", "HARNESS_SHELL_MAX_SESSIONS='many'"),
        ("HARNESS_SHELL_MAX_SESSIONS", "0", "max_sessions must be above 0"),
        ("HARNESS_SHELL_DETECTOR", "guess", "detector"),
        ("HARNESS_SHELL_SANDBOX", "everything", "sandbox"),
        ("HARNESS_SHELL_SANDBOX_NETWORK", "maybe", "boolean"),
    ],
)
def test_bad_settings_say_which_variable(name: str, value: str, says: str) -> None:
    with pytest.raises(ValueError, match=re.escape(says)):
        ShellConfig.from_env({name: value})


def test_secrets_and_provider_keys_are_dropped() -> None:
    environ = {
        "PATH": "/usr/bin",
        "HOME": "/root",
        "OPENAI_API_KEY": "sk-1",
        "ANTHROPIC_API_KEY": "sk-2",
        "GEMINI_API_KEY": "g",
        "GITHUB_TOKEN": "ghp",
        "DB_PASSWORD": "pw",
        "AWS_SECRET_ACCESS_KEY": "aws",
        "MY_SERVICE_KEY": "k",
        "SSH_AUTH_SOCK": "/run/agent",
        "HARNESS_WORKER_TAG": "tag",
        "HARNESS_SHELL_MAX_SESSIONS": "3",
        "HARNESS_HOME": "/h",
    }
    env = command_env(environ, {"EXTRA": "1"})
    assert set(env) >= {"PATH", "HOME", "SSH_AUTH_SOCK", "HARNESS_WORKER_TAG", "HARNESS_HOME"}
    for gone in (
        "OPENAI_API_KEY",
        "ANTHROPIC_API_KEY",
        "GEMINI_API_KEY",
        "GITHUB_TOKEN",
        "DB_PASSWORD",
        "AWS_SECRET_ACCESS_KEY",
        "MY_SERVICE_KEY",
        "HARNESS_SHELL_MAX_SESSIONS",
    ):
        assert gone not in env
    assert env["EXTRA"] == "1"
    assert env["TERM"] == "dumb"
    assert not is_secret_name("KEYTIMEOUT")
    assert is_secret_name("npm_config__authToken")
