<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="en">
<context>
    <name>EngineThread</name>
    <message>
        <location filename="../../app/engine_thread.py" line="275"/>
        <source>Checking the model folder</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/engine_thread.py" line="279"/>
        <source>Loading the engine</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/engine_thread.py" line="284"/>
        <source>Loading weights</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/engine_thread.py" line="286"/>
        <source>Loading weights and warming up</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/engine_thread.py" line="289"/>
        <source>Preparing text normalisation</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/engine_thread.py" line="293"/>
        <source>Warming up</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/engine_thread.py" line="314"/>
        <source>Ready</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>LevelMeter</name>
    <message>
        <location filename="../../app/widgets/level_meter.py" line="29"/>
        <source>Microphone level; keep the peaks out of the red</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>LiveHud</name>
    <message>
        <location filename="../../app/widgets/hud.py" line="29"/>
        <source>Estimated from the real-time factor measured on earlier takes with this model, device and quality</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/widgets/hud.py" line="36"/>
        <source>Buffered: audio made but not yet played</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/widgets/hud.py" line="41"/>
        <source>{0}  buffered {1:.1f} s  chunks {2}  underruns {3}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/widgets/hud.py" line="48"/>
        <source>first take: no estimate yet</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/widgets/hud.py" line="52"/>
        <source>almost done</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/widgets/hud.py" line="54"/>
        <source>about {0} s left</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/widgets/hud.py" line="56"/>
        <source>about {0} min {1:02d} s left</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>MainWindow</name>
    <message>
        <location filename="../../app/main_window.py" line="76"/>
        <source>Cosy Studio</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/main_window.py" line="122"/>
        <source>The take: dashed lines mark where chunks joined; click a finished take to play from there</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/main_window.py" line="125"/>
        <source>Takes appear here while they are spoken</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/main_window.py" line="164"/>
        <source>&amp;File</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/main_window.py" line="165"/>
        <source>Choose &amp;model folder…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/main_window.py" line="167"/>
        <source>&amp;Export take…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/main_window.py" line="170"/>
        <source>&amp;Quit</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/main_window.py" line="178"/>
        <source>&amp;Voice</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/main_window.py" line="179"/>
        <source>&amp;Record a voice…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/main_window.py" line="182"/>
        <source>Voice from &amp;file…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/main_window.py" line="185"/>
        <source>&amp;Settings</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/main_window.py" line="186"/>
        <source>&amp;Output device</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/main_window.py" line="188"/>
        <source>&amp;Language</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/main_window.py" line="190"/>
        <source>System</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/main_window.py" line="196"/>
        <source>&amp;Quality</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/main_window.py" line="209"/>
        <source>&amp;Help</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/main_window.py" line="210"/>
        <source>&amp;About Cosy Studio</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/main_window.py" line="215"/>
        <location filename="../../app/main_window.py" line="342"/>
        <location filename="../../app/main_window.py" line="393"/>
        <location filename="../../app/main_window.py" line="706"/>
        <source>No model</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/main_window.py" line="216"/>
        <source>The loaded model</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/main_window.py" line="218"/>
        <source>Where the model runs</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/main_window.py" line="220"/>
        <source>The quality mode the model was loaded in (Settings › Quality)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/main_window.py" line="222"/>
        <source>Time to first audio of the last take</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/main_window.py" line="224"/>
        <source>Real-time factor of the last take: seconds of work per second of audio (below 1 is faster than real time)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/main_window.py" line="227"/>
        <source>The audio output</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/main_window.py" line="252"/>
        <source>Playback</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/main_window.py" line="324"/>
        <source>Loading {0}…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/main_window.py" line="331"/>
        <source>Device: {0}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/main_window.py" line="332"/>
        <source>Quality: {0}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/main_window.py" line="337"/>
        <source>Model loaded in {0:.1f} s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/main_window.py" line="349"/>
        <source>Exact</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/main_window.py" line="349"/>
        <source>Fast</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/main_window.py" line="349"/>
        <source>Draft</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/main_window.py" line="354"/>
        <source>The original model&apos;s computation: the reference sound, and the slowest.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/main_window.py" line="355"/>
        <source>Faster: on the CPU the speech model runs in 8-bit integers, and streamed audio is computed only where it is new. The voice can differ slightly from Exact; loading takes a little longer for the warm-up.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/main_window.py" line="358"/>
        <source>Fastest: Fast plus a 4-step audio decoder without guidance. Audibly rougher; for trying out texts and voices before the final take.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/main_window.py" line="377"/>
        <source>Quality {0} applies when a model is loaded.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/main_window.py" line="393"/>
        <source>Load a model first.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/main_window.py" line="397"/>
        <source>Type some text to speak first.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/main_window.py" line="401"/>
        <source>No voice</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/main_window.py" line="401"/>
        <source>Record a voice or make one from a file first.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/main_window.py" line="405"/>
        <source>No instruction</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/main_window.py" line="406"/>
        <source>Instruct mode needs an instruction: pick a preset or type one.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/main_window.py" line="410"/>
        <source>No transcript</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/main_window.py" line="411"/>
        <source>Clone mode needs the transcript of the voice&apos;s recording. Type it, or use Cross-lingual mode, which needs none.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/main_window.py" line="449"/>
        <source>Speaking take {0}…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/main_window.py" line="477"/>
        <location filename="../../app/main_window.py" line="517"/>
        <source>First audio {0:.2f} s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/main_window.py" line="494"/>
        <source>Stopped take {0} after {1:.1f} s.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/main_window.py" line="515"/>
        <source>RTF {0:.2f}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/main_window.py" line="519"/>
        <source>Take {0}: {1:.1f} s of audio in {2:.1f} s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/main_window.py" line="544"/>
        <source>Cannot speak</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/main_window.py" line="605"/>
        <source>no audio</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/main_window.py" line="605"/>
        <source>stopped</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/main_window.py" line="606"/>
        <source>buffering</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/main_window.py" line="606"/>
        <source>playing</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/main_window.py" line="643"/>
        <source>No audio device — export still works</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/main_window.py" line="645"/>
        <source>Output: {0}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/main_window.py" line="651"/>
        <source>No audio device</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/main_window.py" line="687"/>
        <source>Make a voice from an audio file</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/main_window.py" line="688"/>
        <source>Audio files (*.wav *.flac *.ogg *.mp3)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/main_window.py" line="698"/>
        <source>Cannot read {0}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/main_window.py" line="706"/>
        <source>Load a model first: making a voice needs it.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/main_window.py" line="711"/>
        <source>Making the voice “{0}”…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/main_window.py" line="719"/>
        <source>Cannot save the voice</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/main_window.py" line="723"/>
        <source>Saved the voice “{0}”.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/main_window.py" line="731"/>
        <source>Cannot make the voice</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/main_window.py" line="739"/>
        <source>There is no take to export yet.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/main_window.py" line="745"/>
        <source>WAV, 16-bit PCM (*.wav)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/main_window.py" line="746"/>
        <source>WAV, 32-bit float (*.wav)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/main_window.py" line="747"/>
        <source>FLAC (*.flac)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/main_window.py" line="748"/>
        <source>Subtitles, SRT (*.srt)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/main_window.py" line="752"/>
        <source>Export take {0}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/main_window.py" line="767"/>
        <source>Export failed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/main_window.py" line="773"/>
        <source> (partial: the take was not complete)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/main_window.py" line="774"/>
        <source>Exported {0}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/main_window.py" line="783"/>
        <source>The language changes when Cosy Studio is restarted.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/main_window.py" line="786"/>
        <source>About Cosy Studio</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/main_window.py" line="787"/>
        <source>Cosy Studio: voice cloning and instruction-controlled speech on CosyVoice2 and Fun-CosyVoice3.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>ModelScreen</name>
    <message>
        <location filename="../../app/widgets/model_screen.py" line="36"/>
        <location filename="../../app/widgets/model_screen.py" line="123"/>
        <source>No model loaded</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/widgets/model_screen.py" line="44"/>
        <source>Cosy Studio needs a CosyVoice2-0.5B or Fun-CosyVoice3-0.5B release folder.
