"""The fresh task set of ``python -m bench local-tasks`` (issue 37): 305 tasks of eight kinds,
written after the first eleven and sharing nothing with them: 137 on one small shop's files
(:mod:`bench._local_shop`), 24 on a bike-rental station's (:mod:`bench._local_bikes`), 24
on a greenhouse watering controller's (:mod:`bench._local_greenhouse`), 24 on a
community library's lending desk (:mod:`bench._local_library`), 24 on a village bakery's
order book and oven (:mod:`bench._local_bakery`), 24 on a sailing club's boat
bookings and tide board (:mod:`bench._local_sailing`), 24 on a small theatre's box
office (:mod:`bench._local_theatre`), and 24 on a village community minibus's bookings,
rota and timetable screen (:mod:`bench._local_minibus`), projects none of the rules was
made on.

The set is split in two by a fixed hash of each task's name (:attr:`Task.half`): rules and
prompts are designed and tuned on half A only, and a change is kept only if it does not
lose on half B. The bench prints both halves.
"""

from __future__ import annotations

from bench._local_fresh_ask import ASK_TASKS, LATER_ASK_TASKS, THIRD_ASK_TASKS
from bench._local_fresh_change import CHANGE_TASKS, LATER_CHANGE_TASKS, THIRD_CHANGE_TASKS
from bench._local_fresh_eighth import EIGHTH
from bench._local_fresh_eleventh import ELEVENTH
from bench._local_fresh_fifth import FIFTH
from bench._local_fresh_fourth import FOURTH
from bench._local_fresh_ninth import NINTH
from bench._local_fresh_seventh import SEVENTH
from bench._local_fresh_sixth import SIXTH
from bench._local_fresh_tenth import TENTH
from bench._local_fresh_twelfth import TWELFTH
from bench._local_task import Task

#: The 36 tasks written on 2026-12-04, after the rules, in two batches (the second after
#: the first's half-A failures were answered): part of the set, and runnable alone
#: (``BENCH_SET=later``).
LATER: tuple[Task, ...] = (*LATER_ASK_TASKS, *LATER_CHANGE_TASKS)
#: The 18 tasks of a third batch, written a session later, after those two batches'
#: rules and before any run of them (``BENCH_SET=third``).
THIRD: tuple[Task, ...] = (*THIRD_ASK_TASKS, *THIRD_CHANGE_TASKS)
#: The 19 tasks of a fourth batch, written after the tenth round's rules and before any
#: run of them (``BENCH_SET=fourth``; :mod:`bench._local_fresh_fourth`), and the 20 of a
#: fifth, written after the eleventh round's (``BENCH_SET=fifth``;
#: :mod:`bench._local_fresh_fifth`); the 24 of a sixth, on the bike station, written after
#: the thirteenth round's (``BENCH_SET=sixth``; :mod:`bench._local_fresh_sixth`); the 24
#: of a seventh, on the greenhouse, written after the sixth batch's rules
#: (``BENCH_SET=seventh``; :mod:`bench._local_fresh_seventh`); the 24 of an eighth, on the
#: library's lending desk, written after the seventh batch's rules (``BENCH_SET=eighth``;
#: :mod:`bench._local_fresh_eighth`); the 24 of a ninth, on a village bakery, written before
#: any run by a hand that had not read the rules (``BENCH_SET=ninth``;
#: :mod:`bench._local_fresh_ninth`); the 24 of a tenth, on a sailing club, written the same
#: way (``BENCH_SET=tenth``; :mod:`bench._local_fresh_tenth`); the 24 of an eleventh, on a
#: theatre's box office, written the same way (``BENCH_SET=eleventh``;
#: :mod:`bench._local_fresh_eleventh`); the 24 of a twelfth, on a village community
#: minibus, written the same way (``BENCH_SET=twelfth``; :mod:`bench._local_fresh_twelfth`).
FRESH: tuple[Task, ...] = (
    *ASK_TASKS,
    *CHANGE_TASKS,
    *LATER,
    *THIRD,
    *FOURTH,
    *FIFTH,
    *SIXTH,
    *SEVENTH,
    *EIGHTH,
    *NINTH,
    *TENTH,
    *ELEVENTH,
    *TWELFTH,
)

__all__ = [
    "EIGHTH",
    "ELEVENTH",
    "FIFTH",
    "FOURTH",
    "FRESH",
    "LATER",
    "NINTH",
    "SEVENTH",
    "SIXTH",
    "TENTH",
    "THIRD",
    "TWELFTH",
    "half",
]


def half(name: str) -> tuple[Task, ...]:
    """The tasks of half *name* (``A`` or ``B``)."""
    return tuple(t for t in FRESH if t.half == name)
