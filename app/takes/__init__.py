"""Takes: what was spoken (in memory and in the take store on disk), script takes, exporting them, the
long-form renders the app remembers, and reading text files to speak."""
