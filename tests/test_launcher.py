"""``make install`` puts a ``harness`` launcher on PATH that works in any folder.

The Makefile's own launcher step runs with ``HOME`` in a temporary folder; the
launcher it writes then runs ``--version`` and a headless question against the
scripted loopback model from a project folder elsewhere.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from tests.scripted import ScriptedModel, call, reply

ROOT = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.slow


def make_launcher(home: Path, path: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MAKE")}
    env.update(HOME=str(home), PATH=path)
    return subprocess.run(
        ["make", "--no-print-directory", "-C", str(ROOT), "launcher"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_the_launcher_runs_harness_in_another_folder(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    bin_dir = home / ".local" / "bin"
    made = make_launcher(home, os.environ["PATH"])
    assert made.returncode == 0, made.stderr
    assert f"{bin_dir} is not on your PATH" in made.stdout
    assert f'export PATH="{bin_dir}:$PATH"' in made.stdout
    launcher = bin_dir / "harness"
    assert os.access(launcher, os.X_OK)

    project = tmp_path / "myproject"
    project.mkdir()
    (project / "notes.txt").write_text("the launch code is 1234\n")
    env = dict(os.environ, HOME=str(home), HARNESS_HOME=str(tmp_path / "harness-home"))
    env["PATH"] = f"{bin_dir}{os.pathsep}{env['PATH']}"
    version = subprocess.run(
        ["harness", "--version"], cwd=project, env=env, capture_output=True, text=True, timeout=30
    )
    assert version.returncode == 0, version.stderr
    assert version.stdout.startswith("harness ")

    with ScriptedModel(
        [reply("", call("read_file", path="notes.txt")), reply("It says 1234.")]
    ) as model:
        asked = subprocess.run(
            ["harness", "-p", "what do my notes say?", "--provider", "openai",
             "--model", "scripted", "--base-url", model.base_url],
            cwd=project, env=env, capture_output=True, text=True, timeout=60,
        )  # fmt: skip
        assert asked.returncode == 0, asked.stderr
        assert asked.stdout == "It says 1234.\n"
        # the file was read from the folder harness was started in
        tool_message = model.requests[1]["messages"][-1]
        assert "the launch code is 1234" in str(tool_message["content"])

    again = make_launcher(home, f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    assert again.returncode == 0, again.stderr
    assert f"installed {launcher}; run 'harness' in any folder" in again.stdout


def test_a_file_that_is_not_ours_is_left_alone(tmp_path: Path) -> None:
    home = tmp_path / "home"
    bin_dir = home / ".local" / "bin"
    bin_dir.mkdir(parents=True)
    (bin_dir / "harness").write_text("#!/bin/sh\necho another harness\n")
    made = make_launcher(home, os.environ["PATH"])
    assert made.returncode == 0, made.stderr
    assert "is not harness's launcher: left as it is" in made.stdout
    assert (bin_dir / "harness").read_text() == "#!/bin/sh\necho another harness\n"
    (bin_dir / "harness").unlink()
    (bin_dir / "harness").symlink_to("/bin/true")
    assert "left as it is" in make_launcher(home, os.environ["PATH"]).stdout
    assert os.readlink(bin_dir / "harness") == "/bin/true"


def test_a_folder_that_cannot_be_written_costs_the_launcher_not_the_install(
    tmp_path: Path,
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / ".local").write_text("a file where the folder would go\n")
    made = make_launcher(home, os.environ["PATH"])
    assert made.returncode == 0, made.stderr
    assert f"cannot write to {home / '.local' / 'bin'}, so no launcher there" in made.stdout
