"""An OpenAI-compatible local speech server (``cosycore serve``, and the app's Settings › Local server).

* :mod:`.schema`: request checks and OpenAI's error shape;
* :mod:`.encode`: wav, pcm, flac, mp3 and opus, whole or streamed;
* :mod:`.worker`: the bounded queue in front of the one thread that owns the engine;
* :mod:`.app`: the Starlette routes; :mod:`.run`: uvicorn, in the foreground or on a thread;
* :mod:`.cli`: the ``serve`` subcommand.

Importing this package loads neither torch nor the engine; the worker builds engine requests on the
engine's own thread.
"""
