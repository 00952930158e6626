"""Text tokenizer: Qwen2 byte-level BPE plus the CosyVoice special tokens.

The release ships ``CosyVoice-BlankEN/`` with ``vocab.json``, ``merges.txt`` and
``tokenizer_config.json`` (no ``tokenizer.json``). :class:`TextTokenizer` builds the equivalent of
Qwen2's fast tokenizer from those files with the ``tokenizers`` library (NFC normaliser, Qwen2's
split regex, byte-level mapping without prefix space, no post-processing template, so no BOS/EOS),
then adds the CosyVoice special tokens. Their ids depend only on the order of the lists below
(spec: llm-frontend-orchestration.md §4.1): the three Qwen specials keep 151643-151645, every new
token takes the next free id in list order, tokens that already exist are skipped.

Special tokens are matched on the raw text, before NFC, so ``[ǐ]`` must arrive precomposed; the text
frontend NFC-normalises its input for that reason.

A :class:`TextTokenizer` is immutable after construction and safe to share between threads for
encoding; :func:`get_text_tokenizer` caches one per folder and version.
"""

from __future__ import annotations

import functools
import json
import logging
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Literal

from ..errors import ConfigError, ModelNotFoundError
from ..safety import UnsafeFileError, loads_strict_json, read_text_file

if TYPE_CHECKING:  # pragma: no cover - typing only
    from tokenizers import Tokenizer

logger = logging.getLogger(__name__)

TokenizerVersion = Literal["cosyvoice2", "cosyvoice3"]
VERSIONS: tuple[TokenizerVersion, ...] = ("cosyvoice2", "cosyvoice3")

# --------------------------------------------------------------------------------------------
# Special-token lists (data from the spec, §4.1; the order defines the ids)
# --------------------------------------------------------------------------------------------

ENDOFTEXT = "<|endoftext|>"
IM_START = "<|im_start|>"
IM_END = "<|im_end|>"
ENDOFPROMPT = "<|endofprompt|>"
ENDOFSYSTEM = "<|endofsystem|>"

# The Qwen2 base vocabulary: 151643 BPE ids, then these three specials.
QWEN_BASE_BPE_SIZE = 151643
QWEN_BASE_SPECIALS: tuple[tuple[str, int], ...] = (
    (ENDOFTEXT, 151643),
    (IM_START, 151644),
    (IM_END, 151645),
)

PARALINGUISTIC_TOKENS: tuple[str, ...] = (
    "[breath]",
    "<strong>",
    "</strong>",
    "[noise]",
    "[laughter]",
    "[cough]",
    "[clucking]",
    "[accent]",
    "[quick_breath]",
    "<laughter>",
    "</laughter>",
    "[hissing]",
    "[sigh]",
    "[vocalized-noise]",
    "[lipsmack]",
    "[mn]",
)

# CMU ARPAbet phones (84), in the source order.
ARPABET_PHONES: tuple[str, ...] = tuple(
    """
    AA AA0 AA1 AA2 AE AE0 AE1 AE2 AH AH0 AH1 AH2 AO AO0 AO1 AO2 AW AW0 AW1 AW2 AY AY0
    AY1 AY2 B CH D DH EH EH0 EH1 EH2 ER ER0 ER1 ER2 EY EY0 EY1 EY2 F G HH IH IH0 IH1 IH2 IY IY0 IY1 IY2 JH K L
    M N NG OW OW0 OW1 OW2 OY OY0 OY1 OY2 P R S SH T TH UH UH0 UH1 UH2 UW UW0 UW1 UW2 V W Y Z ZH
    """.split()  # noqa: SIM905 - kept as the spec writes it
)

# Pinyin initials and tone-marked finals (176), in the source order, precomposed (NFC).
PINYIN_PHONES: tuple[str, ...] = tuple(
    """
    a ai an ang ao b c ch d e ei en eng f g h i ian in ing iu ià iàn iàng iào iá ián iáng
    iáo iè ié iòng ióng iù iú iā iān iāng iāo iē iě iōng iū iǎ iǎn iǎng iǎo iǒng iǔ j k l m n o ong ou p q r s
    sh t u uang ue un uo uà uài uàn uàng uá uái uán uáng uè ué uì uí uò uó uā uāi uān uāng uē uě uī uō uǎ uǎi
    uǎn uǎng uǐ uǒ vè w x y z zh à ài àn àng ào á ái án áng áo è èi èn èng èr é éi én éng ér ì ìn ìng í ín íng
    ò òng òu ó óng óu ù ùn ú ún ā āi ān āng āo ē ēi ēn ēng ě ěi ěn ěng ěr ī īn īng ō ōng ōu ū ūn ǎ ǎi ǎn ǎng
    ǎo ǐ ǐn ǐng ǒ ǒng ǒu ǔ ǔn ǘ ǚ ǜ
    """.split()  # noqa: SIM905 - kept as the spec writes it
)

