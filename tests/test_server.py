"""The speech server end to end: a real uvicorn on 127.0.0.1 (a free port), the tiny CosyVoice2 model,
the official ``openai`` package as the client (streamed and not) and httpx for the error cases.

Ordering, not timing, proves streaming and cancelling: the worker's ``synthesis_hook`` holds the
engine's thread inside a request (after its first chunk) until the test has seen what it expects
from the outside (the first bytes, a disconnect), and records whether that happened while held.
"""

from __future__ import annotations

import base64
import io
import json
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx2 as httpx
import numpy as np
import pytest
import soundfile as sf

openai = pytest.importorskip("openai")

from cosycore.engine import Engine, SynthesisRequest  # noqa: E402
from cosycore.server.app import ServerOptions, create_app  # noqa: E402
from cosycore.server.run import ServerThread  # noqa: E402
from cosycore.server.worker import ModelFacts, SpeechWorker, ThreadEngineHost, Ticket  # noqa: E402
from cosycore.voices import VoiceLibrary  # noqa: E402

KEY = "sk-local-test"
MAX_INPUT = 300
MAX_BODY = 8 * 1024
TEXT = "Hello there."
HOLD_SECONDS = 60  # upper bound for a held engine step; the tests release it long before


class Server:
    """What the tests need from the running server."""

    def __init__(self, url: str, worker: SpeechWorker, engine: Engine, voices: dict) -> None:
        self.url = url
        self.worker = worker
        self.engine = engine
        self.voices = voices

    def client(self) -> openai.OpenAI:
        return openai.OpenAI(base_url=f"{self.url}/v1", api_key=KEY, max_retries=0, timeout=120,
                             http_client=httpx.Client(trust_env=False, timeout=120))

    def http(self, **kw) -> httpx.Client:
        kw.setdefault("timeout", 120)
        return httpx.Client(base_url=self.url, headers={"Authorization": f"Bearer {KEY}"}, trust_env=False, **kw)

    def hook(self, fn: Callable[[Ticket, str], None] | None) -> None:
        self.worker.synthesis_hook = fn

    def direct(self, voice: str, *, seed: int, stream: bool, mode: str = "zero_shot", speed: float = 1.0) -> np.ndarray:
        """What the engine makes for the same request, called directly (on the engine's thread)."""
        out: list[np.ndarray] = []
        done = threading.Event()

        def job(engine: Engine) -> None:
            try:
                req = SynthesisRequest(TEXT, mode=mode, voice=self.voices[voice], seed=seed, stream=stream, speed=speed)
                out.extend(c.samples for c in engine.synthesize(req))
            finally:
                done.set()

        self.worker.host.submit(job)
        assert done.wait(120)
        return np.concatenate(out)


@pytest.fixture(scope="module")
def server(tiny_cv2_model: Path, espeak_wav: Path, espeak_transcript: str, tmp_path_factory,
           single_thread) -> Iterator[Server]:
    engine = Engine(tiny_cv2_model, device="cpu")
    library = VoiceLibrary(tmp_path_factory.mktemp("voices"))
    fox = engine.create_voice(espeak_wav, transcript=espeak_transcript, name="Fox")
    plain = engine.create_voice(espeak_wav, name="Plain")  # no transcript: cross_lingual without instructions
    library.add(fox)
    library.add(plain)
    facts = ModelFacts(id="tiny-cv2", family=engine.family, sample_rate=engine.sample_rate)
    host = ThreadEngineHost(engine, facts, torch_threads=1).start()
    worker = SpeechWorker(host, max_waiting=1)
    app = create_app(worker, library, ServerOptions(api_key=KEY, max_body_bytes=MAX_BODY, max_input_chars=MAX_INPUT))
    runner = ServerThread(app, "127.0.0.1", 0)
    url = runner.start()
    yield Server(url, worker, engine, {"Fox": fox, "Plain": plain})
    worker.close()
    assert runner.stop()
    assert host.close()


@pytest.fixture(autouse=True)
def _no_hook(server: Server) -> Iterator[None]:
    yield
    server.hook(None)


def _pcm(data: bytes) -> np.ndarray:
    return np.frombuffer(data, "<i2").astype(np.float32) / 32767.0


# --------------------------------------------------------------------------------------------
# The official client, not streamed and streamed
# --------------------------------------------------------------------------------------------


