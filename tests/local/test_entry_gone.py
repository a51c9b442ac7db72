"""An entry of a list said to be gone (the ``entry-gone`` rule): the search, the read and
the edit taking the line out, written by the harness and run against real files with the
real tools."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from harness.actors.model.local._nudge_entries import entries_gone

from ._chains import drive, write

ROUNDS = (
    "# the van's rounds\n"
    "rounds:\n"
    "  - name: village\n"
    "    stops:\n"
    "      - The Ship Inn\n"
    "      - Post Office Stores\n"
    "      - St Anne's Church Hall\n"
    "  - name: farms\n"
    "    stops:\n"
    "      - Ellis Farm Shop\n"
)
FILES = {
    "deliveries.yaml": ROUNDS,
    "shelves.json": (
        '{\n  "titles": [\n    "Wolf Hall",\n    "Hamnet",\n    "Small Island"\n  ]\n}\n'
    ),
    "README.md": "The van stops at:\n- Post Office Stores\n",
    "data/stops.csv": "day,stop\n2026-05-01,Post Office Stores\n",
}


@pytest.mark.parametrize(
    ("prompt", "names"),
    [
        (
            "The Post Office Stores has closed down, so the van doesn't need to stop there.",
            ["Post Office Stores"],
        ),
        ("Remove 'Hamnet' from the shelves.", ["Hamnet"]),
        ("Ellis Farm Shop is no longer on the round.", ["Ellis Farm Shop"]),
        ("Take St Anne's Church Hall off the village round.", ["St Anne's Church Hall"]),
        # an article before the name is no part of it
        ("Remove the Post Office Stores stop; the shop shut down.", ["Post Office Stores"]),
        ("Take the Post Office Stores off the van's round.", ["Post Office Stores"]),
        ("So the Bell and Anchor is closed now.", ["Bell and Anchor"]),
        # nothing said gone, something new asked, or a fault told
        ("The Post Office Stores has moved to Fore Street.", []),
        ("How many seats are left in Row A?", []),
        ("Add a stop at the Post Office Stores.", []),
        ("Removing Hamnet fails with an error. Fix it.", []),
    ],
)
def test_the_entries_said_gone_are_read_from_the_request(prompt: str, names: list[str]) -> None:
    assert entries_gone(prompt) == names


@pytest.mark.parametrize("rg", [True, False], ids=["ripgrep", "python"])
def test_the_one_entry_named_is_taken_out_of_its_list(tmp_path: Path, rg: bool) -> None:
    write(tmp_path, FILES)
    prompt = "The Post Office Stores has closed down, so the van doesn't need to stop there."
    made, _ = drive(tmp_path, prompt, rule="entry-gone", rg=rg)
    assert [(name, args.get("path")) for name, args in made] == [
        ("search_text", None),
        ("read_file", "deliveries.yaml"),
        ("edit_file", "deliveries.yaml"),
    ]
    rounds = yaml.safe_load((tmp_path / "deliveries.yaml").read_text())["rounds"]
    assert rounds[0]["stops"] == ["The Ship Inn", "St Anne's Church Hall"]
    assert rounds[1]["stops"] == ["Ellis Farm Shop"]
    assert "\n\n" not in (tmp_path / "deliveries.yaml").read_text()  # no empty line left
    # the prose and the record name it too, and are left
    for path in ("README.md", "data/stops.csv"):
        assert (tmp_path / path).read_text() == FILES[path]


def test_an_element_of_a_json_list_goes_with_its_comma(tmp_path: Path) -> None:
    write(tmp_path, FILES)
    drive(tmp_path, "Remove 'Hamnet' from the kiosk's shelves.", rule="entry-gone")
    titles = json.loads((tmp_path / "shelves.json").read_text())["titles"]
    assert titles == ["Wolf Hall", "Small Island"]
    # the last element has no comma of its own: no line is chosen, the file is left
    before = (tmp_path / "shelves.json").read_text()
    made, _ = drive(tmp_path, "Remove 'Small Island' from the shelves.", rule="entry-gone")
    assert [name for name, _ in made] == ["search_text"]
    assert (tmp_path / "shelves.json").read_text() == before


def test_an_entry_in_two_lists_is_left_to_the_model(tmp_path: Path) -> None:
    write(tmp_path, {"a.yaml": "- Ellis Farm Shop\n- Mill\n", "b.yaml": "- Ellis Farm Shop\n"})
    made, _ = drive(tmp_path, "Ellis Farm Shop is no longer a stop.", rule="entry-gone")
    assert [name for name, _ in made] == ["search_text"]
