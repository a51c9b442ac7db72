"""Driving a coroutine by hand: :func:`until_it_blocks`."""

from __future__ import annotations

import types
from collections.abc import Callable, Coroutine, Generator
from typing import Any, TypeVar

__all__ = ["until_it_blocks"]

T = TypeVar("T")


@types.coroutine
def until_it_blocks(
    coro: Coroutine[Any, Any, T], on_block: Callable[[], None]
) -> Generator[Any, Any, T]:
    """Await *coro*, calling *on_block* just before it first gives up the CPU.

    The same delegation ``await`` does, with one hook: a handler that answers
    without waiting for anything never pays for handing the socket to another
    lane, and one that waits hands it over before anyone could need it.
    """
    try:
        trap = coro.send(None)
    except StopIteration as done:
        return done.value  # type: ignore[no-any-return]
    on_block()
    while True:
        try:
            sent = yield trap
        except BaseException as exc:
            try:
                trap = coro.throw(exc)
            except StopIteration as done:
                return done.value  # type: ignore[no-any-return]
        else:
            try:
                trap = coro.send(sent)
            except StopIteration as done:
                return done.value  # type: ignore[no-any-return]
