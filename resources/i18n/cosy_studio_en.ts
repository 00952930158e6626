<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="en">
<context>
    <name>EngineThread</name>
    <message>
        <location filename="../../app/engine_thread.py" line="268" />
        <source>Checking the model folder</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/engine_thread.py" line="272" />
        <source>Loading the engine</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/engine_thread.py" line="276" />
        <source>Loading weights</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/engine_thread.py" line="278" />
        <source>Preparing text normalisation</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/engine_thread.py" line="300" />
        <source>Ready</source>
        <translation type="unfinished" />
    </message>
</context>
<context>
    <name>LevelMeter</name>
    <message>
        <location filename="../../app/widgets/level_meter.py" line="29" />
        <source>Microphone level; keep the peaks out of the red</source>
        <translation type="unfinished" />
    </message>
</context>
<context>
    <name>LiveHud</name>
    <message>
        <location filename="../../app/widgets/hud.py" line="25" />
        <source>Buffered: audio made but not yet played</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/widgets/hud.py" line="30" />
        <source>{0}  buffered {1:.1f} s  chunks {2}  underruns {3}</source>
        <translation type="unfinished" />
    </message>
</context>
<context>
    <name>MainWindow</name>
    <message>
        <location filename="../../app/main_window.py" line="70" />
        <source>Cosy Studio</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/main_window.py" line="115" />
        <source>The take: dashed lines mark where chunks joined; click a finished take to play from there</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/main_window.py" line="118" />
        <source>Takes appear here while they are spoken</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/main_window.py" line="152" />
        <source>&amp;File</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/main_window.py" line="153" />
        <source>Choose &amp;model folder…</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/main_window.py" line="155" />
        <source>&amp;Export take…</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/main_window.py" line="158" />
        <source>&amp;Quit</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/main_window.py" line="166" />
        <source>&amp;Voice</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/main_window.py" line="167" />
        <source>&amp;Record a voice…</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/main_window.py" line="170" />
        <source>Voice from &amp;file…</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/main_window.py" line="173" />
        <source>&amp;Settings</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/main_window.py" line="174" />
        <source>&amp;Output device</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/main_window.py" line="176" />
        <source>&amp;Language</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/main_window.py" line="178" />
        <source>System</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/main_window.py" line="185" />
        <source>&amp;Help</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/main_window.py" line="186" />
        <source>&amp;About Cosy Studio</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/main_window.py" line="191" />
        <location filename="../../app/main_window.py" line="311" />
        <location filename="../../app/main_window.py" line="325" />
        <location filename="../../app/main_window.py" line="608" />
        <source>No model</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/main_window.py" line="192" />
        <source>The loaded model</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/main_window.py" line="194" />
        <source>Where the model runs</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/main_window.py" line="196" />
        <source>Time to first audio of the last take</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/main_window.py" line="198" />
        <source>Real-time factor of the last take: seconds of work per second of audio (below 1 is faster than real time)</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/main_window.py" line="201" />
        <source>The audio output</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/main_window.py" line="225" />
        <source>Playback</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/main_window.py" line="296" />
        <source>Loading {0}…</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/main_window.py" line="301" />
        <source>Device: {0}</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/main_window.py" line="306" />
        <source>Model loaded in {0:.1f} s</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/main_window.py" line="325" />
        <source>Load a model first.</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/main_window.py" line="329" />
        <source>Type some text to speak first.</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/main_window.py" line="333" />
        <source>No voice</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/main_window.py" line="333" />
        <source>Record a voice or make one from a file first.</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/main_window.py" line="337" />
        <source>No instruction</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/main_window.py" line="338" />
        <source>Instruct mode needs an instruction: pick a preset or type one.</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/main_window.py" line="342" />
        <source>No transcript</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/main_window.py" line="343" />
        <source>Clone mode needs the transcript of the voice's recording. Type it, or use Cross-lingual mode, which needs none.</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/main_window.py" line="378" />
        <source>Speaking take {0}…</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/main_window.py" line="406" />
        <location filename="../../app/main_window.py" line="444" />
        <source>First audio {0:.2f} s</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/main_window.py" line="423" />
        <source>Stopped take {0} after {1:.1f} s.</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/main_window.py" line="442" />
        <source>RTF {0:.2f}</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/main_window.py" line="446" />
        <source>Take {0}: {1:.1f} s of audio in {2:.1f} s</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/main_window.py" line="471" />
        <source>Cannot speak</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/main_window.py" line="523" />
        <source>no audio</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/main_window.py" line="523" />
        <source>stopped</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/main_window.py" line="524" />
        <source>buffering</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/main_window.py" line="524" />
        <source>playing</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/main_window.py" line="549" />
        <source>No audio device — export still works</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/main_window.py" line="551" />
        <source>Output: {0}</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/main_window.py" line="557" />
        <source>No audio device</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/main_window.py" line="589" />
        <source>Make a voice from an audio file</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/main_window.py" line="590" />
        <source>Audio files (*.wav *.flac *.ogg *.mp3)</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/main_window.py" line="600" />
        <source>Cannot read {0}</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/main_window.py" line="608" />
        <source>Load a model first: making a voice needs it.</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/main_window.py" line="613" />
        <source>Making the voice “{0}”…</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/main_window.py" line="621" />
        <source>Cannot save the voice</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/main_window.py" line="625" />
        <source>Saved the voice “{0}”.</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/main_window.py" line="633" />
        <source>Cannot make the voice</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/main_window.py" line="641" />
        <source>There is no take to export yet.</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/main_window.py" line="647" />
        <source>WAV, 16-bit PCM (*.wav)</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/main_window.py" line="648" />
        <source>WAV, 32-bit float (*.wav)</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/main_window.py" line="649" />
        <source>FLAC (*.flac)</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/main_window.py" line="650" />
        <source>Subtitles, SRT (*.srt)</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/main_window.py" line="654" />
        <source>Export take {0}</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/main_window.py" line="669" />
        <source>Export failed</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/main_window.py" line="675" />
        <source> (partial: the take was not complete)</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/main_window.py" line="676" />
        <source>Exported {0}</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/main_window.py" line="685" />
        <source>The language changes when Cosy Studio is restarted.</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/main_window.py" line="688" />
        <source>About Cosy Studio</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/main_window.py" line="689" />
        <source>Cosy Studio: voice cloning and instruction-controlled speech on CosyVoice2 and Fun-CosyVoice3.</source>
        <translation type="unfinished" />
    </message>
