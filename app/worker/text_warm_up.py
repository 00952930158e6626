"""The text warm-up after a model load, on a background thread.

:func:`cosycore.perf.warm_up_frontend` pays the first-use costs of the text reading (inflect's import,
0.5 s without typeguard's instrumentation; wetext's grammars) and of the prompt features
(librosa's mel filterbank) once per process. It used to run inside the load, behind the loading
screen; here it runs after the model is ready, so the first Speak need not wait for it. A Speak
that arrives meanwhile reads its text itself: Python's import lock and the warm-up's caches make it
wait only for the part being loaded at that moment (inflect's import, say), never do it twice.

The warm-up touches no model: the prompt-feature part runs on a few temporary tensors of zeros, so
the engine thread stays the one owner of the model's weights.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from cosycore.config.model_config import MelConfig

logger = logging.getLogger(__name__)

__all__ = ["warm_up_text_in_background"]


def _run(mel: MelConfig | None, done: Callable[[float], None]) -> None:
    try:
        from cosycore.perf import warm_up_frontend

        seconds = warm_up_frontend(mel)
    except Exception:  # the first Speak pays the first uses instead; nothing is lost
        logger.exception("the background text warm-up failed")
        seconds = -1.0
    try:
        done(seconds)
    except RuntimeError:  # the engine thread's signals were deleted with their window meanwhile
        logger.debug("text warm-up finished after its window closed")


def warm_up_text_in_background(mel: MelConfig | None, done: Callable[[float], None]) -> threading.Thread:
    """Start the warm-up on a daemon thread (it never holds up quitting); ``done(seconds)`` when it ends
    (-1.0 when it failed). Returns the thread."""
    thread = threading.Thread(target=_run, args=(mel, done), name="text-warm-up", daemon=True)
    thread.start()
    return thread
