"""The core subcommands of ``python -m cosycore``, one module per command group: ``synth``
(:mod:`.synth`), ``voice`` (:mod:`.voice`), ``info`` and ``instruct-presets`` (:mod:`.info`), with what
they share in :mod:`.common`. The entry point, the parser and the error handling are in
:mod:`cosycore.__main__`; the studio, models and serve commands live with their packages
(:mod:`cosycore.studio.cli`, :mod:`cosycore.hub.models_cli`, :mod:`cosycore.server.cli`).
"""
