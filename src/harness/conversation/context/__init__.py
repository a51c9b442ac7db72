"""What a model request carries of the history, as one concern.

:class:`ContextShaper` is the loop's request shaper: it chooses older turns by meaning
(:class:`Recall`, when an embedding model is named) or summarises the older history
when the budget says so (compaction), with the working memory
(:class:`WorkingMemoryKeeper`) after each summary. :func:`ask_window` asks an Ollama
server for its model's window. The loop is handed the shaper; it imports nothing here.
"""

from harness.conversation.context._bounds import bound
from harness.conversation.context._recall import EMBED_TIMEOUT, Recall
from harness.conversation.context._recall_index import INDEX_FILE
from harness.conversation.context._shaper import ContextShaper
from harness.conversation.context._window import ask_window
from harness.conversation.context._workmem import (
    MEMORY_FILE,
    UPDATE_TIMEOUT,
    WorkingMemoryKeeper,
)

__all__ = [
    "EMBED_TIMEOUT",
    "INDEX_FILE",
    "MEMORY_FILE",
    "UPDATE_TIMEOUT",
    "ContextShaper",
    "Recall",
    "WorkingMemoryKeeper",
    "ask_window",
    "bound",
]
