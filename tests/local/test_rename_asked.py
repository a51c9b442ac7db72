"""A rename asked in so many words: the search, the reads and the edits the harness writes
itself (the ``rename-asked`` rule), run against real files with the real tools."""

from __future__ import annotations

import functools
import subprocess
import sys
from pathlib import Path

import pytest

from harness.actors.model.local._nudge import known_call, nudge_for
from harness.actors.model.local._renames import asked_rename, named_pair
from harness.actors.model.local._turn import turn_of

from ._chains import TOOLS, history, write
from ._chains import drive as drive_rule

drive = functools.partial(drive_rule, rule="rename-asked")


@pytest.mark.parametrize(
    ("prompt", "rename"),
    [
        ("Rename the method give_back to return_bike, and keep the tests passing.", "give_back"),
        ("Rename slugify to toSlug in src/format.js and src/index.js.", "slugify"),
        ("Rename the shell function rotate_logs to rotate_log_files.", "rotate_logs"),
        ("Can you rename `total` to `subtotal`?", "total"),
        ("Rename House.thirsty to needs_water, and update everything that calls it.", "thirsty"),
        ("Please rename the class Fleet to Depot everywhere.", "Fleet"),
        # "it" is the name said before it (the rule once renamed every "it" in the
        # project's prose to fare_zone)
        (
            "zone_of is a confusing name when Place has a zone of its own. Rename it to "
            "fare_zone everywhere, tests included.",
            "zone_of",
        ),
        ("The `total` helper reads badly; rename it to grand_total.", "total"),
        ("Rename it to fare_zone.", None),
        ("zone_of calls get_place, which is confusing. Rename it to fare_zone.", None),
        ("It reads badly since 2026: rename this to fareZone.", None),
        # a question about a rename, a file's rename, two renames, a rename of words
        ("Why did you rename give_back to return_bike?", None),
        ("Rename notes.txt to todo.txt.", None),
        ("Rename config.json to settings.json", None),
        ("Rename foo_a to foo_b and bar_a to bar_b.", None),
        ("Rename foo_a to foo_b. Then rename bar_a to bar_b.", None),
        ("Rename the shop to Tea Corner.", None),
        ("Rename the shop to tea.", None),
        ("Rename give_back to give_back.", None),
        # a rename said another way: the words are the ask
        ("Please rename the cartTotal function to orderTotal (src/cart.js).", "cartTotal"),
        ("round_money should be called round_cents. Rename it.", "round_money"),
        ("I'd like slugify renamed to toSlug (src/format.js, src/index.js).", "slugify"),
        ("Please call zone_of fare_zone instead, everywhere.", "zone_of"),
        ("cartTotal should be orderTotal everywhere in src/cart.js.", "cartTotal"),
        ("House.thirsty should be named needs_water.", "thirsty"),
        ("rotate_logs in scripts/lib.sh should be renamed to rotate_log_files.", "rotate_logs"),
        ("Change the name cartTotal to orderTotal in src/cart.js.", "cartTotal"),
        ("In src/format.js, swap the name slugify for toSlug.", "slugify"),
        ("Please give the method give_back a better name: return_bike.", "give_back"),
        ("Could round_money become round_cents?", "round_money"),
        ("House.thirsty is now needs_water. Rename it everywhere.", "thirsty"),
        # the kind said after the name; "it" after the one name said before
        ("The give_back method should be renamed return_bike.", "give_back"),
        ("The slugify helper should be renamed to toSlug.", "slugify"),
        ("Please rename our shell function rotate_logs; call it rotate_log_files.", "rotate_logs"),
        ("Please call it rotate_log_files.", None),
        ("rotate_logs and clean_up read badly; call it rotate_log_files.", None),
        # "the function", "a … name" after the one name said before (the rule had searched
        # for every use of "a"); a member's arrow, its owner said again or not
        (
            "Someone took rotate_logs for a variable, so let's give the function a clearer "
            "name: rotate_log_files.",
            "rotate_logs",
        ),
        ("zone_of reads badly, so let's call the function fare_zone instead.", "zone_of"),
        ("zone_of and get_place read badly; call the function fare_zone.", None),
        ("Rename, please:\n- House.thirsty -> House.needs_water (beds.py)", "thirsty"),
        ("House.thirsty → needs_water", "thirsty"),
        ("- [ ] rename House.thirsty to needs_water (beds.py, plan.py)", "thirsty"),
        ("- [x] rename House.thirsty to needs_water", None),  # done already
        # its owner after it; "renaming" asked of someone; "it" or "this" after a name
        # written as only code writes one (a member after its owner, a name called or
        # defined), before a word written as code ("loadX"); no "to" before a code name
        ("Please rename the wet method of Bed to needs_draining.", "wet"),
        ("Please rename the waterlogged method of Bed to needs_draining.", "waterlogged"),
        ("Would you mind renaming fetchRows to loadRows?", "fetchRows"),
        ("Bed.waterlogged reads oddly. Rename it needs_draining, callers too.", "waterlogged"),
        ("I never recall what wet() means; let's rename it on Bed to needs_draining.", "wet"),
        (
            "Review comment:\n\n> function fetchRows(table) {\n\nWe're moving to loadX "
            "names, so please rename this to loadRows.",
            "fetchRows",
        ),
        ("README.md explains it. Rename it to fare_zone.", None),
        ("Bed.wet() and Bed.dry() read badly; rename it to needs_draining.", None),
        ("Would you mind telling me why fetchRows was renamed to loadRows?", None),
        # not a rename: a question, a value, words, two
        ("Why was slugify renamed to toSlug?", None),
        ("Was slugify renamed to toSlug?", None),
        ("log_level should be debug in settings.toml.", None),
        ("The shop should be called Tea Corner.", None),
        ("MAX_RETRIES should be 5.", None),
        ("foo_a should be foo_b and bar_a should be bar_b.", None),
        ("Please call save_file twice.", None),
        ("Could the total become bigger?", None),
        ("The report is now broken.", None),
    ],
)
def test_the_rename_is_read_from_the_request(prompt: str, rename: str | None) -> None:
    asked = asked_rename(prompt)
    assert (asked and asked.old) == rename