Choose the folder that contains cosyvoice2.yaml or cosyvoice3.yaml.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/widgets/model_screen.py" line="51"/>
        <source>Choose model folder…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/widgets/model_screen.py" line="53"/>
        <source>Pick a release folder you already have on disk</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/widgets/model_screen.py" line="55"/>
        <source>Download…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/widgets/model_screen.py" line="57"/>
        <source>Download a release from Hugging Face or ModelScope, with progress, resume and verification</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/widgets/model_screen.py" line="68"/>
        <source>Loading the model</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/widgets/model_screen.py" line="119"/>
        <source>Loading the model…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/widgets/model_screen.py" line="130"/>
        <source>Choose a model release folder</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>ModelsDialog</name>
    <message>
        <location filename="../../app/widgets/models_dialog.py" line="149"/>
        <source>Models</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/widgets/models_dialog.py" line="164"/>
        <source>Change…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/widgets/models_dialog.py" line="165"/>
        <source>Download models into another folder</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/widgets/models_dialog.py" line="175"/>
        <source>Needs the modelscope package: pip install &apos;cosy-studio[modelscope]&apos;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/widgets/models_dialog.py" line="178"/>
        <source>Models folder:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/widgets/models_dialog.py" line="182"/>
        <source>Download from:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/widgets/models_dialog.py" line="188"/>
        <source>Model</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/widgets/models_dialog.py" line="188"/>
        <source>Family</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/widgets/models_dialog.py" line="188"/>
        <source>Size</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/widgets/models_dialog.py" line="188"/>
        <source>Folder</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/widgets/models_dialog.py" line="196"/>
        <source>Use</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/widgets/models_dialog.py" line="197"/>
        <source>Load the selected model</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/widgets/models_dialog.py" line="199"/>
        <source>Verify</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/widgets/models_dialog.py" line="200"/>
        <source>Check the selected model&apos;s files against what was installed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/widgets/models_dialog.py" line="202"/>
        <source>with a test synthesis</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/widgets/models_dialog.py" line="203"/>
        <source>Also load the model and synthesise a few sounds (takes a while)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/widgets/models_dialog.py" line="204"/>
        <location filename="../../app/widgets/models_dialog.py" line="322"/>
        <source>Delete…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/widgets/models_dialog.py" line="206"/>
        <source>Use a folder I already have…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/widgets/models_dialog.py" line="208"/>
        <source>Pick a CosyVoice2-0.5B or Fun-CosyVoice3-0.5B release folder on disk</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/widgets/models_dialog.py" line="215"/>
        <location filename="../../app/widgets/models_dialog.py" line="298"/>
        <source>Installed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/widgets/models_dialog.py" line="222"/>
        <location filename="../../app/widgets/models_dialog.py" line="308"/>
        <source>Download</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/widgets/models_dialog.py" line="272"/>
        <source>%1 (your folder)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/widgets/models_dialog.py" line="293"/>
        <source>Cancel</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/widgets/models_dialog.py" line="300"/>
        <source>Installed in %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/widgets/models_dialog.py" line="302"/>
        <source>Resume</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/widgets/models_dialog.py" line="305"/>
        <source>Paused: %1 downloaded so far</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/widgets/models_dialog.py" line="310"/>
        <source>About %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/widgets/models_dialog.py" line="319"/>
        <source>Forget</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/widgets/models_dialog.py" line="320"/>
        <source>Remove this folder from the list; nothing is deleted from disk</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/widgets/models_dialog.py" line="323"/>
        <source>Delete the selected model from disk</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/widgets/models_dialog.py" line="357"/>
        <source>Asking %1 for the file list…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/widgets/models_dialog.py" line="364"/>
        <source>Stopping…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/widgets/models_dialog.py" line="376"/>
        <source>Checking %1…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/widgets/models_dialog.py" line="409"/>
        <source>Delete model</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/widgets/models_dialog.py" line="410"/>
        <source>Delete %1 (%2) from %3?</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/widgets/models_dialog.py" line="420"/>
        <source>Deleted %1.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/widgets/models_dialog.py" line="453"/>
        <source>%1 is installed (%2).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/widgets/models_dialog.py" line="463"/>
        <source>%1 needs attention.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/widgets/models_dialog.py" line="470"/>
        <source>Stopped. What was downloaded is kept; press Resume to continue.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/widgets/models_dialog.py" line="471"/>
        <source>Stopped.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/widgets/models_dialog.py" line="515"/>
        <source>Choose a model release folder</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/widgets/models_dialog.py" line="520"/>
        <source>Choose where models are downloaded</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>Recorder</name>
    <message>
        <location filename="../../app/widgets/recorder.py" line="53"/>
        <source>The recording is {0:.1f} s long; a voice needs at least {1:g} s.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/widgets/recorder.py" line="57"/>
        <source>The recording is {0:.1f} s long; trim it to at most {1:g} s.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/widgets/recorder.py" line="61"/>
        <source>The recording is silent. Check the microphone and its volume.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/widgets/recorder.py" line="64"/>
        <source>The level is low ({0:.0f} dBFS); move closer to the microphone.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/widgets/recorder.py" line="68"/>
        <source>The recording is clipped ({0:.1%} of samples at full scale); record a little quieter.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/widgets/recorder.py" line="117"/>
        <source>Record a voice</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/widgets/recorder.py" line="134"/>
        <source>The microphone to record from</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/widgets/recorder.py" line="136"/>
        <source>Refresh</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/widgets/recorder.py" line="137"/>
        <source>Look for microphones again (after plugging one in)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/widgets/recorder.py" line="140"/>
        <location filename="../../app/widgets/recorder.py" line="304"/>
        <source>Record</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/widgets/recorder.py" line="142"/>
        <location filename="../../app/widgets/recorder.py" line="305"/>
        <source>Start recording; read a sentence or two naturally (3-30 s)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/widgets/recorder.py" line="146"/>
        <source>Recorded time; recording stops by itself at 30 s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/widgets/recorder.py" line="147"/>
        <source>Open file…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/widgets/recorder.py" line="148"/>
        <source>Use an audio file instead of the microphone</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/widgets/recorder.py" line="153"/>
        <source>Drag the shaded area&apos;s edges to trim the recording</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/widgets/recorder.py" line="164"/>
        <source>Play</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/widgets/recorder.py" line="165"/>
        <source>Listen to the trimmed recording</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/widgets/recorder.py" line="169"/>
        <source>e.g. Anna, calm</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/widgets/recorder.py" line="170"/>
        <source>A name for the new voice</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/widgets/recorder.py" line="173"/>
        <source>Exactly what is said in the recording</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/widgets/recorder.py" line="174"/>
        <source>Needed for Clone mode; may stay empty for Cross-lingual and Instruct</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/widgets/recorder.py" line="176"/>
        <source>Save as voice</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/widgets/recorder.py" line="178"/>
        <source>Make the voice from the trimmed recording and add it to the library</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/widgets/recorder.py" line="180"/>
        <source>Close</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/widgets/recorder.py" line="181"/>
        <source>Close the recorder</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/widgets/recorder.py" line="185"/>
        <source>Microphone:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/widgets/recorder.py" line="194"/>
        <source>Name:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/widgets/recorder.py" line="195"/>
        <source>Transcript:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/widgets/recorder.py" line="229"/>
        <source>No microphone found</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/widgets/recorder.py" line="275"/>
        <source>Cannot record from {0}: {1}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/widgets/recorder.py" line="286"/>
        <source>Recording… speak now.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/widgets/recorder.py" line="287"/>
        <source>Stop</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/widgets/recorder.py" line="288"/>
        <source>Stop recording</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/widgets/recorder.py" line="341"/>
        <source>{0:.1f} s / {1:g} s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/widgets/recorder.py" line="377"/>
        <source>Nothing recorded yet.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/widgets/recorder.py" line="379"/>
        <source>✔ The recording looks good.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/widgets/recorder.py" line="414"/>
        <source>✖ Give the voice a name.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/widgets/recorder.py" line="422"/>
        <source>Making the voice…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/widgets/recorder.py" line="426"/>
        <source>✔ Saved as “{0}”.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>SynthesisControls</name>
    <message>
        <location filename="../../app/widgets/synthesis_controls.py" line="54"/>
        <source>Clone</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/widgets/synthesis_controls.py" line="54"/>
        <source>Speak the text in the chosen voice; uses the voice&apos;s transcript (best for the same language)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/widgets/synthesis_controls.py" line="56"/>
        <source>Cross-lingual</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/widgets/synthesis_controls.py" line="56"/>
        <source>Speak the text in the voice without using its transcript (for another language than the voice&apos;s)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/widgets/synthesis_controls.py" line="58"/>
        <source>Instruct</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/widgets/synthesis_controls.py" line="58"/>
        <source>Speak in the voice the way an instruction says: dialect, emotion, speed, role</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/widgets/synthesis_controls.py" line="82"/>
        <source>Instruction:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/widgets/synthesis_controls.py" line="85"/>
        <source>Ready-made instructions the loaded model was trained with</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/widgets/synthesis_controls.py" line="91"/>
        <source>e.g. Please speak very happily.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/widgets/synthesis_controls.py" line="92"/>
        <source>How to speak, in your own words or from a preset</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/widgets/synthesis_controls.py" line="107"/>
        <source>Speaking speed, 0.5x to 2x</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/widgets/synthesis_controls.py" line="112"/>
        <source>Speed:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/widgets/synthesis_controls.py" line="118"/>
        <source>Random</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/widgets/synthesis_controls.py" line="120"/>
        <source>The same seed with the same text and voice gives the same take; Random draws a new one each time</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/widgets/synthesis_controls.py" line="122"/>
        <source>Seed:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/widgets/synthesis_controls.py" line="125"/>
        <source>Stream</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/widgets/synthesis_controls.py" line="128"/>
        <source>Start playing while the rest is still being made; off: each sentence plays when it is complete</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/widgets/synthesis_controls.py" line="131"/>
        <source>Speak</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/widgets/synthesis_controls.py" line="133"/>
        <source>Make and play a take of the text (Ctrl+Enter)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/widgets/synthesis_controls.py" line="136"/>
        <source>Stop</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/widgets/synthesis_controls.py" line="138"/>
        <source>Stop making and playing the take (Esc)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/widgets/synthesis_controls.py" line="211"/>
        <source>Presets…</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>TakesList</name>
    <message>
        <location filename="../../app/widgets/takes_list.py" line="31"/>
        <source>Takes</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/widgets/takes_list.py" line="38"/>
        <source>Takes of this session; select two (Ctrl+click) to compare them</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/widgets/takes_list.py" line="44"/>
        <source>Play</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/widgets/takes_list.py" line="45"/>
        <source>Play the selected take from the start (Enter)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/widgets/takes_list.py" line="47"/>
        <source>A/B</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/widgets/takes_list.py" line="48"/>
        <source>Switch playback between the two selected takes at the same moment</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/widgets/takes_list.py" line="50"/>
        <source>Export…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/widgets/takes_list.py" line="51"/>
        <source>Save the selected take as WAV, FLAC or SRT subtitles (Ctrl+E)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/widgets/takes_list.py" line="53"/>
        <source>Remove</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/widgets/takes_list.py" line="54"/>
        <source>Remove the selected takes from this session</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/widgets/takes_list.py" line="88"/>
        <source>Clone</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/widgets/takes_list.py" line="88"/>
        <source>Cross-lingual</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/widgets/takes_list.py" line="89"/>
        <source>Instruct</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/widgets/takes_list.py" line="90"/>
        <source>making…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/widgets/takes_list.py" line="90"/>
        <source>stopped</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/widgets/takes_list.py" line="91"/>
        <source>failed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/widgets/takes_list.py" line="92"/>
        <source>partial export</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/widgets/takes_list.py" line="93"/>
        <source>Take {0} · {1:.1f} s · {2}</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>TextEditor</name>
    <message>
        <location filename="../../app/widgets/text_editor.py" line="84"/>
        <source>Type or paste the text to speak…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/widgets/text_editor.py" line="85"/>
        <source>The text to speak. Tags such as [laughter] or &lt;strong&gt;…&lt;/strong&gt; are spoken as sounds or emphasis.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/widgets/text_editor.py" line="92"/>
        <source>Insert:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/widgets/text_editor.py" line="102"/>
        <source>More tags</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/widgets/text_editor.py" line="104"/>
        <source>Every sound and emphasis tag the models understand</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/widgets/text_editor.py" line="119"/>
        <source>Characters in the text, and the sentences it will be spoken in</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/widgets/text_editor.py" line="130"/>
        <source>How the text will be split and read, after normalisation (numbers and dates are written out)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/widgets/text_editor.py" line="138"/>
        <source>Sentence preview</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/widgets/text_editor.py" line="180"/>
        <source>Wrap the selection in {0}…{1}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/widgets/text_editor.py" line="181"/>
        <source>Insert {0} at the cursor</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <location filename="../../app/widgets/text_editor.py" line="199"/>
        <source>%n character(s)</source>
        <translation>
            <numerusform>%n character</numerusform>
            <numerusform>%n characters</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location filename="../../app/widgets/text_editor.py" line="201"/>
        <source>%n sentence(s)</source>
        <translation>
            <numerusform>%n sentence</numerusform>
            <numerusform>%n sentences</numerusform>
        </translation>
    </message>
    <message>
        <location filename="../../app/widgets/text_editor.py" line="243"/>
        <source>Cannot preview: {0}</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>VoicePanel</name>
    <message>
        <location filename="../../app/widgets/voice_panel.py" line="150"/>
        <source>{0}  ({1:.1f} s, {2})</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/widgets/voice_panel.py" line="53"/>
        <source>Voices</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/widgets/voice_panel.py" line="59"/>
        <source>Saved voices; the selected one speaks the text</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/widgets/voice_panel.py" line="62"/>
        <source>Record…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/widgets/voice_panel.py" line="63"/>
        <source>Record a new voice with the microphone (3-30 s)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/widgets/voice_panel.py" line="65"/>
        <source>From file…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/widgets/voice_panel.py" line="66"/>
        <source>Make a new voice from an audio file</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/widgets/voice_panel.py" line="68"/>
        <source>Import…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/widgets/voice_panel.py" line="69"/>
        <source>Add a saved voice (.cosyvoice file) to the library</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/widgets/voice_panel.py" line="71"/>
        <source>Export…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/widgets/voice_panel.py" line="72"/>
        <source>Save the selected voice as a .cosyvoice file to share</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/widgets/voice_panel.py" line="74"/>
        <source>Rename…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/widgets/voice_panel.py" line="75"/>
        <source>Give the selected voice another name</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/widgets/voice_panel.py" line="77"/>
        <source>Delete</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/widgets/voice_panel.py" line="78"/>
        <source>Delete the selected voice from the library</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/widgets/voice_panel.py" line="81"/>
        <source>Transcript:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/widgets/voice_panel.py" line="84"/>
        <source>Exactly what is said in the voice&apos;s recording</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/widgets/voice_panel.py" line="85"/>
        <source>Clone mode reads the recording together with its transcript; it must match what is said</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/widgets/voice_panel.py" line="93"/>
        <source>The selected voice&apos;s recording</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/widgets/voice_panel.py" line="95"/>
        <source>Listen</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/widgets/voice_panel.py" line="96"/>
        <source>Play the selected voice&apos;s recording</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/widgets/voice_panel.py" line="152"/>
        <source>(no transcript)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/widgets/voice_panel.py" line="155"/>
        <source>Made for another model; it is re-made from its recording when used.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/widgets/voice_panel.py" line="204"/>
        <source>No voice yet: record one or make one from a file.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/widgets/voice_panel.py" line="210"/>
        <source>{0:.1f} s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/widgets/voice_panel.py" line="212"/>
        <source>language {0}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/widgets/voice_panel.py" line="231"/>
        <source>Import voices</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/widgets/voice_panel.py" line="232"/>
        <location filename="../../app/widgets/voice_panel.py" line="250"/>
        <source>Cosy Studio voices (*{0})</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/widgets/voice_panel.py" line="241"/>
        <source>Cannot import {0}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/widgets/voice_panel.py" line="249"/>
        <source>Export voice</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/widgets/voice_panel.py" line="262"/>
        <source>Cannot export the voice</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/widgets/voice_panel.py" line="269"/>
        <source>Rename voice</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/widgets/voice_panel.py" line="269"/>
        <source>New name:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/widgets/voice_panel.py" line="279"/>
        <source>Cannot rename the voice</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/widgets/voice_panel.py" line="287"/>
        <source>Delete the voice “{0}”? This cannot be undone.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/widgets/voice_panel.py" line="288"/>
        <source>Delete voice</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/widgets/voice_panel.py" line="298"/>
        <source>Cannot delete the voice</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>WaveformView</name>
    <message>
        <location filename="../../app/widgets/waveform.py" line="128"/>
        <source>seconds</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>_CatalogRow</name>
    <message>
        <location filename="../../app/widgets/models_dialog.py" line="115"/>
        <source>Discard</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/widgets/models_dialog.py" line="117"/>
        <source>Delete what was downloaded so far</source>
        <translation type="unfinished"></translation>
    </message>
</context>
</TS>
