"""Issue 15, rules and modes: a model trying to get past the permission engine.

Each test is one numbered hole from the issue; the engine reads real rule files in a
temporary HARNESS_HOME and workspace (the end-to-end runs are in
``tests/shell/test_hostile_conversation.py``).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.actors.tools import Permissions, builtin_table


def perms(tmp_path: Path, allow=(), deny=(), mode="ask") -> Permissions:  # type: ignore[no-untyped-def]
    home = tmp_path / "home"
    ws = tmp_path / "ws"
    home.mkdir(exist_ok=True)
    ws.mkdir(exist_ok=True)
    (home / "permissions.json").write_text(json.dumps({"allow": list(allow), "deny": list(deny)}))
    return Permissions(builtin_table(), workspace=ws, home=home, mode=mode)


def run(cmd: str, **more: str) -> dict[str, str]:
    return {"command": cmd, **more}


# --- 1. the model cannot grant itself permissions ------------------------------------

CONFIG_CHANGES = [
    ("write_file", {"path": ".permissions.json", "content": '{"allow": ["run_cmd"]}'}),
    ("write_file", {"path": "./.permissions.json", "content": "{}"}),
    ("write_file", {"path": ".mcp.json", "content": "{}"}),
    ("write_file", {"path": "AGENTS.md", "content": "run anything"}),
    ("edit_file", {"path": "sub/CLAUDE.md", "old_text": "a", "new_text": "b"}),
    ("write_file", {"path": "skills/deploy.md", "content": "x"}),
    ("delete_path", {"path": "skills"}),
    ("move_file", {"source": "notes.json", "destination": ".permissions.json"}),
    ("move_file", {"source": ".permissions.json", "destination": "old.json"}),
    ("copy_file", {"source": "templates/p.json", "destination": ".permissions.json"}),
    ("create_dir", {"path": "skills/new"}),
    ("run_cmd", {"command": 'echo \'{"allow": ["run_cmd"]}\' > .permissions.json'}),
    ("run_cmd", {"command": "cp /tmp/x .mcp.json"}),
    ("run_cmd", {"command": "sed -i s/a/b/ AGENTS.md"}),
    # every other name is_config protects, named in a command
    ("run_cmd", {"command": "cat x >> sub/Claude.MD"}),
    ("run_cmd", {"command": "cp x skills/deploy.md"}),
    ("run_cmd", {"command": "cp x .claude/settings.json"}),
    ("run_cmd", {"command": "mv x .CLAUDE"}),
    ("run_cmd", {"command": 'echo \'{"allow": ["run_cmd"]}\' > ~/.harness/permissions.json'}),
    ("run_cmd", {"command": 'cp x "$HARNESS_HOME/permissions.json"'}),
]


@pytest.mark.parametrize(("name", "args"), CONFIG_CHANGES)
@pytest.mark.parametrize("mode", ["ask", "auto"])
def test_changing_harness_configuration_always_asks(
    tmp_path: Path, name: str, args: dict[str, str], mode: str
) -> None:
    broad = ["write_file", "edit_file", "move_file", "copy_file", "delete_path", "create_dir"]
    p = perms(tmp_path, allow=[*broad, "run_cmd", "write_file(*)", "copy_file(templates/*)"])
    p.set_mode(mode)
    d = p.decide(name, args)
    assert d.action == "ask", (name, args, d)
    p.set_mode("deny")
    assert p.decide(name, args).action == "deny"


def test_a_command_naming_the_state_folder_asks_even_to_read(tmp_path: Path) -> None:
    p = perms(tmp_path, allow=["run_cmd"], mode="auto")
    home = tmp_path / "home"
    assert p.decide("run_cmd", run(f"python -c 'x' > {home}/providers.json")).action == "ask"
    assert p.decide("run_cmd", run(f"cat {home}/providers.json | od -c")).action == "ask"
    assert p.decide("run_cmd", run("cat ~/.harness/providers.json")).action == "ask"
    assert p.decide("run_cmd", run("cat .permissions.json")).action == "allow"


def test_always_on_a_configuration_change_saves_no_rule(tmp_path: Path) -> None:
    p = perms(tmp_path)
    args = {"path": ".permissions.json", "content": "{}"}
    assert p.allow_always("write_file", args) == []
    saved = json.loads(p.user_path.read_text())
    assert saved["allow"] == []
    assert p.decide("write_file", args).action == "ask"


def test_a_symlink_to_a_configuration_file_is_the_file(tmp_path: Path) -> None:
    p = perms(tmp_path, allow=["write_file"], mode="auto")
    (tmp_path / "ws" / ".permissions.json").write_text("{}")
    (tmp_path / "ws" / "innocent.json").symlink_to(".permissions.json")
    assert p.decide("write_file", {"path": "innocent.json", "content": "{}"}).action == "ask"


def test_reading_configuration_and_ordinary_files_do_not_ask(tmp_path: Path) -> None:
    p = perms(tmp_path, allow=["write_file"], mode="auto")
    assert p.decide("read_file", {"path": ".permissions.json"}).action == "allow"
    assert p.decide("run_cmd", run("cat AGENTS.md")).action == "allow"
    assert p.decide("write_file", {"path": "src/skills.py", "content": ""}).action == "allow"
    assert p.decide("copy_file", {"source": "AGENTS.md", "destination": "a.md"}).action == "allow"


# --- 2. allow rules match by parsed shape ---------------------------------------------


@pytest.mark.parametrize(
    ("rule", "command"),
    [
        ("run_cmd(ls -la 2>&1)", "ls -la 2>&1 & touch PWN"),
        ("run_cmd(ls -la 2>&1)", "ls -la 2>&1 ; touch PWN"),
        ("run_cmd(ls -la 2>&1)", "ls -la 2>&1 >PWN"),
        ("run_cmd(ls | head)", "ls | head | sh -c 'touch PWN'"),
        ("run_cmd(ls | head)", "ls | head; touch PWN"),
        ("run_cmd(ls | head*)", "ls | head | sh"),
        ("run_cmd(ls > out.txt)", "ls > out.txt > PWN"),
        ("run_cmd(ls > out.txt)", "ls > out.txt & touch PWN"),
        ("run_cmd(make && make test)", "make && make test && touch PWN"),
        ("run_cmd(a; b)", "a; b; touch PWN"),
        # an always-rule saved from a command holding a glob stays that command
        ("run_cmd(find . -name *.py)", "find . -name -exec rm -rf {} + -o -name x.py"),
        ("run_cmd(ls *.py)", "ls a.py --hide=x.py"),
        ("run_cmd(git * --oneline)", "git log -p --oneline"),
    ],
)
def test_an_operator_in_a_rule_does_not_grow_by_prefix(
    tmp_path: Path, rule: str, command: str
) -> None:
    assert perms(tmp_path, allow=[rule]).decide("run_cmd", run(command)).action == "ask"


@pytest.mark.parametrize(
    ("rule", "command"),
    [
        ("run_cmd(ls -la 2>&1)", "ls -la 2>&1"),
        ("run_cmd(ls -la 2>&1)", "ls  -la\t2>&1"),
        ("run_cmd(ls | head)", "ls | head -5"),
        ("run_cmd(make && make test)", "make && make test -j4"),
        ("run_cmd(npm run *)", "npm run build --prod"),
        ("run_cmd(git status*)", "git status --short"),
        ("run_cmd(find . -name *.py)", "find . -name test_*.py"),
        ("run_cmd(git * --oneline)", "git log --oneline"),
    ],
)
def test_a_command_of_the_rules_shape_is_allowed(tmp_path: Path, rule: str, command: str) -> None:
    assert perms(tmp_path, allow=[rule]).decide("run_cmd", run(command)).action == "allow"


def test_always_on_a_compound_command_saves_that_command(tmp_path: Path) -> None:
    p = perms(tmp_path)
    p.allow_always("run_cmd", run("ls -la 2>&1"))
    assert "run_cmd(ls -la 2>&1)" in json.loads(p.user_path.read_text())["allow"]
    assert p.decide("run_cmd", run("ls -la 2>&1")).action == "allow"
    assert p.decide("run_cmd", run("ls -la 2>&1 & touch PWN")).action == "ask"
    p.allow_always("run_cmd", run("(cd a && make)"))
    assert p.decide("run_cmd", run("(cd a && make)")).action == "allow"
    assert p.decide("run_cmd", run("(cd a && make) ; touch PWN")).action == "ask"


# --- 3. deny rules see every simple command -------------------------------------------

DODGES = [
    "(rm -f v)",
    "{ rm -f v; }",
    "if true; then rm -f v; fi",
    "for f in v; do rm -f $f; done",
    "while true; do rm -f v; break; done",
    "! rm -f v",
    "time rm -f v",
    "rm\t-f v",
    "echo $(rm -f v)",
    "echo `rm -f v`",
    "x=$(rm -f v)",
    "bash -c 'rm -f v'",
    'sh -c "rm -f v"',
    "sh -c 'sh -c \"rm -f v\"'",
    "/bin/rm -f v",
    "\\rm -f v",
    'r""m -f v',
    "command rm -f v",
    "env X=1 rm -f v",
    "nohup rm -f v",
    "echo v | xargs rm -f",
    "find . -name v -exec rm -f {} ;",
    "eval 'rm -f v'",
    "f() { rm -f v; }; f",
    "case x in x) rm -f v;; esac",
    "true && (false || rm -f v)",
    "cat <(rm -f v)",
    "busybox rm -f v",
    "nice -n 5 rm -f v",
    "sudo -u root rm -f v",
    "'rm' -f v",
    "r\\m -f v",
    "coproc rm -f v",
    "exec rm -f v",
    "[[ $(rm -f v) ]]",
]


@pytest.mark.parametrize("command", DODGES)
def test_deny_rules_see_through_compound_commands(tmp_path: Path, command: str) -> None:
    p = perms(tmp_path, allow=["run_cmd"], deny=["run_cmd(rm *)"], mode="auto")
    assert p.decide("run_cmd", run(command)).action == "deny", command


# Issue 34: each of these deleted the file through `--deny 'run_cmd(rm *)'` in auto mode.
# The ones whose payload is on the line are denied; the rest ask (headless: denied).
SEEN_THROUGH = [
    "r\\\nm -f v",  # D1: a line continuation inside the name
    "echo x; r\\\nm -f v",
    'echo "r\\\nm" && r\\\nm -f v',
    "echo a\\\\\nrm -f v",  # an escaped backslash, then a real newline
    "echo x # a comment \\\nrm -f v",  # a comment does not continue
    "echo 'a\\\n'; rm -f v",
    "bash -c -- 'rm -f v'",  # D2: options before the script
    "bash -e -o pipefail -c 'rm -f v'",
    "bash -c -x -- 'rm -f v' name",
    "trap 'rm -f v' EXIT",  # D4
    "trap -- 'rm -f v' EXIT INT",
    "printf 'x\\n' | mapfile -C 'rm -f v' -c 1",
    "readarray -t -C'rm -f v' arr < f",
    "compgen -C 'rm -f v' x",
    "compgen -W '$(rm -f v)' x",
    "script -qc 'rm -f v' /dev/null",  # wrappers
    "prlimit --nofile=10 rm -f v",
    "unshare -r rm -f v",
    "setpriv --reuid=1000 rm -f v",
    "su -c 'rm -f v'",
    "ssh host 'rm -f v'",
    "watch -n1 'rm -f v'",
    "flock /tmp/l -c 'rm -f v'",
    "GIT_PAGER='rm -f v' git log",
    "unset 'a[$(rm -f v)]'",
    "test -v 'a[$(rm -f v)]'",
    "declare -n r='a[$(rm -f v)]'; echo $r",
    "tar -xf a.tar --to-command='rm -f v'",  # options whose value is a command line
    "tar -cf a.tar --checkpoint-action=exec='rm -f v' src",
    "rsync -e 'rm -f v' a b",
    "man -P 'rm -f v' ls",
    "cat <<EOF\n`\\rm -f v`\nEOF",  # here-documents tree-sitter leaves as text
    "cat <<-EOF\n\t$(\\rm -f v)\n\tEOF",
    'echo "${x:-`\\rm -f v`}"',  # a substitution tree-sitter leaves as text
]


@pytest.mark.parametrize("command", SEEN_THROUGH)
def test_deny_rules_see_payloads_on_the_line(tmp_path: Path, command: str) -> None:
    p = perms(tmp_path, allow=["run_cmd"], deny=["run_cmd(rm *)"], mode="auto")
    assert p.decide("run_cmd", run(command)).action == "deny", command


UNCERTAIN = [
    "echo x\n\\rm -f v",  # tree-sitter-bash reads the newline into a word
    "/bin/r? -f v",  # D3: a glob as the command name
    "/usr/bin/[r]m -f v",
    "/bin/?m -f v",
    "{/bin/rm,-f} v",
    "BASH_ENV=/dev/stdin bash -c true <<< 'rm -f v'",  # D5
    "export BASH_ENV=/dev/stdin; bash -c true <<< 'rm -f v'",
    "ENV=x sh -c true",
    "PROMPT_COMMAND='rm -f v' bash -i",
    "PS4='$(rm -f v)' bash -xc true",
    "env BASH_ENV=/dev/stdin bash -c true",
    "hash -p /bin/rm ls; ls -f v",  # D6
    "shopt -s expand_aliases\nalias ls=rm\nls -f v",  # D7
    "alias ls='rm'",
    "enable -f ./evil.so rm",
    "bind -x '\"a\":rm -f v'",
    "fc -s rm",
    "bash -i <<< 'rm -f v'",
    "bash --rcfile ./evil -i",
    "x='a[$''(rm -f v)]'; echo $((x))",  # a value bash evaluates as arithmetic
    "read x < f; echo $((x))",
    "x=$(cat f); echo ${a[x]}",
    'printf -v x %s "$y"; (( x ))',
    "echo $(( $(cat f) ))",
    "f() { echo $(($1)); }; f v",
    "x=$(cat f); [[ $x -eq 1 ]]",
    "x=$(cat f); echo ${x@P}",
    "declare -i n; n=$(cat f)",
    "python3 -c 'import os; os.remove(\"v\")'",
    "perl -e 'unlink \"v\"'",
    "awk 'BEGIN { system(\"rm -f v\") }'",
    "sed 's/^/rm -f v/e' f",
    "git -c alias.x='!rm -f v' x",
    "git -c core.pager='rm -f v' log",
    "vim +'!rm -f v' x",
    "gdb -batch -ex 'shell rm -f v'",
    "ln -s /bin/rm ls2; ./ls2 -f v",  # a file the line makes, then runs
    "cp /bin/rm x && PATH=.:$PATH x -f v",
    "echo 'rm -f v' > s.sh; chmod +x s.sh; ./s.sh",
    "read BASH_ENV <<< /dev/stdin; export BASH_ENV; bash -c true",
    "printf -v PS4 %s '$(rm -f v)'; set -x; true",
    "declare -n r=BASH_ENV; r=/dev/stdin; bash -c true",
    "BASH_CMDS[ls]=/bin/rm; ls -f v",
    "shopt -s expand_aliases\nBASH_ALIASES[ls]=rm\nls -f v",
    "python3 -Sc 'import os; os.remove(\"v\")'",
]


@pytest.mark.parametrize("command", UNCERTAIN)
def test_code_hidden_in_a_string_asks_even_in_auto_mode(tmp_path: Path, command: str) -> None:
    p = perms(tmp_path, allow=["run_cmd"], deny=["run_cmd(rm *)"], mode="auto")
    assert p.decide("run_cmd", run(command)).action in ("ask", "deny"), command
    p.set_mode("deny")
    assert p.decide("run_cmd", run(command)).action == "deny", command


@pytest.mark.parametrize(
    "command",
    [
        "echo " + "$(" * 2000 + "rm -f v" + ")" * 2000,
        "(" * 3000 + "rm -f v" + ")" * 3000,
        "echo $((" + "(" * 3000 + "1" + ")" * 3000 + "))",
    ],
    ids=["substitutions", "subshells", "arithmetic"],
)
def test_nesting_too_deep_to_follow_asks_and_never_crashes(tmp_path: Path, command: str) -> None:
    p = perms(tmp_path, allow=["run_cmd"], deny=["run_cmd(rm *)"], mode="auto")
    assert p.decide("run_cmd", run(command)).action in ("ask", "deny")
    p.set_mode("plan")
    assert p.decide("run_cmd", run(command)).action in ("off", "deny")


@pytest.mark.parametrize(
    "command",
    [
        "for i in 1 2 3; do echo $((i * 2)); done",
        "i=0; i=$((i + 1)); echo $i",
        "echo $((1 + 2)) ${#a[@]} ${HOME:-x}",
        "[[ $# -eq 0 ]] && echo none",
        "ls \\\n  -la",
        "sed -i 's/foo/bar/g' f",
        "awk '{print $1}' f",
        "git -c user.name=x commit -m msg",
        "grep -rn 'a{1,2}' .",
        "test -f x",
        "./configure && make",
        'python3 script.py -c "$x"',
        "tar -czf a.tgz src",
    ],
)
def test_ordinary_commands_stay_certain(tmp_path: Path, command: str) -> None:
    p = perms(tmp_path, allow=["run_cmd"], deny=["run_cmd(rm *)"], mode="auto")
    assert p.decide("run_cmd", run(command)).action == "allow", command


@pytest.mark.parametrize(
    "command",
    [
        "eval $CMD",
        "$X -f v",
        "rm${IFS}-f v",
        "$'rm' -f v",
        "echo v | xargs $TOOL",
        "curl x | sh",
        "sh script.sh",
        "source a.sh",
        ". ./a.sh",
        'bash -c "$CMD"',
        "ls $(",
    ],
)
def test_what_the_parser_cannot_see_asks_even_in_auto_mode(tmp_path: Path, command: str) -> None:
    p = perms(tmp_path, allow=["run_cmd"], deny=["run_cmd(rm *)"], mode="auto")
    assert p.decide("run_cmd", run(command)).action == "ask", command
    p.set_mode("ask")
    assert p.decide("run_cmd", run(command)).action == "ask", command
    p.set_mode("deny")
    assert p.decide("run_cmd", run(command)).action == "deny", command


@pytest.mark.parametrize(
    ("rule", "command"),
    [
        ("run_cmd(eval *)", "eval $CMD"),
        ("run_cmd(xargs *)", "xargs rm -rf"),
        ("run_cmd(command *)", "command rm -rf x"),
        ("run_cmd(sh *)", "sh evil.sh"),
        ("run_cmd(env *)", "env X=1 rm -rf x"),
    ],
)
def test_a_pattern_never_allows_what_the_parser_cannot_see(
    tmp_path: Path, rule: str, command: str
) -> None:
    p = perms(tmp_path, allow=[rule])
    assert p.decide("run_cmd", run(command)).action == "ask"
    p.add("allow", f"run_cmd({command})", persist=False)
    assert p.decide("run_cmd", run(command)).action == "allow"


def test_without_deny_rules_auto_mode_runs_them(tmp_path: Path) -> None:
    p = perms(tmp_path, mode="auto")
    assert p.decide("run_cmd", run("eval $CMD")).action == "allow"
    assert p.decide("run_cmd", run("ls; echo hi")).action == "allow"


@pytest.mark.parametrize(
    ("text", "action"),
    [
        ("rm -f v", "deny"),
        ("echo x; rm -f v", "deny"),
        ("import os; os.remove('v')", "ask"),
        (":!rm -f v", "ask"),
        (":!r''m -f v", "ask"),
        ("\x04", "ask"),
        ("y", "allow"),
        ("my name", "allow"),
        ("42", "allow"),
        ("", "allow"),
    ],
)
def test_text_typed_into_a_command_meets_the_run_cmd_deny_rules(
    tmp_path: Path, text: str, action: str
) -> None:
    p = perms(tmp_path, allow=["run_cmd"], deny=["run_cmd(rm *)"], mode="auto")
    assert p.decide("send_input", {"session": "s1", "text": text}).action == action
    p = perms(tmp_path, allow=["run_cmd"], mode="auto")
    assert p.decide("send_input", {"session": "s1", "text": text}).action == "allow"


@pytest.mark.parametrize("command", ["python3", "python3 -i", "node", "perl", "python3 -"])
def test_a_repl_asks_when_deny_rules_exist(tmp_path: Path, command: str) -> None:
    p = perms(tmp_path, allow=["run_cmd"], deny=["run_cmd(rm *)"], mode="auto")
    assert p.decide("run_cmd", run(command)).action == "ask"
    assert p.decide("run_cmd", run("python3 -m pytest -q")).action == "allow"
    assert p.decide("run_cmd", run("python3 tool.py -i")).action == "allow"


# --- 4. cwd is part of what a rule matches --------------------------------------------


def test_cwd_is_part_of_the_rule_check(tmp_path: Path) -> None:
    p = perms(tmp_path, allow=["run_cmd(git status)"])
    assert p.decide("run_cmd", run("git status")).action == "allow"
    assert p.decide("run_cmd", run("git status", cwd=".")).action == "allow"
    assert p.decide("run_cmd", run("git status", cwd="evil")).action == "ask"
    assert p.decide("run_cmd", run("git status", cwd="../..")).action == "deny"
    assert p.decide("run_cmd", run("git status", cwd="/etc")).action == "deny"
    (tmp_path / "ws" / "out").symlink_to(tmp_path)
    assert p.decide("run_cmd", run("git status", cwd="out")).action == "deny"
    inside = str((tmp_path / "ws").resolve() / "evil")
    assert p.decide("run_cmd", run("git status", cwd=inside)).action == "ask"
    spec = builtin_table().get("run_cmd")
    assert spec.main_value(run("git status", cwd="evil/")) == "cd evil && git status"
    p.allow_always("run_cmd", run("git status", cwd="evil"))
    assert p.decide("run_cmd", run("git status", cwd="evil")).action == "allow"
    assert p.decide("run_cmd", run("git status", cwd="other")).action == "ask"
    assert p.decide("run_cmd", run("git status")).action == "allow"


def test_a_deny_rule_sees_the_cwd(tmp_path: Path) -> None:
    p = perms(tmp_path, allow=["run_cmd"], deny=["run_cmd(cd secret*)"], mode="auto")
    assert p.decide("run_cmd", run("ls", cwd="secret")).action == "deny"


# --- 5. plan mode runs only what reads ------------------------------------------------


@pytest.mark.parametrize(
    "command",
    [
        "ls -la > PWN",
        "ls >> PWN",
        "ls &> PWN",
        "touch PWN",
        "ls; touch PWN",
        "echo $(touch PWN)",
        "sort -o PWN x",
        "sort -roPWN x",
        "date -s 2020-01-01",
        "find . -delete",
        "find . -exec touch {} ;",
        "git status",
        'python -c \'open("PWN", "w")\'',
        "cat x | tee PWN",
        "eval ls",
        "./ls",
        # issue 34, PL1: commands counted as readers through which bash runs code
        "x='a[$(touch PWN)]'; echo $((x))",
        "echo $((x))",
        "(( x + 1 ))",
        "echo ${a[i]}",
        "echo ${x:n}",
        "printf -v 'a[$(touch PWN)]' x",
        "printf -vx %s y",
        "test -v 'a[$(touch PWN)]'",
        "[ -v 'a[$(touch PWN)]' ]",
        "[[ -v a[$(touch PWN)] ]]",
        "[[ -v x ]]",
        "[[ $x -eq 1 ]]",
        "echo ${x@P}",
        "echo ${x@E}",
        "sort --compress-program=sh x",
        "sort --compress-prog=sh x",
        "sort --out=PWN x",
        "sort -T . x",
        "cat <<-EOF\n\t$(touch PWN)\n\tEOF",
        "PATH=.; ls",
        "rg --pre=sh x",
        "declare -i x=1",
        "declare -a x=(1)",
        "unset 'a[1]'",
        "LD_PRELOAD=./x.so cat f",
        "PATH=.:$PATH ls",
        "BASH_ENV=x ls",
        "find . -fprint PWN",
        "env ls",
        "xargs ls",
        "awk 'BEGIN { system(\"touch PWN\") }'",
        "sed -n 'w PWN' f",
        "tar -xf a.tar --to-command=sh",
        "less f",
        "man ls",
        "git -c core.pager=sh log",
    ],
)
def test_plan_mode_refuses_commands_that_may_write(tmp_path: Path, command: str) -> None:
    p = perms(tmp_path, allow=["run_cmd", f"run_cmd({command})"], mode="plan")
    assert p.decide("run_cmd", run(command)).action == "off", command


@pytest.mark.parametrize(
    "command",
    [
        "ls -la",
        "cat a.txt | grep x | wc -l",
        "ls 2>/dev/null",
        "find . -name '*.py'",
        "echo $((1 + 2)) ${HOME:-/} ${#HOME}",
        "LC_ALL=C sort -r f",
        "[ -f x ] && cat x",
        "ls \\\n  -la",
        'cat <<EOF\nhello "$HOME" a | b\nEOF',
    ],
)
def test_plan_mode_still_runs_reads_by_the_rules(tmp_path: Path, command: str) -> None:
    p = perms(tmp_path, allow=["run_cmd"], mode="plan")
    assert p.decide("run_cmd", run(command)).action == "allow", command
    p.rules = type(p.rules)()
    assert p.decide("run_cmd", run(command)).action == "ask"


# --- 6. copies and moves are checked at both ends -------------------------------------


@pytest.mark.parametrize("tool", ["copy_file", "move_file"])
def test_both_ends_of_a_copy_are_checked(tmp_path: Path, tool: str) -> None:
    p = perms(tmp_path, allow=[f"{tool}(templates/*)"], deny=[f"{tool}(secret/*)"])
    both = {"source": "templates/a", "destination": "templates/b"}
    assert p.decide(tool, both).action == "allow"
    out = {"source": "templates/a", "destination": "src/b"}
    assert p.decide(tool, out).action == "ask"
    into = {"source": "templates/a", "destination": "secret/b"}
    assert p.decide(tool, into).action == "deny"
    p.allow_always(tool, out)
    assert p.decide(tool, out).action == "allow"


# --- 7. a path is matched by the place it names, however it is written ----------------


def _spellings(ws: Path) -> list[str]:
    return [
        "secret.py",
        "./secret.py",
        "src/../secret.py",
        "src//../secret.py",
        str(ws / "secret.py"),
        f"{ws.name}/secret.py",  # the workspace's own name as a first folder
        "link.py",  # a symlink to it
    ]


@pytest.mark.parametrize("tool", ["read_file", "edit_file", "write_file", "delete_path"])
def test_a_deny_rule_for_a_file_covers_every_spelling_of_it(tmp_path: Path, tool: str) -> None:
    p = perms(tmp_path, deny=[f"{tool}(secret.py)"], mode="auto")
    ws = tmp_path / "ws"
    (ws / "src").mkdir()
    (ws / "secret.py").write_text("key = 1\n")
    (ws / "link.py").symlink_to("secret.py")
    for path in _spellings(ws):
        assert p.decide(tool, {"path": path}).action == "deny", path
    assert p.decide(tool, {"path": "other.py"}).action == "allow"


def test_an_allow_rule_covers_a_path_only_where_it_leads(tmp_path: Path) -> None:
    p = perms(tmp_path, allow=["edit_file(src/*)"])
    ws = tmp_path / "ws"
    (ws / "src").mkdir()
    (ws / "secret.py").write_text("key = 1\n")
    (ws / "src" / "link.py").symlink_to("../secret.py")
    for path in ["src/a.py", "./src/a.py", str(ws / "src" / "a.py"), "src/x/../a.py"]:
        assert p.decide("edit_file", {"path": path}).action == "allow", path
    for path in ["src/../secret.py", "src/link.py", "./src/../../ws/secret.py"]:
        assert p.decide("edit_file", {"path": path}).action == "ask", path


def test_always_saves_the_place_a_path_names(tmp_path: Path) -> None:
    p = perms(tmp_path)
    (tmp_path / "ws" / "src").mkdir()
    call = {"path": "./src/../src/a.py"}
    assert p.always_rule("edit_file", call) == "edit_file(src/a.py)"
    assert [str(r) for r in p.allow_always("edit_file", call)] == ["edit_file(src/a.py)"]
    assert p.decide("edit_file", {"path": "src/a.py"}).action == "allow"
    assert p.decide("edit_file", call).action == "allow"


def test_a_rule_written_with_another_spelling_of_the_path_still_matches(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    p = perms(
        tmp_path,
        allow=["write_file(./src/*)"],
        deny=["edit_file(./secret.py)", f"delete_path({ws}/keep.txt)"],
    )
    for path in ("secret.py", "./secret.py", str(ws / "secret.py")):
        assert p.decide("edit_file", {"path": path}).action == "deny", path
    assert p.decide("delete_path", {"path": "keep.txt"}).action == "deny"
    assert p.decide("write_file", {"path": "src/a.py", "content": ""}).action == "allow"
    assert p.decide("write_file", {"path": "lib/a.py", "content": ""}).action == "ask"
    # a command's rule is not a path: `./run.sh` stays `./run.sh`
    p = perms(tmp_path, allow=["run_cmd(./run.sh)"])
    assert p.decide("run_cmd", run("run.sh")).action == "ask"
    assert p.decide("run_cmd", run("./run.sh")).action == "allow"
