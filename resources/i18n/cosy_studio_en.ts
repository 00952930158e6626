<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="en">
<context>
    <name>AsrModelsSection</name>
    <message>
        <source>Speech recognition (for transcripts)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Writes a voice&apos;s transcript from its recording when you press Transcribe: Chinese, English, Japanese, Korean and Cantonese, on this computer.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Verify</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Check the files against what was installed and transcribe a test clip</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Delete…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Delete the speech-recognition model from disk</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>CastTable</name>
    <message>
        <source>Speaker</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Voice</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Default instruction</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Who speaks each name of the script: a saved voice and, optionally, an instruction for the lines that have none of their own</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Speakers appear here as you write lines like “Anna: Hello.”</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The script checked against the cast and the loaded model; problems are underlined in red in the text (hover them for what to do)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Make the cast&apos;s voices again from their recordings for the loaded model (each is saved; it takes a few seconds per voice)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>none (or a preset, or your own words)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Not in the script any more; right-click to remove</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>— choose a voice —</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Made for {0}; the loaded model is {1}. Re-make it for this model with the button under the cast, or load the other model.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>{0} (missing)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>There is no saved voice called “{0}” any more; choose another or make it again.</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>Re-make %n voice(s) for the loaded model</source>
        <translation>
            <numerusform>Re-make %n voice for the loaded model</numerusform>
            <numerusform>Re-make %n voices for the loaded model</numerusform>
        </translation>
    </message>
    <message>
        <source>Remove “{0}” from the cast</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>CatalogRow</name>
    <message>
        <source>Discard</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Delete what was downloaded so far</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Installed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Installed in %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Resume</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Paused: %1 downloaded so far</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Download</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>About %1</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>ConvertController</name>
    <message>
        <source>Recording to convert</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cannot use this recording</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Recording of {0:.1f} s ({1})</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>{0} · {1:.1f} s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Recording… speak now.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cannot record</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>System default</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>{0} (not found)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cannot record: {0}. Plug in a microphone, or choose another one in the Microphone list, then try again.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Microphone, live · {0:.1f} s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Recording… {0:.1f} s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Recording stopped at the limit of {0:g} minutes.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No model</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Load a model first.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No target voice</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Choose the voice to convert into in the list of voices, or record or make one first.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Stop live conversion first.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No source</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Open a recording or record one first, then press Convert.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Headphones needed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The microphone and the output are the same device ({0}), so the converted voice would play into the microphone and be converted again. Wear headphones and tick “I use headphones”, or choose another microphone in the Microphone list or another output in Settings › Output device.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cannot convert live</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Live {0}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Recording; press Stop live to convert the whole recording.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>ConvertPanel</name>
    <message>
        <source>Say it yourself, hear it in a saved voice: the words, timing and emphasis of the source, spoken in the target voice.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No source yet: open a recording or record one.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Open file…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>A recording to convert: WAV, FLAC, OGG or MP3, 16 kHz or more, up to an hour</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Record</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Record the source from the microphone; press again to stop</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The microphone that Record and Live listen to</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The source recording</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The source recording appears here</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The voice chosen in the list of voices</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Live</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Convert from the microphone while you speak; the converted voice plays a moment later. Press again to stop</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>I use headphones</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Live conversion plays what the microphone hears; through speakers it would hear itself. Wear headphones</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Latency: from your speech to its converted sound. RTF: seconds of work per second of speech (above 1 this computer cannot keep up)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Convert when I stop</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Stop converting live, keep recording, and convert the whole recording when you press Live again</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Source:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Microphone:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Target voice:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>(too long to draw)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>none: choose or make a voice on the left</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Stop recording</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Stop live</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Listening… {0:.1f} s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Latency {0:.1f} s · RTF {1}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>This computer converts slower than you speak (RTF {0}), so the converted voice falls further behind. Convert the whole recording when you stop instead?</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>DevicesController</name>
    <message>
        <source>No audio device — export still works</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Output: {0}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No audio device</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>DropController</name>
    <message>
        <source>Make a voice?</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Make a voice from {0}? The recorder opens with the clip, to trim and name it.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Make a voice</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>EditorAutosave</name>
    <message>
        <source>Cannot save the text</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>{0}
The text is still in the editor; copy it somewhere safe.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>EngineThread</name>
    <message>
        <source>Checking the model folder</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Starting the engine (torch)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Warming up</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Ready</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Loading the speech language model</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Loading the flow decoder</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Loading the vocoder</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Loading the text tokenizer</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Loading the speech tokenizer</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Loading the speaker encoder</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Finishing</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>ExportAllDialog</name>
    <message>
        <source>Export all takes</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Folder:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Format:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>{0} takes, one file each, named after the take. Existing files are not replaced unless you say so.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Export</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Export all takes to</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>ExportController</name>
    <message>
        <source>There is no take to export yet.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>WAV, 16-bit PCM (*.wav)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>WAV, 32-bit float (*.wav)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>FLAC (*.flac)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>MP3 (*.mp3)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Ogg Vorbis (*.ogg)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Subtitles, SRT (*.srt)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Export take {0}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Exporting {0}…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Replace files?</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>These files exist already and would be replaced:
{0}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Export failed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source> (partial: the take was not complete)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Exported {0}</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>ExportRows</name>
    <message>
        <source>WAV, 16-bit PCM</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>WAV, 32-bit float</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>FLAC</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>MP3</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Ogg Vorbis</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>LevelMeter</name>
    <message>
        <source>Microphone level; keep the peaks out of the red</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>LexiconController</name>
    <message>
        <source>The app dictionary {0} cannot be read: {1} Fix the file, or open Tools › Pronunciation dictionary… to start a new one (the file is kept).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>voice {0}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>app</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>{0} cannot be read: {1}
