"""The fresh task set's checks read the outcome: each passes on its task's reference
solution and fails on the folder as the task gave it, and the set is what issue 37 asks
(at least 40 tasks, eight kinds, two halves by a fixed hash)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from bench._local_bakery import BAKERY
from bench._local_bikes import BIKES
from bench._local_fresh import (
    EIGHTH,
    ELEVENTH,
    FIFTH,
    FOURTH,
    FRESH,
    LATER,
    NINTH,
    SEVENTH,
    SIXTH,
    TENTH,
    THIRD,
    TWELFTH,
    half,
)
from bench._local_fresh_eleventh import DAY_OUT, FOYER_OUT, NIGHT_OUT, SALES_OUT
from bench._local_fresh_tenth import ANN_ROWE_OUT, BOARD_OUT, SHEET_OUT
from bench._local_fresh_twelfth import (
    AUGUST_OUT,
    DRIVERS_OUT,
    JULY_OUT,
    RUNSHEET_OUT,
    SCREEN_OUT,
)
from bench._local_greenhouse import GREENHOUSE
from bench._local_library import LIBRARY
from bench._local_minibus import MINIBUS
from bench._local_sailing import SAILING
from bench._local_task import Task, answer, run
from bench._local_theatre import THEATRE
from bench.bench_local_tasks import TASKS, changed_a_file


def _fill(ws: Path, task: Task) -> None:
    for name, body in task.files.items():
        (ws / name).parent.mkdir(parents=True, exist_ok=True)
        (ws / name).write_text(body)


def _events(reply: str, tools: tuple[str, ...]) -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = []
    for spec in tools:
        name, _, arg = spec.partition(":")
        key = "command" if name == "run_cmd" else "path"
        arguments = {key: f"python3 {arg}" if key == "command" else arg} if arg else {}
        events.append({"type": "tool_call_requested", "name": name, "arguments": arguments})
    return [*events, {"type": "result", "ok": True, "text": reply}]


@pytest.mark.parametrize("task", FRESH, ids=lambda t: t.name)
def test_check_passes_on_the_solution_only(task: Task, tmp_path: Path) -> None:
    _fill(tmp_path, task)
    assert not task.check(_events("", ()), tmp_path), "passes on the untouched folder"
    assert task.solve is not None
    reply = task.solve(tmp_path)
    assert task.check(_events(reply, task.solve_calls), tmp_path), "fails on the solution"
    # the answer alone is not enough where the task needs a call or a change
    if task.solve_calls or task.writes:
        fresh = tmp_path / "again"
        fresh.mkdir()
        _fill(fresh, task)
        assert not task.check(_events(reply, ()), fresh)


def test_the_commands_print_what_the_run_tasks_ask_for(tmp_path: Path) -> None:
    _fill(tmp_path, FRESH[0])
    assert "total value: 612.00" in run(tmp_path, "python3 report.py")[1]
    assert "total: 48.15" in run(tmp_path, "node src/index.js")[1]
    assert "revenue: 398.40" in run(tmp_path, "bash scripts/summary.sh")[1]
    assert "refunded: 2" in run(tmp_path, "bash scripts/summary.sh")[1]
    assert "Ran 7 tests" in run(tmp_path, "python3 -m unittest")[1]


def test_the_station_prints_what_its_run_tasks_ask_for(tmp_path: Path) -> None:
    station = next(t for t in SIXTH if t.files is BIKES)
    _fill(tmp_path, station)
    assert "city minutes: 192" in run(tmp_path, "bash tools/rides.sh")[1]
    assert "income: 20.00 GBP" in run(tmp_path, "python3 daily.py")[1]
    assert "nearest: Temple Quay (0.5 km" in run(tmp_path, "node web/main.js")[1]
    assert "Ran 8 tests" in run(tmp_path, "python3 -m unittest")[1]


def test_the_greenhouse_prints_what_its_run_tasks_ask_for(tmp_path: Path) -> None:
    greenhouse = next(t for t in SEVENTH if t.files is GREENHOUSE)
    _fill(tmp_path, greenhouse)
    assert "peppers: 21.5 L" in run(tmp_path, "bash tools/water_used.sh")[1]
    assert "water today: 19.8 L" in run(tmp_path, "python3 plan.py")[1]
    assert "average air: 18.8 C" in run(tmp_path, "node dashboard/main.js")[1]
    assert "warmest: Propagation bench 27.4 C" in run(tmp_path, "node dashboard/main.js")[1]
    assert "Ran 11 tests" in run(tmp_path, "python3 -m unittest")[1]


def test_the_seventh_batch_is_split_and_of_every_kind() -> None:
    assert len(SEVENTH) == 24
    halves = [t.half for t in SEVENTH]
    assert 8 <= halves.count("A") <= 16
    kinds = {t.kind for t in SEVENTH}
    assert len(kinds) == 8


def test_the_library_prints_what_its_run_tasks_ask_for(tmp_path: Path) -> None:
    library = next(t for t in EIGHTH if t.files is LIBRARY)
    _fill(tmp_path, library)
    assert "fines owed: 11.40 GBP" in run(tmp_path, "python3 desk.py")[1]
    assert run(tmp_path, "bash tools/popular.sh")[1].startswith("Wolf Hall: 6 loans\n")
    assert "on the shelf: 8 of 12" in run(tmp_path, "node kiosk/main.js")[1]
    assert "shelf C2): out on loan" in run(tmp_path, "node kiosk/main.js")[1]
    assert "M1042: 4 loans, 53 days in all" in run(tmp_path, "bash tools/member.sh M1042")[1]
    assert "Ran 13 tests" in run(tmp_path, "python3 -m unittest")[1]


def test_the_eighth_batch_is_split_and_of_every_kind() -> None:
    assert len(EIGHTH) == 24
    halves = [t.half for t in EIGHTH]
    assert 8 <= halves.count("A") <= 16
    kinds = {t.kind for t in EIGHTH}
    assert len(kinds) == 8


def test_the_bakery_prints_what_its_run_tasks_ask_for(tmp_path: Path) -> None:
    bakery = next(t for t in NINTH if t.files is BAKERY)
    _fill(tmp_path, bakery)
    sheet = run(tmp_path, "python3 daybook.py")[1]
    assert "last load out: 09:35" in sheet
    assert "orders come to: 257.60 GBP" in sheet
    assert "first load in at 04:00" in sheet
    left = run(tmp_path, "bash tools/leftovers.sh")[1]
    assert left.startswith("croissant: 32 left of 180 baked (17%)\n")
    assert "sold out: Sourdough, Saffron bun" in run(tmp_path, "node counter/main.js")[1]
    assert "2026-05-09  286.35 GBP" in run(tmp_path, "bash tools/takings.sh 2026-05-09")[1]
    assert "total: 1230.75 GBP" in run(tmp_path, "bash tools/takings.sh")[1]
    assert "Ran 12 tests" in run(tmp_path, "python3 -m unittest")[1]


def test_the_ninth_batch_is_split_and_of_every_kind() -> None:
    assert len(NINTH) == 24
    halves = [t.half for t in NINTH]
    assert 8 <= halves.count("A") <= 16
    kinds = {t.kind for t in NINTH}
    assert len(kinds) == 8


def test_the_sailing_club_prints_what_its_run_tasks_ask_for(tmp_path: Path) -> None:
    club = next(t for t in TENTH if t.files is SAILING)
    _fill(tmp_path, club)
    sheet = run(tmp_path, "python3 sheet.py")
    assert sheet == (0, SHEET_OUT)
    assert "outside the tide: Kittiwake 11:00-15:30; Guillemot 12:00-17:00\n" in sheet[1]
    board = run(tmp_path, "node board/main.js")
    assert board == (0, BOARD_OUT)
    assert "amber flag: reefs in, juniors stay in the creek\n" in board[1]
    assert run(tmp_path, 'bash tools/skipper.sh "Ann Rowe"') == (0, ANN_ROWE_OUT)
    assert ANN_ROWE_OUT.endswith("Ann Rowe: 5 outings, 13.5 h on the water\n")
    assert run(tmp_path, "bash tools/hours.sh")[1].startswith("Puffin: 23.5 h in 9 outings\n")
    assert "Ran 12 tests" in run(tmp_path, "python3 -m unittest")[1]


def test_the_tenth_batch_is_split_and_of_every_kind() -> None:
    assert len(TENTH) == 24
    halves = [t.half for t in TENTH]
    assert 8 <= halves.count("A") <= 16
    kinds = {t.kind for t in TENTH}
    assert len(kinds) == 8


def test_the_theatre_prints_what_its_run_tasks_ask_for(tmp_path: Path) -> None:
    box_office = next(t for t in ELEVENTH if t.files is THEATRE)
    _fill(tmp_path, box_office)
    night = run(tmp_path, "python3 nightly.py")
    assert night == (0, NIGHT_OUT)
    assert "sold: 46 of 116 (39%), 70 left\n" in night[1]
    assert "in all: 697.10 GBP\n" in night[1]
    foyer = run(tmp_path, "node foyer/main.js")
    assert foyer == (0, FOYER_OUT)
    assert "interval 20:35-20:55, ends about 21:55\n" in foyer[1]
    day = run(tmp_path, "bash tools/day.sh 2026-06-06")
    assert day == (0, DAY_OUT)
    assert DAY_OUT.endswith("in all: 6 sales, 19 tickets, 285.25 GBP\n")
    assert run(tmp_path, "bash tools/sales.sh") == (0, SALES_OUT)
    assert "Ran 12 tests" in run(tmp_path, "python3 -m unittest")[1]


def test_the_eleventh_batch_is_split_and_of_every_kind() -> None:
    assert len(ELEVENTH) == 24
    halves = [t.half for t in ELEVENTH]
    assert 8 <= halves.count("A") <= 16
    kinds = {t.kind for t in ELEVENTH}
    assert len(kinds) == 8


def test_the_minibus_prints_what_its_run_tasks_ask_for(tmp_path: Path) -> None:
    minibus = next(t for t in TWELFTH if t.files is MINIBUS)
    _fill(tmp_path, minibus)
    sheet = run(tmp_path, "python3 runsheet.py")
    assert sheet == (0, RUNSHEET_OUT)
    assert "miles: 138.4, running cost 80.27 GBP\n" in sheet[1]
    assert "fares to collect: 43.00 GBP\n" in sheet[1]
    screen = run(tmp_path, "node screen/main.js")
    assert screen == (0, SCREEN_OUT)
    assert "  14:02  Wistow Green, the Plough\n" in screen[1]
    assert "  back at 16:00; only 1 seat left - book soon\n" in screen[1]
    august = run(tmp_path, "bash tools/month.sh 2026-08")
    assert august == (0, AUGUST_OUT)
    assert "passengers: 86, of them 11 in wheelchairs\n  miles: 532.2\n" in august[1]
    assert run(tmp_path, "bash tools/month.sh 2026-07") == (0, JULY_OUT)
    assert run(tmp_path, "bash tools/drivers.sh") == (0, DRIVERS_OUT)
    assert "Ran 10 tests" in run(tmp_path, "python3 -m unittest")[1]


def test_the_twelfth_batch_is_split_and_of_every_kind() -> None:
    assert len(TWELFTH) == 24
    halves = [t.half for t in TWELFTH]
    assert 8 <= halves.count("A") <= 16
    kinds = {t.kind for t in TWELFTH}
    assert len(kinds) == 8


def test_the_set_is_broad_and_split_by_name() -> None:
    names = [t.name for t in FRESH]
    assert len(names) == len(set(names)) >= 40
    assert not set(names) & {t.name for t in TASKS}
    assert len({t.kind for t in FRESH}) >= 8
    a, b = half("A"), half("B")
    assert len(a) + len(b) == len(FRESH)
    assert min(len(a), len(b)) >= 15
    # the tasks written last are part of the set, in both halves
    assert {t.name for t in LATER} <= set(names)
    assert {t.half for t in LATER} == {"A", "B"}
    assert {t.name for t in THIRD} <= set(names)
    assert {t.half for t in THIRD} == {"A", "B"}
    assert {t.name for t in FOURTH} <= set(names)
    assert {t.half for t in FOURTH} == {"A", "B"}
    assert {t.name for t in FIFTH} <= set(names)
    assert {t.half for t in FIFTH} == {"A", "B"}
    assert {t.name for t in SIXTH} <= set(names)
    assert {t.half for t in SIXTH} == {"A", "B"}
    assert {t.name for t in SEVENTH} <= set(names)
    assert {t.half for t in SEVENTH} == {"A", "B"}
    assert {t.name for t in EIGHTH} <= set(names)
    assert {t.half for t in EIGHTH} == {"A", "B"}
    assert {t.name for t in NINTH} <= set(names)
    assert {t.half for t in NINTH} == {"A", "B"}
    assert {t.name for t in TENTH} <= set(names)
    assert {t.half for t in TENTH} == {"A", "B"}
    assert {t.name for t in ELEVENTH} <= set(names)
    assert {t.half for t in ELEVENTH} == {"A", "B"}
    assert {t.name for t in TWELFTH} <= set(names)
    assert {t.half for t in TWELFTH} == {"A", "B"}
    assert answer([{"type": "result", "text": "x"}]) == "x"


def test_the_caches_of_a_test_run_are_no_change(tmp_path: Path) -> None:
    # a model asked whether the tests pass may run pytest, which leaves its cache
    from bench._local_task import changed

    _fill(tmp_path, FRESH[0])
    for cache in (".pytest_cache/v/cache/lastfailed", "__pycache__/x.cpython-311.pyc"):
        (tmp_path / cache).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / cache).write_text("{}")
    assert not changed(tmp_path, FRESH[0].files)
    (tmp_path / "notes.txt").write_text("new")
    assert changed(tmp_path, FRESH[0].files)


def test_a_set_the_bench_does_not_know_stops_with_the_names_it_does(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from bench.bench_local_tasks import _chosen

    monkeypatch.setenv("BENCH_SET", "fourth")
    assert [t.name for _, t in _chosen()] == [t.name for t in FOURTH]
    monkeypatch.setenv("BENCH_SET", "fifth")
    assert [t.name for _, t in _chosen()] == [t.name for t in FIFTH]
    monkeypatch.setenv("BENCH_SET", "sixth")
    assert [t.name for _, t in _chosen()] == [t.name for t in SIXTH]
    monkeypatch.setenv("BENCH_SET", "seventh")
    assert [t.name for _, t in _chosen()] == [t.name for t in SEVENTH]
    monkeypatch.setenv("BENCH_SET", "eighth")
    assert [t.name for _, t in _chosen()] == [t.name for t in EIGHTH]
    monkeypatch.setenv("BENCH_SET", "ninth")
    assert [t.name for _, t in _chosen()] == [t.name for t in NINTH]
    monkeypatch.setenv("BENCH_SET", "tenth")
    assert [t.name for _, t in _chosen()] == [t.name for t in TENTH]
    monkeypatch.setenv("BENCH_SET", "eleventh")
    assert [t.name for _, t in _chosen()] == [t.name for t in ELEVENTH]
    monkeypatch.setenv("BENCH_SET", "twelfth")
    assert [t.name for _, t in _chosen()] == [t.name for t in TWELFTH]
    monkeypatch.setenv("BENCH_SET", "forth")
    with pytest.raises(SystemExit, match="BENCH_SET=forth: not one of all, first, fresh"):
        _chosen()


def test_a_write_that_changed_nothing_is_no_write_nobody_asked_for() -> None:
    # the bench counts writes nobody asked for from the calls that changed a file: an
    # edit the tool says changed nothing, or refused, is not one
    requested = [
        {"type": "tool_call_requested", "call_id": i, "name": name}
        for i, name in enumerate(
            ("edit_file", "write_file", "edit_file", "edit_file", "write_file"), 1
        )
    ]
    events = [
        *requested,
        {
            "type": "tool_call_finished",
            "call_id": 1,
            "ok": True,
            "output": "edited a.py (1 edit applied)",
        },
        {
            "type": "tool_call_finished",
            "call_id": 2,
            "ok": True,
            "output": "created b.py (3 lines)",
        },
        {
            "type": "tool_call_finished",
            "call_id": 3,
            "ok": True,
            "output": "tools/sales.sh unchanged (the edits change nothing: new_text is …)",
        },
        {"type": "tool_call_finished", "call_id": 4, "ok": False, "output": "old_text not found"},
        {"type": "tool_call_finished", "call_id": 5, "ok": True, "output": "wrote c.txt"},
    ]
    assert changed_a_file(events) == {1, 2, 5}
