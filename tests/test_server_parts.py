"""The speech server's parts without a model (request checks, encoders, binding rules), and
``cosycore serve`` itself as a subprocess on the tiny model."""

from __future__ import annotations

import io
import json
import logging
import os
import re
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf

from cosycore.__main__ import main
from cosycore.errors import ServerError
from cosycore.server.encode import _ForwardSink, encode_whole, stream_encoder, wav_header, writable_formats
from cosycore.server.run import bind_socket, check_bind, is_loopback
from cosycore.server.schema import ApiError, choose_mode, parse_speech_request

REPO = Path(__file__).resolve().parents[1]
ALL = ("wav", "pcm", "flac", "mp3", "opus")


def _parse(**fields):
    body = {"model": "tts-1", "input": "Hello.", "voice": "Fox", **fields}
    return parse_speech_request(json.dumps(body).encode(), max_input_chars=100, writable=ALL)


def _param(**fields) -> str | None:
    with pytest.raises(ApiError) as e:
        _parse(**fields)
    assert e.value.status == 400 and e.value.body()["error"]["message"]
    return e.value.param


def test_parse_defaults_and_fields() -> None:
    p = _parse()
    assert (p.input, p.voice, p.response_format, p.speed, p.stream_format, p.instructions, p.seed) == (
        "Hello.", "Fox", "mp3", 1.0, None, "", None)
    p = _parse(voice={"id": "Fox"}, response_format="wav", speed=1.5, stream_format="sse", instructions=" Calm. ",
               seed=4, unknown_future_field=True)
    assert (p.voice, p.response_format, p.speed, p.stream_format, p.instructions, p.seed) == (
        "Fox", "wav", 1.5, "sse", "Calm.", 4)


def test_parse_refusals() -> None:
    assert _param(input="") == "input"
    assert _param(input=None) == "input"
    assert _param(input=12) == "input"
    assert _param(input="y" * 101) == "input"
    assert _param(voice="") == "voice"
    assert _param(voice="a/b") == "voice"
    assert _param(voice="C:\\voices\\x") == "voice"
    assert _param(voice={"name": "x"}) == "voice"
    assert _param(speed=0.4) == "speed"
    assert _param(speed=2.5) == "speed"
    assert _param(speed=True) == "speed"
    assert _param(speed=float("nan")) == "speed"
    assert _param(response_format="ogg") == "response_format"
    assert _param(stream_format="chunked") == "stream_format"
    assert _param(instructions="x" * 1001) == "instructions"
    assert _param(seed=-1) == "seed"
    with pytest.raises(ApiError):
        parse_speech_request(b"[1, 2]", max_input_chars=100, writable=ALL)
    with pytest.raises(ApiError):
        parse_speech_request(b"\xff\xfe", max_input_chars=100, writable=ALL)
    with pytest.raises(ApiError) as e:
        parse_speech_request(b'{"input": "Hi.", "voice": "Fox", "response_format": "mp3"}', max_input_chars=100,
                             writable=("wav", "pcm"))
    assert "mp3" in str(e.value) and "wav, pcm" in str(e.value)


def test_mode_choice() -> None:
    assert choose_mode("", "what the prompt says") == "zero_shot"
    assert choose_mode("  ", "") == "cross_lingual"
    assert choose_mode("Speak slowly.", "what the prompt says") == "instruct"


def test_this_machine_writes_the_usual_formats() -> None:
    formats = writable_formats()
    assert {"wav", "pcm"} <= set(formats) and "aac" not in formats
    if sf.__libsndfile_version__ >= "1.1":
        assert "mp3" in formats


def _tone(n: int = 24000 * 2) -> np.ndarray:
    return (0.4 * np.sin(np.arange(n) * 2 * np.pi * 220 / 24000)).astype(np.float32)


