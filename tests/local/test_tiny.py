"""The tiny test model (``_tiny.py``) reads prompts exactly as the default model does:
the same tokens, the same chat template, the same special tokens; only its weights are
noise, and its greedy replies never end by themselves."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest

from harness.actors.model.local._engine import LoadedModel

TEXT = (
    "<|im_start|>system\nYou help with code.<|im_end|>\n<|im_start|>user\n"
    'Fix calc.py — «naïve» 東京 🙂\n<tool_call>{"name": "read_file"}</tool_call><|im_end|>\n'
)


@pytest.fixture(scope="module")
def default_vocab(default_model_path: Path) -> Any:
    """The default model's tokenizer alone (no weights: milliseconds, not seconds)."""
    import llama_cpp

    return llama_cpp.Llama(model_path=str(default_model_path), vocab_only=True, verbose=False)


def test_the_tiny_model_tokenizes_and_templates_as_the_default_model(
    tiny_model: LoadedModel, default_vocab: Any
) -> None:
    tokens = tiny_model.tokenize(TEXT)
    assert tokens == list(default_vocab.tokenize(TEXT.encode(), add_bos=False, special=True))
    assert len(tokens) > 30
    assert (
        tiny_model.llama.metadata["tokenizer.chat_template"]
        == (default_vocab.metadata["tokenizer.chat_template"])
    )
    assert tiny_model.llama.n_vocab() == default_vocab.n_vocab()
    assert tiny_model.llama.token_eos() == default_vocab.token_eos()


def test_its_greedy_replies_ramble_to_the_limit_without_special_tokens(
    tiny_model: LoadedModel,
) -> None:
    ask = [{"role": "user", "content": "Say hi."}]
    pieces: list[str] = []
    got = tiny_model.generate(ask, pieces.append, threading.Event(), max_tokens=64)
    assert got.finish_reason == "length"
    assert got.completion_tokens == 64
    text = "".join(pieces)
    assert "<|im_end|>" not in text
    assert "<tool_call>" not in text
    assert len(set(pieces)) > 32  # not a loop of a few tokens
