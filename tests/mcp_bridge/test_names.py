"""Every MCP tool keeps a table name of its own, with a warning when it had to change."""

from __future__ import annotations

from harness.actors.mcp import ToolNames, tool_name


def test_server_a__b_tool_c_and_server_a_tool_b__c_both_keep_a_name() -> None:
    names = ToolNames()
    a, warned = names.assign("a", ["b__c"])
    assert a == {"b__c": "mcp__a__b__c"}
    assert warned == []
    ab, warned = names.assign("a__b", ["c"])
    assert ab == {"c": "mcp__a__b__c_2"}
    assert warned == [
        "MCP server a__b's tool 'c' is offered as mcp__a__b__c_2: mcp__a__b__c is already "
        "server a's tool 'b__c'"
    ]
    assert names.holder("mcp__a__b__c") == ("a", "b__c")
    assert names.holder("mcp__a__b__c_2") == ("a__b", "c")


def test_x_y_and_x_dot_y_of_one_server() -> None:
    got, warned = ToolNames().assign("s", ["x_y", "x.y"])
    assert got == {"x_y": "mcp__s__x_y", "x.y": "mcp__s__x_y_2"}
    assert len(warned) == 1


def test_names_held_stay_while_offered_and_are_released_after() -> None:
    names = ToolNames()
    names.assign("a", ["b__c"])
    names.assign("a__b", ["c", "d"])
    # the list of a__b changes: its tools keep their names, without a new warning
    again, warned = names.assign("a__b", ["d", "c", "e"])
    assert again == {"d": "mcp__a__b__d", "c": "mcp__a__b__c_2", "e": "mcp__a__b__e"}
    assert warned == []
    names.release("a")
    assert names.holder("mcp__a__b__c") is None
    # a tool that comes back takes the name that is free now
    names.release("a__b")
    got, warned = names.assign("a__b", ["c"])
    assert got == {"c": "mcp__a__b__c"}
    assert warned == []


def test_long_names_cut_at_64_differ_in_their_suffix() -> None:
    long = "t" * 80
    got, warned = ToolNames().assign("s", [long + "1", long + "2", long + "3"])
    assert len(set(got.values())) == 3
    assert all(len(n) <= 64 for n in got.values())
    assert got[long + "1"] == tool_name("s", long)
    assert got[long + "3"].endswith("_3")
    assert len(warned) == 2
