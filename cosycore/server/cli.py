"""``cosycore serve``: the OpenAI-compatible speech server on one loaded model."""

from __future__ import annotations

import argparse
import logging
from pathlib import Path
from typing import Any

from ..config import QUALITY_MODES

logger = logging.getLogger(__name__)

DTYPES = ("float32", "float16", "bfloat16")


def add_serve_subparser(sub: Any) -> None:
    from .app import DEFAULT_MAX_BODY_BYTES, DEFAULT_MAX_INPUT_CHARS
    from .run import DEFAULT_HOST, DEFAULT_PORT

    p = sub.add_parser("serve", help="serve an OpenAI-compatible speech API (POST /v1/audio/speech)",
                       description="Serve the saved voices over an OpenAI-compatible speech API. Clients use "
                                   "base_url http://HOST:PORT/v1 and a voice name as 'voice'.")
    p.add_argument("--model", required=True, type=Path, help="release folder (CosyVoice2-0.5B or Fun-CosyVoice3-0.5B)")
    p.add_argument("--host", default=DEFAULT_HOST,
                   help="address to listen on (default 127.0.0.1: this machine only; others need --api-key)")
    p.add_argument("--port", type=int, default=DEFAULT_PORT, help=f"TCP port (default {DEFAULT_PORT}; 0: any free)")
    p.add_argument("--api-key", default=None,
                   help="require 'Authorization: Bearer KEY' (default: $COSY_API_KEY, else no key on loopback)")
    p.add_argument("--voices-dir", type=Path, default=None,
                   help="voice library folder (default: $COSY_VOICES_DIR or the user data folder)")
    p.add_argument("--quality", choices=QUALITY_MODES, default="exact", help="engine quality mode (README)")
    p.add_argument("--device", default="auto", help="auto (CUDA if present), cpu, cuda, cuda:1, mps")
    p.add_argument("--dtype", default="float32", choices=DTYPES, help="precision of the networks")
    p.add_argument("--threads", type=int, default=None, help="CPU threads for torch (default: torch's choice)")
    p.add_argument("--queue", type=int, default=4,
                   help="requests that may wait while one runs; more get 429 with Retry-After (default 4)")
    p.add_argument("--max-input-chars", type=int, default=DEFAULT_MAX_INPUT_CHARS,
                   help=f"longest 'input' accepted (default {DEFAULT_MAX_INPUT_CHARS}, OpenAI's limit)")
    p.add_argument("--max-body-bytes", type=int, default=DEFAULT_MAX_BODY_BYTES, help=argparse.SUPPRESS)
    p.add_argument("--allow-host", action="append", default=[], metavar="NAME",
                   help="also answer requests whose Host is NAME (default: only the address listened on and "
                        "localhost, which stops DNS-rebinding web pages); repeatable")
    p.add_argument("--allow-origin", action="append", default=[], metavar="ORIGIN",
                   help="let web pages from ORIGIN (e.g. http://localhost:3000) call the server; by default "
                        "every request a browser sends from a web page is refused; repeatable")


def run_serve_command(args: argparse.Namespace, io: Any) -> int:
    import os

    import torch

    from ..engine import Engine
    from ..errors import InputError
    from ..perf import warm_up_frontend
    from ..voices import VoiceLibrary, default_voices_dir
    from .app import ServerOptions, create_app
    from .encode import writable_formats
    from .run import bind_socket, check_bind, serve_forever, server_url
    from .worker import ModelFacts, SpeechWorker, ThreadEngineHost

    api_key = args.api_key if args.api_key is not None else os.environ.get("COSY_API_KEY") or None
    check_bind(args.host, api_key)  # before the model loads: a refused address costs nothing
    if args.queue < 0 or args.max_input_chars < 1 or args.max_body_bytes < 1024:
        raise InputError("--queue must be 0 or more, --max-input-chars 1 or more, --max-body-bytes 1024 or more.")
    sock = bind_socket(args.host, args.port)  # a port in use shows before the model loads, too
    try:
        if args.threads:
            torch.set_num_threads(args.threads)
        engine = Engine(args.model, device=args.device, dtype=getattr(torch, args.dtype), quality=args.quality)
        warm_up_frontend(engine.cfg.mel)
        facts = ModelFacts(id=Path(args.model).resolve().name, family=engine.family, sample_rate=engine.sample_rate)
        host = ThreadEngineHost(engine, facts, torch_threads=args.threads).start()
        worker = SpeechWorker(host, max_waiting=args.queue)
        library = VoiceLibrary(args.voices_dir or default_voices_dir())
        options = ServerOptions(api_key=api_key, max_body_bytes=args.max_body_bytes,
                                max_input_chars=args.max_input_chars, allow_hosts=tuple(args.allow_host),
                                allow_origins=tuple(args.allow_origin))
        app = create_app(worker, library, options)
        url = server_url(sock)
        io.stderr.write(
            f"serving {facts.id} ({facts.family}, {args.quality}) at {url}/v1 with {len(library.names())} voices "
            f"from {library.root}; formats {', '.join(writable_formats())}; "
            f"{'API key required' if api_key else 'no API key'}. Ctrl-C stops.\n")
        io.stderr.flush()
        try:
            serve_forever(app, sock, log_level="warning" if logging.getLogger().level > logging.INFO else "info")
        except KeyboardInterrupt:  # uvicorn stops gracefully on Ctrl-C, then raises it again: a normal end here
            pass
        finally:
            worker.close()
            host.close()
        io.stderr.write("server stopped\n")
    finally:
        sock.close()
    return 0
