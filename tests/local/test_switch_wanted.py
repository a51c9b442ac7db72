"""A setting turned on or off (the ``switch-wanted`` rule), and a line of a JSON, YAML or
TOML file chosen by the keys it sits under (``value-wanted`` and ``switch-wanted``): the
search, the read and the edit the harness writes itself, run against real files with the
real tools."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest
import yaml

from harness.actors.model.local._nudge_switch import wanted_switch
from harness.actors.model.local._settings import key_path

from ._chains import drive, write

CONFIG = {
    "service": "checkout",
    "timeout_seconds": 12,
    "services": {
        "payment": {"url": "https://pay.example/api", "retries": 7},
        "email": {"url": "https://mail.example/send", "retries": 2},
        "stock": {"url": "http://127.0.0.1:9412/stock", "retries": 3},
    },
    "features": {"gift_wrap": True, "express_delivery": False},
}
SETTINGS = (
    "# the back office\n"
    "[app]\n"
    'name = "backoffice"\n'
    "debug = true\n"
    "\n"
    "[stock]\n"
    "low_stock_threshold = 4\n"
    "\n"
    "[tax]\n"
    "rate = 0.2\n"
    "included_in_prices = false\n"
)
DEPLOY = (
    "services:\n"
    "  api:\n"
    "    image: shop/api:4.2.0\n"
    "    replicas: 2\n"
    "  worker:\n"
    "    image: shop/worker:2.14.3\n"
    "    replicas: 2\n"
    "    environment:\n"
    "      LOG_LEVEL: warning\n"
)
FLEET = (
    "from dataclasses import dataclass\n"
    "\n"
    "\n"
    "@dataclass\n"
    "class Boat:\n"
    "    name: str\n"
    "    in_service: bool = True\n"
    "\n"
    "\n"
    "FLEET = [\n"
    '    Boat("Puffin"),\n'
    '    Boat("Dabchick", in_service=False),\n'
    "]\n"
)
SHOP = {
    "config.json": json.dumps(CONFIG, indent=2) + "\n",
    "settings.toml": SETTINGS,
    "deploy.yaml": DEPLOY,
    "fleet.py": FLEET,
    "test_fleet.py": 'laid_up = Boat("Gannet", in_service=False)\n',
    "README.md": "Debug is on: debug = true while we test.\n",
}


def _lines(text: str) -> dict[int, str]:
    return dict(enumerate(text.splitlines(), 1))


def test_a_line_s_keys_are_read_off_the_lines_above_it() -> None:
    config = _lines(SHOP["config.json"])
    email = next(n for n, line in config.items() if '"retries": 2' in line)
    assert key_path(config, email) == ["{", '"services": {', '"email": {']
    assert key_path(_lines(SETTINGS), 11) == ["[tax]"]
    assert key_path(_lines(DEPLOY), 7) == ["services:", "worker:"]
    listed = _lines("messages:\n  - name: hold-ready\n    by: [email, text]\n")
    assert key_path(listed, 3) == ["messages:", "- name: hold-ready"]
    # the top level, a line not shown, and a gap above: nothing known
    assert key_path(config, 1) == []
    assert key_path(config, 999) == []
    assert key_path({5: "    retries: 2"}, 5) == []


@pytest.mark.parametrize(
    ("prompt", "on"),
    [
        ("Turn debug off in settings.toml.", False),
        ("Turn express_delivery on in config.json.", True),
        ("Switch gift wrapping off in the checkout config.", False),
        ("Please disable the cache.", False),
        ("Some members can't read the screen. Put it in high contrast mode.", True),
        # a setting said to say the wrong thing: the other way from the line
        ("Our prices already include tax; the settings say they don't.", None),
        ("She's back. Don't forget the board, it still says she's out of service.", None),
        # the way wanted said last, after a want or a "should be"
        ("config.json has express_delivery turned off. We want it on.", True),
        ("I'd like debug off, please.", False),
        ("Gift wrapping should be switched off now.", False),
        ("Express delivery should be enabled.", True),
        ("The settings claim our prices don't include tax, but they do.", None),
        ("Tax is in our prices. Fix the setting that says otherwise.", None),
        ("Can you switch the kiosk screen to high contrast mode?", True),
        ("The settings think our prices are without tax. Please fix the setting.", None),
        # the word the file writes
        ("Express delivery is live now, so express_delivery should be true.", True),
        ("Set debug to false in settings.toml.", False),
        # the setting and its state said alone, as a to-do list or a commit message does
        ("kiosk/shelves.json: high_contrast on.", True),
        ("settings.toml: debug off, please", False),
        ("gift_wrap off", False),
        # a state said and then not wanted; the state asked for as what it can be
        ("The kiosk is still in high contrast in shelves.json, on; it shouldn't be.", False),
        ("gift_wrap is still set to false in checkout.json. We don't want that.", True),
        ("Staging mustn't run with verbose = true. config.json, please.", False),
        ("express_delivery=false is still in config.json - can it be true?", True),
    ],
)
def test_the_way_a_switch_goes_is_read_from_the_request(prompt: str, on: bool | None) -> None:
    switch = wanted_switch(prompt)
    assert switch is not None
    assert switch.on is on


@pytest.mark.parametrize(
    "prompt",
    [
        "Is debug on in settings.toml?",
        "Turn the lights on and the heating off.",
        "The van doesn't need to stop there any more.",
        "Debug is off and the report fails with an error. Fix it.",
        "Unless I say otherwise, list five boats.",
        "Why is gift wrapping on?",
        # "stop" says no setting: a list to take an entry from as often as a switch
        "Stop sending people a text when their book is ready.",
        # a want that is no way of a setting, a fix of a fault
        "We want to focus on the shop.",
        "I need the report on my desk.",
        "The setting says otherwise but the report crashes. Fix it.",
        "Should debug be true in production?",
        "Is it true that debug is set to true?",
        # a state said of a thing, and two said alone: which one is not known
        "Carry on.",
        "The lights went off.",
        "gift_wrap off\nexpress_delivery off",
        # a state not wanted asked about, or in a question
        "Is debug on? It shouldn't be, I think",
        "Can it be true that debug is on?",
        "Turn debug off, it shouldn't be on and off.",
    ],
)
def test_no_switch_is_read_where_none_is_asked(prompt: str) -> None:
    assert wanted_switch(prompt) is None


@pytest.mark.parametrize("rg", [True, False], ids=["ripgrep", "python"])
def test_the_one_setting_a_switch_speaks_of_is_turned(tmp_path: Path, rg: bool) -> None:
    write(tmp_path, SHOP)
    made, _ = drive(tmp_path, "Turn debug off in settings.toml.", rule="switch-wanted", rg=rg)
    assert [(name, args.get("path")) for name, args in made] == [
        ("search_text", None),
        ("read_file", "settings.toml"),
        ("edit_file", "settings.toml"),
    ]
    assert tomllib.loads((tmp_path / "settings.toml").read_text())["app"]["debug"] is False
    assert (tmp_path / "README.md").read_text() == SHOP["README.md"]  # prose is left
    made, _ = drive(tmp_path, "Turn express_delivery on in config.json.", rule="switch-wanted")
    assert json.loads((tmp_path / "config.json").read_text())["features"] == {
        "gift_wrap": True,
        "express_delivery": True,
    }
    # the request says no way: the line goes the other way from how it is
    prompt = "Our prices already include tax; the back office's settings say they don't."
    drive(tmp_path, prompt, rule="switch-wanted")
    assert tomllib.loads((tmp_path / "settings.toml").read_text())["tax"] == {
        "rate": 0.2,
        "included_in_prices": True,
    }


def test_a_python_argument_is_turned_as_python_writes_it(tmp_path: Path) -> None:
    write(tmp_path, SHOP)
    prompt = "Dabchick can be booked again; the fleet still says she's out of service."
    # then the search for a list still naming her (still-listed), which finds none here
    made, _ = drive(tmp_path, prompt, rule=("switch-wanted", "still-listed"))
    assert [name for name, _ in made] == ["search_text", "read_file", "edit_file", "search_text"]
    assert made[2] == (
        "edit_file",
        {
            "path": "fleet.py",
            "old_text": '    Boat("Dabchick", in_service=False),',
            "new_text": '    Boat("Dabchick", in_service=True),',
        },
    )
    # the class's default shares fewer words; the test is a record of its own
    assert "in_service: bool = True" in (tmp_path / "fleet.py").read_text()
    assert (tmp_path / "test_fleet.py").read_text() == SHOP["test_fleet.py"]


def test_a_switch_already_as_asked_or_two_alike_leave_it_to_the_model(tmp_path: Path) -> None:
    write(tmp_path, SHOP)
    made, _ = drive(tmp_path, "Turn gift_wrap on in config.json.", rule="switch-wanted")
    assert [name for name, _ in made] == ["search_text"]  # it is on already
    write(tmp_path, {"a.toml": "debug = true\n", "b.toml": "debug = true\n"})
    made, _ = drive(tmp_path, "Turn debug off in a.toml and b.toml.", rule="switch-wanted")
    assert [name for name, _ in made] == ["search_text"]
    assert "true" in (tmp_path / "a.toml").read_text()


def _retries(root: Path) -> list[int]:
    """The payment, email and stock services' retries in config.json."""
    services = json.loads((root / "config.json").read_text())["services"]
    return [services[s]["retries"] for s in ("payment", "email", "stock")]


