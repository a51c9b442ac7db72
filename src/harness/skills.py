"""Skills: folders of instructions the model loads when a task calls for them.

A skill is ``skills/<name>/SKILL.md`` (with any bundled files beside it) or a
one-file ``skills/<name>.md``. Each starts with YAML frontmatter::

    ---
    name: git-commit
    description: Write a focused commit with a good message.
    allowed-tools: [git_status, git_diff, run_cmd]
    ---
    (the instructions)

Skills are searched in ``<workspace>/skills``, then ``<workspace>/.harness/skills``,
then ``$HARNESS_HOME/skills``, then the skills that ship inside the package
(:data:`BUILTIN_SKILLS`, labelled ``built-in``); the first skill found with a name
wins, so a project's own ``git-commit`` replaces the built-in one. Only names
and descriptions go into the system prompt (:func:`skills_prompt`); the
``use_skill`` tool loads the body and lists the bundled files (:func:`render_skill`).

Skills are read through a jail: a skill (or a skills folder, or a bundled file)
whose real path leaves the workspace (for the project's skills), the user's
skills folder (for the user's) or the package's folder (for the built-in ones) is
skipped with a warning, so a symlink cannot put an outside file such as a private
key into the prompt.
"""

from __future__ import annotations

import os
from pathlib import Path

import attrs

from harness._frontmatter import FrontmatterError, split_frontmatter
from harness.errors import ConfigError
from harness.home import harness_home

__all__ = [
    "BUILTIN_SKILLS",
    "Skill",
    "SkillError",
    "discover_skills",
    "find_skill",
    "render_skill",
    "skill_dirs",
    "skills_prompt",
]

_MAX_FILES_LISTED = 50

BUILTIN_SKILLS = Path(__file__).resolve().parent / "builtin_skills"
"""The skills that ship with harness (package data), available in every workspace."""


class SkillError(ConfigError):
    """A skill could not be found or read; the message says which and why."""


@attrs.frozen
class Skill:
    """One discovered skill.

    Attributes:
        name: the skill's name (frontmatter ``name``, else the folder or file name).
        description: one line on when to use it.
        path: its ``SKILL.md`` (or one-file ``<name>.md``).
        allowed_tools: tools the skill says it needs (frontmatter ``allowed-tools``).
        source: ``project``, ``project-harness``, ``user`` or ``built-in``: where it
            was found.
        jail: the folder its files must really be in (``None``: not checked).
    """

    name: str
    description: str
    path: Path
    allowed_tools: tuple[str, ...] = ()
    source: str = "project"
    jail: Path | None = None

    @property
    def folder(self) -> Path | None:
        """The skill's folder, when it is a folder skill (bundled files live there)."""
        return self.path.parent if self.path.name == "SKILL.md" else None


def _home(home: Path | str | None) -> Path:
    return harness_home() if home is None else Path(home)


def skill_dirs(workspace: Path | str, home: Path | str | None = None) -> list[tuple[Path, str]]:
    """The folders searched for skills, in precedence order, with their source label."""
    ws = Path(workspace)
    return [
        (ws / "skills", "project"),
        (ws / ".harness" / "skills", "project-harness"),
        (_home(home) / "skills", "user"),
        (BUILTIN_SKILLS, "built-in"),
    ]


def _jail(folder: Path, source: str, workspace: Path | str) -> Path:
    """The folder a skill found in *folder* must really live in."""
    if source in ("user", "built-in"):
        return Path(os.path.realpath(folder))
    return Path(os.path.realpath(workspace))


def _inside(path: Path, jail: Path) -> bool:
    real = Path(os.path.realpath(path))
    return real == jail or jail in real.parents


