"""``python -m bench rules-alone``: the calls the rules know, made with the real tools in a
folder of a task's files, and the task's check on the folder; half A's requests put
otherwise are half A's change tasks, on the same files and checks."""

from __future__ import annotations

from pathlib import Path

import pytest
from bench._local_fresh import FRESH
from bench._local_reworded import REWORDED, WORDINGS, reworded_tasks
from bench._rules_run import run_known
from bench.bench_change_words import a_change
from bench.bench_rules_alone import alone

TASKS = {t.name: t for t in FRESH}


def test_a_change_the_rules_know_whole_is_finished_with_no_model() -> None:
    done = alone(TASKS["toml-debug-off"])
    assert done.ok
    assert done.calls == (
        "switch-wanted:search_text",
        "switch-wanted:read_file",
        "switch-wanted:edit_file",
    )


def test_a_change_put_otherwise_is_checked_as_the_task_is() -> None:
    # the same check: a wording the rules read passes, one they do not read fails
    task = TASKS["toml-debug-off"]
    assert alone(task, "Can you disable debug mode in settings.toml?").ok
    missed = alone(task, "Debug mode in settings.toml: the customers see its traces.")
    assert not missed.ok
    assert missed.stopped == "nothing known"


def test_where_the_rules_hand_over_to_the_model_the_check_fails() -> None:
    # "removes two lines instead of one": a fault, whose fix the model writes
    task = TASKS["fix-remove-from-cart"]
    stopped = alone(task)
    assert not stopped.ok
    assert stopped.stopped == "read_file"


@pytest.mark.parametrize("wordings", WORDINGS.values(), ids=WORDINGS.keys())
def test_each_wording_is_of_a_half_a_change_task(wordings: dict[str, tuple[str, ...]]) -> None:
    for name, prompts in wordings.items():
        task = TASKS[name]
        assert task.half == "A"
        assert a_change(task)
        assert prompts
        assert task.prompt not in prompts


def test_the_reworded_tasks_keep_their_files_and_checks_under_names_of_their_own() -> None:
    tasks = reworded_tasks(FRESH)
    assert len(tasks) == sum(len(p) for p in REWORDED.values())
    assert len({t.name for t in tasks}) == len(tasks)
    first = tasks[0]
    base = TASKS[first.name.partition("~")[0]]
    assert (first.files, first.check, first.writes) == (base.files, base.check, base.writes)
    assert first.prompt in REWORDED[base.name]


def test_a_call_the_tool_refuses_is_given_back_as_its_result(tmp_path: Path) -> None:
    # a read of a file that is not there: the tools worker answers with its sentence, and
    # the rules go on from it (they had stopped the whole bench with the error)
    (tmp_path / "app.toml").write_text("debug = true\n")
    made, steps, _ = run_known(tmp_path, "In calc.py, make add return a + b.", [])
    assert [call.tool for call in made][:1] == ["read_file"]
    assert steps[0][:2] == ("read_file", {"path": "calc.py"})
    assert "calc.py does not exist" in steps[0][2]
