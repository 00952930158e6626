"""A release folder's files, all checked at once before anything is loaded (:func:`check_model_folder`).

Loading a folder reads its yaml, then the LM, the flow and the vocoder (tens of seconds), then the
ONNX models: without this check a folder missing three files loaded for 25 s and then named only
the first. Here every file the engine will open is looked at (present, a regular file, not empty),
and one error names every problem with what to do. Nothing is parsed, so it takes milliseconds;
a file that is present but damaged is still found by its own loader, with its own message.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from ..errors import ModelNotFoundError
from .model_config import QWEN_DIR, Family
from .release import detect_family

_TOKENIZER_ALTERNATIVES = (("vocab.json", "merges.txt"), ("tokenizer.json",))


def release_files(family: Family) -> tuple[str, ...]:
    """The files (relative paths) a ``family`` release folder must hold for the engine to load it."""
    yaml = "cosyvoice2.yaml" if family == "cosyvoice2" else "cosyvoice3.yaml"
    speech_tokenizer = "speech_tokenizer_v2.onnx" if family == "cosyvoice2" else "speech_tokenizer_v3.onnx"
    return (yaml, "llm.pt", "flow.pt", "hift.pt", "campplus.onnx", speech_tokenizer, f"{QWEN_DIR}/config.json")


def _problem(folder: Path, rel: str) -> str | None:
    """What is wrong with ``folder / rel`` (missing, not a file, empty), or None."""
    path = folder / rel
    try:
        st = os.stat(path)  # follows a link: a link to a good file is fine
    except FileNotFoundError:
        return f"{rel} is missing"
    except OSError as e:
        return f"{rel} cannot be read ({e.strerror or e})"
    if not stat.S_ISREG(st.st_mode):
        kind = "a folder" if stat.S_ISDIR(st.st_mode) else "not a regular file"
        return f"{rel} is {kind}"
    if st.st_size == 0:
        return f"{rel} is empty (0 bytes)"
    return None


def folder_problems(model_dir: Path | str, family: Family) -> list[str]:
    """Every problem with the files of the release folder ``model_dir`` of ``family``, in a fixed order."""
    folder = Path(model_dir)
    problems = [p for rel in release_files(family) if (p := _problem(folder, rel)) is not None]
    tokenizer = [[_problem(folder, f"{QWEN_DIR}/{name}") for name in names] for names in _TOKENIZER_ALTERNATIVES]
    if not any(all(p is None for p in option) for option in tokenizer):
        problems.extend(p for p in tokenizer[0] if p is not None)  # name the usual pair
    return problems


def check_model_folder(model_dir: Path | str) -> Family:
    """Raise :class:`ModelNotFoundError` naming every missing or unusable file of a release folder.

    Runs before anything is loaded; returns the folder's family. A folder without a release yaml,
    or of the wrong family, is refused by :func:`~cosycore.config.release.detect_family` first.
    """
    folder = Path(model_dir)
    family, _yaml = detect_family(folder)
    problems = folder_problems(folder, family)
    if problems:
        listed = "; ".join(problems)
        raise ModelNotFoundError(
            f"The model folder {folder} is incomplete: {listed}. Download the model again "
            "(File › Models… or `cosycore models download`), or copy the missing files in from the release."
        )
    return family