CV2_SPECIAL_TOKENS: tuple[str, ...] = (IM_START, IM_END, ENDOFPROMPT, *PARALINGUISTIC_TOKENS)
CV3_SPECIAL_TOKENS: tuple[str, ...] = (
    *CV2_SPECIAL_TOKENS,
    ENDOFSYSTEM,
    *(f"[{p}]" for p in ARPABET_PHONES),
    *(f"[{p}]" for p in PINYIN_PHONES),
)

# Length of the vocabulary once the specials are added (runtime/triton_trtllm ORIGINAL_VOCAB_SIZE).
EXPECTED_VOCAB_SIZE: Mapping[TokenizerVersion, int] = MappingProxyType(
    {"cosyvoice2": 151663, "cosyvoice3": 151924}
)

# Qwen2's pre-tokenisation split (the same expression its fast tokenizer conversion uses).
QWEN2_SPLIT_REGEX = (
    r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*"
    r"|\s*[\r\n]+|\s+(?!\S)|\s+"
)

VOCAB_FILE = "vocab.json"
MERGES_FILE = "merges.txt"
CONFIG_FILE = "tokenizer_config.json"
FAST_FILE = "tokenizer.json"


def special_tokens_for(version: TokenizerVersion) -> tuple[str, ...]:
    """The list CosyVoice passes to ``add_special_tokens`` for this model family."""
    if version == "cosyvoice2":
        return CV2_SPECIAL_TOKENS
    if version == "cosyvoice3":
        return CV3_SPECIAL_TOKENS
    raise ValueError(f"unknown tokenizer version {version!r}; expected one of {VERSIONS}")


# --------------------------------------------------------------------------------------------
# Reading the Qwen2 folder
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class AddedTokenSpec:
    """One token that is matched on the raw text before BPE (from the folder or from our lists)."""

    content: str
    id: int
    special: bool = True  # skipped by decode(skip_special_tokens=True)
    normalized: bool = False  # matched after NFC instead of on the raw text


@dataclass(frozen=True)
class BPEFiles:
    """The byte-level BPE model as read from disk: token -> id, ranked merges, added tokens."""

    vocab: Mapping[str, int]
    merges: tuple[tuple[str, str], ...]
    added: tuple[AddedTokenSpec, ...]


MAX_TOKENIZER_FILE_BYTES = 64 << 20  # Qwen2's vocab.json is 2.8 MB, merges.txt 1.7 MB


def _read_capped(path: Path) -> str:
    """The text of a tokenizer file: a regular file (not a link to /dev/zero) of bounded size."""
    try:
        return read_text_file(path, MAX_TOKENIZER_FILE_BYTES)
    except FileNotFoundError as e:
        raise ModelNotFoundError(
            f"{path} is missing; the tokenizer folder is incomplete. Download the model again "
            "or copy the file in."
        ) from e
    except UnsafeFileError as e:
        raise ConfigError(f"{e}; a tokenizer file must be an ordinary file. Download the model again.") from e
    except OSError as e:
        raise ConfigError(f"cannot read {path} ({e.strerror or e}); check the file's permissions.") from e
    except UnicodeDecodeError as e:
        raise ConfigError(f"{path} is not UTF-8 text ({e}); the file is corrupt, download it again.") from e


def _read_json(path: Path) -> Any:
    text = _read_capped(path)
    try:
        return loads_strict_json(text)
    except ValueError as e:
        raise ConfigError(f"{path} is not valid JSON ({e}); the file is corrupt, download it again.") from e


def _check_vocab(vocab: Any, path: Path) -> dict[str, int]:
    if not isinstance(vocab, dict) or not vocab:
        raise ConfigError(f"{path} must map tokens to ids, but it holds {type(vocab).__name__}")
    bad = next((k for k, v in vocab.items() if not isinstance(v, int) or isinstance(v, bool) or v < 0), None)
    if bad is not None:
        raise ConfigError(f"{path}: token {bad!r} has id {vocab[bad]!r}, which is not a non-negative integer")
    if len(set(vocab.values())) != len(vocab):
        raise ConfigError(f"{path} gives the same id to two different tokens; the file is corrupt")
    return dict(vocab)