@pytest.mark.parametrize("fmt", [f for f in ALL if f != "pcm"])
def test_stream_and_whole_encoders_decode(fmt: str) -> None:
    if fmt not in writable_formats():
        pytest.skip(f"no {fmt} writer here")
    x = _tone()
    enc = stream_encoder(fmt, 24000)
    parts = [enc.encode(x[i:i + 7000]) for i in range(0, x.size, 7000)] + [enc.finish()]
    assert parts[0]  # bytes come out with the first chunk, not only at the end
    whole, rate = sf.read(io.BytesIO(encode_whole(fmt, x, 24000)), dtype="float32")
    assert rate == 24000 and x.size <= whole.size <= x.size + 4800
    if fmt == "flac":  # a live FLAC stream has no total length; libsndfile cannot read that back
        assert b"".join(parts)[:4] == b"fLaC"
        return
    streamed, rate = sf.read(io.BytesIO(b"".join(parts)), dtype="float32")
    assert rate == 24000 and x.size <= streamed.size <= x.size + 4800
    if fmt == "wav":
        assert np.abs(streamed - x).max() < 1e-4 and np.abs(whole - x).max() < 1e-4


def test_pcm_and_wav_header() -> None:
    x = np.array([0.0, 0.5, -1.0, 2.0], np.float32)
    assert encode_whole("pcm", x, 24000) == np.array([0, 16384, -32767, 32767], "<i2").tobytes()
    h = wav_header(24000, 8)
    assert len(h) == 44 and h[:4] == b"RIFF" and h[8:16] == b"WAVEfmt "
    assert int.from_bytes(h[4:8], "little") == 44 and int.from_bytes(h[40:44], "little") == 8
    assert wav_header(24000, None)[40:44] == b"\xff\xff\xff\xff"


def test_forward_sink_passes_bytes_on_and_drops_late_rewrites() -> None:
    sink = _ForwardSink()
    sink.write(b"HEADER--")
    sink.write(b"data1")
    assert sink.take() == b"HEADER--data1"
    sink.seek(0)
    sink.write(b"header")  # a header update after the header was sent
    sink.seek(0, io.SEEK_END)
    sink.write(b"data2")
    assert sink.take() == b"data2" and sink.dropped == 6
    assert sink.tell() == 18


def test_loopback_rules() -> None:
    for host in ("127.0.0.1", "127.8.9.1", "::1", "[::1]", "localhost"):
        assert is_loopback(host)
        check_bind(host, None)
    for host in ("0.0.0.0", "::", "192.168.1.10", "example.org"):
        assert not is_loopback(host)
        with pytest.raises(ServerError, match="--api-key"):
            check_bind(host, None)
        check_bind(host, "secret")


def test_port_in_use() -> None:
    first = bind_socket("127.0.0.1", 0)
    try:
        with pytest.raises(ServerError, match="in use"):
            bind_socket("127.0.0.1", first.getsockname()[1])
    finally:
        first.close()


def test_cli_refuses_an_open_host_without_a_key_before_loading(tmp_path: Path, capsys) -> None:
    # The model folder does not even exist: the refusal comes first.
    code = main(["serve", "--model", str(tmp_path / "missing"), "--host", "0.0.0.0", "--port", "0"])
    assert code == 2
    assert "--api-key" in capsys.readouterr().err


def test_cli_port_in_use(tmp_path: Path, capsys) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        code = main(["serve", "--model", str(tmp_path / "missing"), "--port", str(taken.getsockname()[1])])
    assert code == 2 and "in use" in capsys.readouterr().err


