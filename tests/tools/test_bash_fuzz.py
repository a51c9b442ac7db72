"""Property tests of the bash reading: a deny rule holds however its command is wrapped,
and no input makes the reading raise."""

from __future__ import annotations

import json
import shlex

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from harness.actors.tools import Permissions, builtin_table
from harness.actors.tools.bash import analyse, read_only, shape

# Ways to hide a command inside another; `{}` is the command, `{q}` the command quoted.
WRAPS = [
    "( {} )",
    "{{ {}; }}",
    "echo $({})",
    "echo `{}`",
    "if true; then {}; fi",
    "for i in 1; do {}; done",
    "f() {{ {}; }}; f",
    "true && {}",
    "ls | {}",
    "bash -c {q}",
    "bash -e -c -- {q}",
    "sh -c {q}",
    "eval {q}",
    "trap {q} EXIT",
    "mapfile -C {q} -c 1 < f",
    "script -qc {q} /dev/null",
    "echo x\n{}",
    "cat <({})",
]
# Programs that run a simple command given as their arguments.
RUNNERS = [
    "nohup {}",
    "timeout 5 {}",
    "env X=1 {}",
    "sudo -u root {}",
    "prlimit {}",
    "unshare {}",
    "setpriv {}",
    "xargs {}",
    "find . -exec {} \\;",
]
SPELLINGS = ["rm -f v", "/bin/rm -f v", "\\rm -f v", "'rm' -f v", "r\\\nm -f v", "r''m -f v"]


def wrap(command: str, template: str) -> str:
    return template.format(command, q=shlex.quote(command))


@pytest.fixture(scope="module")
def perms(tmp_path_factory: pytest.TempPathFactory) -> Permissions:
    # one for every example (hypothesis runs them all in one call of the test)
    home = tmp_path_factory.mktemp("bash-fuzz")
    rules = {"allow": ["run_cmd"], "deny": ["run_cmd(rm *)"]}
    (home / "permissions.json").write_text(json.dumps(rules))
    return Permissions(builtin_table(), home=home, mode="auto")


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    spelling=st.sampled_from(SPELLINGS),
    runners=st.lists(st.sampled_from(RUNNERS), max_size=2),
    templates=st.lists(st.sampled_from(WRAPS), min_size=1, max_size=3),
)
def test_a_deny_rule_holds_however_deep_the_command_is_wrapped(
    perms: Permissions, spelling: str, runners: list[str], templates: list[str]
) -> None:
    command = spelling
    for template in [*runners, *templates]:
        command = wrap(command, template)
    assert perms.decide("run_cmd", {"command": command}).action != "allow", command


TOKENS = [
    *"abrmxv -\\\n'\"$(){}[]`;|&<>*?!#=@:%^~,.0123",
    "$((",
    "${",
    "[[",
    "]]",
    "((",
    "))",
    "bash -c ",
    "trap ",
    "declare -in ",
    "printf -v ",
    "test -v ",
    "let ",
    "<<<",
    "<<E\n",
    "\nE\n",
    "alias ",
    "eval ",
    "${x@P}",
    "a[",
    "$'\\x72'",
    "mapfile -C ",
    "tar --to-command=",
]


@settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(TOKENS), max_size=40).map("".join))
def test_no_command_makes_the_reading_raise(command: str) -> None:
    a = analyse(command)
    assert isinstance(a.uncertain, tuple)
    read_only(command)
    shape(command)