CHAIN = [("search_text", None), ("read_file", "config.json"), ("edit_file", "config.json")]


@pytest.mark.parametrize("rg", [True, False], ids=["ripgrep", "python"])
def test_lines_alike_in_one_file_are_told_apart_by_the_keys_above_them(
    tmp_path: Path, rg: bool
) -> None:
    write(tmp_path, SHOP)
    prompt = "Set the email service's retries in config.json to 4."
    made, _ = drive(tmp_path, prompt, rule="value-wanted", rg=rg)
    assert [(name, args.get("path")) for name, args in made] == CHAIN
    assert _retries(tmp_path) == [7, 4, 3]
    # a count of tries said as "tried", under the service it names
    prompt = "Calls from the checkout to the stock service should be tried 5 times."
    drive(tmp_path, prompt, rule="value-wanted", rg=rg)
    assert _retries(tmp_path) == [7, 4, 5]


@pytest.mark.parametrize("rg", [True, False], ids=["ripgrep", "python"])
def test_lines_that_tie_in_two_files_are_told_apart_by_the_keys_of_the_one_nesting_them(
    tmp_path: Path, rg: bool
) -> None:
    # "retries" is on three lines of config.json, "stock" on settings.toml's
    # low_stock_threshold and inventory.py's LOW_STOCK_THRESHOLD: one word each. The
    # JSON file's lines sit under keys, so it is read; the TOML file's line sits at its
    # table's top and the Python module is no file of keys, so neither is read
    write(tmp_path, SHOP)
    write(tmp_path, {"inventory.py": "LOW_STOCK_THRESHOLD = 4\n"})
    prompt = "Please set the stock service retries to 5 for checkout calls."
    made, _ = drive(tmp_path, prompt, rule="value-wanted", rg=rg)
    assert [(name, args.get("path")) for name, args in made] == CHAIN
    assert _retries(tmp_path) == [7, 2, 5]
    # a retry said in the singular finds the plural's lines ("retry", "retries")
    write(tmp_path, SHOP)
    prompt = "The checkout should retry the stock service 6 times, not 3."
    made, _ = drive(tmp_path, prompt, rule="new-value", rg=rg)
    assert made[-1][0] == "edit_file"
    assert _retries(tmp_path) == [7, 2, 6]


