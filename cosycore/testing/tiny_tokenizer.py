"""A small but real Qwen2-style tokenizer folder, for tests (the real vocabulary is not shipped).

:func:`write_tiny_qwen_tokenizer` trains a byte-level BPE with the ``tokenizers`` trainer on a short
English + Chinese corpus, using the same NFC normaliser and Qwen2 split regex as the loader, and
writes it in the release layout: ``vocab.json`` (the 256 byte symbols and the learned tokens at low
ids), ``merges.txt`` and ``tokenizer_config.json``. The config declares ``<|endoftext|>``,
``<|im_start|>`` and ``<|im_end|>`` at their real ids 151643-151645, so the id space is sparse and
every CosyVoice special token lands on the id it has with the real files. The files are a few KB.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from pathlib import Path

from ..frontend.tokenizer import QWEN2_SPLIT_REGEX, QWEN_BASE_SPECIALS

logger = logging.getLogger(__name__)

# A few lines in both languages the tests speak; repeated so that common pieces get merged.
TINY_CORPUS: tuple[str, ...] = (
    "Hello world. This is a small test of the text tokenizer.",
    "The quick brown fox jumps over the lazy dog, and then it runs away!",
    "Speech synthesis turns written text into natural sounding audio.",
    "Please say a sentence as loudly as possible. Please say it in a very soft voice.",
    "It is ten thirty in the morning, and the temperature is three degrees.",
    "We paid three dollars and fifty cents for the coffee on March fifth.",
    "Where are you going? I am going home, because it is getting late.",
    "收到朋友从远方寄来的生日礼物，那份意外的惊喜让我心中充满了甜蜜的快乐。",
    "今天天气很好，我们一起去公园散步吧。",
    "希望你以后能够做的比我还好呦。",
    "请用四川话表达。请非常开心地说一句话。",
    "温度是负三点五度，二零二四年三月五日。",
    "你好，世界！这是一个简单的测试。",
)

TINY_VOCAB_SIZE = 700  # byte alphabet (256) plus learned merges


def _corpus(repeats: int = 3) -> Iterator[str]:
    for _ in range(repeats):
        yield from TINY_CORPUS


def train_tiny_bpe(vocab_size: int = TINY_VOCAB_SIZE) -> tuple[dict[str, int], list[tuple[str, str]]]:
    """Learn a byte-level BPE on :data:`TINY_CORPUS`; returns (vocab, ranked merges)."""
    from tokenizers import Regex, Tokenizer, models, normalizers, pre_tokenizers, trainers

    tok = Tokenizer(models.BPE())
    tok.normalizer = normalizers.NFC()
    tok.pre_tokenizer = pre_tokenizers.Sequence(
        [
            pre_tokenizers.Split(Regex(QWEN2_SPLIT_REGEX), behavior="isolated", invert=False),
            pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
        ]
    )
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        min_frequency=2,
        show_progress=False,
        special_tokens=[],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
    )
    tok.train_from_iterator(_corpus(), trainer=trainer)
    model = json.loads(tok.to_str())["model"]
    merges = [tuple(m.split(" ", 1)) if isinstance(m, str) else tuple(m) for m in model["merges"]]
    return dict(model["vocab"]), [(a, b) for a, b in merges]


def tiny_tokenizer_config() -> dict[str, object]:
    """A ``tokenizer_config.json`` shaped like Qwen2's, declaring its three specials."""
    return {
        "add_prefix_space": False,
        "added_tokens_decoder": {
            str(i): {
                "content": content,
                "lstrip": False,
                "normalized": False,
                "rstrip": False,
                "single_word": False,
                "special": True,
            }
            for content, i in QWEN_BASE_SPECIALS
        },
        "additional_special_tokens": ["<|im_start|>", "<|im_end|>"],
        "bos_token": None,
        "clean_up_tokenization_spaces": False,
        "eos_token": "<|endoftext|>",
        "errors": "replace",
        "model_max_length": 32768,
        "pad_token": "<|endoftext|>",
        "split_special_tokens": False,
        "tokenizer_class": "Qwen2Tokenizer",
        "unk_token": None,
    }


def write_tiny_qwen_tokenizer(dst_dir: Path) -> Path:
    """Write ``vocab.json``, ``merges.txt`` and ``tokenizer_config.json`` into ``dst_dir``."""
    dst_dir = Path(dst_dir)
    dst_dir.mkdir(parents=True, exist_ok=True)
    vocab, merges = train_tiny_bpe()
    ordered = dict(sorted(vocab.items(), key=lambda kv: kv[1]))
    (dst_dir / "vocab.json").write_text(json.dumps(ordered, ensure_ascii=False), encoding="utf-8")
    lines = ["#version: 0.2", *(f"{a} {b}" for a, b in merges)]
    (dst_dir / "merges.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (dst_dir / "tokenizer_config.json").write_text(
        json.dumps(tiny_tokenizer_config(), ensure_ascii=False, indent=2), encoding="utf-8"
    )
    logger.debug("wrote a tiny tokenizer (%d tokens, %d merges) to %s", len(vocab), len(merges), dst_dir)
    return dst_dir