def test_openai_client_whole_wav_matches_the_engine(server: Server) -> None:
    response = server.client().audio.speech.create(model="tts-1", voice="Fox", input=TEXT, response_format="wav",
                                                   extra_body={"seed": 7})
    audio, rate = sf.read(io.BytesIO(response.content), dtype="float32")
    expected = server.direct("Fox", seed=7, stream=False)
    assert rate == 24000 == server.engine.sample_rate
    assert audio.shape == expected.shape and audio.size > 2400
    assert np.abs(audio - np.clip(expected, -1, 1)).max() <= 1.5 / 32767  # 16-bit rounding only


def test_openai_client_streamed_first_bytes_before_synthesis_ends(server: Server) -> None:
    got_first = threading.Event()
    held: list[bool] = []

    def hook(ticket: Ticket, step: str) -> None:
        if step == "chunk" and not held:  # the engine's thread, after the first chunk, before the rest
            held.append(got_first.wait(HOLD_SECONDS))

    server.hook(hook)
    pieces: list[bytes] = []
    with server.client().audio.speech.with_streaming_response.create(
            model="gpt-4o-mini-tts", voice="Fox", input=TEXT, response_format="pcm", stream_format="audio",
            extra_body={"seed": 11}) as response:
        assert response.headers["content-type"] == "audio/pcm"
        for data in response.iter_bytes():
            pieces.append(data)
            got_first.set()  # the engine is still held inside the request at this point
    assert held == [True]  # the first bytes reached the client while synthesis was unfinished
    audio = _pcm(b"".join(pieces))
    expected = server.direct("Fox", seed=11, stream=True)
    assert audio.shape == expected.shape and audio.size > 0
    assert np.abs(audio - np.clip(expected, -1, 1)).max() <= 1.5 / 32767


def test_streamed_wav_has_an_open_ended_header(server: Server) -> None:
    with server.client().audio.speech.with_streaming_response.create(
            model="tts-1", voice="Fox", input=TEXT, response_format="wav", stream_format="audio",
            extra_body={"seed": 3}) as response:
        data = response.read()
    assert data[4:8] == b"\xff\xff\xff\xff" and data[40:44] == b"\xff\xff\xff\xff"
    audio, rate = sf.read(io.BytesIO(data), dtype="float32")
    assert rate == 24000
    assert audio.shape == server.direct("Fox", seed=3, stream=True).shape


def test_sse_events(server: Server) -> None:
    with server.http() as http, http.stream("POST", "/v1/audio/speech", json={
            "model": "tts-1", "voice": "Fox", "input": TEXT, "response_format": "pcm", "stream_format": "sse",
            "seed": 5}) as r:
        assert r.status_code == 200 and r.headers["content-type"].startswith("text/event-stream")
        events = [json.loads(line[len("data: "):]) for line in r.iter_lines() if line.startswith("data: ")]
    assert [e["type"] for e in events[:-1]] == ["speech.audio.delta"] * (len(events) - 1)
    done = events[-1]
    assert done["type"] == "speech.audio.done"
    assert done["usage"]["output_tokens"] > 0
    assert done["usage"]["total_tokens"] == done["usage"]["input_tokens"] + done["usage"]["output_tokens"]
    audio = _pcm(b"".join(base64.b64decode(e["audio"]) for e in events[:-1]))
    assert audio.shape == server.direct("Fox", seed=5, stream=True).shape


@pytest.mark.parametrize("fmt", ["flac", "mp3", "opus"])
def test_compressed_formats(server: Server, fmt: str) -> None:
    from cosycore.server.encode import writable_formats

    if fmt not in writable_formats():
        pytest.skip(f"this libsndfile cannot write {fmt}")
    data = server.client().audio.speech.create(model="tts-1", voice="Fox", input=TEXT, response_format=fmt,
                                               extra_body={"seed": 7}).content
    audio, rate = sf.read(io.BytesIO(data), dtype="float32")
    n = server.direct("Fox", seed=7, stream=False).size
    assert rate == 24000
    if fmt == "flac":
        assert audio.size == n
    else:  # lossy codecs pad to whole frames
        assert n <= audio.size <= n + 2 * 2400


def test_streamed_mp3_decodes_to_its_full_length(server: Server) -> None:
    from cosycore.server.encode import writable_formats

    if "mp3" not in writable_formats():
        pytest.skip("this libsndfile cannot write mp3")
    with server.client().audio.speech.with_streaming_response.create(
            model="tts-1", voice="Fox", input=TEXT, response_format="mp3", stream_format="audio",
            extra_body={"seed": 7}) as response:
        data = response.read()
    audio, rate = sf.read(io.BytesIO(data), dtype="float32")
    n = server.direct("Fox", seed=7, stream=True).size
    assert rate == 24000 and n <= audio.size <= n + 2 * 2400


