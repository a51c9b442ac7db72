"""Run strategies: ways to run one prompt other than as one run of the loop.

A strategy is a :class:`~harness.conversation._ports.RunStrategy`, handed to the loop
by the composition root (``open_session``). The one there is, deepthink
(:func:`run_stages`), runs
a prompt as five stages of one conversation: plan and check with the changing tools
switched off, then implement, review (handed the real diff) and verify.
"""

from harness.conversation.strategies._deepthink import (
    NOTHING_TO_BUILD,
    STAGES,
    StagePolicy,
    run_stages,
)

__all__ = ["NOTHING_TO_BUILD", "STAGES", "StagePolicy", "run_stages"]
