"""``cosycore convert`` on the tiny models: files and raw PCM out, streamed or not, atomic output, typed errors."""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf

from cosycore.__main__ import CliIO, main
from cosycore.voices import save_voice

pytestmark = pytest.mark.usefixtures("single_thread")

SR = 22050


def run(argv: list[str]) -> tuple[int, str, bytes]:
    err, raw = io.StringIO(), io.BytesIO()
    code = main(argv, CliIO(io.StringIO(), io.StringIO(), raw, err))
    return code, err.getvalue(), raw.getvalue()


def tone(seconds: float, sr: int = SR, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    t = np.arange(int(seconds * sr)) / sr
    f = 150 + 50 * np.sin(2 * np.pi * 0.8 * t + rng.uniform(0, 6))
    return (0.3 * np.sin(2 * np.pi * np.cumsum(f) / sr) * (0.6 + 0.4 * np.sin(2 * np.pi * 3 * t))).astype(np.float32)


@pytest.fixture(scope="module")
def files(tmp_path_factory, cv3_engine) -> dict[str, Path]:
    d = tmp_path_factory.mktemp("convert-cli")
    out = {"source": d / "source.wav", "prompt": d / "prompt.wav", "voice": d / "Target.cosyvoice",
           "phone": d / "phone.wav", "silence": d / "silence.wav", "junk": d / "junk.wav"}
    sf.write(out["source"], tone(2.0), SR)
    sf.write(out["prompt"], tone(2.5, seed=1), SR)
    sf.write(out["phone"], tone(2.0, 8000), 8000)
    sf.write(out["silence"], np.zeros(SR * 2, np.float32), SR)
    out["junk"].write_bytes(b"RIFF\x00\x00\x00\x00WAVEjunk" * 50)
    save_voice(out["voice"], cv3_engine.create_voice(tone(2.5, seed=1), SR, name="Target"))
    return out


def _model(tiny_cv3_model: Path) -> list[str]:
    return ["--model", str(tiny_cv3_model), "--device", "cpu"]


@pytest.mark.parametrize("stream", [False, True])
def test_convert_to_a_file(tiny_cv3_model: Path, files, tmp_path: Path, stream: bool) -> None:
    out = tmp_path / "converted.wav"
    code, err, _ = run(["convert", str(files["source"]), "--voice", str(files["voice"]), *_model(tiny_cv3_model),
                        "--out", str(out)] + (["--stream"] if stream else []))
    assert code == 0, err
    audio, sr = sf.read(out, dtype="float32")
    assert sr == 24000 and abs(audio.size / sr - 2.0) < 0.05 and np.isfinite(audio).all()
    assert ("2 chunks" in err or "3 chunks" in err) if stream else "1 chunk," in err


def test_convert_with_a_prompt_recording_to_raw_pcm(tiny_cv3_model: Path, files) -> None:
    code, err, raw = run(["convert", str(files["source"]), "--prompt-wav", str(files["prompt"]),
                          *_model(tiny_cv3_model), "--out", "-", "--speed", "2.0", "-q"])
    assert code == 0, err
    pcm = np.frombuffer(raw, "<f4")
    assert abs(pcm.size / 24000 - 1.0) < 0.05 and err == ""


def test_bad_input_exits_2_and_leaves_the_target_alone(tiny_cv3_model: Path, files, tmp_path: Path) -> None:
    out = tmp_path / "keep.wav"
    out.write_bytes(b"not ours to overwrite")
    for source, want in ((files["phone"], "8000 Hz"), (files["junk"], "junk.wav"),
                         (tmp_path / "missing.wav", "does not exist"), (files["silence"], "silent")):
        code, err, _ = run(["convert", str(source), "--voice", str(files["voice"]), *_model(tiny_cv3_model),
                            "--out", str(out)])
        assert code == 2 and want in err, err
        assert out.read_bytes() == b"not ours to overwrite"
        assert sorted(p.name for p in tmp_path.iterdir()) == ["keep.wav"]  # no temporary file left


def test_a_voice_of_the_other_family(tiny_cv2_model: Path, files, tmp_path: Path) -> None:
    code, err, _ = run(["convert", str(files["source"]), "--voice", str(files["voice"]), "--model",
                        str(tiny_cv2_model), "--device", "cpu", "--out", str(tmp_path / "o.wav")])
    assert code == 2 and "Fun-CosyVoice3" in err and not (tmp_path / "o.wav").exists()


def test_usage_errors(tiny_cv3_model: Path, files, tmp_path: Path) -> None:
    code, err, _ = run(["convert", str(files["source"]), *_model(tiny_cv3_model), "--out", str(tmp_path / "o.wav")])
    assert code == 2 and "--voice" in err  # a target is required
    code, err, _ = run(["convert", str(files["source"]), "--voice", str(files["voice"]), *_model(tiny_cv3_model),
                        "--out", str(tmp_path / "o.mp4")])
    assert code == 2 and ".wav or .flac" in err
    code, err, _ = run(["convert", str(files["source"]), "--voice", str(files["voice"]), *_model(tiny_cv3_model),
                        "--max-seconds", "1", "--out", str(tmp_path / "o.wav")])
    assert code == 2 and "at most" in err