def test_speed_and_modes(server: Server) -> None:
    modes: list[str] = []
    server.hook(lambda ticket, step: modes.append(ticket.job.mode) if step == "done" else None)
    client = server.client()
    normal = client.audio.speech.create(model="tts-1", voice="Fox", input=TEXT, response_format="pcm",
                                        extra_body={"seed": 2}).content
    fast = client.audio.speech.create(model="tts-1", voice="Fox", input=TEXT, response_format="pcm", speed=2.0,
                                      extra_body={"seed": 2}).content
    assert 0.4 < len(fast) / len(normal) < 0.6  # the same tokens (seed), spoken twice as fast
    client.audio.speech.create(model="tts-1", voice="Plain", input=TEXT, response_format="pcm")
    client.audio.speech.create(model="tts-1", voice="Plain", input=TEXT, response_format="pcm",
                               instructions="Please speak very happily.")
    client.audio.speech.create(model="tts-1", voice={"id": "fox"}, input=TEXT, response_format="pcm")
    assert modes == ["zero_shot", "zero_shot", "cross_lingual", "instruct", "zero_shot"]


def test_models_voices_health(server: Server) -> None:
    models = server.client().models.list()
    assert [m.id for m in models.data] == ["tiny-cv2"]
    with server.http() as http:
        voices = http.get("/v1/voices").json()["data"]
        assert {(v["name"], v["family"], v["has_transcript"]) for v in voices} == {
            ("Fox", "cosyvoice2", True), ("Plain", "cosyvoice2", False)}
        health = httpx.get(f"{server.url}/health", trust_env=False).json()  # no key needed
        assert health["status"] == "ok" and health["queue"]["capacity"] == 2


# --------------------------------------------------------------------------------------------
# Errors: OpenAI's shape, the right status, before any audio
# --------------------------------------------------------------------------------------------


def _error(r: httpx.Response, status: int, param: str | None = None) -> dict:
    assert r.status_code == status, r.text
    assert r.headers["content-type"].startswith("application/json")
    err = r.json()["error"]
    assert set(err) == {"message", "type", "param", "code"} and err["message"]
    assert err["param"] == param
    return err


def _speech(server: Server, **fields) -> httpx.Response:
    body = {"model": "tts-1", "voice": "Fox", "input": TEXT, "response_format": "wav", **fields}
    with server.http() as http:
        return http.post("/v1/audio/speech", json=body)


def test_bad_requests(server: Server) -> None:
    assert _error(_speech(server, voice="Nobody"), 400, "voice")["code"] == "voice_not_found"
    _error(_speech(server, voice="../voices/fox"), 400, "voice")
    _error(_speech(server, voice=None), 400, "voice")
    _error(_speech(server, input=""), 400, "input")
    _error(_speech(server, input="   "), 400, "input")
    _error(_speech(server, input="x" * (MAX_INPUT + 1)), 400, "input")
    _error(_speech(server, input="Hi <|endofprompt|> there"), 400, "input")
    _error(_speech(server, response_format="ogg"), 400, "response_format")
    assert "aac" in _error(_speech(server, response_format="aac"), 400, "response_format")["message"]
    _error(_speech(server, speed=3.0), 400, "speed")
    _error(_speech(server, speed=0.25), 400, "speed")
    _error(_speech(server, speed="fast"), 400, "speed")
    _error(_speech(server, stream_format="chunks"), 400, "stream_format")
    with server.http() as http:
        _error(http.post("/v1/audio/speech", content=b"{not json", headers={"Content-Type": "application/json"}), 400)
        _error(http.post("/v1/audio/speech", content=b"{not json"), 415)  # no Content-Type: not JSON
        _error(http.post("/v1/audio/speech", json={"input": "x" * (MAX_BODY + 10), "voice": "Fox"}), 413)
        _error(http.get("/v1/nothing"), 404)


def test_bad_requests_through_the_client(server: Server) -> None:
    client = server.client()
    with pytest.raises(openai.BadRequestError) as e:
        client.audio.speech.create(model="tts-1", voice="Nobody", input=TEXT)
    assert e.value.body["param"] == "voice"