def test_a_one_given_to_the_name_a_request_says_is_a_setting(tmp_path: Path) -> None:
    # ``replicas: 1`` of the worker: 0 and 1 are no setting on a line of their own, but
    # a line that only gives one to a name the request says ("replicas") is one; the
    # worker's keys above it tell it from settings.toml's ``workers = 3``
    write(
        tmp_path,
        {
            "deploy.yaml": (
                "services:\n  api:\n    image: shop/api:4.2.0\n    replicas: 2\n"
                "  worker:\n    image: shop/worker:2.14.3\n    replicas: 1\n"
            ),
            "settings.toml": "[server]\nport = 9412\nworkers = 3\n",
        },
    )
    made, _ = drive(tmp_path, "Scale the worker up to 2 replicas.", rule="value-wanted")
    assert made[-1][0] == "edit_file"
    services = yaml.safe_load((tmp_path / "deploy.yaml").read_text())["services"]
    assert (services["api"]["replicas"], services["worker"]["replicas"]) == (2, 2)
    assert "workers = 3" in (tmp_path / "settings.toml").read_text()
    # a count kept by a program is no setting: ``{ orders += 1 }``
    write(tmp_path, {"tally.sh": "awk '{ orders += 1 } END { print orders }'\n"})
    made, _ = drive(tmp_path, "Set the orders to 5 in tally.sh.", rule="value-wanted")
    assert [name for name, _ in made] == ["search_text"]


def test_a_line_the_file_holds_twice_is_edited_with_the_line_above_it(tmp_path: Path) -> None:
    write(tmp_path, SHOP)
    made, _ = drive(tmp_path, "Set the worker's replicas in deploy.yaml to 3.", rule="value-wanted")
    assert made[-1] == (
        "edit_file",
        {
            "path": "deploy.yaml",
            "old_text": "    image: shop/worker:2.14.3\n    replicas: 2",
            "new_text": "    image: shop/worker:2.14.3\n    replicas: 3",
        },
    )
    services = yaml.safe_load((tmp_path / "deploy.yaml").read_text())["services"]
    assert (services["api"]["replicas"], services["worker"]["replicas"]) == (2, 3)


def test_keys_that_do_not_tell_the_lines_apart_leave_it_to_the_model(tmp_path: Path) -> None:
    write(tmp_path, SHOP)
    made, _ = drive(tmp_path, "Set the retries in config.json to 4.", rule="value-wanted")
    assert [name for name, _ in made] == ["search_text", "read_file"]
    assert json.loads((tmp_path / "config.json").read_text()) == CONFIG