</context>
<context>
    <name>ModelScreen</name>
    <message>
        <location filename="../../app/widgets/model_screen.py" line="36" />
        <location filename="../../app/widgets/model_screen.py" line="123" />
        <source>No model loaded</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/widgets/model_screen.py" line="44" />
        <source>Cosy Studio needs a CosyVoice2-0.5B or Fun-CosyVoice3-0.5B release folder.
Choose the folder that contains cosyvoice2.yaml or cosyvoice3.yaml.</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/widgets/model_screen.py" line="51" />
        <source>Choose model folder…</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/widgets/model_screen.py" line="53" />
        <source>Pick a release folder you already have on disk</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/widgets/model_screen.py" line="55" />
        <source>Download…</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/widgets/model_screen.py" line="57" />
        <source>Download a release from Hugging Face or ModelScope, with progress, resume and verification</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/widgets/model_screen.py" line="68" />
        <source>Loading the model</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/widgets/model_screen.py" line="119" />
        <source>Loading the model…</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/widgets/model_screen.py" line="130" />
        <source>Choose a model release folder</source>
        <translation type="unfinished" />
    </message>
</context>
<context>
    <name>Recorder</name>
    <message>
        <location filename="../../app/widgets/recorder.py" line="53" />
        <source>The recording is {0:.1f} s long; a voice needs at least {1:g} s.</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/widgets/recorder.py" line="57" />
        <source>The recording is {0:.1f} s long; trim it to at most {1:g} s.</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/widgets/recorder.py" line="61" />
        <source>The recording is silent. Check the microphone and its volume.</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/widgets/recorder.py" line="64" />
        <source>The level is low ({0:.0f} dBFS); move closer to the microphone.</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/widgets/recorder.py" line="68" />
        <source>The recording is clipped ({0:.1%} of samples at full scale); record a little quieter.</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/widgets/recorder.py" line="90" />
        <source>Record a voice</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/widgets/recorder.py" line="107" />
        <source>The microphone to record from</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/widgets/recorder.py" line="109" />
        <source>Refresh</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/widgets/recorder.py" line="110" />
        <source>Look for microphones again (after plugging one in)</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/widgets/recorder.py" line="113" />
        <location filename="../../app/widgets/recorder.py" line="277" />
        <source>Record</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/widgets/recorder.py" line="115" />
        <location filename="../../app/widgets/recorder.py" line="278" />
        <source>Start recording; read a sentence or two naturally (3-30 s)</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/widgets/recorder.py" line="119" />
        <source>Recorded time; recording stops by itself at 30 s</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/widgets/recorder.py" line="120" />
        <source>Open file…</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/widgets/recorder.py" line="121" />
        <source>Use an audio file instead of the microphone</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/widgets/recorder.py" line="126" />
        <source>Drag the shaded area's edges to trim the recording</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/widgets/recorder.py" line="137" />
        <source>Play</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/widgets/recorder.py" line="138" />
        <source>Listen to the trimmed recording</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/widgets/recorder.py" line="142" />
        <source>e.g. Anna, calm</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/widgets/recorder.py" line="143" />
        <source>A name for the new voice</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/widgets/recorder.py" line="146" />
        <source>Exactly what is said in the recording</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/widgets/recorder.py" line="147" />
        <source>Needed for Clone mode; may stay empty for Cross-lingual and Instruct</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/widgets/recorder.py" line="149" />
        <source>Save as voice</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/widgets/recorder.py" line="151" />
        <source>Make the voice from the trimmed recording and add it to the library</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/widgets/recorder.py" line="153" />
        <source>Close</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/widgets/recorder.py" line="154" />
        <source>Close the recorder</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/widgets/recorder.py" line="158" />
        <source>Microphone:</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/widgets/recorder.py" line="167" />
        <source>Name:</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/widgets/recorder.py" line="168" />
        <source>Transcript:</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/widgets/recorder.py" line="202" />
        <source>No microphone found</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/widgets/recorder.py" line="248" />
        <source>Cannot record from {0}: {1}</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/widgets/recorder.py" line="259" />
        <source>Recording… speak now.</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/widgets/recorder.py" line="260" />
        <source>Stop</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/widgets/recorder.py" line="261" />
        <source>Stop recording</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/widgets/recorder.py" line="312" />
        <source>{0:.1f} s / {1:g} s</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/widgets/recorder.py" line="347" />
        <source>Nothing recorded yet.</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/widgets/recorder.py" line="349" />
        <source>✔ The recording looks good.</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/widgets/recorder.py" line="384" />
        <source>✖ Give the voice a name.</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/widgets/recorder.py" line="392" />
        <source>Making the voice…</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/widgets/recorder.py" line="396" />
        <source>✔ Saved as “{0}”.</source>
        <translation type="unfinished" />
    </message>
