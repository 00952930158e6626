"""The transcription commands end to end: ``transcribe FILE``, ``voice transcribe NAME``, ``voice add --transcribe``."""

from __future__ import annotations

import io
import json
import shutil
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf

from cosycore.__main__ import CliIO, main
from cosycore.voices import VoiceLibrary

pytestmark = pytest.mark.usefixtures("single_thread")


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), CliIO(io.StringIO(), out, io.BytesIO(), err))
    return code, out.getvalue(), err.getvalue()


@pytest.fixture(scope="module")
def clip(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """2 s of a gliding tone with noise at 24 kHz: enough for the tiny models to make something of it."""
    rate = 24000
    t = np.arange(2 * rate) / rate
    audio = 0.3 * np.sin(2 * np.pi * 220 * t * (1 + t)) + np.random.default_rng(0).normal(0, 0.05, t.size)
    path = tmp_path_factory.mktemp("clip") / "clip.wav"
    sf.write(path, audio.astype(np.float32), rate, subtype="PCM_16")
    return path


@pytest.fixture
def models_dir(tmp_path: Path, tiny_sensevoice: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A models folder with the tiny recognizer installed where 'models download' puts it."""
    folder = tmp_path / "models"
    shutil.copytree(tiny_sensevoice, folder / "SenseVoice-Small")
    monkeypatch.setenv("COSY_STUDIO_MODELS", str(folder))
    return folder


def test_transcribe_prints_the_text(models_dir: Path, clip: Path) -> None:
    code, out, err = run("transcribe", str(clip))
    assert code == 0, err
    assert out.strip() and "<|" not in out
    code, out, err = run("transcribe", str(clip), "--json", "--asr-language", "ko")
    assert code == 0, err
    result = json.loads(out)
    assert result["language"] == "ko" and result["seconds"] == pytest.approx(2.0) and isinstance(result["text"], str)


def test_transcribe_without_the_model_says_how_to_get_it(tmp_path: Path, clip: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COSY_STUDIO_MODELS", str(tmp_path / "empty"))
    code, out, err = run("transcribe", str(clip))
    assert code == 3 and out == ""
    assert "cosycore models download sensevoice-small" in err and "Traceback" not in err


def test_transcribe_bad_input_is_a_usage_error(models_dir: Path, tmp_path: Path) -> None:
    (tmp_path / "empty.wav").write_bytes(b"")
    code, _, err = run("transcribe", str(tmp_path / "empty.wav"))
    assert code == 2 and "empty" in err
    long = tmp_path / "long.wav"
    sf.write(long, np.full(8000 * 45, 0.1, np.float32), 8000)
    code, _, err = run("transcribe", str(long))
    assert code == 2 and "45.0 s long" in err and "Trim it" in err
    code, _, err = run("transcribe", str(long), "--asr-model", str(tmp_path / "nowhere"))
    assert code == 3 and "not installed" in err


def test_voice_add_transcribe_and_voice_transcribe(models_dir: Path, clip: Path, tmp_path: Path,
                                                   tiny_cv2_model: Path) -> None:
    voices = tmp_path / "voices"
    lib = ["--voices-dir", str(voices)]
    model = ["--model", str(tiny_cv2_model), "--device", "cpu"]
    code, _, err = run("voice", "add", "Auto", *lib, *model, "--prompt-wav", str(clip), "--prompt-text", "x",
                       "--transcribe")
    assert code == 2 and "leave out --prompt-text" in err
    code, out, err = run("voice", "add", "Auto", *lib, *model, "--prompt-wav", str(clip), "--transcribe")
    assert code == 0, err
    assert "transcript (en): " in err and "saved voice 'Auto'" in out
    voice = VoiceLibrary(voices).get("Auto")
    assert voice.transcript and voice.transcript_source == "asr" and voice.language == "en"
    code, out, _ = run("voice", "show", "Auto", *lib)
    assert code == 0 and "by speech recognition" in out

    code, out, err = run("voice", "add", "Plain", *lib, *model, "--prompt-wav", str(clip))
    assert code == 0, err
    assert VoiceLibrary(voices).get("Plain").transcript == ""
    code, out, err = run("voice", "transcribe", "Plain", *lib)
    assert code == 0, err
    assert out.startswith("transcribed the voice 'Plain' (en): ")
    stored = VoiceLibrary(voices).get("Plain")
    assert stored.transcript and stored.transcript_source == "asr"
    code, out, err = run("voice", "transcribe", "Plain", *lib, "--asr-model", str(tmp_path / "nowhere"))
    assert code == 0 and "already has a transcript; nothing was changed" in out  # no model needed: never re-run
