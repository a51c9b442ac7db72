"""A tiny model with the default model's tokenizer, written at test time.

Tests of the embedded model's mechanics (reading a prompt in batches, saving and loading
the prompt state, cancelling, streaming, the call grammar) do not depend on what the model
says, only on the runtime running a real model with the real tokenizer and chat template.
:func:`write_tiny` copies every ``tokenizer.*`` key of the default model's GGUF file into a
new file of the same architecture with tiny dimensions and seeded random weights: it loads
in a fraction of a second and reads a thousand-token prompt in milliseconds, where the
default model takes seconds. Its replies are noise, so the tests that use it bound every
generation themselves (``max_tokens``, a grammar) and never read its words.
"""

from __future__ import annotations

import mmap
import struct
from pathlib import Path
from typing import Any

import numpy as np
from gguf import GGUFValueType, GGUFWriter

__all__ = ["TINY", "write_tiny"]

TINY = {"layers": 2, "embedding": 64, "heads": 4, "kv_heads": 2, "feed_forward": 128}
"""The tiny model's dimensions (the default model: 28 layers, 1536, 12 heads, 2, 8960)."""

_ARCH = "qwen2"


_SCALARS = {
    GGUFValueType.UINT8: "<B",
    GGUFValueType.INT8: "<b",
    GGUFValueType.UINT16: "<H",
    GGUFValueType.INT16: "<h",
    GGUFValueType.UINT32: "<I",
    GGUFValueType.INT32: "<i",
    GGUFValueType.FLOAT32: "<f",
    GGUFValueType.BOOL: "<?",
    GGUFValueType.UINT64: "<Q",
    GGUFValueType.INT64: "<q",
    GGUFValueType.FLOAT64: "<d",
}


class _Header:
    """The key-value header of a GGUF file, read with ``struct``: ``gguf.GGUFReader``
    builds a numpy view per element, which for the 300,000 strings of the tokenizer takes
    nearly a minute on two cores; this reads them in about a second."""

    def __init__(self, data: bytes | mmap.mmap) -> None:
        self._data = data
        self._at = 0
        if self._take(4) != b"GGUF":
            raise ValueError("not a GGUF file")
        self._unpack("<I")  # version
        self._unpack("<Q")  # tensor count
        self.fields: dict[str, tuple[Any, GGUFValueType, GGUFValueType | None]] = {}
        for _ in range(self._unpack("<Q")):
            key = self._string()
            kind = GGUFValueType(self._unpack("<I"))
            if kind == GGUFValueType.ARRAY:
                sub = GGUFValueType(self._unpack("<I"))
                items = [self._value(sub) for _ in range(self._unpack("<Q"))]
                self.fields[key] = (items, kind, sub)
            else:
                self.fields[key] = (self._value(kind), kind, None)

    def _take(self, n: int) -> bytes:
        chunk = self._data[self._at : self._at + n]
        self._at += n
        return bytes(chunk)

    def _unpack(self, fmt: str) -> Any:
        (value,) = struct.unpack_from(fmt, self._data, self._at)
        self._at += struct.calcsize(fmt)
        return value

    def _string(self) -> str:
        return self._take(self._unpack("<Q")).decode("utf-8")

    def _value(self, kind: GGUFValueType) -> Any:
        if kind == GGUFValueType.STRING:
            return self._string()
        if kind in _SCALARS:
            return self._unpack(_SCALARS[kind])
        raise ValueError(f"unexpected GGUF value type {kind.name}")


def _successors(
    embedding: np.ndarray, fields: dict[str, tuple[Any, Any, Any]], rng: np.random.Generator
) -> np.ndarray:
    """The output table: the row of token ``next[t]`` is the embedding of ``t``, where
    ``next`` walks one random cycle through every ordinary token; the rows of special
    tokens (end of turn, tool-call tags) are zero, so their logit is never the largest."""
    kinds = np.asarray(fields["tokenizer.ggml.token_type"][0])
    ordinary = np.flatnonzero(kinds == 1)  # llama.cpp's NORMAL
    order = rng.permutation(ordinary)
    out = np.zeros_like(embedding)
    out[np.roll(order, -1)] = embedding[order]
    return out