FLEET = {
    "fleet.py": (
        "class Fleet:\n"
        "    def __init__(self):\n"
        "        self.out = {}\n"
        "\n"
        "    def lend(self, number, rider):\n"
        "        self.out[number] = rider\n"
        "\n"
        "    def give_back(self, number):\n"
        "        # give_back ends a hire\n"
        "        return self.out.pop(number)\n"
    ),
    "daily.py": (
        "from fleet import Fleet\n"
        "\n"
        "def close_day(fleet, numbers):\n"
        "    return [fleet.give_back(n) for n in numbers]\n"
    ),
    "test_fleet.py": (
        "import unittest\n"
        "\n"
        "from fleet import Fleet\n"
        "\n"
        "\n"
        "class FleetTest(unittest.TestCase):\n"
        "    def test_give_back(self):\n"
        "        fleet = Fleet()\n"
        "        fleet.lend(1, 'ann')\n"
        "        self.assertEqual(fleet.give_back(1), 'ann')\n"
        "        fleet.lend(2, 'bo')\n"
        "        self.assertEqual(fleet.give_back(2), 'bo')\n"
        "        fleet.lend(2, 'bo')\n"
        "        self.assertEqual(fleet.give_back(2), 'bo')\n"
        "\n"
        "\n"
        "if __name__ == '__main__':\n"
        "    unittest.main()\n"
    ),
    "README.md": "Call `Fleet.give_back(number)` when a bike comes back.\n",
    "notes.txt": "to give_backs and forths\n",
}


def test_a_name_said_before_it_is_renamed_and_the_word_it_is_left_alone(tmp_path: Path) -> None:
    places = (
        '"""Where the bus goes: each place and the zone it is in."""\n'
        "\n"
        "ZONES = {'Hollowfield': 1, 'Kelbrook': 3}\n"
        "\n"
        "\n"
        "def zone_of(place):\n"
        "    # it is the fare zone\n"
        "    return ZONES[place]\n"
    )
    fares = "from places import zone_of\n\n\ndef fare(place):\n    return 2 * zone_of(place)\n"
    write(tmp_path, {"places.py": places, "fares.py": fares})
    prompt = (
        "zone_of is a confusing name when Place has a zone of its own. Rename it to "
        "fare_zone everywhere, tests included."
    )
    made, _ = drive(tmp_path, prompt)
    assert made[0] == ("search_text", {"pattern": r"\bzone_of\b", "regex": True})
    assert (tmp_path / "places.py").read_text() == places.replace("zone_of", "fare_zone")
    assert (tmp_path / "fares.py").read_text() == fares.replace("zone_of", "fare_zone")