Saving keeps that file under another name and writes a new one.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Pronunciation dictionary: app</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Pronunciation dictionary: voice {0}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The unreadable dictionary was kept as {0}.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Saved the app dictionary ({0}).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Saved the dictionary of the voice “{0}”.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>LexiconDialog</name>
    <message>
        <source>The replacement is how the word sounds, in ordinary letters or characters (CosyVoice2 has no pronunciation tokens).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The replacement is a respelling, pinyin tokens such as [j][ǐ] or ARPAbet tokens such as [N][UW1] (Fun-CosyVoice3).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The replacement is a respelling; Fun-CosyVoice3 also takes pinyin tokens ([j][ǐ]) and ARPAbet tokens ([N][UW1]). Entries are checked once a model is loaded.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Each term is replaced before the text is read. {0}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Term</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Replacement</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Whole word</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Case sensitive</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Double-click a cell to edit it. Whole word: the term does not match inside a longer word. Case sensitive: the letters match only as written.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Add</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Add an entry and type its term</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Remove</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Remove the selected entries (Delete); Undo brings them back</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Undo</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Undo the last removal or import (Ctrl+Z)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Import CSV…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Add entries from a CSV file whose header starts term,replacement</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Export CSV…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Save these entries as a CSV file (for the command line or to share)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Type a sentence to see how it will be read</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Shows what the dictionary replaces and the sentences exactly as the engine will speak them (as `cosycore text --lexicon`)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The replacements, then each segment the model will speak</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Test:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Keep these entries</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Close without saving</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>Removed %n entry(s). Undo (Ctrl+Z) brings them back.</source>
        <translation>
            <numerusform>Removed %n entry. Undo (Ctrl+Z) brings it back.</numerusform>
            <numerusform>Removed %n entries. Undo (Ctrl+Z) brings them back.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Imported %n entry(s) from {0} ({1} replaced). Undo (Ctrl+Z) takes the import back.</source>
        <translation>
            <numerusform>Imported %n entry from {0} ({1} replaced). Undo (Ctrl+Z) takes the import back.</numerusform>
            <numerusform>Imported %n entries from {0} ({1} replaced). Undo (Ctrl+Z) takes the import back.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Exported %n entry(s) to {0}.</source>
        <translation>
            <numerusform>Exported %n entry to {0}.</numerusform>
            <numerusform>Exported %n entries to {0}.</numerusform>
        </translation>
    </message>
    <message>
        <source>Undone.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Row {0}: {1}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Row {0} has the same term; that entry is used.</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>… and %n more</source>
        <translation>
            <numerusform>… and %n more</numerusform>
            <numerusform>… and %n more</numerusform>
        </translation>
    </message>
    <message>
        <source>The dictionary was not saved</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Unsaved changes</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Close without saving the changes to the dictionary?</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Import a dictionary</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>CSV files (*.csv);;All files (*)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Add the entries of {0} to these (an entry for the same term is replaced), or replace all entries with them?</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Add (merge)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Replace all</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cannot import {0}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Export the dictionary</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>CSV files (*.csv)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cannot export the dictionary</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>dictionary: {0} → {1}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cannot be spoken: {0}</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>LexiconSpans</name>
    <message>
        <source>{0} → {1} (dictionary: {2})</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>LiveHud</name>
    <message>
        <source>Estimated from the real-time factor measured on earlier takes with this model, device and quality</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Buffered: audio made but not yet played</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>{0}  buffered {1:.1f} s  chunks {2}  underruns {3}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>first take: no estimate yet</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>almost done</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>about {0} s left</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>about {0} min {1:02d} s left</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>LocalServerDialog</name>
    <message>
        <source>Local server</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Serve the loaded model and your saved voices to other programs on this computer through the OpenAI speech API (POST /v1/audio/speech; the voice is a saved voice&apos;s name).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>optional</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Clients must then send the header &apos;Authorization: Bearer KEY&apos;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Copy</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Port:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>API &amp;key:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>URL:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Status:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Stop</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Start</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Running, but no model is loaded yet: requests are refused until one is.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Serving {model}: {running} running, {waiting} waiting, {served} served, {cancelled} cancelled, {failed} failed.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Not running: {error}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Not running.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>LongFormController</name>
    <message>
        <source>Open text</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Text and Markdown (*.txt *.md *.markdown)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cannot open {0}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>{0} is opened for rendering</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>{0} has {1} characters, more than one take can speak ({2}), so it is not put into the editor. Render it to an audio file in the Render to file dialog, which is open now.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Open as a script?</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>{0} looks like a dialogue script (Name: line). Open it as a script?</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Opened {0}. Ctrl+Z in the editor brings back the text it replaced.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>A render is running</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>One render runs at a time: wait until it has finished, or cancel it (it can be resumed later).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>{0} has an unfinished render</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Resume it from File › Unfinished renders, or choose another file name.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Replace files?</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>These files exist already and would be replaced when the render has finished:
{0}
Replace them?</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Nothing to render</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The editor is empty.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cannot keep the text for the render</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No model</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Load a model first.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No voice</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cannot start the render</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Rendering {0} → {1}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Starting…</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>%n more unfinished render(s) in File › Unfinished renders.</source>
        <translation>
            <numerusform>%n more unfinished render in File › Unfinished renders.</numerusform>
            <numerusform>%n more unfinished renders in File › Unfinished renders.</numerusform>
        </translation>
    </message>
    <message>
        <source>Resume rendering {0} — {1}/{2} segments done</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Saving to {0}. It was stopped before it had finished.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>None</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>One render runs at a time: wait until it has finished, or cancel it first.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>{0} is not there any more (moved or deleted?). Put it back and press Resume.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The voice &apos;{0}&apos; is not in the voice library any more (deleted or renamed?). Put it back (import its .cosyvoice file) and press Resume.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Nothing is lost: the {0} finished segments are kept in {1}.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Start over?</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Render {0} from the beginning? The unfinished audio made so far is discarded.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Starting over…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Discard the unfinished render?</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Delete the partial audio of {0} ({1})? This cannot be undone.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cannot discard</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Waiting for its turn: takes and other work on the engine go first.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Paused. Resume goes on from the last finished segment; closing Cosy Studio keeps it for later.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Render of {0} stopped with {1} of {2} segments done; File › Unfinished renders resumes it.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Rendered {0}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Render finished: {0}</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>MainWindow</name>
    <message>
        <source>Cosy Studio</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The take: dashed lines mark where chunks joined; click a finished take to play from there</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Takes appear here while they are spoken</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;File</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Open a .txt or .md file into the editor</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Render to file…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Speak a long text or a book into a WAV or FLAC file, in the background</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Unfinished renders</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Choose &amp;model folder…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Models…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Installed models, downloads, and folders you already have</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Export take…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Quit</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>S&amp;cript</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Regenerate a line…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;New project…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Open project…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Save project</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Save project &amp;as…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Close project</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Open &amp;recent</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Back to the Untitled session, as you left it</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Open &amp;text…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Speak one line of the shown script take again (another seed or instruction) and splice it in</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Undo line regeneration</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Put the shown take&apos;s previous version back (again: the newer one)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Re&amp;generate sentence…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Undo regeneration</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Speak the sentence at the playhead of the shown take again (another seed or instruction); also a right-click on the waveform</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Put the shown take&apos;s previous version back (Ctrl+Z in the waveform; again: the newer one)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Recent mo&amp;dels</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Ta&amp;kes</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Voice</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Record a voice…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Voice from &amp;file…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Tools</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Pronunciation &amp;dictionary…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Terms and how to say them, for every voice</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Settings</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Output device</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Take storage limit…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Language</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>System</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Quality</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Local &amp;server…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Help</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;About Cosy Studio</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No model</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The loaded model</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Where the model runs</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The quality mode the model was loaded in (Settings › Quality)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Time to first audio of the last take</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Real-time factor of the last take: seconds of work per second of audio (below 1 is faster than real time)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The audio output</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Keyboard shortcuts</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Playback</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>{0}[*] — Cosy Studio</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The language changes when Cosy Studio is restarted.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>About Cosy Studio</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cosy Studio: voice cloning and instruction-controlled speech on CosyVoice2 and Fun-CosyVoice3.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>ModelScreen</name>
    <message>
        <source>No model loaded</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cosy Studio needs a CosyVoice2-0.5B or Fun-CosyVoice3-0.5B release folder.