def _parse_merge_lines(lines: Iterable[str], path: Path) -> tuple[tuple[str, str], ...]:
    merges: list[tuple[str, str]] = []
    for number, raw in enumerate(lines, start=1):
        line = raw.strip()
        if not line or (number == 1 and line.startswith("#version")):
            continue
        parts = line.split()
        if len(parts) != 2:
            raise ConfigError(
                f"{path} line {number} should hold two tokens separated by a space, found {line[:60]!r}"
            )
        merges.append((parts[0], parts[1]))
    return tuple(merges)


def _read_merges(path: Path) -> tuple[tuple[str, str], ...]:
    return _parse_merge_lines(_read_capped(path).splitlines(), path)


def _added_from_config(path: Path) -> tuple[AddedTokenSpec, ...]:
    """The specials declared in ``tokenizer_config.json``; Qwen2's defaults if it has none."""
    if not path.exists():
        logger.info("%s not found; using the Qwen2 default specials", path)
        return tuple(AddedTokenSpec(c, i) for c, i in QWEN_BASE_SPECIALS)
    config = _read_json(path)
    decoder = config.get("added_tokens_decoder") if isinstance(config, dict) else None
    if not decoder:
        return tuple(AddedTokenSpec(c, i) for c, i in QWEN_BASE_SPECIALS)
    if not isinstance(decoder, dict):
        raise ConfigError(f"{path}: added_tokens_decoder must be a mapping from id to token")
    added: list[AddedTokenSpec] = []
    for key, entry in decoder.items():
        try:
            content = entry["content"] if isinstance(entry, dict) else str(entry)
            special = bool(entry.get("special", True)) if isinstance(entry, dict) else True
            normalized = bool(entry.get("normalized", not special)) if isinstance(entry, dict) else False
            added.append(AddedTokenSpec(str(content), int(key), special, normalized))
        except (KeyError, TypeError, ValueError) as e:
            raise ConfigError(f"{path}: added_tokens_decoder entry {key!r} is malformed ({e})") from e
    return tuple(sorted(added, key=lambda t: t.id))


def _read_fast_file(path: Path) -> BPEFiles:
    """A ``tokenizer.json`` (when a folder has one): take its BPE model and added tokens."""
    data = _read_json(path)
    model = data.get("model") if isinstance(data, dict) else None
    if not isinstance(model, dict) or model.get("type") not in ("BPE", None):
        raise ConfigError(f"{path} does not describe a BPE tokenizer")
    vocab = _check_vocab(model.get("vocab"), path)
    raw_merges = model.get("merges") or []
    lines = (m if isinstance(m, str) else " ".join(m) for m in raw_merges)
    merges = _parse_merge_lines(lines, path)
    added = tuple(
        AddedTokenSpec(
            str(t["content"]), int(t["id"]), bool(t.get("special", True)), bool(t.get("normalized"))
        )
        for t in data.get("added_tokens", [])
    )
    return BPEFiles(vocab, merges, added)


def read_bpe_files(qwen_dir: Path) -> BPEFiles:
    """Read a Qwen2 tokenizer folder (``vocab.json`` + ``merges.txt``, or ``tokenizer.json``)."""
    qwen_dir = Path(qwen_dir)
    if not qwen_dir.is_dir():
        raise ModelNotFoundError(
            f"tokenizer folder {qwen_dir} does not exist; the release folder must contain it "
            "(download the model again)"
        )
    if not (qwen_dir / VOCAB_FILE).exists() and (qwen_dir / FAST_FILE).exists():
        return _read_fast_file(qwen_dir / FAST_FILE)
    vocab = _check_vocab(_read_json(qwen_dir / VOCAB_FILE), qwen_dir / VOCAB_FILE)
    merges = _read_merges(qwen_dir / MERGES_FILE)
    return BPEFiles(vocab, merges, _added_from_config(qwen_dir / CONFIG_FILE))


# --------------------------------------------------------------------------------------------
# Building the tokenizers.Tokenizer
# --------------------------------------------------------------------------------------------