@pytest.mark.parametrize("rg", [True, False], ids=["ripgrep", "python"])
def test_every_file_using_the_name_is_read_and_renamed_in(tmp_path: Path, rg: bool) -> None:
    write(tmp_path, FLEET)
    made, steps = drive(tmp_path, "Rename the method give_back to return_bike.", rg=rg)
    assert made[0] == ("search_text", {"pattern": r"\bgive_back\b", "regex": True})
    # the calls done, the answer says what they did, with no generation
    assert made[-1] == (
        "answer",
        {
            "text": "Renamed give_back to return_bike in README.md, daily.py, fleet.py and "
            "test_fleet.py."
        },
    )
    made = made[:-1]
    assert [(name, args["path"]) for name, args in made[1:]] == [
        ("read_file", "README.md"),
        ("edit_file", "README.md"),
        ("read_file", "daily.py"),
        ("edit_file", "daily.py"),
        ("read_file", "fleet.py"),
        ("edit_file", "fleet.py"),
        ("read_file", "test_fleet.py"),
        ("edit_file", "test_fleet.py"),
    ]
    # every edit worked; the file with lines that read the same got one edit over them
    assert all(result.startswith("edited ") for name, _, result in steps if name == "edit_file")
    assert "old_text" in made[-1][1]
    for path in ("fleet.py", "daily.py", "test_fleet.py", "README.md"):
        text = (tmp_path / path).read_text()
        assert "give_back" not in text.replace("test_give_back", "")
        assert text == FLEET[path].replace("give_back", "return_bike").replace(
            "test_return_bike", "test_give_back"
        )
    # a word that only holds the name is not it
    assert (tmp_path / "notes.txt").read_text() == FLEET["notes.txt"]
    done = subprocess.run(
        [sys.executable, "-m", "unittest", "-q"], cwd=tmp_path, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr


def test_only_the_files_the_request_names_are_renamed_in(tmp_path: Path) -> None:
    write(tmp_path, FLEET)
    prompt = "Rename give_back to return_bike in fleet.py and daily.py."
    made, _ = drive(tmp_path, prompt)
    assert [args.get("path") for _, args in made[:-1]] == [
        None,
        "daily.py",
        "daily.py",
        "fleet.py",
        "fleet.py",
    ]
    # the answer says where the name is still used: a file the request did not name
    assert made[-1][1]["text"] == (
        "Renamed give_back to return_bike in daily.py and fleet.py. README.md still uses "
        "give_back: Call `Fleet.give_back(number)` when a bike comes back."
    )
    assert "give_back" in (tmp_path / "test_fleet.py").read_text()
    assert "return_bike" in (tmp_path / "fleet.py").read_text()


HOUSE = {
    "beds.py": (
        "class House:\n"
        "    def thirsty(self):\n"
        "        # beds get thirsty in summer\n"
        "        return ['peppers']\n"
    ),
    "plan.py": (
        "def plan(house):\n    thirsty = house.thirsty()\n    return f'thirsty: {thirsty}'\n"
    ),
    "README.md": "Thirsty beds are listed first; House.thirsty() lists them.\n",
}


def test_a_member_named_after_its_owner_is_renamed_where_it_is_that_member(
    tmp_path: Path,
) -> None:
    write(tmp_path, HOUSE)
    prompt = "Rename House.thirsty to needs_water, and update everything that calls it."
    made, steps = drive(tmp_path, prompt)
    assert [args.get("path") for _, args in made] == [
        None,
        "beds.py",
        "beds.py",
        "plan.py",
        "plan.py",
        None,
    ]
    assert made[-1] == (
        "answer",
        {"text": "Renamed thirsty to needs_water in beds.py and plan.py."},
    )
    beds = (tmp_path / "beds.py").read_text()
    assert "    def needs_water(self):\n        # beds get thirsty in summer\n" in beds
    # the local named like the method stays as it is, and prose of a plain word is left
    assert (tmp_path / "plan.py").read_text() == HOUSE["plan.py"].replace(
        "house.thirsty()", "house.needs_water()"
    )
    assert (tmp_path / "README.md").read_text() == HOUSE["README.md"]
    # and finish-rename asks for nothing more: the local's lines are no use of the method
    done = turn_of(tuple(history(prompt, steps)), "Renamed.", TOOLS)
    assert nudge_for(done, ["finish-rename"]) is None


def test_a_request_asking_more_than_the_rename_leaves_the_answer_to_the_model(
    tmp_path: Path,
) -> None:
    write(tmp_path, FLEET)
    for prompt in (
        "Rename the method give_back to return_bike, then run the tests.",
        "Rename the method give_back to return_bike and add a docstring to it.",
        "Rename the method give_back to return_bike. Also bump the version.",
    ):
        made, _ = drive(tmp_path, prompt)
        assert made[-1][0] == "edit_file", prompt
        assert "give_back" not in (tmp_path / "fleet.py").read_text()
        write(tmp_path, FLEET)


def test_the_rule_stops_where_nothing_uses_the_name_or_the_model_went_its_own_way(
    tmp_path: Path,
) -> None:
    write(tmp_path, FLEET)
    made, _ = drive(tmp_path, "Rename the method hand_over to return_bike.")
    assert made == [("search_text", {"pattern": r"\bhand_over\b", "regex": True})]
    # the model searched first, its own way: the rule leaves the turn to it
    made, _ = drive(
        tmp_path,
        "Rename the method give_back to return_bike.",
        [("search_text", {"pattern": "give_back"})],
    )
    assert made == []
    # a read that went wrong stops it too
    prompt = "Rename the method give_back to return_bike."
    steps = [
        ("search_text", {"pattern": r"\bgive_back\b", "regex": True}, "fleet.py:8:x.give_back"),
        ("read_file", {"path": "fleet.py"}, "fleet.py does not exist"),
    ]
    assert known_call(turn_of(tuple(history(prompt, steps)), "", TOOLS)) is None


def test_the_rule_is_off_without_its_tools_or_when_the_profile_turns_it_off(
    tmp_path: Path,
) -> None:
    prompt = "Rename the method give_back to return_bike."
    turn = turn_of(tuple(history(prompt, [])), "", TOOLS)
    assert known_call(turn, ["new-value"]) is None
    no_edit = [t for t in TOOLS if t.name != "edit_file"]
    assert known_call(turn_of(tuple(history(prompt, [])), "", no_edit)) is None
    known = known_call(turn)
    assert known is not None
    assert known.rule == "rename-asked"


@pytest.mark.parametrize(
    ("prompt", "names"),
    [
        (
            "I want round_money to be called round_cents from now on.",
            ("round_money", "round_cents"),
        ),
        ("cartTotal → orderTotal, in src/cart.js please.", ("cartTotal", "orderTotal")),
        ("Rename function cartTotal -> orderTotal (src/cart.js).", ("cartTotal", "orderTotal")),
        ("rotate_logs needs a new name, rotate_log_files.", ("rotate_logs", "rotate_log_files")),
        # the order the request says them in is no clue: the files say which is there now
        ("fare_zone is the name we want for zone_of.", ("fare_zone", "zone_of")),
        # a request to do the rename, put as a question, is no question about one
        (
            "I've settled on a name: orderTotal rather than cartTotal. Could you do the rename?",
            ("orderTotal", "cartTotal"),
        ),
        ("orderTotal or cartTotal: was the name changed?", None),
        # no name spoken of, a question, an error's names, one name or three
        ("Add a function fare_band that calls zone_of.", None),
        ("Why is round_money named round_money and not round_cents?", None),
        ("Which name does cart_total have in src/cart.js, order_total?", None),
        (
            "NameError: name 'FLOW_LITERS' is not defined. Did you mean: 'FLOW_LITRES'?",
            None,
        ),
        ("KeyError: 'wheelchair_spaces' since I renamed something in minibus.toml.", None),
        ("Rename round_money.", None),
        ("Rename a_b -> c_d and e_f.", None),
    ],
)
def test_two_names_said_with_no_word_of_which_is_there_now(
    prompt: str, names: tuple[str, str] | None
) -> None:
    pair = named_pair(prompt)
    assert (pair and (pair.one, pair.other)) == names


def test_of_two_names_the_one_the_files_use_is_renamed_to_the_other(tmp_path: Path) -> None:
    write(tmp_path, FLEET)
    # said new name first: the files use give_back, so give_back is the one renamed
    made, _ = drive(tmp_path, "return_bike is the new name for give_back: rename it.")
    assert made[0] == ("search_text", {"pattern": r"\b(?:return_bike|give_back)\b", "regex": True})
    for path in ("fleet.py", "daily.py"):
        assert (tmp_path / path).read_text() == FLEET[path].replace("give_back", "return_bike")
    assert made[-1][0] == "answer"


@pytest.mark.parametrize(
    "both",
    [
        # both names used: which is there now is not known
        {"extra.py": "def return_bike():\n    pass\n"},
        # neither
        {
            "fleet.py": "class Fleet:\n    pass\n",
            "daily.py": "",
            "test_fleet.py": "",
            "README.md": "",
        },
    ],
    ids=["both-used", "neither-used"],
)
def test_two_names_the_files_both_use_or_neither_are_left_to_the_model(
    tmp_path: Path, both: dict[str, str]
) -> None:
    write(tmp_path, {**FLEET, **both})
    made, _ = drive(tmp_path, "give_back -> return_bike please.")
    assert [name for name, _ in made] == ["search_text"]
    assert (tmp_path / "fleet.py").read_text() == {**FLEET, **both}["fleet.py"]