Choose the folder that contains cosyvoice2.yaml or cosyvoice3.yaml.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Choose model folder…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Pick a release folder you already have on disk</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Download…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Download a release from Hugging Face or ModelScope, with progress, resume and verification</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Loading the model</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Loading the model…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Choose a model release folder</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>ModelsController</name>
    <message>
        <source>Cannot use this model folder</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Choose a model release folder</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Loading {0}…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Loading the model: {0} ({1} %)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Device: {0}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Quality: {0}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Quality: Auto ({0})</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Model loaded in {0:.1f} s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No model</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Exact</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Fast</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Draft</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Auto</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Exact on a graphics card; on the processor, the best mode this computer has been measured to play without gaps (Draft until Fast or Exact has been measured live).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The original model&apos;s computation: the reference sound, and the slowest.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Faster: on the CPU the speech model runs in 8-bit integers, and streamed audio is computed only where it is new. The voice can differ slightly from Exact; loading takes a little longer for the warm-up.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Fastest: Fast plus a 4-step audio decoder without guidance. Audibly rougher; for trying out texts and voices before the final take.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Quality {0} applies when a model is loaded.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>ModelsDialog</name>
    <message>
        <source>Models</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Change…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Download models into another folder</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 is missing. Download the model again (Resume keeps what is there) or choose a complete folder.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>ModelScope is greyed out because the modelscope package is not installed: pip install &apos;cosy-studio[modelscope]&apos;, then restart Cosy Studio.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 (not installed)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>huggingface.co, or a mirror such as https://hf-mirror.com</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Where Hugging Face downloads come from; type a mirror&apos;s address if huggingface.co cannot be reached from here</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Models folder:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Download from:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Mirror:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Model</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Family</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Size</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Folder</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Use</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Load the selected model</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Verify</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Check the selected model&apos;s files against what was installed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>with a test synthesis</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Also load the model and synthesise a few sounds (takes a while)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Delete…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Use a folder I already have…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Pick a CosyVoice2-0.5B or Fun-CosyVoice3-0.5B release folder on disk</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Installed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Download</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 (your folder)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>✖ %1 (incomplete)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 (unverified)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No published hash for: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Forget</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Remove this folder from the list; nothing is deleted from disk</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Delete the selected model from disk</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Asking %1 for the file list…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Stopping…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Checking %1…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 cannot be used: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Delete model</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Delete %1 (%2) from %3?</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Deleted %1.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Transcribe needs the speech-recognition model: press its Download button below.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 is installed (%2).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 needs attention.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Stopped. What was downloaded is kept; press Resume to continue.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Stopped.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1. Check the internet connection and proxy settings, type a mirror under Mirror (for example https://hf-mirror.com) or download from the other source; if the model is already on disk, press “Use a folder I already have…”.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Choose a model release folder</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Choose where models are downloaded</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>PathRow</name>
    <message>
        <source>Browse…</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>PerformanceMenu</name>
    <message>
        <source>&amp;Performance</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Threads: automatic ({0})</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Use every core. Waiting threads sleep instead of spinning, so a busy computer slows a take down gently; from 4 cores on, the speech model and the audio decoder also run side by side.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Threads: {0}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Use {0} of the {1} cores for synthesis; fewer leaves more for other programs.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>PieceRegenController</name>
    <message>
        <source>{0}
