"""Load on the speech server: N concurrent clients stream ``POST /v1/audio/speech`` for a bounded number
of requests and a bounded time, on this machine only.

    # a server started here, in this process, on the given model (a voice is made from --prompt-wav)
    .venv/bin/python -m bench.bench_server --model ~/models/CosyVoice2-0.5B --prompt-wav me.wav \\
        --prompt-text "What I say in me.wav." --clients 4 --requests 20 --duration 600 --threads 2
    # a server that is already running (cosycore serve, or the app's Settings > Local server)
    .venv/bin/python -m bench.bench_server --url http://127.0.0.1:8000 --voice Fox --clients 4 --requests 20
    # prove the bench runs, on a tiny random model (the figures mean nothing)
    .venv/bin/python -m bench.bench_server --dry

Reports requests per second (completed), first-byte latency (request sent -> first audio bytes; median
and p95), whole-request latency, seconds of audio per wall second, 429 answers (queue full; the client
waits for Retry-After, within the time bound) and errors. One engine makes one request at a time, so
with more clients than 1 + the server's queue the surplus is answered 429 by design. Only loopback
addresses are accepted as targets.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import threading
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

TEXTS = ("Hello there, this is a short test of the speech server.",
         "The quick brown fox jumps over the lazy dog.",
         "Streaming audio arrives while the rest is still being made.",
         "One more sentence, please, and then another one.")


@dataclass
class Sample:
    status: int
    first_byte: float | None = None  # seconds from the request to the first body bytes
    total: float = 0.0  # seconds for the whole request
    audio_seconds: float = 0.0
    error: str = ""


@dataclass
class Report:
    clients: int
    wall_seconds: float
    completed: int
    rejected_429: int
    errors: int
    requests_per_second: float
    first_byte_median: float | None
    first_byte_p95: float | None
    total_median: float | None
    total_p95: float | None
    audio_seconds_per_second: float
    error_messages: list[str] = field(default_factory=list)


def percentile(values: list[float], q: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    k = (len(ordered) - 1) * q
    lo, hi = int(k), min(int(k) + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (k - lo)


def check_loopback(url: str) -> None:
    from cosycore.server.run import is_loopback

    host = urlsplit(url).hostname or ""
    if not is_loopback(host):
        raise SystemExit(f"bench_server: {url} is not a loopback address; this bench loads this machine only.")


def one_request(client, body: dict, sample_rate: int) -> tuple[Sample, float]:
    """Stream one request; returns the sample and the Retry-After (0 unless 429)."""
    start = time.perf_counter()
    first: float | None = None
    size = 0
    try:
        with client.stream("POST", "/v1/audio/speech", json=body) as r:
            if r.status_code != 200:
                r.read()
                retry = float(r.headers.get("retry-after", "1")) if r.status_code == 429 else 0.0
                message = r.json().get("error", {}).get("message", "") if r.content else ""
                return Sample(r.status_code, total=time.perf_counter() - start, error=message), retry
            for data in r.iter_raw():
                if data and first is None:
                    first = time.perf_counter() - start
                size += len(data)
    except Exception as e:  # counted and reported, never raised: a load bench keeps going
        return Sample(0, total=time.perf_counter() - start, error=f"{type(e).__name__}: {e}"), 0.0
    return Sample(200, first, time.perf_counter() - start, size / 2 / sample_rate), 0.0


def run_load(url: str, api_key: str | None, voice: str, *, clients: int, requests: int, duration: float,
             sample_rate: int = 24000) -> Report:
    import httpx2 as httpx

    check_loopback(url)
    deadline = time.monotonic() + duration
    lock = threading.Lock()
    issued = [0]
    samples: list[Sample] = []
    headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}

    def client_loop(index: int) -> None:
        with httpx.Client(base_url=url, headers=headers, trust_env=False,
                          timeout=httpx.Timeout(max(1.0, duration), connect=10.0)) as client:
            while time.monotonic() < deadline:
                with lock:
                    if issued[0] >= requests:
                        return
                    issued[0] += 1
                    n = issued[0]
                body = {"model": "tts-1", "voice": voice, "input": TEXTS[n % len(TEXTS)], "response_format": "pcm",
                        "stream_format": "audio"}
                sample, retry = one_request(client, body, sample_rate)
                with lock:
                    samples.append(sample)
                    if sample.status == 429:
                        issued[0] -= 1  # not served: it is tried again, within the time bound
                if retry:
                    time.sleep(min(retry, max(0.0, deadline - time.monotonic())))

    start = time.monotonic()
    threads = [threading.Thread(target=client_loop, args=(i,), daemon=True) for i in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(max(0.0, deadline - time.monotonic()) + 30)
    wall = time.monotonic() - start
    ok = [s for s in samples if s.status == 200]
    bad = [s for s in samples if s.status not in (200, 429)]
    firsts = [s.first_byte for s in ok if s.first_byte is not None]
    totals = [s.total for s in ok]
    return Report(
        clients=clients, wall_seconds=round(wall, 2), completed=len(ok),
        rejected_429=sum(s.status == 429 for s in samples), errors=len(bad),
        requests_per_second=round(len(ok) / wall, 4) if wall > 0 else 0.0,
        first_byte_median=_round(statistics.median(firsts) if firsts else None),
        first_byte_p95=_round(percentile(firsts, 0.95)),
        total_median=_round(statistics.median(totals) if totals else None),
        total_p95=_round(percentile(totals, 0.95)),
        audio_seconds_per_second=round(sum(s.audio_seconds for s in ok) / wall, 4) if wall > 0 else 0.0,
        error_messages=sorted({f"{s.status}: {s.error}" for s in bad})[:10],
    )


def _round(x: float | None) -> float | None:
    return None if x is None else round(x, 3)


def start_local_server(model: Path, prompt_wav: Path | None, prompt_text: str, *, threads: int, queue: int,
                       quality: str, voices_dir: Path):
    """Load the model, make the voice "Bench", serve on 127.0.0.1 (a free port). Returns (url, stop)."""
    import numpy as np
    import torch

    from cosycore.engine import Engine
    from cosycore.perf import warm_up_frontend
    from cosycore.server.app import ServerOptions, create_app
    from cosycore.server.run import ServerThread
    from cosycore.server.worker import ModelFacts, SpeechWorker, ThreadEngineHost
    from cosycore.voices import VoiceLibrary

    torch.set_num_threads(threads)
    engine = Engine(model, device="cpu", quality=quality)
    warm_up_frontend(engine.cfg.mel)
    if prompt_wav is not None:
        voice = engine.create_voice(prompt_wav, transcript=prompt_text, name="Bench")
    else:  # a voiced, syllable-like signal: enough for a random-weight model
        t = np.arange(4 * 24000) / 24000
        audio = 0.3 * np.sin(2 * np.pi * 130 * t) * (0.5 + 0.5 * np.sin(2 * np.pi * 4 * t))
        voice = engine.create_voice(audio.astype(np.float32), 24000, name="Bench")
    library = VoiceLibrary(voices_dir)
    library.add(voice)
    host = ThreadEngineHost(engine, ModelFacts(model.name, engine.family, engine.sample_rate), threads).start()
    worker = SpeechWorker(host, max_waiting=queue)
    runner = ServerThread(create_app(worker, library, ServerOptions()), "127.0.0.1", 0)
    url = runner.start()

    def stop() -> None:
        worker.close()
        runner.stop()
        host.close()

    return url, stop


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--url", help="a running server, e.g. http://127.0.0.1:8000 (loopback only)")
    ap.add_argument("--api-key", default=None)
    ap.add_argument("--voice", default="Bench", help="voice name on that server")
    ap.add_argument("--model", type=Path, help="start a server here on this release folder instead")
    ap.add_argument("--prompt-wav", type=Path, help="recording for the voice 'Bench' (--model)")
    ap.add_argument("--prompt-text", default="", help="its transcript (zero_shot; empty: cross_lingual)")
    ap.add_argument("--quality", default="exact", choices=("exact", "fast", "draft"))
    ap.add_argument("--threads", type=int, default=2, help="torch threads of the engine (--model)")
    ap.add_argument("--queue", type=int, default=4, help="requests that may wait (--model)")
    ap.add_argument("--clients", type=int, default=4, help="concurrent clients (at most 64)")
    ap.add_argument("--requests", type=int, default=20, help="requests to complete in all (at most 10,000)")
    ap.add_argument("--duration", type=float, default=600.0, help="stop after this many seconds (at most 3,600)")
    ap.add_argument("--dry", action="store_true", help="tiny random model, 2 clients, 4 requests: proves it runs")
    ap.add_argument("--json", action="store_true", help="print the report as JSON")
    args = ap.parse_args(argv)
    if not (args.url or args.model or args.dry):
        ap.error("give --url (a running server), --model (start one here) or --dry")
    if args.dry:
        args.url = None
        args.clients, args.requests, args.duration, args.threads, args.queue = 2, 4, 300.0, 1, 1
    if not (1 <= args.clients <= 64 and 1 <= args.requests <= 10_000 and 0 < args.duration <= 3600):
        ap.error("--clients 1..64, --requests 1..10000, --duration up to 3600 s")
    with tempfile.TemporaryDirectory(prefix="bench-server-") as tmp:
        stop = None
        if args.url:
            url = args.url.rstrip("/").removesuffix("/v1")
        else:
            model = args.model
            if args.dry:
                from cosycore.testing.tiny_model import write_tiny_model

                model = write_tiny_model(Path(tmp) / "tiny", "cosyvoice2", seed=0).model_dir
                print("bench_server: dry run on a tiny random-weight model; the figures mean nothing", file=sys.stderr)
            url, stop = start_local_server(model, args.prompt_wav, args.prompt_text, threads=args.threads,
                                           queue=args.queue, quality=args.quality, voices_dir=Path(tmp) / "voices")
            args.voice = "Bench"
        try:
            report = run_load(url, args.api_key, args.voice, clients=args.clients, requests=args.requests,
                              duration=args.duration)
        finally:
            if stop is not None:
                stop()
    if args.json:
        print(json.dumps(asdict(report), indent=2))
    else:
        print(f"clients {report.clients}, {report.completed} requests in {report.wall_seconds} s: "
              f"{report.requests_per_second} requests/s, {report.audio_seconds_per_second} s of audio per s")
        print(f"first byte: median {report.first_byte_median} s, p95 {report.first_byte_p95} s; "
              f"whole request: median {report.total_median} s, p95 {report.total_p95} s")
        print(f"429 (queue full, retried after Retry-After): {report.rejected_429}; errors: {report.errors}")
        for message in report.error_messages:
            print("  error", message)
    return 0 if report.errors == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
