"""Issue 15, 12: which variables count as secrets, for harness and for commands."""

from __future__ import annotations

import pytest

from harness.actors.shell import command_env
from harness.keys import take_keys

SECRETS = {
    "OPENAI_API_KEY": "sk-1",
    "DATABASE_URL": "postgres://localhost/app",
    "SLACK_WEBHOOK_URL": "https://hooks.example/T0/x",
    "SENTRY_DSN": "https://abc@sentry.example/1",
    "REDIS_URL": "redis://:hunter2@cache:6379/0",
    "MY_SERVICE": "https://user:pw@api.example/",
    "GITHUB_TOKEN": "ghp_x",
}
PLAIN = {"PATH": "/usr/bin", "HOME": "/root", "SSH_AUTH_SOCK": "/tmp/s", "URL": "https://a.b/"}


@pytest.mark.parametrize("name", sorted(SECRETS))
def test_commands_never_get_a_secret(name: str) -> None:
    env = command_env({**PLAIN, name: SECRETS[name]})
    assert name not in env
    assert all(env[k] == v for k, v in PLAIN.items())


def test_harness_takes_secrets_out_of_its_environment_but_keeps_its_proxy() -> None:
    env = {**PLAIN, **SECRETS, "HTTPS_PROXY": "http://u:pw@proxy:3128"}
    taken = take_keys(env)
    assert taken == SECRETS
    assert env == {**PLAIN, "HTTPS_PROXY": "http://u:pw@proxy:3128"}
    assert "HTTPS_PROXY" not in command_env(env)
