"""Studio features above the engine: dialogue scripts, a pronunciation dictionary, long-form rendering.

* :mod:`.script`: the script format and its parser (line-numbered :class:`~.script.ScriptError`);
* :mod:`.cast`: speaker → voice and default instruction, and the per-family checks;
* :mod:`.render`: a script spoken as one streamed take, regenerate-a-line, stems and cues;
* :mod:`.take_file`: a take saved beside its audio so a line can be regenerated later
  (:mod:`.take_manifest` checks ``take.json``, :mod:`.take_storage` handles the files);
* :mod:`.regenerate`: which files a regeneration writes and replaces, and undo;
* :mod:`.lexicon`: the pronunciation dictionary (CSV import/export);
* :mod:`.longform`: a .txt/.md file to an audio file, streamed to disk and resumable;
* :mod:`.output`: atomic audio and text files;
* :mod:`.cli`: the ``synth --script``, ``text``, ``render``, ``regenerate`` and ``take`` commands.

Its subtitles, cue sheets and playlists are written by :mod:`cosycore.subtitles`. This package uses
:mod:`cosycore.engine` and never the reverse.
"""
