"""Where a sentence of an ordinary take lies, and the take's layout after it was spoken again and spliced
in (:func:`cosycore.studio.splice.splice`). Pure: no Qt, no files.

A take's sentences (:meth:`Take.sentences`) are the engine's text segments, each the span of the chunks
that carried its ``sentence_index``; they lie end to end. After a splice the sentence keeps its index
and text, the ones before it keep their places, the ones after it move by the splice's shift, and the
sentence boundaries on each side are where the new audio's crossfades begin. Chunk seams inside the
replaced sentence go; its two boundaries become seams.
"""

from __future__ import annotations

from cosycore.studio.splice import Splice
from cosycore.studio.take import SentenceSpan, Take, TakeState

NOT_REGENERABLE_MODES = ("script", "convert", "live")  # a script's lines have their own; conversions have no text


class SentenceError(ValueError):
    """A sentence that cannot be regenerated; the message says why and what to do."""


def regenerable_sentences(take: Take) -> list[SentenceSpan]:
    """The sentences of ``take`` that can be spoken again, or SentenceError saying why none can."""
    if take.script is not None or take.mode in NOT_REGENERABLE_MODES:
        raise SentenceError("Only takes spoken from text have sentences to regenerate (a script take's lines: "
                            "Script › Regenerate a line…).")
    if take.state is TakeState.STREAMING:
        raise SentenceError("Wait until the take is finished.")
    if take.edit is not None:
        raise SentenceError("This take is edited (trim, fades or loudness). Reset it to its original first "
                            "(Takes › Edit take… › Reset to original), then regenerate a sentence.")
    spans = [s for s in take.sentences() if s.text.strip() and s.end > s.start]
    if not spans:
        raise SentenceError("This take has no sentence text to speak again (it was made before the sentences "
                            "were kept, or from streamed text).")
    return spans


def sentence_at(take: Take, seconds: float) -> SentenceSpan | None:
    """The sentence that is heard at ``seconds`` (None outside them)."""
    for span in take.sentences():
        if span.start <= seconds < span.end:
            return span
    return None


def sentence_samples(take: Take, index: int) -> tuple[int, int]:
    """``[start, end)`` of sentence ``index`` in the take's samples; SentenceError when it has no such sentence."""
    for span in take.sentences():
        if span.index == index:
            sr = take.sample_rate
            start, end = round(span.start * sr), min(round(span.end * sr), take.samples)
            if not 0 <= start < end:
                break
            return start, end
    raise SentenceError(f"Take {take.number} has no sentence {index + 1} any more.")


def spliced_layout(take: Take, index: int, done: Splice) -> tuple[list[int], list[SentenceSpan]]:
    """The take's seams (samples) and sentences once sentence ``index`` is replaced as ``done`` says."""
    start, end = sentence_samples(take, index)
    sr = take.sample_rate
    total = done.audio.shape[0]
    seams = [s for s in take.seam_samples() if s <= done.start]
    seams += [done.start, done.end]
    seams += [s + done.shift for s in take.seam_samples() if s >= end]
    seams = sorted({s for s in seams if 0 < s < total})
    spans: list[SentenceSpan] = []
    for span in take.sentences():
        a, b = round(span.start * sr), round(span.end * sr)
        if span.index == index:
            a, b = done.start, done.end
        elif b <= start:
            b = min(b, done.start)
        elif a >= end:
            a, b = max(a + done.shift, done.end), b + done.shift
        spans.append(SentenceSpan(span.index, span.text, a / sr, min(b, total) / sr))
    return seams, spans
