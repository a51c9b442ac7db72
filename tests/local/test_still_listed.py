"""A list that still holds an entry the request says it should not (the ``still-listed``
rule): after the change the request asks first, the search, the read and the edit taking
the entry out, written by the harness and run against real files with the real tools."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from harness.actors.model.local._nudge_stale import still_listed

from ._chains import drive, write

FLEET = (
    "from dataclasses import dataclass\n\n\n@dataclass\nclass Boat:\n    name: str\n"
    "    in_service: bool = True\n\n\nFLEET = [\n"
    '    Boat("Puffin"),\n    Boat("Dabchick", in_service=False),\n]\n\n'
    'print(", ".join(b.name for b in FLEET if b.in_service))\n'
)
NOTICES = {
    "club": "Hollesby Sailing Club",
    "out_of_service": [{"boat": "Dabchick", "why": "new centreboard case, at Fulcher's yard"}],
    "notices": [{"title": "Dabchick racing on Saturday", "from": "Race officer"}],
}


def notices_json(notices: dict[str, object]) -> str:
    """The notices as the board's file writes them: each entry of a list on one line."""
    lines = ["{"]
    items = list(notices.items())
    for i, (key, value) in enumerate(items):
        end = "," if i < len(items) - 1 else ""
        if isinstance(value, list):
            inner = [json.dumps(v).replace("{", "{ ").replace("}", " }") for v in value]
            body = ",\n".join(f"    {entry}" for entry in inner)
            lines.append(f'  "{key}": [\n{body}\n  ]{end}')
        else:
            lines.append(f'  "{key}": {json.dumps(value)}{end}')
    return "\n".join(lines) + "\n}\n"


BACK = (
    "Dabchick is back from Fulcher's yard with her new centreboard case, so she can be "
    "booked again. Don't forget the tide board, it still says she's out of service."
)


@pytest.mark.parametrize(
    ("prompt", "listed"),
    [
        (BACK, (["Dabchick", "Fulcher"], {"out", "servi"})),
        (
            "Curlew is home. The board still shows Curlew as away.",
            (["Curlew"], {"away"}),
        ),
        # no place said to still say something, or no name given
        ("Dabchick is back from the yard.", None),
        ("the board still says she's out of service", None),
        # asked about, not said
        ("Why is it that the board still says Dabchick is out of service?", None),
        ("The board still shows Curlew as away, is that right?", None),
    ],
)
def test_what_a_place_still_says_and_of_whom(
    prompt: str, listed: tuple[list[str], set[str]] | None
) -> None:
    assert still_listed(prompt) == listed


@pytest.mark.parametrize("rg", [True, False], ids=["ripgrep", "python"])
def test_the_entry_a_place_still_lists_is_taken_out_after_the_switch(
    tmp_path: Path, rg: bool
) -> None:
    # measured (bench local-tasks, half A): the switch made by its own rule, the model
    # answered "The task is done." with the tide board's notice still there, four runs
    write(tmp_path, {"fleet.py": FLEET, "board/notices.json": notices_json(NOTICES)})
    made, _ = drive(tmp_path, BACK, rule=("switch-wanted", "still-listed"), rg=rg)
    assert [(name, args.get("path")) for name, args in made] == [
        ("search_text", None),
        ("read_file", "fleet.py"),
        ("edit_file", "fleet.py"),
        ("search_text", None),  # the lines that are a list's entry naming Dabchick
        ("read_file", "board/notices.json"),
        ("edit_file", "board/notices.json"),
    ]
    ran = subprocess.run(
        [sys.executable, "fleet.py"], cwd=tmp_path, capture_output=True, text=True, check=True
    )
    assert ran.stdout == "Puffin, Dabchick\n"
    board = json.loads((tmp_path / "board/notices.json").read_text())
    # out of the list the board says she is in; the notice naming her stays
    assert board == {**NOTICES, "out_of_service": []}


def test_a_yaml_list_whose_key_says_the_state_loses_the_entry(tmp_path: Path) -> None:
    rota = "away:\n  - Curlew\n  - Shearwater\nfleet:\n  - Curlew\n  - Puffin\n"
    write(tmp_path, {"board/rota.yaml": rota})
    prompt = "Curlew is home again. Please fix the board: it still shows Curlew as away."
    made, _ = drive(tmp_path, prompt, rule="still-listed")
    assert [name for name, _ in made] == ["search_text", "read_file", "edit_file"]
    assert yaml.safe_load((tmp_path / "board/rota.yaml").read_text()) == {
        "away": ["Shearwater"],
        "fleet": ["Curlew", "Puffin"],
    }


def test_an_entry_under_no_such_key_or_last_of_several_is_left_to_the_model(
    tmp_path: Path,
) -> None:
    # no switch to turn: its rule's search matches nothing, then this rule's chain
    rules = ("switch-wanted", "still-listed")
    # the name listed only where the key says nothing of the state: no edit
    notices = {"club": "Hollesby", "fleet": [{"boat": "Dabchick"}], "out_of_service": []}
    write(tmp_path, {"board/notices.json": notices_json(notices)})
    made, _ = drive(tmp_path, BACK, rule=rules)
    assert [name for name, _ in made] == ["search_text", "search_text", "read_file"]
    # the last element of several in a JSON list: the comma above it is the model's to mend
    notices = {"out_of_service": [{"boat": "Puffin"}, {"boat": "Dabchick"}]}
    write(tmp_path, {"board/notices.json": notices_json(notices)})
    made, _ = drive(tmp_path, BACK, rule=rules)
    assert [name for name, _ in made] == ["search_text", "search_text", "read_file"]
    assert json.loads((tmp_path / "board/notices.json").read_text()) == notices
    # the model went its own way first: the rule waits for a change to follow
    write(tmp_path, {"board/notices.json": notices_json(NOTICES)})
    made, _ = drive(tmp_path, BACK, [("read_file", {"path": "board/notices.json"})], rule=rules)
    assert made == []
