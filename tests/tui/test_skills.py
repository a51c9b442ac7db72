from pathlib import Path

import pytest

from harness.skills import SkillError, discover_skills, find_skill, render_skill, skills_prompt

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
    assert sorted(skills) == ["deploy", "lint", "notes"]
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
    skills = discover_skills(tmp_path, tmp_path / "nohome", problems=problems)
    assert [s.name for s in skills] == ["good"]
    assert skills[0].description == "Good skill"
    assert len(problems) == 1
    assert "bad" in problems[0]
    with pytest.raises(SkillError, match="available: good"):
        find_skill(tmp_path, "missing", tmp_path / "nohome")


def test_shipped_skills_parse(tmp_path: Path) -> None:
    skills = {s.name: s for s in discover_skills(REPO, tmp_path)}
    assert {"git-commit", "code-review"} <= set(skills)
    for name in ("git-commit", "code-review"):
        assert len(skills[name].description) > 30
        assert skills[name].allowed_tools
        assert len(render_skill(skills[name])) > 1000
