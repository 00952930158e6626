"""Work off the GUI thread: the engine thread (the one owner of torch) and the jobs it runs (takes,
scripts, long-form renders, transcripts), what passes between it and the GUI, and time-left estimates."""
