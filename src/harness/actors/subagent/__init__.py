"""The sub-agent runner: ``python -m harness.actors.subagent``.

One process per sub-agent, a temporary child of the supervisor: it runs one
task as a conversation of its own (:func:`harness.conversation.run_subagent`)
and answers with its report. Its model and tool calls travel to the parent,
which decides and runs them; the process holds no key and no rule.
"""

__all__ = ["MODULE"]

#: The module the supervisor runs for each sub-agent.
MODULE = "harness.actors.subagent"