def test_api_key(server: Server) -> None:
    body = {"model": "tts-1", "voice": "Fox", "input": TEXT}
    for headers in ({}, {"Authorization": "Bearer wrong"}, {"Authorization": KEY}):
        r = httpx.post(f"{server.url}/v1/audio/speech", json=body, headers=headers, trust_env=False)
        assert _error(r, 401)["code"] == "invalid_api_key"
    assert _error(httpx.get(f"{server.url}/v1/voices", trust_env=False), 401)
    bad = openai.OpenAI(base_url=f"{server.url}/v1", api_key="sk-wrong", max_retries=0,
                        http_client=httpx.Client(trust_env=False))
    with pytest.raises(openai.AuthenticationError):
        bad.audio.speech.create(model="tts-1", voice="Fox", input=TEXT)


def _wait_for(predicate: Callable[[], bool], what: str, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while not predicate():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.01)


def test_full_queue_answers_429_with_retry_after(server: Server) -> None:
    release = threading.Event()
    server.hook(lambda ticket, step: release.wait(HOLD_SECONDS) if step == "chunk" else None)
    results: list[int] = []

    def request() -> None:
        results.append(_speech(server, response_format="pcm").status_code)

    threads = [threading.Thread(target=request) for _ in range(2)]
    try:
        threads[0].start()
        _wait_for(lambda: server.worker.stats().running == 1, "the first request to run")
        threads[1].start()
        _wait_for(lambda: server.worker.stats().waiting == 1, "the second request to wait")
        r = _speech(server)
        err = _error(r, 429)
        assert err["code"] == "queue_full"
        assert int(r.headers["retry-after"]) >= 1
    finally:
        release.set()
        for t in threads:
            t.join(120)
    assert results == [200, 200]
    assert _speech(server).status_code == 200  # room again


def test_disconnect_mid_stream_cancels_and_the_next_request_works(server: Server) -> None:
    seen: list[bool] = []
    before = server.worker.stats()
    cancels = server.engine.cancel_count

    def hook(ticket: Ticket, step: str) -> None:
        if step == "chunk" and not seen:  # held inside the request until the server notices the client left
            deadline = time.monotonic() + HOLD_SECONDS
            while not ticket.cancelled and time.monotonic() < deadline:
                time.sleep(0.01)
            seen.append(ticket.cancelled)

    server.hook(hook)
    with server.http() as http, http.stream("POST", "/v1/audio/speech", json={
            "model": "tts-1", "voice": "Fox", "input": "One sentence. And another one. And a third one.",
            "response_format": "pcm", "stream_format": "audio"}) as r:
        assert r.status_code == 200
        next(r.iter_raw())  # the first bytes, then hang up
    _wait_for(lambda: bool(seen), "the engine to see the cancel")
    assert seen == [True]  # noticed while the engine was inside the request, not at a later send
    _wait_for(lambda: server.worker.stats().cancelled == before.cancelled + 1, "the cancelled request to end")
    assert server.engine.cancel_count > cancels  # stopped inside the engine, not only between chunks
    assert server.worker.stats().running == 0
    server.hook(None)
    r = _speech(server, seed=7)
    assert r.status_code == 200
    audio, rate = sf.read(io.BytesIO(r.content), dtype="float32")
    assert rate == 24000 and audio.size == server.direct("Fox", seed=7, stream=False).size


def test_a_waiting_request_whose_client_leaves_never_runs(server: Server) -> None:
    release = threading.Event()
    started: list[str] = []

    def hook(ticket: Ticket, step: str) -> None:
        started.append(ticket.job.text)
        if step == "chunk" and len(started) == 1:
            release.wait(HOLD_SECONDS)

    server.hook(hook)
    first = threading.Thread(target=lambda: _speech(server, input="First.", response_format="pcm"))
    first.start()
    try:
        _wait_for(lambda: server.worker.stats().running == 1, "the first request to run")
        before = server.worker.stats().cancelled
        with pytest.raises(httpx.ReadTimeout), server.http(timeout=1.0) as http:
            http.post("/v1/audio/speech", json={"model": "tts-1", "voice": "Fox", "input": "Second.",
                                                "response_format": "pcm"})
        # the server sees the client leave and frees its slot at once, while the first still runs
        _wait_for(lambda: server.worker.stats().cancelled == before + 1, "the server to see the client leave")
        assert server.worker.stats().waiting == 0 and server.worker.stats().running == 1
    finally:
        release.set()
        first.join(120)
    _wait_for(lambda: server.worker.stats().running + server.worker.stats().waiting == 0, "the queue to drain")
    assert "Second." not in started
