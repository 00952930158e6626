"""A SenseVoice model folder as sherpa-onnx's release lays it out, checked before sherpa-onnx sees it.

The release ``sherpa-onnx-sense-voice-zh-en-ja-ko-yue-2024-07-17`` holds ``model.int8.onnx`` (or the
float ``model.onnx``) and ``tokens.txt`` (one ``piece id`` per line). The ONNX file carries its
configuration as metadata: ``vocab_size``, ``lfr_window_size``, ``lfr_window_shift``,
``normalize_samples``, ``with_itn``/``without_itn``, the ``lang_*`` query ids and the CMVN vectors
``neg_mean``/``inv_stddev`` (comma-separated floats, one per stacked fbank value).

Why check at all: sherpa-onnx's C++ loader ends the whole process (``_Exit``) when one of those
keys is missing or negative, and it accepts a missing ``tokens.txt`` silently and fails later.
In the app that would close the window and lose unsaved work, so :func:`check_model_folder` reads
the metadata and the graph's interface with onnxruntime first (a session that is dropped again)
and turns every problem into a typed error with a message saying what to do.
"""

from __future__ import annotations

import logging
import math
from dataclasses import dataclass
from pathlib import Path

from ..errors import AsrModelDamagedError, AsrModelMissingError

logger = logging.getLogger(__name__)

MODEL_FILES = ("model.int8.onnx", "model.onnx")  # the int8 model is preferred (4x smaller, as accurate)
TOKENS_FILE = "tokens.txt"
CATALOG_ID = "sensevoice-small"  # the Models manager's id for the release (cosycore/data/models.json)
FEATURE_DIM = 80  # fbank bins sherpa-onnx computes for SenseVoice
MAX_TOKENS_BYTES = 16 << 20  # the release's tokens.txt is 316 kB
MAX_VOCAB = 1 << 20
INPUTS = {"x": "tensor(float)", "x_length": "tensor(int32)", "language": "tensor(int32)",
          "text_norm": "tensor(int32)"}
INT_KEYS = ("vocab_size", "lfr_window_size", "lfr_window_shift", "normalize_samples", "with_itn", "without_itn",
            "lang_auto", "lang_zh", "lang_en", "lang_ja", "lang_ko", "lang_yue")
LANGUAGES = ("zh", "en", "ja", "ko", "yue")  # what the model recognises; "auto" lets it decide


@dataclass(frozen=True)
class SenseVoiceFolder:
    """A checked SenseVoice folder: which files sherpa-onnx is given and what the model says of itself."""

    folder: Path
    model_path: Path  # model.int8.onnx, else model.onnx
    tokens_path: Path
    vocab_size: int
    window_size: int  # LFR: fbank frames stacked per model frame
    window_shift: int  # LFR: fbank frames between model frames
    languages: tuple[str, ...]  # the lang_* keys the model defines (besides auto)
    comment: str  # the model's own description (metadata "comment"), may be empty

    @property
    def quantized(self) -> bool:
        return self.model_path.name == MODEL_FILES[0]


def _missing(folder: Path, what: str) -> AsrModelMissingError:
    return AsrModelMissingError(
        f"The speech-recognition model is not installed: {what}. Download it with "
        f"`cosycore models download {CATALOG_ID}` (or in the app: Models… › Speech recognition), "
        "then try again; a transcript can also be typed by hand."
    )


def _damaged(path: Path, why: str) -> AsrModelDamagedError:
    return AsrModelDamagedError(
        f"The speech-recognition model in {path.parent} is damaged: {path.name} {why}. Download it again "
        f"(`cosycore models download {CATALOG_ID} --force`, or Delete and Download in Models…)."
    )


def find_model_file(folder: Path) -> Path:
    """The model file of ``folder`` (the int8 one when both are there); a typed error when there is none."""
    folder = Path(folder)
    if not folder.is_dir():
        raise _missing(folder, f"{folder} does not exist")
    for name in MODEL_FILES:
        path = folder / name
        if path.is_file():
            return path
    raise _missing(folder, f"{folder} has neither {' nor '.join(MODEL_FILES)}")


def read_tokens(path: Path) -> int:
    """Check ``tokens.txt`` (``piece id`` per line, ids 0..n-1 each once) and return how many there are."""
    if not path.is_file():
        raise _damaged(path, "is missing (the folder has the model but not its token list)")
    size = path.stat().st_size
    if size == 0 or size > MAX_TOKENS_BYTES:
        raise _damaged(path, f"has {size:,} bytes; a token list of up to {MAX_TOKENS_BYTES:,} bytes is expected")
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise _damaged(path, f"cannot be read as UTF-8 text ({e})") from e
    seen: set[int] = set()
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        parts = line.rsplit(maxsplit=1)
        try:
            token_id = int(parts[-1])
        except ValueError:
            raise _damaged(path, f"line {number} ({line[:40]!r}) does not end in a token id") from None
        if not 0 <= token_id < MAX_VOCAB or token_id in seen:
            raise _damaged(path, f"line {number} has the id {token_id}, out of range or listed twice")
        seen.add(token_id)
    if not seen or max(seen) != len(seen) - 1:
        raise _damaged(path, f"lists {len(seen)} tokens whose ids are not 0 to {len(seen) - 1}")
    return len(seen)