def _read_skill(path: Path, default_name: str, source: str) -> Skill:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise SkillError(f"cannot read skill {path}: {exc}") from exc
    try:
        fields, body = split_frontmatter(text)
    except FrontmatterError as exc:
        raise SkillError(f"skill {path}: {exc}") from exc
    name = str(fields.get("name") or default_name).strip()
    description = " ".join(str(fields.get("description") or "").split())
    if not description:
        # Fall back to the first line of the body, so a skill without
        # frontmatter still says something about itself.
        first = next((ln.strip("# ").strip() for ln in body.splitlines() if ln.strip()), "")
        description = first[:200]
    tools = fields.get("allowed-tools", fields.get("allowed_tools", ()))
    if isinstance(tools, str):
        tools = [t for t in tools.replace(",", " ").split() if t]
    return Skill(
        name=name,
        description=description,
        path=path,
        allowed_tools=tuple(str(t) for t in tools or ()),
        source=source,
    )


def discover_skills(
    workspace: Path | str,
    home: Path | str | None = None,
    *,
    problems: list[str] | None = None,
) -> list[Skill]:
    """Every skill visible from *workspace*, sorted by name; the first match on a name wins.

    A skill that cannot be read is skipped; when *problems* is given, one sentence
    per skipped skill is appended to it.
    """
    found: dict[str, Skill] = {}
    for folder, source in skill_dirs(workspace, home):
        if not folder.is_dir():
            continue
        jail = _jail(folder, source, workspace)
        candidates: list[tuple[Path, str]] = []
        for entry in sorted(folder.iterdir()):
            if entry.is_dir() and (entry / "SKILL.md").is_file():
                candidates.append((entry / "SKILL.md", entry.name))
            elif entry.is_file() and entry.suffix == ".md" and entry.name != "README.md":
                candidates.append((entry, entry.stem))
        for path, default in candidates:
            if not _inside(path, jail):
                if problems is not None:
                    problems.append(
                        f"skill {path} skipped: it is a symlink to {os.path.realpath(path)}, "
                        f"outside {jail}"
                    )
                continue
            try:
                skill = attrs.evolve(_read_skill(path, default, source), jail=jail)
            except SkillError as exc:
                if problems is not None:
                    problems.append(str(exc))
                continue
            found.setdefault(skill.name, skill)
    return sorted(found.values(), key=lambda s: s.name)


def find_skill(workspace: Path | str, name: str, home: Path | str | None = None) -> Skill:
    """The skill called *name*.

    Raises:
        SkillError: no such skill (the message lists the ones there are).
    """
    skills = discover_skills(workspace, home)
    for skill in skills:
        if skill.name == name:
            return skill
    names = ", ".join(s.name for s in skills) or "none"
    raise SkillError(f"no skill named {name!r} (available: {names})")


def render_skill(skill: Skill) -> str:
    """What ``use_skill`` returns: the skill's instructions and its bundled files."""
    jail = skill.jail
    if jail is not None and not _inside(skill.path, jail):
        raise SkillError(f"skill {skill.name!r} is a symlink to outside {jail}; not read")
    try:
        _, body = split_frontmatter(skill.path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, FrontmatterError) as exc:
        raise SkillError(f"cannot read skill {skill.name!r}: {exc}") from exc
    out = [f"# Skill: {skill.name}", "", body.strip()]
    folder = skill.folder
    if folder is not None:
        files = sorted(
            str(p.relative_to(folder))
            for p in folder.rglob("*")
            if p.is_file() and p.name != "SKILL.md" and (jail is None or _inside(p, jail))
        )
        if files:
            out += ["", f"Bundled files (in {folder}):"]
            out += [f"- {f}" for f in files[:_MAX_FILES_LISTED]]
            if len(files) > _MAX_FILES_LISTED:
                out.append(f"- … and {len(files) - _MAX_FILES_LISTED} more")
    if skill.allowed_tools:
        out += ["", "Tools this skill uses: " + ", ".join(skill.allowed_tools)]
    return "\n".join(out).strip() + "\n"


def skills_prompt(skills: list[Skill]) -> str:
    """The system-prompt section naming each skill (empty when there are none)."""
    if not skills:
        return ""
    lines = [
        "# Skills",
        "These skills are available. When a task matches one, call use_skill(name) "
        "to load its instructions before you start.",
    ]
    lines += [f"- {s.name}: {s.description}" for s in skills]
    return "\n".join(lines)
