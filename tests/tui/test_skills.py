import io
from pathlib import Path
from types import SimpleNamespace

import pytest
from rich.console import Console

from harness.cli.tui._cmd_info import cmd_skills
from harness.cli.tui._dispatch import COMMANDS
from harness.skills import (
    BUILTIN_SKILLS,
    SkillError,
    discover_skills,
    find_skill,
    render_skill,
    skills_prompt,
)

REPO = Path(__file__).resolve().parents[2]


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def test_precedence_project_then_dot_harness_then_home(tmp_path: Path) -> None:
    ws, home = tmp_path / "ws", tmp_path / "home"
    write(
        ws / "skills" / "deploy" / "SKILL.md",
        "---\nname: deploy\ndescription: project deploy\n---\nbody P\n",
    )
    write(
        ws / ".harness" / "skills" / "deploy.md",
        "---\nname: deploy\ndescription: dot deploy\n---\n",
    )
    write(
        ws / ".harness" / "skills" / "lint.md",
        "---\nname: lint\ndescription: >\n  run the\n  linters\n---\nLint body\n",
    )
    write(home / "skills" / "lint" / "SKILL.md", "---\nname: lint\ndescription: home\n---\n")
    write(
        home / "skills" / "notes" / "SKILL.md",
        "---\nname: notes\ndescription: 'take notes'\nallowed-tools:\n  - read_file\n"
        "  - write_memory\n---\nN\n",
    )
    write(home / "skills" / "notes" / "template.txt", "t")
    skills = {s.name: s for s in discover_skills(ws, home)}
    assert sorted(skills) == ["code-review", "deploy", "git-commit", "lint", "notes"]
    assert skills["deploy"].description == "project deploy"
    assert skills["deploy"].source == "project"
    assert skills["lint"].description == "run the linters"
    assert skills["lint"].source == "project-harness"
    assert skills["notes"].allowed_tools == ("read_file", "write_memory")
    text = render_skill(skills["notes"])
    assert "N" in text
    assert "- template.txt" in text
    assert "read_file, write_memory" in text
    prompt = skills_prompt(list(skills.values()))
    assert "- deploy: project deploy" in prompt
    assert "body P" not in prompt


def test_broken_skill_is_skipped_and_reported(tmp_path: Path) -> None:
    write(tmp_path / "skills" / "bad" / "SKILL.md", "---\nname: bad\n  nested: x\n")
    write(tmp_path / "skills" / "good.md", "# Good skill\nDo good things.\n")
    problems: list[str] = []
    skills = [s for s in discover_skills(tmp_path, tmp_path / "nohome", problems=problems)
              if s.source != "built-in"]  # fmt: skip
    assert [s.name for s in skills] == ["good"]
    assert skills[0].description == "Good skill"
    assert len(problems) == 1
    assert "bad" in problems[0]
    with pytest.raises(SkillError, match="available: code-review, git-commit, good"):
        find_skill(tmp_path, "missing", tmp_path / "nohome")


def test_shipped_skills_are_in_every_workspace(tmp_path: Path) -> None:
    ws = tmp_path / "any-project"
    ws.mkdir()
    skills = {s.name: s for s in discover_skills(ws, tmp_path / "home")}
    assert {"git-commit", "code-review"} <= set(skills)
    for name in ("git-commit", "code-review"):
        assert skills[name].source == "built-in"
        assert skills[name].path.is_relative_to(BUILTIN_SKILLS)
        assert len(skills[name].description) > 30
        assert skills[name].allowed_tools
        assert len(render_skill(skills[name])) > 1000
    assert "- git-commit: " in skills_prompt(list(skills.values()))
    assert not (REPO / "skills").exists()  # they ship in the package, not the checkout


def test_a_project_or_user_skill_of_the_same_name_wins(tmp_path: Path) -> None:
    ws, home = tmp_path / "ws", tmp_path / "home"
    write(ws / "skills" / "git-commit" / "SKILL.md", "---\ndescription: ours\n---\nour way\n")
    write(home / "skills" / "code-review.md", "---\ndescription: mine\n---\nmy way\n")
    skills = {s.name: s for s in discover_skills(ws, home)}
    assert (skills["git-commit"].source, skills["git-commit"].description) == ("project", "ours")
    assert (skills["code-review"].source, skills["code-review"].description) == ("user", "mine")
    assert "our way" in render_skill(find_skill(ws, "git-commit", home))


async def test_skills_lists_the_built_in_ones_as_such(tmp_path: Path) -> None:
    ws, home = tmp_path / "ws", tmp_path / "home"
    write(ws / "skills" / "deploy.md", "---\ndescription: ship it\n---\nsteps\n")
    console = Console(file=io.StringIO(), width=200, color_system=None, _environ={})
    app = SimpleNamespace(workspace=ws, home=home, console=console)
    await cmd_skills.run(app, COMMANDS.parse("/skills"))  # type: ignore[arg-type]
    lines = console.file.getvalue().splitlines()  # type: ignore[attr-defined]
    by_name = {line.split()[0]: line for line in lines}
    assert by_name["deploy"].endswith("(project)")
    assert by_name["git-commit"].endswith("(built-in)")
    assert by_name["code-review"].endswith("(built-in)")