def assign_special_ids(
    base: BPEFiles, extra: Sequence[str]
) -> tuple[dict[str, int], tuple[AddedTokenSpec, ...]]:
    """Give every added token its id: the folder's own ids, then ``extra`` in order.

    New tokens take consecutive ids from the current length of the vocabulary (the largest id in
    use plus one); a token that already exists keeps its id, as ``add_special_tokens`` does.
    """
    ids: dict[str, int] = dict(base.vocab)
    by_id = {i: t for t, i in ids.items()}
    added: list[AddedTokenSpec] = []
    for tok in base.added:
        owner = by_id.get(tok.id)
        if owner is not None and owner != tok.content:
            raise ConfigError(f"added token {tok.content!r} and vocabulary token {owner!r} share id {tok.id}")
        if ids.get(tok.content, tok.id) != tok.id:
            raise ConfigError(
                f"{tok.content!r} is listed with id {tok.id} and also with id {ids[tok.content]}"
            )
        ids[tok.content] = tok.id
        by_id[tok.id] = tok.content
        added.append(tok)
    next_id = max(ids.values()) + 1
    for content in extra:
        if content in ids:
            if all(a.content != content for a in added):
                added.append(AddedTokenSpec(content, ids[content]))
            continue
        ids[content] = next_id
        added.append(AddedTokenSpec(content, next_id))
        next_id += 1
    return ids, tuple(added)


def _tokenizer_json(model_vocab: Mapping[str, int], merges: Sequence[tuple[str, str]]) -> str:
    """Serialised Qwen2 fast-tokenizer pipeline around the given BPE model."""
    return json.dumps(
        {
            "version": "1.0",
            "truncation": None,
            "padding": None,
            "added_tokens": [],
            "normalizer": {"type": "NFC"},
            "pre_tokenizer": {
                "type": "Sequence",
                "pretokenizers": [
                    {
                        "type": "Split",
                        "pattern": {"Regex": QWEN2_SPLIT_REGEX},
                        "behavior": "Isolated",
                        "invert": False,
                    },
                    {
                        "type": "ByteLevel",
                        "add_prefix_space": False,
                        "trim_offsets": True,
                        "use_regex": False,
                    },
                ],
            },
            "post_processor": {
                "type": "ByteLevel",
                "add_prefix_space": False,
                "trim_offsets": False,
                "use_regex": False,
            },
            "decoder": {
                "type": "ByteLevel",
                "add_prefix_space": False,
                "trim_offsets": False,
                "use_regex": False,
            },
            "model": {
                "type": "BPE",
                "dropout": None,
                "unk_token": None,
                "continuing_subword_prefix": "",
                "end_of_word_suffix": "",
                "fuse_unk": False,
                "byte_fallback": False,
                "ignore_merges": False,
                "vocab": dict(model_vocab),
                "merges": [list(m) for m in merges],
            },
        },
        ensure_ascii=False,
    )


def build_backend(files: BPEFiles, extra: Sequence[str], where: Path) -> tuple[Tokenizer, dict[str, int]]:
    """Make the ``tokenizers.Tokenizer`` and return it with the id of every added token.

    ``tokenizers`` renumbers added tokens when it loads them from JSON, so the ids are fixed here by
    placing every added token in the BPE model's vocabulary under its id (the id space may be
    sparse) and then registering it as an added token, which reuses that id. No merge produces these
    strings, so BPE itself never emits them; they come only from the raw-text match.
    """
    from tokenizers import AddedToken, Tokenizer

    ids, added = assign_special_ids(files, extra)
    try:
        backend = Tokenizer.from_str(_tokenizer_json(ids, files.merges))
    except Exception as e:  # tokenizers raises plain Exception for a merge outside the vocabulary
        raise ConfigError(f"the BPE files in {where} do not fit together ({e}); download them again") from e
    specials = [AddedToken(t.content, special=True, normalized=t.normalized) for t in added if t.special]
    plain = [AddedToken(t.content, special=False, normalized=t.normalized) for t in added if not t.special]
    backend.add_special_tokens(specials)
    if plain:
        backend.add_tokens(plain)
    for tok in added:
        got = backend.token_to_id(tok.content)
        if got != tok.id:  # a tokenizers release that assigns ids differently must not go unnoticed
            raise ConfigError(f"{tok.content!r} was given id {got} instead of {tok.id} while loading {where}")
    return backend, {t.content: t.id for t in added}


