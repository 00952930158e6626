"""Models on disk and on the hubs: the catalogue (:mod:`.catalog`), downloads and the models folder
(:mod:`.download`), and the ``cosycore models`` command (:mod:`.models_cli`)."""
