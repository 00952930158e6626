"""Write tests/data/old_script_take/: a script take as ``cosycore synth --script`` writes it today
(``play.wav`` and its ``play.wav.take`` folder, format ``cosy-studio-script-take`` version 1), on the
tiny CosyVoice2 model (random weights, seed 0) with two short made-up voices.

Kept in the repository so that the reader of this format (``cosycore.studio.take_file.load_take``) is
tested against bytes an older version of the code wrote, also after the take format changes
(issue 24 item 3: one take format, old takes still opening). Run once from the repository root:

    PYTHONPATH=. python tests/data/make_old_script_take.py
"""

from __future__ import annotations

import io
import math
import shutil
import sys
import tempfile
from pathlib import Path

import numpy as np

from cosycore.__main__ import CliIO, main
from cosycore.engine import Engine
from cosycore.testing.tiny_model import write_tiny_model
from cosycore.voices import VoiceLibrary

OUT = Path(__file__).resolve().parent / "old_script_take"
SCRIPT = "Anna: Hello there.\nBen (Please speak softly.): Hi Anna.\n"
SR = 24000


def _clip(seconds: float, f0: float) -> np.ndarray:
    t = np.arange(int(seconds * SR)) / SR
    phase = 2 * math.pi * f0 * t
    x = sum(np.sin(k * phase) / k for k in range(1, 8)) * (0.5 * (1 + np.sin(2 * math.pi * 4 * t)))
    return (0.3 * x / np.max(np.abs(x))).astype(np.float32)


def make(out: Path = OUT) -> None:
    import torch

    torch.set_num_threads(1)
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        model = write_tiny_model(work / "model", "cosyvoice2", seed=0).model_dir
        engine = Engine(model, device="cpu")
        lib = VoiceLibrary(work / "voices")
        lib.add(engine.create_voice(_clip(1.2, 120.0), SR, transcript="Hello", name="Anna"))
        lib.add(engine.create_voice(_clip(1.2, 180.0), SR, name="Ben"))
        script = work / "play.txt"
        script.write_text(SCRIPT, encoding="utf-8")
        target = work / "out" / "play.wav"
        err = io.StringIO()
        code = main(["synth", "--model", str(model), "--device", "cpu", "--voices-dir", str(work / "voices"),
                     "--script", str(script), "--cast", "Anna=Anna", "--cast", "Ben=Ben", "--out", str(target),
                     "--seed", "5", "--min-tokens", "4", "--max-tokens", "6"],
                    CliIO(io.StringIO(""), io.StringIO(), io.BytesIO(), err))
        if code != 0:
            sys.exit(err.getvalue())
        if out.exists():
            shutil.rmtree(out)
        shutil.copytree(target.parent, out)


if __name__ == "__main__":
    make()
    print(f"wrote {OUT}")