The take is unchanged.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cannot undo</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Take {0} is back to its previous version; Undo again for the other.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>PlaybackController</name>
    <message>
        <source>no audio</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>stopped</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>buffering</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>playing</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>PresetNames</name>
    <message>
        <source>Cantonese</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Sichuanese</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Shanghainese</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Zhengzhou</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Changsha</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Tianjin</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Northeastern</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Gansu</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Guizhou</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Henan</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Hubei</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Hunan</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Jiangxi</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Minnan</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Ningxia</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Shanxi</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Shaanxi</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Shandong</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Yunnan</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Happy</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Sad</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Surprised</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Angry</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Fearful</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Disgusted</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Calm</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Serious</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Fast</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Very fast</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Slow</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Very slow</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Loud</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Soft</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Mysterious</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Fierce</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Curious</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Elegant</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Lonely</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Robot</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Peppa Pig</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>PresetPicker</name>
    <message>
        <source>Search presets (name, text or meaning)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>One per group: a dialect, an emotion, a speed and a volume combine in that order. A role play or a custom preset stands alone.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Dialect</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Emotion</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Speed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Volume</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Role play</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Custom</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Use “Save as preset” to keep an instruction you typed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>None documented for this model</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Delete this preset</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>ProjectsController</name>
    <message>
        <source>Untitled</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Unsaved changes</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Save the changes to the project “{0}”?</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The takes are kept either way; Don&apos;t save goes back to the texts as they were last saved.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Projects</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>A long text is being rendered to a file. Pause or cancel it in the render panel, or wait until it ends, then try again.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>A take is being made, or a Speak waits for the model. Stop it (Esc), or wait until it ends, then try again.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Open project</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cosy Studio projects (*{0})</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cannot open the project</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Some takes could not be read</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>These take folders in {0} were left as they are:
{1}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Project: {0}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>These voices of the project are not in your voice library: {0}. Add them (Voice › Voice from file…, or copy their .cosyvoice files into {1}); until then their takes still play, but new takes cannot use them.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>These voices differ from the ones the project was saved with (same name, another file): {0}.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>These takes of the project are not in its takes folder {0}: {1}.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Project “{0}”</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cannot save the project</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Saved {0}.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>{0} already exists and holds files. A project gets a folder of its own, and Cosy Studio never writes over files it did not make: choose another name, or another place.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Save project as</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Copying the takes into {0}…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The takes changed while they were being copied.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Save as cancelled; nothing was saved.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>{0}
Nothing was saved; the work is still open as it was.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>New project</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cannot make the project</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>{0} (not found)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>{0} is not there any more (moved, renamed, or on a drive that is not connected)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No recent projects</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Clear list</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>RecentModelsController</name>
    <message>
        <source>{0} (missing)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>(none yet)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>{0} is loaded already.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>Recorder</name>
    <message>
        <source>The clip is sampled at {0} Hz; a voice needs at least {1} kHz (telephone-quality audio cannot be used). Record it again, or export it at 16 kHz or higher.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The recording is {0:.1f} s long; a voice needs at least {1:g} s.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The recording is {0:.1f} s long; trim it to at most {1:g} s.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The recording is silent. Check the microphone and its volume.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The level is low ({0:.0f} dBFS); move closer to the microphone.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The recording is clipped ({0:.1%} of samples at full scale); record a little quieter.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Record a voice</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The microphone to record from</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Refresh</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Look for microphones again (after plugging one in)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Record</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Start recording; read a sentence or two naturally (3-30 s)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Recorded time; recording stops by itself at 30 s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Open file…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Use an audio file instead of the microphone</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Drag the shaded area&apos;s edges to trim the recording</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Play</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Listen to the trimmed recording</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>e.g. Anna, calm</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>A name for the new voice</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Exactly what is said in the recording</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Needed for Clone mode; may stay empty for Cross-lingual and Instruct</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Save as voice</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Make the voice from the trimmed recording and add it to the library</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Close</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Close the recorder</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Microphone:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Name:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Transcript:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No microphone found</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cannot record from {0}: {1}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Recording… speak now.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Stop</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Stop recording</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>{0:.1f} s / {1:g} s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Nothing recorded yet.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No transcript: the voice will speak in Cross-lingual and Instruct modes only. Type exactly what is said in the selection to use Clone mode.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>✔ The recording looks good.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The clip is {0:.1f} s long and a voice can use {1:g} s, so only {2:.1f}–{3:.1f} s is selected: the transcript must cover exactly that part (drag the shaded area to choose another).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The selection ({0:.1f}–{1:.1f} s) leaves out some of the speech: the transcript must cover only the selected part.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>✖ Give the voice a name.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Making the voice…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>✔ Saved as “{0}”.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>RegenController</name>
    <message>
        <source>Show a script take first (Script mode, Speak).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>This take holds no spoken line yet.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Regenerate line {0} ({1})…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Regenerate a line…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Undo line regeneration</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cannot regenerate the line</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Regenerating line {0} of take {1}…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Take {0} is not a script take.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Load a model first.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Wait until the take being made is finished.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>A line is being regenerated; wait until it is done.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Take {0} is not saved on disk, so its lines cannot be regenerated.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Two lines of this take touch without a pause; its lines cannot be regenerated one by one.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cannot save the regenerated line</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Line {0} of take {1} regenerated with seed {2}; Script › Undo line regeneration puts the previous one back.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>There is no line regeneration to undo.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>RegenerateDialog</name>
    <message>
        <source>Regenerate a line</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Regenerate a sentence</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>{0}. {1}: {2}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>{0}. {1}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Another seed speaks the line another way; the line&apos;s own seed remakes it</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Another seed speaks the sentence another way</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Keep the line&apos;s instruction, speak it without one, or choose a preset or type another</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Keep the sentence&apos;s instruction, speak it without one, or choose a preset or type another</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>(keep the line&apos;s instruction)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>(keep the sentence&apos;s instruction)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>(no instruction)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Regenerate</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Line:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Sentence:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Seed:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Instruction:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>seed {0}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a random seed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Spoken with {0}; instruction: {1}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>none</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>RemakeController</name>
    <message>
        <source>Cannot re-make “{0}”</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>Re-making %n voice(s) for the loaded model…</source>
        <translation>
            <numerusform>Re-making %n voice for the loaded model…</numerusform>
            <numerusform>Re-making %n voices for the loaded model…</numerusform>
        </translation>
    </message>
    <message>
        <source>The cast&apos;s voices were made for the loaded model.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>RenderDialog</name>
    <message>
        <source>Render to file</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>A file:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a .txt or .md file</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Choose…</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>The text in the editor (%n character(s))</source>
        <translation>
            <numerusform>The text in the editor (%n character)</numerusform>
            <numerusform>The text in the editor (%n characters)</numerusform>
        </translation>
    </message>
    <message>
        <source>Headings (# …) start chapters, as in Markdown</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>none: clone (or cross-lingual without a transcript)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>With an instruction every segment is spoken in instruct mode</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>book.flac or book.wav</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>A cue sheet beside the file (.cue)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>One file per chapter, and a playlist (.m3u)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No chapter marks</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Chapters start at Markdown headings</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Voice:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Instruction:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Speed:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Save as:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Chapters:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Render</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Text to render:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>It runs in the background: keep working, and speak takes meanwhile (the render waits for them). Stopped or closed, it resumes where it stopped.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Text to render</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Text and Markdown (*.txt *.md *.markdown)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Save the rendered audio as</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>FLAC (*.flac);;WAV (*.wav)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Choose the file to render.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>{0} is not a .txt or .md file.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>{0} does not exist.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>There is no saved voice yet: record one or make one from a file first.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Choose where to save the audio.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Save as .flac or .wav (not {0}).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>no extension</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The folder {0} does not exist.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>RenderPanel</name>
    <message>
        <source>Segments are paragraphs and headings; the time left is estimated from this session&apos;s speed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Pause</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Stop now; Resume goes on from the last finished segment</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Resume</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Go on from the last finished segment</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Start over</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Render the text as it is now, from the beginning (the unfinished audio is discarded)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Stop rendering; the audio made so far is kept, and File › Unfinished renders resumes it later</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Discard…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Delete this unfinished render&apos;s partial audio</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Show folder</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Open the folder with the rendered files</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Close</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Hide this panel (an unfinished render stays in File › Unfinished renders)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>{0}/{1} segments done</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>estimating…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>{0}/{1} segments · {2:.0f} % · {3} of audio · elapsed {4} · {5} left</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Pausing…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Wrote {0} in {1}</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>RenderRunner</name>
    <message>
        <source>Paused: another model was loaded. Resume goes on with the model loaded now; the audio made so far stays as it is.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>{0}, the voice, the dictionary or the settings changed since this render began, so it cannot go on where it stopped. Start over renders the text as it is now (the unfinished audio is discarded); or put {0} back as it was and press Resume.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The disk is full: {0} has no room for the audio. Free some space, then press Resume.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The {0} finished segments are kept in {1}; Resume goes on from there.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>ScriptController</name>
    <message>
        <source>There is no saved voice called “{0}” any more.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The voice “{0}” cannot be read: {1}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No voice is cast for {0}: choose one in the cast table below the text.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>{0}&apos;s voice: {1}</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>%n problem(s), underlined in the text. First: line {0}: {1}</source>
        <translation>
            <numerusform>%n problem, underlined in the text. First: line {0}: {1}</numerusform>
            <numerusform>%n problems, underlined in the text. First: line {0}: {1}</numerusform>
        </translation>
    </message>
    <message>
        <source>Write lines like “Anna: Hello.” or “Ben (whispering): Quiet.”</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>%n line(s); load a model to check them against it.</source>
        <translation>
            <numerusform>%n line; load a model to check it against the model.</numerusform>
            <numerusform>%n lines; load a model to check them against it.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n line(s), ready to speak (about {0:.0f} s).</source>
        <translation>
            <numerusform>%n line, ready to speak (about {0:.0f} s).</numerusform>
            <numerusform>%n lines, ready to speak (about {0:.0f} s).</numerusform>
        </translation>
    </message>
    <message>
        <source>Opened {0} as a script. Ctrl+Z in the editor brings back the text it replaced.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The model is still loading; Speak when it is ready.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No model</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Load a model first.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Write a script first: lines like “Anna: Hello.”</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>… and {0} more</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The script cannot be spoken yet</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Fix the underlined lines first (hover them for what to do):
{0}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The dictionary cannot be used</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Line {0} ({1}): {2}</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>ScriptExportDialog</name>
    <message>
        <source>Export script take</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Subtitles, SRT (one cue per line, with the speaker&apos;s name)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Subtitles, WebVTT (the speaker as a voice span)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Stems: one file per speaker, as long as the take, in a folder beside it</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Export</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>File:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Format:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Audio (*.wav *.flac)</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>SentenceRegenController</name>
    <message>
        <source>Show a take first (click it in the Takes list).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Regenerate sentence {0}…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Regenerate a sentence…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Undo regeneration</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cannot regenerate the sentence</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Regenerating sentence {0} of take {1}…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Load a model first.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Wait until the take or regeneration being made is finished.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Take {0} has no sentence {1} to speak again.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Take {0} is not saved on disk, so its sentences cannot be regenerated.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The voice “{0}” of take {1} is not in the voice library any more; its sentences cannot be spoken again.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cannot save the regenerated sentence</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Sentence {0} of take {1} regenerated with seed {2}; Ctrl+Z puts the previous one back.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>There is no regeneration to undo.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Wait until the regeneration being made is finished.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>ShortcutsDialog</name>
    <message>
        <source>Keyboard shortcuts</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Keys</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Does</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Speak</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Stop making and playing</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Space</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Play or pause the shown take (in the Takes list or the waveform)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Left, Right</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Seek 5 s back or on (in the Takes list or the waveform)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Enter</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Play the selected take (Takes list)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Rename the selected take (Takes list)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Delete</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Move the selected takes to the trash (Takes list)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Undo the last removal or regeneration (Takes list); the shown take&apos;s previous version (waveform)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Next or previous field, in the order of the layout</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>SpeakingController</name>
    <message>
        <source>The model is still loading; Speak when it is ready.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No model</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No model is chosen yet: choose a model folder (File › Choose model folder…) or download one (File › Models…) first.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Type some text to speak first.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No voice</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Record a voice or make one from a file first.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No instruction</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Instruct mode needs an instruction: pick a preset or type one.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No transcript</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Clone mode needs the transcript of the voice&apos;s recording. Type it, press Transcribe under the field to have it written from the recording, or use Cross-lingual mode, which needs none.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Pronunciation dictionary</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Speaking take {0}…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>First audio {0:.2f} s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>RTF {0:.2f}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Take {0}: {1:.1f} s of audio in {2:.1f} s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Stopped take {0} after {1:.1f} s.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cannot speak</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cannot convert</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Stopped before any audio was made.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>StudioSession</name>
    <message>
        <source>Cannot save take {0}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>{0}
The take stays in this session only; export it to keep it.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>SynthesisControls</name>
    <message>
        <source>Clone</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Speak the text in the chosen voice; uses the voice&apos;s transcript (best for the same language)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cross-lingual</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Speak the text in the voice without using its transcript (for another language than the voice&apos;s)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Instruct</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Speak in the voice the way an instruction says: dialect, emotion, speed, role</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Instruction:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>e.g. Please speak very happily.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Presets ▾</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Script</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>A dialogue: every line “Name: text” spoken by the voice cast for that name, optionally with its own instruction “Name (whispering): text”; one take</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Convert</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Voice conversion: a recording of your own (a file, the microphone, or live) spoken again in the chosen voice</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Ready-made instructions of the loaded model, by group, with search; a dialect, an emotion, a speed and a volume can be combined</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>How to speak, in your own words or from the presets</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Save as preset…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Keep this instruction under a name in the Custom group; it is saved with the settings and exported with voices</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Exactly the prompt text the model&apos;s language model receives before the text to speak</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Speaking speed, 0.5x to 2x</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Speed:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Random</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The same seed with the same text and voice gives the same take; Random draws a new one each time</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Seed:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Stream</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Start playing while the rest is still being made; off: each sentence plays when it is complete</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Speak</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Make and play a take of the text (Ctrl+Enter)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Stop</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Stop making and playing the take (Esc)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Source: CosyVoice 2 paper (arXiv 2412.10117), instruction table</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Source: the original&apos;s example.py (CosyVoice2 instruct)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Source: the original&apos;s instruct list (cosyvoice/utils/common.py)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Worded like the paper&apos;s example for this group; the exact training sentence is not published</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Delete the preset “{0}”?</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Delete preset</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Save as preset</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Type an instruction first, then save it under a name.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Name of the preset:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cannot save the preset</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Load a model to see what it receives.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&lt;instruction&gt;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The model receives: {0} then the text.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Not usable: {0}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Convert the source into the chosen voice as a new take (Ctrl+Enter)</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>TakeEditDialog</name>
    <message>
        <source> s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Where the take starts after trimming</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Where the take ends after trimming</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Fade in from silence over this long</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Fade out to silence over this long</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Normalise loudness to {0:g} LUFS</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Integrated loudness (ITU-R BS.1770), the level podcasts and streaming services use; peaks stay under -1 dBFS</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Start:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>End:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Fade in:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Fade out:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Loudness now:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Edits are made from the original audio, which is kept: reset at any time.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Reset to original</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Give the take back as it was made</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>TakeToolsController</name>
    <message>
        <source>Export failed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Edit take…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Trim, fade and normalise the loudness of the shown take; the original is kept</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Export &amp;all takes…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>{0:.1f} LUFS</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>silence</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Choose a finished take to edit.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cannot edit take {0}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Edit take {0}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Take {0}: back to the original.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Take {0} edited; the original is kept.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>There are no takes to export yet.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Replace files?</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>{0} of these files exist already:
{1}
Replace them? (No: skip those takes.)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Exporting {0} takes…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Exported {0} takes to {1}</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>TakesController</name>
    <message>
        <source>Some saved takes could not be read</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>These take folders in {0} were left as they are:
{1}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Saved takes are over the storage limit</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Saved takes use {0:.0f} MB, more than the limit of {1} MB. Nothing is deleted and new takes are still saved: remove or clear takes you no longer need, or raise the limit in Settings › Take storage limit.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Removed take {0}.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Removed {0} takes.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Undo</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Undo the last removal or regeneration (Ctrl+Z in the Takes list)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Put back {0} take(s).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cannot open the take</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>{0} is take {1} now (a copy; the folder is left as it is).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Clear takes</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Take storage limit</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Saved takes use {0:.0f} MB in {1}.
Above the limit Cosy Studio warns you; it never deletes a take by itself, and new takes are still saved.
Limit in MB:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Remove all {0} takes? They go to the trash: Undo (Ctrl+Z) or Takes › Trash puts them back until you empty it.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Rename take {0}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Name (empty: the start of its text):</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>TakesList</name>
    <message>
        <source>Takes</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Saved takes; select two (Ctrl+click) to compare them. F2 renames, Delete removes, Ctrl+Z puts removed takes back</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Play</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Play the selected take from the start (Enter)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>A/B</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Switch playback between the two selected takes at the same moment</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Export…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Save the selected take as WAV, FLAC or SRT subtitles (Ctrl+E)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Rename…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Give the selected take a name (F2); exports are named after it</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Remove</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Clear…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Script</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Convert</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>{0:.1f} s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>{0} → {1}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Take {0} · {1}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Source: {0}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Target voice: {0}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Instruction: {0}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>seed {0}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>speed {0:g}x</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Stop</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Stop playing this take (Esc)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Clone</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Move the selected takes to the trash (Delete); Ctrl+Z puts them back</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Remove every take (to the trash); Undo puts them back</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cross-lingual</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Instruct</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>making…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>stopped</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>failed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>recovered</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>partial export</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Voice: {0}</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>TextEditor</name>
    <message>
        <source>Type or paste the text to speak…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The text to speak. Tags such as [laughter] or &lt;strong&gt;…&lt;/strong&gt; are spoken as sounds or emphasis.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Insert:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>More tags</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Every sound and emphasis tag the models understand</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Characters in the text, and the sentences it will be spoken in</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>How the text will be split and read, after normalisation (numbers and dates are written out)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Sentence preview</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Wrap the selection in {0}…{1}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Insert {0} at the cursor</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>%n character(s)</source>
        <translation>
            <numerusform>%n character</numerusform>
            <numerusform>%n characters</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n sentence(s)</source>
        <translation>
            <numerusform>%n sentence</numerusform>
            <numerusform>%n sentences</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>spoken in %n part(s)</source>
        <translation>
            <numerusform>spoken in %n part</numerusform>
            <numerusform>spoken in %n parts</numerusform>
        </translation>
    </message>
    <message>
        <source>Cannot preview: {0}</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>TextReadingMenu</name>
    <message>
        <source>As the quality mode</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Exact reads text like the original CosyVoice; Fast and Draft use the improved English reading.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Original</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The original CosyVoice&apos;s text normalisation: the same text ids as the original, e.g. &quot;$3.50&quot; is read &quot;three point five dollars&quot;.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Improved English reading</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Money, dates, units and abbreviations read in full, e.g. &quot;$3.50&quot; is read &quot;three dollars and fifty cents&quot;; runs of marks such as &quot;?!&quot; are kept.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Text reading</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>TranscribeRow</name>
    <message>
        <source>Transcribe</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Write the transcript from the recording with speech recognition (SenseVoice, on this computer); check the words afterwards</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Get the model…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Open Models… on the speech-recognition model (about 240 MB)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The speech-recognition model (SenseVoice-Small, about 240 MB) is not installed. Get it in Models…, or type the transcript.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>There is no recording to transcribe yet.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Listening to the recording…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Transcribed%1. Check the words: they are what Clone mode reads with the recording.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Transcribing…</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>TrashController</name>
    <message>
        <source>&amp;Trash…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Removed takes: put them back, or empty the trash</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Put back {0} take(s) from the trash.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Empty trash</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>These folders in {0} hold files Cosy Studio did not make; they were kept:
{1}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The trash is empty.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>TrashDialog</name>
    <message>
        <source>Trash</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Removed takes stay here until you empty the trash.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Restore</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Put the selected takes back into the Takes list (Enter)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Empty trash…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Delete every take in the trash for good (asks first)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Take {0} · {1}
{2:.1f} s · {3}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Removed takes stay here until you empty the trash. These folders could not be read and are left as they are:
{0}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Empty trash</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Delete the {0} takes in the trash for good? This cannot be undone.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Delete</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>VoiceEditor</name>
    <message>
        <source>Edit voice “{0}”</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Exactly what is said in the voice&apos;s recording (Clone mode reads it with the recording)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>not known yet, e.g. en, zh</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The language spoken in the recording, e.g. zh, en, ja</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>e.g. calm, narrator, female</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Words to find the voice by in the library&apos;s search, separated by commas</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Anything worth remembering about this voice</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Transcript:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Language:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Tags:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Notes:</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>VoicePanel</name>
    <message>
        <source>{0}  ({1:.1f} s, {2})</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Voices</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Saved voices; the selected one speaks the text</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Search voices and tags…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Shows the voices whose name, tags, language, transcript or notes hold every word typed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Olive: made for the other model family; re-made from its recording when used.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Record…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Record a new voice with the microphone (3-30 s)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>From file…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Make a new voice from an audio file</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Import…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Add a saved voice (.cosyvoice file) to the library</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Export…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Save the selected voice as a .cosyvoice file to share</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Rename…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Give the selected voice another name</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Delete</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Delete the selected voice from the library</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Edit…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Edit the selected voice&apos;s transcript, language and notes</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Transcript:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Exactly what is said in the voice&apos;s recording</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Clone mode reads the recording together with its transcript; it must match what is said. Saved into the voice when you leave the field</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Kept the transcript of “{0}” that was typed meanwhile.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Saved the transcript of “{0}”; correct it in the field if a word is wrong.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>(no transcript: Clone mode needs one; Edit… adds it)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The selected voice&apos;s recording</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Dictionary…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The selected voice&apos;s own pronunciation dictionary (saved in the voice file; it goes with the voice when exported)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Listen</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Play the selected voice&apos;s recording</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Tags: {0}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Made for another model; it is re-made from its recording when used.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>{0}  (broken)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No voice yet: record one or make one from a file.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>{0:.1f} s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>language {0}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Import voices</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cosy Studio voices (*{0})</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cannot import {0}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Export voice</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cannot export the voice</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Rename voice</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>New name:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cannot rename the voice</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cannot save the voice</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Saved the changes to the voice “{0}”.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Delete the voice “{0}”? This cannot be undone.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Delete voice</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cannot delete the voice</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>VoicesController</name>
    <message>
        <source>Make a voice from an audio file</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Audio files (*.wav *.flac *.ogg *.mp3)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cannot read {0}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cannot use {0}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No model</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Load a model first: making a voice needs it.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Making the voice “{0}”…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cannot save the voice</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The voice “{0}” was made again for this model and saved.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Saved the voice “{0}”.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Could not save “{0}” for this model: {1}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cannot make the voice: {0}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cannot make the voice</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>WaitingSpeak</name>
    <message>
        <source>Speak waits for the model; it starts by itself when the model is ready.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The waiting Speak was cancelled.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Starting</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The model did not load, so the waiting Speak was cancelled.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>WaitingSpeakBar</name>
    <message>
        <source>How far the model has loaded</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Do not speak when the model is ready (Esc)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Speaks when the model is ready: {0}, {1} %…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Speaks when the model is ready: {0}, {1} %, about {2} s left…</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>WaveformView</name>
    <message>
        <source>seconds</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>background_work</name>
    <message>
        <source>Cancel</source>
        <translation type="unfinished"></translation>
    </message>
</context>
</TS>
