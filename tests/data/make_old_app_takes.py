"""Write tests/data/old_app_takes/: the app's take store (``<data>/takes``) as the app wrote it before
the take format became one (issue 24 item 3), sidecar format ``cosy-studio-take`` version 1.

Made with that version's own store (``app.takes.store.TakeStore``, at commit 7e24789), through the
calls the app makes, with made-up audio (no model). It holds:

- take 1: an ordinary instruct take, two chunks, two sentences, renamed;
- take 2: a take with its second sentence regenerated (a new audio version, the previous one kept for Undo);
- take 3: an edited take (trimmed and faded; the original's file kept);
- take 4: a dialogue-script take with its second line regenerated (a line file, the previous version kept);
- take 5: a take cut short while it was made (the sidecar says "streaming", the audio file holds more);
- take 6: a removed take, in ``.trash``.

Kept in the repository so that the reader is tested against bytes an older version of the code wrote.
Run once from the repository root (needs the old store):

    PYTHONPATH=. python tests/data/make_old_app_takes.py
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import numpy as np
from PySide6.QtCore import QCoreApplication

from app.takes import edit as take_edit
from app.takes.store import TakeStore
from app.takes.take import SentenceSpan, Take, TakeList, TakeState
from cosycore.request import AudioChunk
from cosycore.studio.script_take import CastEntry, LineInfo, RenderValues, ScriptChunk, ScriptInfo, ScriptMark

OUT = Path(__file__).resolve().parent / "old_app_takes"
SR = 8000  # small files; the store takes any rate


def tone(seconds: float, f0: float) -> np.ndarray:
    t = np.arange(int(seconds * SR)) / SR
    return (0.3 * np.sin(2 * np.pi * f0 * t) * np.hanning(t.shape[0])).astype(np.float32)


def chunk(samples: np.ndarray, index: int, sentence: int, text: str, start: float, *, final: bool = False,
          mark: ScriptMark | None = None) -> AudioChunk:
    fields = dict(samples=samples, sample_rate=SR, index=index, is_final=final, timing=0.1 * (index + 1),
                  tokens=(), tokens_so_far=0, sentence_index=sentence, sentence_text=text, sentence_final=True,
                  start_time=start)
    return ScriptChunk(**fields, script=mark) if mark is not None else AudioChunk(**fields)


def take(number_text: str, mode: str = "zero_shot", **kw) -> Take:
    t = Take(0, number_text, mode=mode, voice_name="Tester", sample_rate=SR, seed=11, speed=1.0,
             model="CosyVoice2 · tiny", quality="exact", **kw)
    t.created = 1_764_000_000.0
    return t


def make(out: Path = OUT) -> None:
    QCoreApplication.instance() or QCoreApplication([])
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "takes"
        store = TakeStore(root)
        takes = TakeList()
        store.attach(takes, lambda t, e: print("failed", t.number, e))

        # 1: ordinary, instruct, two sentences
        t1 = take("Hello there. How are you?", mode="instruct", instruction="Speak happily.")
        t1.uid = "20251120-100000-aaaaaa"
        takes.add(t1)
        a, b = tone(0.5, 200), tone(0.6, 240)
        takes.add_chunk(t1, chunk(a, 0, 0, "Hello there.", 0.0))
        takes.add_chunk(t1, chunk(b, 1, 1, "How are you?", 0.5, final=True))
        t1.finish(TakeState.DONE, wall_seconds=0.8, first_audio=0.1)
        takes.rename(t1, "Greeting")

        # 2: second sentence regenerated
        t2 = take("One. Two.")
        t2.uid = "20251120-100100-bbbbbb"
        takes.add(t2)
        takes.add_chunk(t2, chunk(tone(0.4, 300), 0, 0, "One.", 0.0))
        takes.add_chunk(t2, chunk(tone(0.4, 330), 1, 1, "Two.", 0.4, final=True))
        t2.finish(TakeState.DONE, wall_seconds=0.5)
        takes.changed(t2)
        new = np.concatenate([t2.audio()[: int(0.4 * SR)], tone(0.5, 360)])
        spans = [SentenceSpan(0, "One.", 0.0, 0.4), SentenceSpan(1, "Two.", 0.4, 0.9)]
        store.new_version(t2, new, [int(0.4 * SR)], spans, None, {},
                          {1: {"seed": 99, "mode": "zero_shot", "instruction": ""}})
        takes.changed(t2)

        # 3: edited (trimmed, faded)
        t3 = take("A take to trim.")
        t3.uid = "20251120-100200-cccccc"
        takes.add(t3)
        takes.add_chunk(t3, chunk(tone(1.0, 220), 0, 0, "A take to trim.", 0.0, final=True))
        t3.finish(TakeState.DONE, wall_seconds=0.9)
        takes.changed(t3)
        edit = take_edit.TakeEdit(start=0.1, end=0.8, fade_in=0.05, fade_out=0.05)
        audio, seams, spans = store.original_audio(t3)
        store.apply_edit(t3, edit.to_json(), *take_edit.apply(edit, audio, SR, seams, spans))
        takes.changed(t3)

        # 4: a script take, its second line regenerated
        text = "Anna: Hello there.\nBen (Please speak softly.): Hi Anna.\n"
        t4 = take(text, mode="script")
        t4.voice_name = "Anna, Ben"
        t4.uid = "20251120-100300-dddddd"
        t4.script = ScriptInfo(text, "/home/someone/scripts", [CastEntry("Anna", "Anna"),
                                                                CastEntry("Ben", "Ben", "Please speak softly.")],
                               RenderValues(speed=1.0, stream=True))
        takes.add(t4)
        t4.script.base_seed = 5
        t4.script.lines = [LineInfo(0, 1, "Anna", "Anna", "Hello there.", "zero_shot", "", 5),
                           LineInfo(1, 2, "Ben", "Ben", "Hi Anna.", "instruct", "Please speak softly.", 6)]
        takes.changed(t4)
        gap = np.zeros(int(0.3 * SR), np.float32)
        pieces = [(tone(0.5, 150), ScriptMark(0, "line", 0, "Anna", True)),
                  (gap, ScriptMark(1, "gap", None, None, True)),
                  (tone(0.4, 250), ScriptMark(2, "line", 1, "Ben", True))]
        start = 0.0
        for i, (samples, mark) in enumerate(pieces):
            takes.add_chunk(t4, chunk(samples, i, 0 if i < 2 else 1, "", start, final=i == 2, mark=mark))
            start += samples.shape[0] / SR
        t4.finish(TakeState.DONE, wall_seconds=1.5)
        takes.changed(t4)
        line = tone(0.45, 270)
        a0, g0 = int(0.5 * SR), int(0.3 * SR)
        new_audio = np.concatenate([t4.audio()[: a0 + g0], line])
        raw_file = "line-0123abcd.f32"
        script = t4.script.regenerated(1, [(0, a0), (a0, g0), (a0 + g0, line.shape[0])], [False, False, True],
                                       raw_file, 77, "instruct", "Please speak softly.")
        store.new_version(t4, new_audio, [a0, a0 + g0], t4.sentences(), script, {raw_file: line})
        takes.changed(t4)

        # 5: cut short (the app was killed): the sidecar records one chunk, the file holds two
        t5 = take("Cut short. Never finished.")
        t5.uid = "20251120-100400-eeeeee"
        takes.add(t5)
        takes.add_chunk(t5, chunk(tone(0.3, 210), 0, 0, "Cut short.", 0.0))
        store.append(t5, tone(0.2, 230))  # a chunk whose sidecar update never happened
        store._close(t5.uid)  # the process died here

        # 6: removed, in the trash
        t6 = take("Thrown away.")
        t6.uid = "20251120-100500-ffffff"
        takes.add(t6)
        takes.add_chunk(t6, chunk(tone(0.3, 260), 0, 0, "Thrown away.", 0.0, final=True))
        t6.finish(TakeState.DONE)
        takes.changed(t6)
        takes.remove(t6)
        store.close()
        if out.exists():
            shutil.rmtree(out)
        shutil.copytree(root, out)


if __name__ == "__main__":
    make()
    print(f"wrote {OUT}")