@pytest.mark.slow
def test_cosycore_serve_end_to_end(tiny_cv2_model: Path, cv2_engine, espeak_wav: Path, espeak_transcript: str,
                                   tmp_path: Path) -> None:
    """The real command on a free port, the openai client unchanged, then Ctrl-C."""
    import httpx2 as httpx
    import openai

    from cosycore.voices import VoiceLibrary

    VoiceLibrary(tmp_path / "voices").add(cv2_engine.create_voice(espeak_wav, transcript=espeak_transcript,
                                                                  name="Fox"))
    env = {**os.environ, "OMP_NUM_THREADS": "1", "MKL_CBWR": "COMPATIBLE"}
    proc = subprocess.Popen([sys.executable, "-m", "cosycore", "serve", "--model", str(tiny_cv2_model), "--port", "0",
                             "--threads", "1", "--voices-dir", str(tmp_path / "voices"), "--api-key", "k"],
                            cwd=REPO, env=env, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stderr is not None
        line = proc.stderr.readline()  # printed once the model is loaded and the port is bound
        found = re.search(r"at (http://127\.0\.0\.1:\d+/v1)", line)
        assert found, line
        client = openai.OpenAI(base_url=found.group(1), api_key="k", max_retries=0, timeout=120,
                               http_client=httpx.Client(trust_env=False, timeout=120))
        for stream in (False, True):
            if stream:
                with client.audio.speech.with_streaming_response.create(
                        model="tts-1", voice="Fox", input="Hello there.", response_format="wav",
                        stream_format="audio") as r:
                    data = r.read()
            else:
                data = client.audio.speech.create(model="tts-1", voice="Fox", input="Hello there.",
                                                  response_format="wav").content
            audio, rate = sf.read(io.BytesIO(data), dtype="float32")
            assert rate == 24000 and audio.size > 0
        proc.send_signal(signal.SIGINT)
        assert proc.wait(60) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(10)



def test_no_model_is_503(tmp_path: Path) -> None:
    import httpx2 as httpx

    from cosycore.server.app import create_app
    from cosycore.server.run import ServerThread
    from cosycore.server.worker import SpeechWorker
    from cosycore.voices import VoiceLibrary

    class NoModel:
        def submit(self, job) -> None:
            job(None)

        def model_facts(self):
            return None

    runner = ServerThread(create_app(SpeechWorker(NoModel()), VoiceLibrary(tmp_path)), "127.0.0.1", 0)
    url = runner.start()
    try:
        r = httpx.post(f"{url}/v1/audio/speech", json={"model": "m", "voice": "Fox", "input": "Hi."}, trust_env=False)
        assert r.status_code == 503 and r.json()["error"]["code"] == "model_not_loaded"
        assert httpx.get(f"{url}/v1/models", trust_env=False).json()["data"] == []
        assert httpx.get(f"{url}/health", trust_env=False).json()["status"] == "no_model"
    finally:
        assert runner.stop()


def test_stopping_answers_waiting_requests_503(tmp_path: Path) -> None:
    import threading

    import httpx2 as httpx

    from cosycore.server.app import create_app
    from cosycore.server.run import ServerThread
    from cosycore.server.worker import ModelFacts, SpeechWorker
    from cosycore.voices import Voice, VoiceLibrary

    class BusyEngine:  # an engine thread that never gets to the server's jobs
        def __init__(self) -> None:
            self.jobs: list = []

        def submit(self, job) -> None:
            self.jobs.append(job)

        def model_facts(self):
            return ModelFacts("m", "cosyvoice2", 24000)

    rng = np.random.default_rng(0)
    library = VoiceLibrary(tmp_path)
    library.add(Voice(name="Fox", family="cosyvoice2", transcript="", language="",
                      audio_24k=rng.standard_normal(24000, np.float32), speech_tokens=np.arange(25, dtype=np.int32),
                      embedding=np.zeros(192, np.float32),
                      prompt_mel=np.zeros((50, 80), np.float32), speech_tokenizer_sha256=""))
    worker = SpeechWorker(BusyEngine())
    runner = ServerThread(create_app(worker, library), "127.0.0.1", 0)
    url = runner.start()
    answers: list = []
    t = threading.Thread(target=lambda: answers.append(httpx.post(
        f"{url}/v1/audio/speech", json={"model": "m", "voice": "Fox", "input": "Hi."}, trust_env=False, timeout=60)))
    t.start()
    try:
        deadline = time.monotonic() + 30
        while worker.stats().waiting != 1:
            assert time.monotonic() < deadline
            time.sleep(0.01)
        worker.close()
        t.join(30)
        assert answers[0].status_code == 503 and answers[0].json()["error"]["code"] == "server_stopping"
    finally:
        assert runner.stop()


def test_unexpected_errors_keep_the_openai_shape(tmp_path: Path) -> None:
    import httpx2 as httpx

    from cosycore.server.app import create_app
    from cosycore.server.run import ServerThread
    from cosycore.server.worker import ModelFacts, SpeechWorker
    from cosycore.voices import VoiceLibrary

    class Host:
        def submit(self, job) -> None:
            job(None)

        def model_facts(self):
            return ModelFacts("m", "cosyvoice2", 24000)

    class VanishingLibrary(VoiceLibrary):
        def get(self, name: str):
            raise FileNotFoundError(f"{name}.cosyvoice was deleted meanwhile")

    runner = ServerThread(create_app(SpeechWorker(Host()), VanishingLibrary(tmp_path)), "127.0.0.1", 0)
    url = runner.start()
    try:
        r = httpx.post(f"{url}/v1/audio/speech", json={"model": "m", "voice": "Fox", "input": "Hi."}, trust_env=False)
        assert r.status_code == 500
        assert r.json()["error"]["type"] == "server_error" and r.json()["error"]["code"] == "internal_error"
    finally:
        assert runner.stop()


# --------------------------------------------------------------------------------------------
# Issue 27: a web page in the user's browser, a hostile client (each test named after its input)
# --------------------------------------------------------------------------------------------

def test_body_of_30000_brackets() -> None:
    with pytest.raises(ApiError) as e:
        parse_speech_request(b"[" * 30_000, max_input_chars=100, writable=ALL)
    assert e.value.status == 400 and e.value.code == "invalid_json"


def test_body_with_a_5000_digit_number() -> None:
    body = b'{"model": "m", "voice": "Fox", "input": "Hi.", "seed": ' + b"9" * 5000 + b"}"
    with pytest.raises(ApiError) as e:
        parse_speech_request(body, max_input_chars=100, writable=ALL)
    assert e.value.status == 400 and e.value.code == "invalid_json"


def test_input_with_a_lone_surrogate() -> None:
    """``"Hi \\ud800 there"``: a 400 that says what and where, not a 500 with nothing in the log."""
    body = b'{"model": "m", "voice": "Fox", "input": "Hi \\ud800 there"}'
    with pytest.raises(ApiError) as e:
        parse_speech_request(body, max_input_chars=100, writable=ALL)
    assert e.value.status == 400 and e.value.param == "input"
    assert "surrogate" in e.value.message and "character 4" in e.value.message


def test_streamed_flac_is_not_offered() -> None:
    assert _param(response_format="flac", stream_format="audio") == "response_format"
    assert _parse(response_format="flac").response_format == "flac"


class _Busy:
    """An engine thread that never gets to the server's jobs (requests wait)."""

    def __init__(self) -> None:
        self.jobs: list = []

    def submit(self, job) -> None:
        self.jobs.append(job)

    def model_facts(self):
        from cosycore.server.worker import ModelFacts

        return ModelFacts("m", "cosyvoice2", 24000)


@pytest.fixture
def light_server(tmp_path: Path):
    """A server without a model; ``start(**options)`` returns its URL."""
    from cosycore.server.app import ServerOptions, create_app
    from cosycore.server.run import ServerThread
    from cosycore.server.worker import SpeechWorker
    from cosycore.voices import VoiceLibrary

    runners = []

    def start(host=None, **options) -> str:
        runner = ServerThread(create_app(SpeechWorker(host or _Busy()), VoiceLibrary(tmp_path),
                                         ServerOptions(**options)), "127.0.0.1", 0)
        runners.append(runner)
        return runner.start()

    yield start
    for runner in runners:
        assert runner.stop()


def _post(url: str, **kw):
    import httpx2 as httpx

    return httpx.post(f"{url}/v1/audio/speech", trust_env=False, timeout=30, **kw)


_BODY = {"model": "m", "voice": "Nobody", "input": "Hi."}


def test_post_as_text_plain(light_server) -> None:
    """A web page's cross-site "simple" request (text/plain, no preflight) never reaches the engine."""
    url = light_server()
    r = _post(url, content=json.dumps(_BODY).encode(), headers={"Content-Type": "text/plain"})
    assert r.status_code == 415 and r.json()["error"]["code"] == "unsupported_media_type"
    r = _post(url, content=json.dumps(_BODY).encode(), headers={"Content-Type": "application/x-www-form-urlencoded"})
    assert r.status_code == 415
    assert _post(url, json=_BODY).status_code == 400  # JSON reaches the route (the voice is unknown)


def test_host_header_of_a_rebinding_page(light_server) -> None:
    url = light_server()
    r = _post(url, json=_BODY, headers={"Host": "evil.example:8000"})
    assert r.status_code == 421 and r.json()["error"]["code"] == "host_not_allowed"
    assert _post(url, json=_BODY, headers={"Host": "localhost:8000"}).status_code == 400
    allowed = light_server(allow_hosts=("studio.lan",))
    assert _post(allowed, json=_BODY, headers={"Host": "studio.lan"}).status_code == 400


def test_origin_of_a_web_page(light_server) -> None:
    import httpx2 as httpx

    url = light_server()
    r = _post(url, json=_BODY, headers={"Origin": "https://evil.example"})
    assert r.status_code == 403 and r.json()["error"]["code"] == "origin_not_allowed"
    r = httpx.get(f"{url}/v1/voices", headers={"Origin": "https://evil.example"}, trust_env=False)
    assert r.status_code == 403  # DNS rebinding or not, a page cannot read the voices
    allowed = light_server(allow_origins=("http://localhost:3000",))
    r = _post(allowed, json=_BODY, headers={"Origin": "http://localhost:3000"})
    assert r.status_code == 400 and r.headers["access-control-allow-origin"] == "http://localhost:3000"
    pre = httpx.options(f"{allowed}/v1/audio/speech", trust_env=False, headers={
        "Origin": "http://localhost:3000", "Access-Control-Request-Method": "POST",
        "Access-Control-Request-Headers": "content-type"})
    assert pre.status_code == 200


def test_health_without_a_model_is_503(light_server) -> None:
    import httpx2 as httpx

    class NoModel(_Busy):
        def model_facts(self):
            return None

    r = httpx.get(f"{light_server(NoModel())}/health", trust_env=False)
    assert r.status_code == 503 and r.json()["status"] == "no_model"


def test_get_on_the_speech_endpoint_is_405_with_allow(light_server) -> None:
    import httpx2 as httpx

    r = httpx.get(f"{light_server()}/v1/audio/speech", trust_env=False)
    assert r.status_code == 405 and r.headers["allow"] == "POST"


def _open(url: str) -> socket.socket:
    host, port = url.removeprefix("http://").rsplit(":", 1)
    s = socket.create_connection((host, int(port)), timeout=10)
    return s


def _closed(s: socket.socket, seconds: float) -> bool:
    s.settimeout(seconds)
    try:
        return s.recv(1024) == b""
    except ConnectionResetError:
        return True
    except TimeoutError:
        return False


def test_headers_dribbled_one_byte_every_2_s(light_server) -> None:
    """A slow client is closed once its headers take longer than the limit, before any key check."""
    from cosycore.server.guard import ConnectionLimits

    url = light_server(api_key="k", limits=ConnectionLimits(header_seconds=1.0))
    s = _open(url)
    try:
        s.sendall(b"GET /v1/voices HTTP/1.1\r\nHo")
        time.sleep(0.5)
        s.sendall(b"s")
        assert _closed(s, 5.0)
    finally:
        s.close()


def test_connections_past_the_limit(light_server) -> None:
    from cosycore.server.guard import ConnectionLimits

    url = light_server(limits=ConnectionLimits(max_connections=3, header_seconds=30.0))
    held = [_open(url) for _ in range(3)]
    extra = _open(url)
    try:
        assert _closed(extra, 5.0)
        assert not _closed(held[0], 0.3)
    finally:
        for s in [*held, extra]:
            s.close()


def test_upload_aborted_half_way_logs_one_line(light_server, caplog: pytest.LogCaptureFixture) -> None:
    url = light_server()
    caplog.set_level(logging.INFO)
    caplog.clear()
    s = _open(url)
    s.sendall(b"POST /v1/audio/speech HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
              b"Content-Length: 1000\r\n\r\n{\"input\": ")
    time.sleep(0.3)
    s.close()
    deadline = time.monotonic() + 10
    while not any("left during its upload" in r.getMessage() for r in caplog.records):
        assert time.monotonic() < deadline, caplog.text
        time.sleep(0.05)
    time.sleep(0.3)
    assert sum(r.levelno >= logging.INFO and r.name.startswith(("cosycore", "uvicorn")) for r in caplog.records) == 1
    assert "Traceback" not in caplog.text


def test_a_waiting_request_whose_client_leaves_frees_its_slot() -> None:
    """Its slot is free at once: the next request gets in, not a spurious 429."""
    import asyncio

    from cosycore.server.worker import QueueFullError, SpeechJob, SpeechWorker

    loop = asyncio.new_event_loop()
    try:
        worker = SpeechWorker(_Busy(), max_waiting=1)
        job = SpeechJob(text="Hi.", voice=None, mode="cross_lingual", instructions="", speed=1.0, seed=None,
                        stream=False)
        worker.submit(job, loop)
        second = worker.submit(job, loop)
        with pytest.raises(QueueFullError):
            worker.submit(job, loop)
        second.cancel()  # its client left
        worker.submit(job, loop)
        assert worker.stats().cancelled == 1
    finally:
        loop.close()
