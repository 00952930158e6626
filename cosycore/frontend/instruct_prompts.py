"""Instruction prompts (spec §5.9): the text the speech LM sees before the target text in instruct
mode, and CosyVoice3's system prefix."""

from __future__ import annotations

import unicodedata

from ..errors import InputError
from .text_checks import find_control_markers, is_speakable
from .tokenizer import ENDOFPROMPT

CV3_SYSTEM_SENTENCE = "You are a helpful assistant."



def cv3_system_prefix() -> str:
    """The prefix CosyVoice3 expects before a transcript or text: system sentence + marker."""
    return CV3_SYSTEM_SENTENCE + ENDOFPROMPT


def _instruction_body(instruction: str) -> str:
    """The instruction without a trailing marker; a marker anywhere else is an error."""
    if not isinstance(instruction, str):
        raise InputError(f"The instruction must be a string, not {type(instruction).__name__}.")
    body = instruction.strip()
    if body.endswith(ENDOFPROMPT):
        body = body[: -len(ENDOFPROMPT)].rstrip()
    markers = find_control_markers(body)
    if markers:
        raise InputError(
            f"The instruction contains {markers[0]!r} in the wrong place. {ENDOFPROMPT} may only end "
            "the instruction (it is added for you); remove it and any other <|...|> marker."
        )
    return unicodedata.normalize("NFC", body)


def cv3_instruct_prompt(instruction: str) -> str:
    """``"You are a helpful assistant. {instruction}<|endofprompt|>"`` for CosyVoice3 instruct."""
    body = _instruction_body(instruction)
    if body.startswith(CV3_SYSTEM_SENTENCE):
        body = body[len(CV3_SYSTEM_SENTENCE) :].lstrip()
    if not body or not is_speakable(body):
        raise InputError("The instruction is empty. Describe how the text should be spoken.")
    return f"{CV3_SYSTEM_SENTENCE} {body}{ENDOFPROMPT}"


def cv2_instruct_prompt(instruction: str) -> str:
    """``instruction + "<|endofprompt|>"`` for CosyVoice2 instruct (no system sentence)."""
    body = _instruction_body(instruction)
    if not body or not is_speakable(body):
        raise InputError("The instruction is empty. Describe how the text should be spoken.")
    return body + ENDOFPROMPT