def _int_key(meta: dict[str, str], key: str, path: Path) -> int:
    raw = meta.get(key, "").strip()
    try:
        value = int(raw)
    except ValueError:
        raise _damaged(path, f"has no usable '{key}' in its metadata (found {raw!r}); it is not a sherpa-onnx "
                             "SenseVoice export") from None
    if value < 0:
        raise _damaged(path, f"has the negative '{key}' {value} in its metadata")
    return value


def _float_list(meta: dict[str, str], key: str, path: Path, length: int) -> None:
    raw = meta.get(key, "")
    try:
        values = [float(v) for v in raw.split(",") if v.strip()]
    except ValueError:
        raise _damaged(path, f"has a '{key}' in its metadata that is not a list of numbers") from None
    if len(values) != length or not all(math.isfinite(v) for v in values):
        raise _damaged(path, f"has {len(values)} finite values in '{key}'; {length} are expected")


def _session_facts(path: Path) -> tuple[dict[str, str], dict[str, str], list[list[object]]]:
    """(metadata, input name -> type, output shapes) as onnxruntime reads them; a bad graph is an error."""
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL  # a look, not a run
    options.intra_op_num_threads = 1
    options.log_severity_level = 3
    try:
        session = ort.InferenceSession(str(path), sess_options=options, providers=["CPUExecutionProvider"])
    except Exception as e:  # onnxruntime raises its own types (InvalidProtobuf, Fail, ...): all mean "damaged"
        raise _damaged(path, f"is not a readable ONNX model ({str(e).strip()[:200]})") from e
    meta = dict(session.get_modelmeta().custom_metadata_map)
    inputs = {i.name: i.type for i in session.get_inputs()}
    outputs = [list(o.shape) for o in session.get_outputs()]
    del session
    return meta, inputs, outputs


def check_model_folder(folder: Path | str) -> SenseVoiceFolder:
    """Check everything sherpa-onnx's SenseVoice loader relies on; raise a typed error naming the problem.

    Raises :class:`~cosycore.errors.AsrModelMissingError` when the folder or its model file is not
    there and :class:`~cosycore.errors.AsrModelDamagedError` for a broken ``tokens.txt``, an ONNX
    file that does not load, the wrong inputs, or missing or inconsistent metadata.
    """
    folder = Path(folder)
    model_path = find_model_file(folder)
    if model_path.stat().st_size == 0:
        raise _damaged(model_path, "is empty")
    tokens_path = folder / TOKENS_FILE
    tokens = read_tokens(tokens_path)
    meta, inputs, outputs = _session_facts(model_path)
    if "Nano" in meta.get("comment", ""):
        raise _damaged(model_path, "is a FunASR-Nano model, not SenseVoice")
    wrong = {name: kind for name, kind in INPUTS.items() if inputs.get(name) != kind}
    if wrong or len(inputs) != len(INPUTS):
        raise _damaged(model_path, f"has the inputs {inputs}; a SenseVoice export has {INPUTS}")
    values = {key: _int_key(meta, key, model_path) for key in INT_KEYS}
    if values["vocab_size"] != tokens:
        raise _damaged(model_path, f"says vocab_size {values['vocab_size']} but {TOKENS_FILE} lists {tokens} tokens")
    if not 1 <= values["lfr_window_size"] <= 64 or not 1 <= values["lfr_window_shift"] <= values["lfr_window_size"]:
        raise _damaged(model_path, f"has the unusable LFR window {values['lfr_window_size']}/"
                                   f"{values['lfr_window_shift']}")
    if values["normalize_samples"] not in (0, 1):
        raise _damaged(model_path, f"has normalize_samples {values['normalize_samples']}; 0 or 1 is expected")
    if "blank_id" in meta and not 0 <= _int_key(meta, "blank_id", model_path) < tokens:
        raise _damaged(model_path, "has a blank_id outside its vocabulary")
    dim = FEATURE_DIM * values["lfr_window_size"]
    for key in ("neg_mean", "inv_stddev"):
        _float_list(meta, key, model_path, dim)
    if not outputs or len(outputs[0]) != 3:
        raise _damaged(model_path, f"has the outputs {outputs}; SenseVoice gives logits [N, T, vocab]")
    last = outputs[0][-1]
    if isinstance(last, int) and last != tokens:
        raise _damaged(model_path, f"scores {last} tokens per frame but {TOKENS_FILE} lists {tokens}")
    languages = tuple(lang for lang in LANGUAGES if f"lang_{lang}" in meta)
    logger.debug("SenseVoice folder %s: %s, %d tokens", folder, model_path.name, tokens)
    return SenseVoiceFolder(folder, model_path, tokens_path, tokens, values["lfr_window_size"],
                            values["lfr_window_shift"], languages, meta.get("comment", ""))