def write_tiny(source: Path, dest: Path, seed: int = 0) -> Path:
    """Write at *dest* a tiny ``qwen2`` model with the tokenizer and chat template of the
    GGUF file *source*, its weights drawn from a generator seeded with *seed*.

    The layers are small beside the embedding, so what comes out of them is close to the
    current token's embedding; the output layer (see :func:`_successors`) turns that into
    the next token of one long random cycle through the ordinary tokens. Greedy decoding
    therefore rambles without repeating itself and never writes a special token (no end
    of turn, no ``<tool_call>``) unless a grammar forces one. The file is about 40 MB,
    nearly all of it the two 151,936-row tables.
    """
    with source.open("rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as data:
        fields = _Header(data).fields
    arch = fields["general.architecture"][0]
    if arch != _ARCH:
        raise ValueError(f"{source.name} is a {arch} model; the tiny model copies {_ARCH}")
    vocab = len(fields["tokenizer.ggml.tokens"][0])
    embd, ff = TINY["embedding"], TINY["feed_forward"]
    head_dim = embd // TINY["heads"]
    kv = head_dim * TINY["kv_heads"]
    rng = np.random.default_rng(seed)

    def weights(*shape: int, scale: float = 0.5) -> np.ndarray:
        # numpy order (rows = outputs); large enough that the logits differ token by token
        return (rng.standard_normal(shape) * scale / np.sqrt(shape[-1])).astype(np.float32)

    writer = GGUFWriter(dest, _ARCH)
    writer.add_name("harness tiny test model")
    writer.add_context_length(fields[f"{_ARCH}.context_length"][0])
    writer.add_embedding_length(embd)
    writer.add_block_count(TINY["layers"])
    writer.add_feed_forward_length(ff)
    writer.add_head_count(TINY["heads"])
    writer.add_head_count_kv(TINY["kv_heads"])
    writer.add_rope_freq_base(fields[f"{_ARCH}.rope.freq_base"][0])
    writer.add_layer_norm_rms_eps(1e-6)
    writer.add_file_type(1)  # mostly F16: the embedding
    for key, (value, kind, sub) in fields.items():
        if key.startswith("tokenizer."):
            writer.add_key_value(key, value, kind, sub)

    embedding = rng.standard_normal((vocab, embd)).astype(np.float16)
    writer.add_tensor("token_embd.weight", embedding)
    writer.add_tensor("output.weight", _successors(embedding, fields, rng))
    writer.add_tensor("output_norm.weight", np.ones(embd, dtype=np.float32))
    for n in range(TINY["layers"]):
        blk = f"blk.{n}"
        writer.add_tensor(f"{blk}.attn_norm.weight", np.ones(embd, dtype=np.float32))
        writer.add_tensor(f"{blk}.attn_q.weight", weights(embd, embd))
        writer.add_tensor(f"{blk}.attn_q.bias", np.zeros(embd, dtype=np.float32))
        writer.add_tensor(f"{blk}.attn_k.weight", weights(kv, embd))
        writer.add_tensor(f"{blk}.attn_k.bias", np.zeros(kv, dtype=np.float32))
        writer.add_tensor(f"{blk}.attn_v.weight", weights(kv, embd))
        writer.add_tensor(f"{blk}.attn_v.bias", np.zeros(kv, dtype=np.float32))
        writer.add_tensor(f"{blk}.attn_output.weight", weights(embd, embd))
        writer.add_tensor(f"{blk}.ffn_norm.weight", np.ones(embd, dtype=np.float32))
        writer.add_tensor(f"{blk}.ffn_gate.weight", weights(ff, embd))
        writer.add_tensor(f"{blk}.ffn_up.weight", weights(ff, embd))
        writer.add_tensor(f"{blk}.ffn_down.weight", weights(embd, ff))
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return dest