# --------------------------------------------------------------------------------------------
# Public wrapper
# --------------------------------------------------------------------------------------------


class TextTokenizer:
    """Encodes text for the LLM of one model family; owns an immutable ``tokenizers.Tokenizer``.

    ``special_ids`` maps every added token (Qwen's three and CosyVoice's list) to its id.
    ``vocab_size`` is the length of the full vocabulary (largest id + 1), 151663 for CosyVoice2 and
    151924 for CosyVoice3 with the release files.
    """

    def __init__(
        self,
        backend: Tokenizer,
        special_ids: Mapping[str, int],
        version: TokenizerVersion,
        *,
        skip_special_tokens: bool = True,
    ) -> None:
        self._backend = backend
        self._special_ids = MappingProxyType(dict(special_ids))
        self._special_by_id = {i: t for t, i in special_ids.items()}
        self._version: TokenizerVersion = version
        self._skip_special_tokens = skip_special_tokens
        self._vocab_size = max(backend.get_vocab(with_added_tokens=True).values()) + 1

    @classmethod
    def from_dir(
        cls,
        qwen_dir: Path | str,
        version: TokenizerVersion = "cosyvoice2",
        *,
        skip_special_tokens: bool = True,
    ) -> TextTokenizer:
        """Load ``CosyVoice-BlankEN/`` (or any Qwen2 tokenizer folder) for ``version``."""
        extra = special_tokens_for(version)
        qwen_dir = Path(qwen_dir)
        backend, special_ids = build_backend(read_bpe_files(qwen_dir), extra, qwen_dir)
        tok = cls(backend, special_ids, version, skip_special_tokens=skip_special_tokens)
        logger.debug("loaded %s tokenizer from %s: %d ids", version, qwen_dir, tok.vocab_size)
        return tok

    @property
    def version(self) -> TokenizerVersion:
        return self._version

    @property
    def vocab_size(self) -> int:
        return self._vocab_size

    @property
    def special_ids(self) -> Mapping[str, int]:
        return self._special_ids

    @property
    def endofprompt_id(self) -> int:
        return self._special_ids[ENDOFPROMPT]

    def token_to_id(self, token: str) -> int | None:
        return self._backend.token_to_id(token)

    def encode(self, text: str) -> list[int]:
        """Token ids of ``text``; special tokens in it become single ids, nothing is prepended."""
        return list(self._backend.encode(text, add_special_tokens=False).ids)

    def decode(self, ids: Iterable[int], *, skip_special_tokens: bool | None = None) -> str:
        """Text of ``ids``. Special tokens are written out verbatim unless skipped.

        Runs of BPE ids go through the byte-level decoder; special tokens are inserted as they are
        (passing ``[ǐ]`` through the byte-level decoder would garble it).
        """
        skip = self._skip_special_tokens if skip_special_tokens is None else skip_special_tokens
        parts: list[str] = []
        run: list[int] = []
        for i in ids:
            token = self._special_by_id.get(int(i))
            if token is None:
                run.append(int(i))
                continue
            if run:
                parts.append(self._backend.decode(run, skip_special_tokens=False))
                run = []
            if not skip:
                parts.append(token)
        if run:
            parts.append(self._backend.decode(run, skip_special_tokens=False))
        return "".join(parts)

    def __len__(self) -> int:
        return self._vocab_size

    def __call__(self, text: str) -> list[int]:
        return self.encode(text)

    def __repr__(self) -> str:
        return f"TextTokenizer(version={self._version!r}, vocab_size={self._vocab_size})"


@functools.lru_cache(maxsize=4)
def _cached(
    qwen_dir: str, version: TokenizerVersion, skip_special_tokens: bool, stamp: float
) -> TextTokenizer:
    return TextTokenizer.from_dir(Path(qwen_dir), version, skip_special_tokens=skip_special_tokens)


def get_text_tokenizer(
    qwen_dir: Path | str, version: TokenizerVersion = "cosyvoice2", *, skip_special_tokens: bool = True
) -> TextTokenizer:
    """Cached :meth:`TextTokenizer.from_dir` (reloaded when ``vocab.json`` changes on disk)."""
    qwen_dir = Path(qwen_dir).resolve()
    vocab = qwen_dir / VOCAB_FILE
    stamp = vocab.stat().st_mtime if vocab.exists() else 0.0
    return _cached(str(qwen_dir), version, skip_special_tokens, stamp)
