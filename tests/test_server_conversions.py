"""POST /v1/audio/conversions end to end: a real uvicorn, the tiny Fun-CosyVoice3 model, httpx."""

from __future__ import annotations

import base64
import io
import json
from collections.abc import Iterator
from pathlib import Path

import httpx2 as httpx
import numpy as np
import pytest
import soundfile as sf

from cosycore.engine import Engine
from cosycore.server.app import ServerOptions, create_app
from cosycore.server.run import ServerThread
from cosycore.server.worker import ModelFacts, SpeechWorker, ThreadEngineHost
from cosycore.voices import VoiceLibrary

KEY = "sk-local-test"
SR = 22050
MAX_UPLOAD = 400_000


def tone(seconds: float, sr: int = SR, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    t = np.arange(int(seconds * sr)) / sr
    f = 150 + 50 * np.sin(2 * np.pi * 0.8 * t + rng.uniform(0, 6))
    return (0.3 * np.sin(2 * np.pi * np.cumsum(f) / sr) * (0.6 + 0.4 * np.sin(2 * np.pi * 3 * t))).astype(np.float32)


def wav_bytes(samples: np.ndarray, sr: int = SR) -> bytes:
    buf = io.BytesIO()
    sf.write(buf, samples, sr, format="WAV", subtype="PCM_16")
    return buf.getvalue()


class Server:
    def __init__(self, url: str, engine: Engine, voice) -> None:
        self.url, self.engine, self.voice = url, engine, voice

    def post(self, data: bytes | None = None, files: dict | None = None, key: str | None = KEY,
             **fields: str) -> httpx.Response:
        headers = {"Authorization": f"Bearer {key}"} if key else {}
        files = files if files is not None else ({"file": ("source.wav", data, "audio/wav")} if data else None)
        return httpx.post(f"{self.url}/v1/audio/conversions", data=fields, files=files, headers=headers,
                          trust_env=False, timeout=120)


@pytest.fixture(scope="module")
def server(tiny_cv3_model: Path, tmp_path_factory, single_thread) -> Iterator[Server]:
    engine = Engine(tiny_cv3_model, device="cpu")
    library = VoiceLibrary(tmp_path_factory.mktemp("voices"))
    voice = engine.create_voice(tone(2.5, seed=1), SR, name="Target")
    library.add(voice)
    host = ThreadEngineHost(engine, ModelFacts("tiny-cv3", engine.family, engine.sample_rate), torch_threads=1).start()
    worker = SpeechWorker(host, max_waiting=1)
    app = create_app(worker, library, ServerOptions(api_key=KEY, max_upload_bytes=MAX_UPLOAD, max_source_seconds=8))
    runner = ServerThread(app, "127.0.0.1", 0)
    url = runner.start()
    yield Server(url, engine, voice)
    worker.close()
    assert runner.stop()
    assert host.close()


def _direct(server: Server, source: np.ndarray, stream: bool) -> np.ndarray:
    """What the engine makes for the same source (the server's engine thread is idle between tests)."""
    return np.concatenate([c.samples for c in server.engine.convert(io.BytesIO(wav_bytes(source)), server.voice,
                                                                    stream=stream, seed=0)])


def _pcm16(data: bytes) -> np.ndarray:
    return np.frombuffer(data, "<i2").astype(np.float32) / 32767.0


def test_whole_wav(server: Server) -> None:
    source = tone(2.0)
    r = server.post(wav_bytes(source), voice="Target", response_format="wav", seed="0")
    assert r.status_code == 200 and r.headers["content-type"] == "audio/wav"
    audio, sr = sf.read(io.BytesIO(r.content), dtype="float32")
    want = _direct(server, source, stream=False)
    assert sr == 24000 and audio.shape == want.shape and np.allclose(audio, want, atol=1e-4)


def test_streamed_pcm_and_sse(server: Server) -> None:
    source = tone(2.0)
    want = _direct(server, source, stream=True)
    r = server.post(wav_bytes(source), voice="Target", response_format="pcm", stream_format="audio", seed="0")
    assert r.status_code == 200 and "content-length" not in r.headers
    assert np.allclose(_pcm16(r.content), want, atol=1e-4)
    r = server.post(wav_bytes(source), voice="Target", response_format="pcm", stream_format="sse", seed="0")
    events = [json.loads(line[6:]) for line in r.text.splitlines() if line.startswith("data: ")]
    assert [e["type"] for e in events][-1] == "speech.audio.done" and len(events) >= 3
    audio = b"".join(base64.b64decode(e["audio"]) for e in events if e["type"] == "speech.audio.delta")
    assert np.allclose(_pcm16(audio), want, atol=1e-4)


def test_speed(server: Server) -> None:
    r = server.post(wav_bytes(tone(2.0)), voice="Target", response_format="pcm", speed="2.0")
    assert r.status_code == 200 and abs(len(r.content) / 2 / 24000 - 1.0) < 0.05


def _error(r: httpx.Response, status: int, param: str | None = None) -> str:
    assert r.status_code == status, r.text
    err = r.json()["error"]
    assert set(err) == {"message", "type", "param", "code"} and err["param"] == param
    return err["message"]


def test_bad_requests(server: Server) -> None:
    ok = wav_bytes(tone(2.0))
    assert "saved voice" in _error(server.post(ok), 400, "voice")
    assert "Saved voices: Target" in _error(server.post(ok, voice="Nobody"), 400, "voice")
    no_file = {"notes": ("notes.txt", b"no recording here", "text/plain")}
    assert "'file' is required" in _error(server.post(None, voice="Target", files=no_file), 400, "file")
    assert "multipart/form-data" in _error(server.post(None, voice="Target", files={}), 415)  # a plain form
    assert "16 kHz" in _error(server.post(wav_bytes(tone(2.0, 8000), 8000), voice="Target"), 400, "file")
    assert "could not be decoded" in _error(server.post(b"RIFF1234WAVEjunkjunk" * 10, voice="Target"), 400, "file")
    assert "at most" in _error(server.post(wav_bytes(tone(9.0, 16000), 16000), voice="Target"), 400, "file")
    assert "speed" in _error(server.post(ok, voice="Target", speed="fast"), 400, "speed")
    assert "response_format" in _error(server.post(ok, voice="Target", response_format="aiff"), 400,
                                       "response_format")
    assert "larger than" in _error(server.post(wav_bytes(tone(10.0)), voice="Target"), 413, "file")
    r = httpx.post(f"{server.url}/v1/audio/conversions", json={"voice": "Target"},
                   headers={"Authorization": f"Bearer {KEY}"}, trust_env=False)
    assert "multipart/form-data" in _error(r, 415)
    assert "API key" in _error(server.post(ok, voice="Target", key=None), 401)


def test_silence_is_refused_before_any_audio(server: Server) -> None:
    r = server.post(wav_bytes(np.zeros(SR * 2, np.float32)), voice="Target", stream_format="audio",
                    response_format="pcm")
    assert "silent" in _error(r, 400)