</context>
<context>
    <name>SynthesisControls</name>
    <message>
        <location filename="../../app/widgets/synthesis_controls.py" line="54" />
        <source>Clone</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/widgets/synthesis_controls.py" line="54" />
        <source>Speak the text in the chosen voice; uses the voice's transcript (best for the same language)</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/widgets/synthesis_controls.py" line="56" />
        <source>Cross-lingual</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/widgets/synthesis_controls.py" line="56" />
        <source>Speak the text in the voice without using its transcript (for another language than the voice's)</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/widgets/synthesis_controls.py" line="58" />
        <source>Instruct</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/widgets/synthesis_controls.py" line="58" />
        <source>Speak in the voice the way an instruction says: dialect, emotion, speed, role</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/widgets/synthesis_controls.py" line="82" />
        <source>Instruction:</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/widgets/synthesis_controls.py" line="85" />
        <source>Ready-made instructions the loaded model was trained with</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/widgets/synthesis_controls.py" line="91" />
        <source>e.g. Please speak very happily.</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/widgets/synthesis_controls.py" line="92" />
        <source>How to speak, in your own words or from a preset</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/widgets/synthesis_controls.py" line="107" />
        <source>Speaking speed, 0.5x to 2x</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/widgets/synthesis_controls.py" line="112" />
        <source>Speed:</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/widgets/synthesis_controls.py" line="118" />
        <source>Random</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/widgets/synthesis_controls.py" line="120" />
        <source>The same seed with the same text and voice gives the same take; Random draws a new one each time</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/widgets/synthesis_controls.py" line="122" />
        <source>Seed:</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/widgets/synthesis_controls.py" line="125" />
        <source>Stream</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/widgets/synthesis_controls.py" line="128" />
        <source>Start playing while the rest is still being made; off: each sentence plays when it is complete</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/widgets/synthesis_controls.py" line="131" />
        <source>Speak</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/widgets/synthesis_controls.py" line="133" />
        <source>Make and play a take of the text (Ctrl+Enter)</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/widgets/synthesis_controls.py" line="136" />
        <source>Stop</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/widgets/synthesis_controls.py" line="138" />
        <source>Stop making and playing the take (Esc)</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/widgets/synthesis_controls.py" line="211" />
        <source>Presets…</source>
        <translation type="unfinished" />
    </message>
</context>
<context>
    <name>TakesList</name>
    <message>
        <location filename="../../app/widgets/takes_list.py" line="31" />
        <source>Takes</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/widgets/takes_list.py" line="38" />
        <source>Takes of this session; select two (Ctrl+click) to compare them</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/widgets/takes_list.py" line="44" />
        <source>Play</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/widgets/takes_list.py" line="45" />
        <source>Play the selected take from the start (Enter)</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/widgets/takes_list.py" line="47" />
        <source>A/B</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/widgets/takes_list.py" line="48" />
        <source>Switch playback between the two selected takes at the same moment</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/widgets/takes_list.py" line="50" />
        <source>Export…</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/widgets/takes_list.py" line="51" />
        <source>Save the selected take as WAV, FLAC or SRT subtitles (Ctrl+E)</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/widgets/takes_list.py" line="53" />
        <source>Remove</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/widgets/takes_list.py" line="54" />
        <source>Remove the selected takes from this session</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/widgets/takes_list.py" line="88" />
        <source>Clone</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/widgets/takes_list.py" line="88" />
        <source>Cross-lingual</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/widgets/takes_list.py" line="89" />
        <source>Instruct</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/widgets/takes_list.py" line="90" />
        <source>making…</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/widgets/takes_list.py" line="90" />
        <source>stopped</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/widgets/takes_list.py" line="91" />
        <source>failed</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/widgets/takes_list.py" line="92" />
        <source>partial export</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/widgets/takes_list.py" line="93" />
        <source>Take {0} · {1:.1f} s · {2}</source>
        <translation type="unfinished" />
    </message>
</context>
<context>
    <name>TextEditor</name>
    <message>
        <location filename="../../app/widgets/text_editor.py" line="84" />
        <source>Type or paste the text to speak…</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/widgets/text_editor.py" line="85" />
        <source>The text to speak. Tags such as [laughter] or &lt;strong&gt;…&lt;/strong&gt; are spoken as sounds or emphasis.</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/widgets/text_editor.py" line="92" />
        <source>Insert:</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/widgets/text_editor.py" line="102" />
        <source>More tags</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/widgets/text_editor.py" line="104" />
        <source>Every sound and emphasis tag the models understand</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/widgets/text_editor.py" line="119" />
        <source>Characters in the text, and the sentences it will be spoken in</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/widgets/text_editor.py" line="130" />
        <source>How the text will be split and read, after normalisation (numbers and dates are written out)</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/widgets/text_editor.py" line="138" />
        <source>Sentence preview</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/widgets/text_editor.py" line="180" />
        <source>Wrap the selection in {0}…{1}</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/widgets/text_editor.py" line="181" />
        <source>Insert {0} at the cursor</source>
        <translation type="unfinished" />
    </message>
    <message numerus="yes">
        <location filename="../../app/widgets/text_editor.py" line="199" />
        <source>%n character(s)</source>
        <translation><numerusform>%n character</numerusform><numerusform>%n characters</numerusform></translation>
    </message>
    <message numerus="yes">
        <location filename="../../app/widgets/text_editor.py" line="201" />
        <source>%n sentence(s)</source>
        <translation><numerusform>%n sentence</numerusform><numerusform>%n sentences</numerusform></translation>
    </message>
    <message>
        <location filename="../../app/widgets/text_editor.py" line="243" />
        <source>Cannot preview: {0}</source>
        <translation type="unfinished" />
    </message>
</context>
<context>
    <name>VoicePanel</name>
    <message>
        <location filename="../../app/widgets/voice_panel.py" line="150" />
        <source>{0}  ({1:.1f} s, {2})</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/widgets/voice_panel.py" line="53" />
        <source>Voices</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/widgets/voice_panel.py" line="59" />
        <source>Saved voices; the selected one speaks the text</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/widgets/voice_panel.py" line="62" />
        <source>Record…</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/widgets/voice_panel.py" line="63" />
        <source>Record a new voice with the microphone (3-30 s)</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/widgets/voice_panel.py" line="65" />
        <source>From file…</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/widgets/voice_panel.py" line="66" />
        <source>Make a new voice from an audio file</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/widgets/voice_panel.py" line="68" />
        <source>Import…</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/widgets/voice_panel.py" line="69" />
        <source>Add a saved voice (.cosyvoice file) to the library</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/widgets/voice_panel.py" line="71" />
        <source>Export…</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/widgets/voice_panel.py" line="72" />
        <source>Save the selected voice as a .cosyvoice file to share</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/widgets/voice_panel.py" line="74" />
        <source>Rename…</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/widgets/voice_panel.py" line="75" />
        <source>Give the selected voice another name</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/widgets/voice_panel.py" line="77" />
        <source>Delete</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/widgets/voice_panel.py" line="78" />
        <source>Delete the selected voice from the library</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/widgets/voice_panel.py" line="81" />
        <source>Transcript:</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/widgets/voice_panel.py" line="84" />
        <source>Exactly what is said in the voice's recording</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/widgets/voice_panel.py" line="85" />
        <source>Clone mode reads the recording together with its transcript; it must match what is said</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/widgets/voice_panel.py" line="93" />
        <source>The selected voice's recording</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/widgets/voice_panel.py" line="95" />
        <source>Listen</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/widgets/voice_panel.py" line="96" />
        <source>Play the selected voice's recording</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/widgets/voice_panel.py" line="152" />
        <source>(no transcript)</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/widgets/voice_panel.py" line="155" />
        <source>Made for another model; it is re-made from its recording when used.</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/widgets/voice_panel.py" line="204" />
        <source>No voice yet: record one or make one from a file.</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/widgets/voice_panel.py" line="210" />
        <source>{0:.1f} s</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/widgets/voice_panel.py" line="212" />
        <source>language {0}</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/widgets/voice_panel.py" line="231" />
        <source>Import voices</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/widgets/voice_panel.py" line="232" />
        <location filename="../../app/widgets/voice_panel.py" line="250" />
        <source>Cosy Studio voices (*{0})</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/widgets/voice_panel.py" line="241" />
        <source>Cannot import {0}</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/widgets/voice_panel.py" line="249" />
        <source>Export voice</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/widgets/voice_panel.py" line="262" />
        <source>Cannot export the voice</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/widgets/voice_panel.py" line="269" />
        <source>Rename voice</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/widgets/voice_panel.py" line="269" />
        <source>New name:</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/widgets/voice_panel.py" line="279" />
        <source>Cannot rename the voice</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/widgets/voice_panel.py" line="287" />
        <source>Delete the voice “{0}”? This cannot be undone.</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/widgets/voice_panel.py" line="288" />
        <source>Delete voice</source>
        <translation type="unfinished" />
    </message>
    <message>
        <location filename="../../app/widgets/voice_panel.py" line="298" />
        <source>Cannot delete the voice</source>
        <translation type="unfinished" />
    </message>
</context>
<context>
    <name>WaveformView</name>
    <message>
        <location filename="../../app/widgets/waveform.py" line="128" />
        <source>seconds</source>
        <translation type="unfinished" />
    </message>
</context>
</TS>