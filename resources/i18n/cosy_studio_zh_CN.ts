<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
<context>
    <name>AsrModelsSection</name>
    <message>
        <source>Speech recognition (for transcripts)</source>
        <translation>语音识别（用于文字稿）</translation>
    </message>
    <message>
        <source>Writes a voice&apos;s transcript from its recording when you press Transcribe: Chinese, English, Japanese, Korean and Cantonese, on this computer.</source>
        <translation>按下“识别文字”时，根据声音的录音写出其文字稿：支持中文、英语、日语、韩语和粤语，全部在本机完成。</translation>
    </message>
    <message>
        <source>Verify</source>
        <translation>校验</translation>
    </message>
    <message>
        <source>Check the files against what was installed and transcribe a test clip</source>
        <translation>对照安装时的记录检查文件，并识别一段测试音频</translation>
    </message>
    <message>
        <source>Delete…</source>
        <translation>删除…</translation>
    </message>
    <message>
        <source>Delete the speech-recognition model from disk</source>
        <translation>从磁盘删除语音识别模型</translation>
    </message>
</context>
<context>
    <name>CastTable</name>
    <message>
        <source>Speaker</source>
        <translation>说话人</translation>
    </message>
    <message>
        <source>Voice</source>
        <translation>音色</translation>
    </message>
    <message>
        <source>Default instruction</source>
        <translation>默认指令</translation>
    </message>
    <message>
        <source>Who speaks each name of the script: a saved voice and, optionally, an instruction for the lines that have none of their own</source>
        <translation>脚本中每个名字由谁来说：一个已保存的音色，以及（可选）用于没有自带指令的台词的指令</translation>
    </message>
    <message>
        <source>Speakers appear here as you write lines like “Anna: Hello.”</source>
        <translation>写下“Anna: Hello.”这样的台词后，说话人会出现在这里</translation>
    </message>
    <message>
        <source>The script checked against the cast and the loaded model; problems are underlined in red in the text (hover them for what to do)</source>
        <translation>脚本已按演员表和已加载的模型检查；问题在文本中以红色波浪线标出（鼠标悬停可查看处理方法）</translation>
    </message>
    <message>
        <source>Make the cast&apos;s voices again from their recordings for the loaded model (each is saved; it takes a few seconds per voice)</source>
        <translation>用录音为已加载的模型重新制作角色的声音（每个都会保存；每个声音需要几秒钟）</translation>
    </message>
    <message>
        <source>none (or a preset, or your own words)</source>
        <translation>无（或预设，或你自己的话）</translation>
    </message>
    <message>
        <source>Not in the script any more; right-click to remove</source>
        <translation>已不在脚本中；右键可移除</translation>
    </message>
    <message>
        <source>— choose a voice —</source>
        <translation>— 选择音色 —</translation>
    </message>
    <message>
        <source>Made for {0}; the loaded model is {1}. Re-make it for this model with the button under the cast, or load the other model.</source>
        <translation>为 {0} 制作；已加载的模型是 {1}。用角色表下方的按钮为此模型重新制作，或加载另一个模型。</translation>
    </message>
    <message>
        <source>{0} (missing)</source>
        <translation>{0}（缺失）</translation>
    </message>
    <message>
        <source>There is no saved voice called “{0}” any more; choose another or make it again.</source>
        <translation>已没有名为“{0}”的音色；请选择其他音色或重新制作。</translation>
    </message>
    <message numerus="yes">
        <source>Re-make %n voice(s) for the loaded model</source>
        <translation>
            <numerusform>为已加载的模型重新制作 %n 个声音</numerusform>
        </translation>
    </message>
    <message>
        <source>Remove “{0}” from the cast</source>
        <translation>从演员表中移除“{0}”</translation>
    </message>
</context>
<context>
    <name>CatalogRow</name>
    <message>
        <source>Discard</source>
        <translation>丢弃</translation>
    </message>
    <message>
        <source>Delete what was downloaded so far</source>
        <translation>删除目前已下载的部分</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>Installed</source>
        <translation>已安装</translation>
    </message>
    <message>
        <source>Installed in %1</source>
        <translation>安装于 %1</translation>
    </message>
    <message>
        <source>Resume</source>
        <translation>继续</translation>
    </message>
    <message>
        <source>Paused: %1 downloaded so far</source>
        <translation>已暂停：已下载 %1</translation>
    </message>
    <message>
        <source>Download</source>
        <translation>下载</translation>
    </message>
    <message>
        <source>About %1</source>
        <translation>约 %1</translation>
    </message>
</context>
<context>
    <name>ConvertController</name>
    <message>
        <source>Recording to convert</source>
        <translation>要转换的录音</translation>
    </message>
    <message>
        <source>Cannot use this recording</source>
        <translation>无法使用这段录音</translation>
    </message>
    <message>
        <source>Recording of {0:.1f} s ({1})</source>
        <translation>{0:.1f} 秒的录音（{1}）</translation>
    </message>
    <message>
        <source>{0} · {1:.1f} s</source>
        <translation>{0} · {1:.1f} 秒</translation>
    </message>
    <message>
        <source>Recording… speak now.</source>
        <translation>正在录音……请说话。</translation>
    </message>
    <message>
        <source>Cannot record</source>
        <translation>无法录音</translation>
    </message>
    <message>
        <source>System default</source>
        <translation>系统默认</translation>
    </message>
    <message>
        <source>{0} (not found)</source>
        <translation>{0}（未找到）</translation>
    </message>
    <message>
        <source>Cannot record: {0}. Plug in a microphone, or choose another one in the Microphone list, then try again.</source>
        <translation>无法录音：{0}。请插入麦克风，或在“麦克风”列表中选择其他麦克风，然后重试。</translation>
    </message>
    <message>
        <source>Microphone, live · {0:.1f} s</source>
        <translation>麦克风，实时 · {0:.1f} 秒</translation>
    </message>
    <message>
        <source>Recording… {0:.1f} s</source>
        <translation>正在录音…… {0:.1f} 秒</translation>
    </message>
    <message>
        <source>Recording stopped at the limit of {0:g} minutes.</source>
        <translation>录音已达到 {0:g} 分钟的上限，已停止。</translation>
    </message>
    <message>
        <source>No model</source>
        <translation>没有模型</translation>
    </message>
    <message>
        <source>Load a model first.</source>
        <translation>请先加载模型。</translation>
    </message>
    <message>
        <source>No target voice</source>
        <translation>没有目标音色</translation>
    </message>
    <message>
        <source>Choose the voice to convert into in the list of voices, or record or make one first.</source>
        <translation>请在音色列表中选择要转换成的音色，或先录制或制作一个。</translation>
    </message>
    <message>
        <source>Stop live conversion first.</source>
        <translation>请先停止实时转换。</translation>
    </message>
    <message>
        <source>No source</source>
        <translation>没有源录音</translation>
    </message>
    <message>
        <source>Open a recording or record one first, then press Convert.</source>
        <translation>请先打开或录制一段录音，然后点击“转换”。</translation>
    </message>
    <message>
        <source>Headphones needed</source>
        <translation>需要耳机</translation>
    </message>
    <message>
        <source>The microphone and the output are the same device ({0}), so the converted voice would play into the microphone and be converted again. Wear headphones and tick “I use headphones”, or choose another microphone in the Microphone list or another output in Settings › Output device.</source>
        <translation>麦克风和输出是同一设备（{0}），转换后的声音会被麦克风再次录入并转换。请戴上耳机并勾选“我在用耳机”，或在“麦克风”列表中选择其他麦克风，或在“设置 › 输出设备”中选择其他输出。</translation>
    </message>
    <message>
        <source>Cannot convert live</source>
        <translation>无法实时转换</translation>
    </message>
    <message>
        <source>Live {0}</source>
        <translation>实时 {0}</translation>
    </message>
    <message>
        <source>Recording; press Stop live to convert the whole recording.</source>
        <translation>正在录音；点击“停止实时”即可转换整段录音。</translation>
    </message>
</context>
<context>
    <name>ConvertPanel</name>
    <message>
        <source>Say it yourself, hear it in a saved voice: the words, timing and emphasis of the source, spoken in the target voice.</source>
        <translation>自己说，用保存的音色听：保留源录音的内容、节奏和重音，换成目标音色说出来。</translation>
    </message>
    <message>
        <source>No source yet: open a recording or record one.</source>
        <translation>还没有源录音：请打开或录制一段。</translation>
    </message>
    <message>
        <source>Open file…</source>
        <translation>打开文件…</translation>
    </message>
    <message>
        <source>A recording to convert: WAV, FLAC, OGG or MP3, 16 kHz or more, up to an hour</source>
        <translation>要转换的录音：WAV、FLAC、OGG 或 MP3，16 kHz 或以上，最长一小时</translation>
    </message>
    <message>
        <source>Record</source>
        <translation>录音</translation>
    </message>
    <message>
        <source>Record the source from the microphone; press again to stop</source>
        <translation>用麦克风录制源录音；再按一次停止</translation>
    </message>
    <message>
        <source>The microphone that Record and Live listen to</source>
        <translation>“录音”和“实时”所用的麦克风</translation>
    </message>
    <message>
        <source>The source recording</source>
        <translation>源录音</translation>
    </message>
    <message>
        <source>The source recording appears here</source>
        <translation>源录音显示在这里</translation>
    </message>
    <message>
        <source>The voice chosen in the list of voices</source>
        <translation>音色列表中选中的音色</translation>
    </message>
    <message>
        <source>Live</source>
        <translation>实时</translation>
    </message>
    <message>
        <source>Convert from the microphone while you speak; the converted voice plays a moment later. Press again to stop</source>
        <translation>边说边从麦克风转换，转换后的声音稍后播放。再按一次停止</translation>
    </message>
    <message>
        <source>I use headphones</source>
        <translation>我在用耳机</translation>
    </message>
    <message>
        <source>Live conversion plays what the microphone hears; through speakers it would hear itself. Wear headphones</source>
        <translation>实时转换会播放麦克风听到的内容；用扬声器播放时麦克风会听到它自己。请戴耳机</translation>
    </message>
    <message>
        <source>Latency: from your speech to its converted sound. RTF: seconds of work per second of speech (above 1 this computer cannot keep up)</source>
        <translation>延迟：从您说话到听到转换后的声音。RTF：每秒语音所需的计算秒数（大于 1 表示这台电脑跟不上）</translation>
    </message>
    <message>
        <source>Convert when I stop</source>
        <translation>停止后再转换</translation>
    </message>
    <message>
        <source>Stop converting live, keep recording, and convert the whole recording when you press Live again</source>
        <translation>停止实时转换，继续录音，再次点击“实时”时转换整段录音</translation>
    </message>
    <message>
        <source>Source:</source>
        <translation>源录音：</translation>
    </message>
    <message>
        <source>Microphone:</source>
        <translation>麦克风：</translation>
    </message>
    <message>
        <source>Target voice:</source>
        <translation>目标音色：</translation>
    </message>
    <message>
        <source>(too long to draw)</source>
        <translation>（太长，无法绘制）</translation>
    </message>
    <message>
        <source>none: choose or make a voice on the left</source>
        <translation>无：请在左侧选择或制作音色</translation>
    </message>
    <message>
        <source>Stop recording</source>
        <translation>停止录音</translation>
    </message>
    <message>
        <source>Stop live</source>
        <translation>停止实时</translation>
    </message>
    <message>
        <source>Listening… {0:.1f} s</source>
        <translation>正在聆听…… {0:.1f} 秒</translation>
    </message>
    <message>
        <source>Latency {0:.1f} s · RTF {1}</source>
        <translation>延迟 {0:.1f} 秒 · 实时率 {1}</translation>
    </message>
    <message>
        <source>This computer converts slower than you speak (RTF {0}), so the converted voice falls further behind. Convert the whole recording when you stop instead?</source>
        <translation>这台电脑转换得比您说话慢（实时率 {0}），转换后的声音会越来越滞后。要改为在您停止后转换整段录音吗？</translation>
    </message>
</context>
<context>
    <name>DevicesController</name>
    <message>
        <source>No audio device — export still works</source>
        <translation>没有音频设备——仍可导出</translation>
    </message>
    <message>
        <source>Output: {0}</source>
        <translation>输出：{0}</translation>
    </message>
    <message>
        <source>No audio device</source>
        <translation>没有音频设备</translation>
    </message>
</context>
<context>
    <name>DropController</name>
    <message>
        <source>Make a voice?</source>
        <translation>制作声音？</translation>
    </message>
    <message>
        <source>Make a voice from {0}? The recorder opens with the clip, to trim and name it.</source>
        <translation>用 {0} 制作声音？录音器会打开这段音频，供你裁剪和命名。</translation>
    </message>
    <message>
        <source>Make a voice</source>
        <translation>制作声音</translation>
    </message>
</context>
<context>
    <name>EditorAutosave</name>
    <message>
        <source>Cannot save the text</source>
        <translation>无法保存文本</translation>
    </message>
    <message>
        <source>{0}
The text is still in the editor; copy it somewhere safe.</source>
        <translation>{0}
文本仍在编辑器中；请把它复制到安全的地方。</translation>
    </message>
</context>
<context>
    <name>EngineThread</name>
    <message>
        <source>Checking the model folder</source>
        <translation>正在检查模型文件夹</translation>
    </message>
    <message>
        <source>Starting the engine (torch)</source>
        <translation>正在启动引擎（torch）</translation>
    </message>
    <message>
        <source>Warming up</source>
        <translation>正在预热</translation>
    </message>
    <message>
        <source>Ready</source>
        <translation>就绪</translation>
    </message>
    <message>
        <source>Loading the speech language model</source>
        <translation>正在加载语音语言模型</translation>
    </message>
    <message>
        <source>Loading the flow decoder</source>
        <translation>正在加载流匹配解码器</translation>
    </message>
    <message>
        <source>Loading the vocoder</source>
        <translation>正在加载声码器</translation>
    </message>
    <message>
        <source>Loading the text tokenizer</source>
        <translation>正在加载文本分词器</translation>
    </message>
    <message>
        <source>Loading the speech tokenizer</source>
        <translation>正在加载语音分词器</translation>
    </message>
    <message>
        <source>Loading the speaker encoder</source>
        <translation>正在加载说话人编码器</translation>
    </message>
    <message>
        <source>Finishing</source>
        <translation>正在收尾</translation>
    </message>
</context>
<context>
    <name>ExportAllDialog</name>
    <message>
        <source>Export all takes</source>
        <translation>导出全部录音</translation>
    </message>
    <message>
        <source>Folder:</source>
        <translation>文件夹：</translation>
    </message>
    <message>
        <source>Format:</source>
        <translation>格式：</translation>
    </message>
    <message>
        <source>{0} takes, one file each, named after the take. Existing files are not replaced unless you say so.</source>
        <translation>{0} 条录音，每条一个文件，以录音命名。除非你同意，已有文件不会被替换。</translation>
    </message>
    <message>
        <source>Export</source>
        <translation>导出</translation>
    </message>
    <message>
        <source>Export all takes to</source>
        <translation>将全部录音导出到</translation>
    </message>
</context>
<context>
    <name>ExportController</name>
    <message>
        <source>There is no take to export yet.</source>
        <translation>还没有可导出的合成。</translation>
    </message>
    <message>
        <source>WAV, 16-bit PCM (*.wav)</source>
        <translation>WAV，16 位 PCM (*.wav)</translation>
    </message>
    <message>
        <source>WAV, 32-bit float (*.wav)</source>
        <translation>WAV，32 位浮点 (*.wav)</translation>
    </message>
    <message>
        <source>FLAC (*.flac)</source>
        <translation>FLAC (*.flac)</translation>
    </message>
    <message>
        <source>MP3 (*.mp3)</source>
        <translation>MP3 (*.mp3)</translation>
    </message>
    <message>
        <source>Ogg Vorbis (*.ogg)</source>
        <translation>Ogg Vorbis (*.ogg)</translation>
    </message>
    <message>
        <source>Subtitles, SRT (*.srt)</source>
        <translation>字幕，SRT (*.srt)</translation>
    </message>
    <message>
        <source>Export take {0}</source>
        <translation>导出合成 {0}</translation>
    </message>
    <message>
        <source>Exporting {0}…</source>
        <translation>正在导出 {0}…</translation>
    </message>
    <message>
        <source>Replace files?</source>
        <translation>替换文件？</translation>
    </message>
    <message>
        <source>These files exist already and would be replaced:
{0}</source>
        <translation>以下文件已存在，将被替换：
{0}</translation>
    </message>
    <message>
        <source>Export failed</source>
        <translation>导出失败</translation>
    </message>
    <message>
        <source> (partial: the take was not complete)</source>
        <translation>（不完整：该条尚未合成完毕）</translation>
    </message>
    <message>
        <source>Exported {0}</source>
        <translation>已导出 {0}</translation>
    </message>
</context>
<context>
    <name>ExportRows</name>
    <message>
        <source>WAV, 16-bit PCM</source>
        <translation>WAV，16 位 PCM</translation>
    </message>
    <message>
        <source>WAV, 32-bit float</source>
        <translation>WAV，32 位浮点</translation>
    </message>
    <message>
        <source>FLAC</source>
        <translation>FLAC</translation>
    </message>
    <message>
        <source>MP3</source>
        <translation>MP3</translation>
    </message>
    <message>
        <source>Ogg Vorbis</source>
        <translation>Ogg Vorbis</translation>
    </message>
</context>
<context>
    <name>LevelMeter</name>
    <message>
        <source>Microphone level; keep the peaks out of the red</source>
        <translation>麦克风电平；峰值不要进入红色区域</translation>
    </message>
</context>
<context>
    <name>LexiconController</name>
    <message>
        <source>The app dictionary {0} cannot be read: {1} Fix the file, or open Tools › Pronunciation dictionary… to start a new one (the file is kept).</source>
        <translation>无法读取应用词典 {0}：{1} 请修正该文件，或打开“工具 › 发音词典…”新建一个（原文件会保留）。</translation>
    </message>
    <message>
        <source>voice {0}</source>
        <translation>音色 {0}</translation>
    </message>
    <message>
        <source>app</source>
        <translation>应用</translation>
    </message>
    <message>
        <source>{0} cannot be read: {1}
Saving keeps that file under another name and writes a new one.</source>
        <translation>无法读取 {0}：{1}
保存时会把该文件改名保留，并写入一个新文件。</translation>
    </message>
    <message>
        <source>Pronunciation dictionary: app</source>
        <translation>发音词典：应用</translation>
    </message>
    <message>
        <source>Pronunciation dictionary: voice {0}</source>
        <translation>发音词典：音色 {0}</translation>
    </message>
    <message>
        <source>The unreadable dictionary was kept as {0}.</source>
        <translation>无法读取的词典已保留为 {0}。</translation>
    </message>
    <message>
        <source>Saved the app dictionary ({0}).</source>
        <translation>已保存应用词典（{0}）。</translation>
    </message>
    <message>
        <source>Saved the dictionary of the voice “{0}”.</source>
        <translation>已保存音色“{0}”的词典。</translation>
    </message>
</context>
<context>
    <name>LexiconDialog</name>
    <message>
        <source>The replacement is how the word sounds, in ordinary letters or characters (CosyVoice2 has no pronunciation tokens).</source>
        <translation>替换内容写出这个词的读音，用普通字母或汉字（CosyVoice2 没有发音标记）。</translation>
    </message>
    <message>
        <source>The replacement is a respelling, pinyin tokens such as [j][ǐ] or ARPAbet tokens such as [N][UW1] (Fun-CosyVoice3).</source>
        <translation>替换内容可以是改写的拼法、拼音标记（如 [j][ǐ]）或 ARPAbet 标记（如 [N][UW1]）（Fun-CosyVoice3）。</translation>
    </message>
    <message>
        <source>The replacement is a respelling; Fun-CosyVoice3 also takes pinyin tokens ([j][ǐ]) and ARPAbet tokens ([N][UW1]). Entries are checked once a model is loaded.</source>
        <translation>替换内容是改写的拼法；Fun-CosyVoice3 还接受拼音标记（[j][ǐ]）和 ARPAbet 标记（[N][UW1]）。加载模型后会检查各词条。</translation>
    </message>
    <message>
        <source>Each term is replaced before the text is read. {0}</source>
        <translation>朗读文本之前，每个词语都会被替换。{0}</translation>
    </message>
    <message>
        <source>Term</source>
        <translation>词语</translation>
    </message>
    <message>
        <source>Replacement</source>
        <translation>替换为</translation>
    </message>
    <message>
        <source>Whole word</source>
        <translation>整词</translation>
    </message>
    <message>
        <source>Case sensitive</source>
        <translation>区分大小写</translation>
    </message>
    <message>
        <source>Double-click a cell to edit it. Whole word: the term does not match inside a longer word. Case sensitive: the letters match only as written.</source>
        <translation>双击单元格即可编辑。整词：词语不会匹配更长单词的一部分。区分大小写：字母必须与所写完全一致才匹配。</translation>
    </message>
    <message>
        <source>Add</source>
        <translation>添加</translation>
    </message>
    <message>
        <source>Add an entry and type its term</source>
        <translation>添加一个词条并输入词语</translation>
    </message>
    <message>
        <source>Remove</source>
        <translation>删除</translation>
    </message>
    <message>
        <source>Remove the selected entries (Delete); Undo brings them back</source>
        <translation>删除所选词条（Delete 键）；可用“撤销”恢复</translation>
    </message>
    <message>
        <source>Undo</source>
        <translation>撤销</translation>
    </message>
    <message>
        <source>Undo the last removal or import (Ctrl+Z)</source>
        <translation>撤销上一次删除或导入（Ctrl+Z）</translation>
    </message>
    <message>
        <source>Import CSV…</source>
        <translation>导入 CSV…</translation>
    </message>
    <message>
        <source>Add entries from a CSV file whose header starts term,replacement</source>
        <translation>从 CSV 文件添加词条（首行以 term,replacement 开头）</translation>
    </message>
    <message>
        <source>Export CSV…</source>
        <translation>导出 CSV…</translation>
    </message>
    <message>
        <source>Save these entries as a CSV file (for the command line or to share)</source>
        <translation>将这些词条保存为 CSV 文件（供命令行使用或分享）</translation>
    </message>
    <message>
        <source>Type a sentence to see how it will be read</source>
        <translation>输入一句话，查看它会如何被朗读</translation>
    </message>
    <message>
        <source>Shows what the dictionary replaces and the sentences exactly as the engine will speak them (as `cosycore text --lexicon`)</source>
        <translation>显示词典替换了什么，以及引擎实际朗读的句子（与 `cosycore text --lexicon` 相同）</translation>
    </message>
    <message>
        <source>The replacements, then each segment the model will speak</source>
        <translation>先列出替换，再列出模型将朗读的每一段</translation>
    </message>
    <message>
        <source>&amp;Test:</source>
        <translation>测试(&amp;T)：</translation>
    </message>
    <message>
        <source>Keep these entries</source>
        <translation>保存这些词条</translation>
    </message>
    <message>
        <source>Close without saving</source>
        <translation>关闭且不保存</translation>
    </message>
    <message numerus="yes">
        <source>Removed %n entry(s). Undo (Ctrl+Z) brings them back.</source>
        <translation>
            <numerusform>已删除 %n 个词条。撤销（Ctrl+Z）可恢复。</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Imported %n entry(s) from {0} ({1} replaced). Undo (Ctrl+Z) takes the import back.</source>
        <translation>
            <numerusform>已从 {0} 导入 %n 个词条（替换了 {1} 个）。撤销（Ctrl+Z）可取消这次导入。</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Exported %n entry(s) to {0}.</source>
        <translation>
            <numerusform>已将 %n 个词条导出到 {0}。</numerusform>
        </translation>
    </message>
    <message>
        <source>Undone.</source>
        <translation>已撤销。</translation>
    </message>
    <message>
        <source>Row {0}: {1}</source>
        <translation>第 {0} 行：{1}</translation>
    </message>
    <message>
        <source>Row {0} has the same term; that entry is used.</source>
        <translation>第 {0} 行是同一个词语；将使用那一行。</translation>
    </message>
    <message numerus="yes">
        <source>… and %n more</source>
        <translation>
            <numerusform>…… 另有 %n 条</numerusform>
        </translation>
    </message>
    <message>
        <source>The dictionary was not saved</source>
        <translation>词典未保存</translation>
    </message>
    <message>
        <source>Unsaved changes</source>
        <translation>未保存的更改</translation>
    </message>
    <message>
        <source>Close without saving the changes to the dictionary?</source>
        <translation>关闭且不保存对词典的更改？</translation>
    </message>
    <message>
        <source>Import a dictionary</source>
        <translation>导入词典</translation>
    </message>
    <message>
        <source>CSV files (*.csv);;All files (*)</source>
        <translation>CSV 文件 (*.csv);;所有文件 (*)</translation>
    </message>
    <message>
        <source>Add the entries of {0} to these (an entry for the same term is replaced), or replace all entries with them?</source>
        <translation>将 {0} 中的词条添加到这里（同一词语的词条会被替换），还是用它们替换全部词条？</translation>
    </message>
    <message>
        <source>Add (merge)</source>
        <translation>添加（合并）</translation>
    </message>
    <message>
        <source>Replace all</source>
        <translation>全部替换</translation>
    </message>
    <message>
        <source>Cannot import {0}</source>
        <translation>无法导入 {0}</translation>
    </message>
    <message>
        <source>Export the dictionary</source>
        <translation>导出词典</translation>
    </message>
    <message>
        <source>CSV files (*.csv)</source>
        <translation>CSV 文件 (*.csv)</translation>
    </message>
    <message>
        <source>Cannot export the dictionary</source>
        <translation>无法导出词典</translation>
    </message>
    <message>
        <source>dictionary: {0} → {1}</source>
        <translation>词典：{0} → {1}</translation>
    </message>
    <message>
        <source>Cannot be spoken: {0}</source>
        <translation>无法朗读：{0}</translation>
    </message>
</context>
<context>
    <name>LexiconSpans</name>
    <message>
        <source>{0} → {1} (dictionary: {2})</source>
        <translation>{0} → {1}（词典：{2}）</translation>
    </message>
</context>
<context>
    <name>LiveHud</name>
    <message>
        <source>Estimated from the real-time factor measured on earlier takes with this model, device and quality</source>
        <translation>根据此前用同一模型、设备和质量合成时测得的实时率估算</translation>
    </message>
    <message>
        <source>Buffered: audio made but not yet played</source>
        <translation>缓冲：已生成但尚未播放的音频</translation>
    </message>
    <message>
        <source>{0}  buffered {1:.1f} s  chunks {2}  underruns {3}</source>
        <translation>{0}  缓冲 {1:.1f} 秒  分块 {2}  欠载 {3}</translation>
    </message>
    <message>
        <source>first take: no estimate yet</source>
        <translation>首次合成：暂无预估</translation>
    </message>
    <message>
        <source>almost done</source>
        <translation>即将完成</translation>
    </message>
    <message>
        <source>about {0} s left</source>
        <translation>约剩 {0} 秒</translation>
    </message>
    <message>
        <source>about {0} min {1:02d} s left</source>
        <translation>约剩 {0} 分 {1:02d} 秒</translation>
    </message>
</context>
<context>
    <name>LocalServerDialog</name>
    <message>
        <source>Local server</source>
        <translation>本地服务器</translation>
    </message>
    <message>
        <source>Serve the loaded model and your saved voices to other programs on this computer through the OpenAI speech API (POST /v1/audio/speech; the voice is a saved voice&apos;s name).</source>
        <translation>通过 OpenAI 语音 API（POST /v1/audio/speech；voice 为已保存音色的名称）把已加载的模型和你保存的音色提供给本机上的其他程序。</translation>
    </message>
    <message>
        <source>optional</source>
        <translation>可选</translation>
    </message>
    <message>
        <source>Clients must then send the header &apos;Authorization: Bearer KEY&apos;</source>
        <translation>客户端随后必须发送请求头 &apos;Authorization: Bearer KEY&apos;</translation>
    </message>
    <message>
        <source>Copy</source>
        <translation>复制</translation>
    </message>
    <message>
        <source>&amp;Port:</source>
        <translation>端口(&amp;P)：</translation>
    </message>
    <message>
        <source>API &amp;key:</source>
        <translation>API 密钥(&amp;K)：</translation>
    </message>
    <message>
        <source>URL:</source>
        <translation>地址：</translation>
    </message>
    <message>
        <source>Status:</source>
        <translation>状态：</translation>
    </message>
    <message>
        <source>&amp;Stop</source>
        <translation>停止(&amp;S)</translation>
    </message>
    <message>
        <source>&amp;Start</source>
        <translation>启动(&amp;S)</translation>
    </message>
    <message>
        <source>Running, but no model is loaded yet: requests are refused until one is.</source>
        <translation>正在运行，但尚未加载模型：加载模型之前请求会被拒绝。</translation>
    </message>
    <message>
        <source>Serving {model}: {running} running, {waiting} waiting, {served} served, {cancelled} cancelled, {failed} failed.</source>
        <translation>正在提供 {model}：{running} 个运行中，{waiting} 个等待中，已完成 {served} 个，已取消 {cancelled} 个，失败 {failed} 个。</translation>
    </message>
    <message>
        <source>Not running: {error}</source>
        <translation>未运行：{error}</translation>
    </message>
    <message>
        <source>Not running.</source>
        <translation>未运行。</translation>
    </message>
</context>
<context>
    <name>LongFormController</name>
    <message>
        <source>Open text</source>
        <translation>打开文本</translation>
    </message>
    <message>
        <source>Text and Markdown (*.txt *.md *.markdown)</source>
        <translation>文本和 Markdown (*.txt *.md *.markdown)</translation>
    </message>
    <message>
        <source>Cannot open {0}</source>
        <translation>无法打开 {0}</translation>
    </message>
    <message>
        <source>{0} is opened for rendering</source>
        <translation>{0} 已打开，用于渲染</translation>
    </message>
    <message>
        <source>{0} has {1} characters, more than one take can speak ({2}), so it is not put into the editor. Render it to an audio file in the Render to file dialog, which is open now.</source>
        <translation>{0} 有 {1} 个字符，超过一次合成能朗读的上限（{2}），因此不放入编辑器。请在已打开的“渲染到文件”对话框中把它渲染为音频文件。</translation>
    </message>
    <message>
        <source>Open as a script?</source>
        <translation>作为脚本打开？</translation>
    </message>
    <message>
        <source>{0} looks like a dialogue script (Name: line). Open it as a script?</source>
        <translation>{0} 看起来是对白脚本（名字: 台词）。要作为脚本打开吗？</translation>
    </message>
    <message>
        <source>Opened {0}. Ctrl+Z in the editor brings back the text it replaced.</source>
        <translation>已打开 {0}。在编辑器中按 Ctrl+Z 可找回被替换的文本。</translation>
    </message>
    <message>
        <source>A render is running</source>
        <translation>正在渲染</translation>
    </message>
    <message>
        <source>One render runs at a time: wait until it has finished, or cancel it (it can be resumed later).</source>
        <translation>一次只能进行一个渲染：请等它完成，或取消它（之后可以继续）。</translation>
    </message>
    <message>
        <source>{0} has an unfinished render</source>
        <translation>{0} 有未完成的渲染</translation>
    </message>
    <message>
        <source>Resume it from File › Unfinished renders, or choose another file name.</source>
        <translation>请从 文件 › 未完成的渲染 继续它，或换一个文件名。</translation>
    </message>
    <message>
        <source>Replace files?</source>
        <translation>替换文件？</translation>
    </message>
    <message>
        <source>These files exist already and would be replaced when the render has finished:
{0}
Replace them?</source>
        <translation>以下文件已存在，渲染完成时会被替换：
{0}
要替换吗？</translation>
    </message>
    <message>
        <source>Nothing to render</source>
        <translation>没有可渲染的内容</translation>
    </message>
    <message>
        <source>The editor is empty.</source>
        <translation>编辑器是空的。</translation>
    </message>
    <message>
        <source>Cannot keep the text for the render</source>
        <translation>无法保存要渲染的文本</translation>
    </message>
    <message>
        <source>No model</source>
        <translation>没有模型</translation>
    </message>
    <message>
        <source>Load a model first.</source>
        <translation>请先加载模型。</translation>
    </message>
    <message>
        <source>No voice</source>
        <translation>没有声音</translation>
    </message>
    <message>
        <source>Cannot start the render</source>
        <translation>无法开始渲染</translation>
    </message>
    <message>
        <source>Rendering {0} → {1}</source>
        <translation>正在渲染 {0} → {1}</translation>
    </message>
    <message>
        <source>Starting…</source>
        <translation>正在开始…</translation>
    </message>
    <message numerus="yes">
        <source>%n more unfinished render(s) in File › Unfinished renders.</source>
        <translation>
            <numerusform>文件 › 未完成的渲染 中还有 %n 个未完成的渲染。</numerusform>
        </translation>
    </message>
    <message>
        <source>Resume rendering {0} — {1}/{2} segments done</source>
        <translation>继续渲染 {0} — 已完成 {1}/{2} 段</translation>
    </message>
    <message>
        <source>Saving to {0}. It was stopped before it had finished.</source>
        <translation>保存到 {0}。它在完成之前被停止了。</translation>
    </message>
    <message>
        <source>None</source>
        <translation>无</translation>
    </message>
    <message>
        <source>One render runs at a time: wait until it has finished, or cancel it first.</source>
        <translation>一次只能进行一个渲染：请等它完成，或先取消它。</translation>
    </message>
    <message>
        <source>{0} is not there any more (moved or deleted?). Put it back and press Resume.</source>
        <translation>{0} 已不在原处（被移动或删除了？）。请把它放回去，然后按“继续”。</translation>
    </message>
    <message>
        <source>The voice &apos;{0}&apos; is not in the voice library any more (deleted or renamed?). Put it back (import its .cosyvoice file) and press Resume.</source>
        <translation>声音“{0}”已不在声音库中（被删除或改名了？）。请把它放回去（导入它的 .cosyvoice 文件），然后按“继续”。</translation>
    </message>
    <message>
        <source>Nothing is lost: the {0} finished segments are kept in {1}.</source>
        <translation>没有丢失任何内容：已完成的 {0} 段保存在 {1} 中。</translation>
    </message>
    <message>
        <source>Start over?</source>
        <translation>重新开始？</translation>
    </message>
    <message>
        <source>Render {0} from the beginning? The unfinished audio made so far is discarded.</source>
        <translation>从头渲染 {0}？已生成的未完成音频会被丢弃。</translation>
    </message>
    <message>
        <source>Starting over…</source>
        <translation>正在重新开始…</translation>
    </message>
    <message>
        <source>Discard the unfinished render?</source>
        <translation>丢弃未完成的渲染？</translation>
    </message>
    <message>
        <source>Delete the partial audio of {0} ({1})? This cannot be undone.</source>
        <translation>删除 {0} 的部分音频（{1}）？此操作无法撤销。</translation>
    </message>
    <message>
        <source>Cannot discard</source>
        <translation>无法丢弃</translation>
    </message>
    <message>
        <source>Waiting for its turn: takes and other work on the engine go first.</source>
        <translation>正在等待：合成和引擎上的其他任务优先。</translation>
    </message>
    <message>
        <source>Paused. Resume goes on from the last finished segment; closing Cosy Studio keeps it for later.</source>
        <translation>已暂停。“继续”会从最后完成的一段接着渲染；关闭 Cosy Studio 也会保留它，供以后继续。</translation>
    </message>
    <message>
        <source>Render of {0} stopped with {1} of {2} segments done; File › Unfinished renders resumes it.</source>
        <translation>{0} 的渲染已停止，完成了 {1}/{2} 段；可在 文件 › 未完成的渲染 中继续。</translation>
    </message>
    <message>
        <source>Rendered {0}</source>
        <translation>已渲染 {0}</translation>
    </message>
    <message>
        <source>Render finished: {0}</source>
        <translation>渲染完成：{0}</translation>
    </message>
</context>
<context>
    <name>MainWindow</name>
    <message>
        <source>Cosy Studio</source>
        <translation>Cosy Studio</translation>
    </message>
    <message>
        <source>The take: dashed lines mark where chunks joined; click a finished take to play from there</source>
        <translation>当前合成：虚线标出分块衔接处；点击已完成的合成可从该处播放</translation>
    </message>
    <message>
        <source>Takes appear here while they are spoken</source>
        <translation>合成的语音会在朗读时显示在这里</translation>
    </message>
    <message>
        <source>&amp;File</source>
        <translation>文件(&amp;F)</translation>
    </message>
    <message>
        <source>Open a .txt or .md file into the editor</source>
        <translation>把 .txt 或 .md 文件打开到编辑器中</translation>
    </message>
    <message>
        <source>&amp;Render to file…</source>
        <translation>渲染到文件(&amp;R)…</translation>
    </message>
    <message>
        <source>Speak a long text or a book into a WAV or FLAC file, in the background</source>
        <translation>在后台把长文本或整本书朗读成 WAV 或 FLAC 文件</translation>
    </message>
    <message>
        <source>&amp;Unfinished renders</source>
        <translation>未完成的渲染(&amp;U)</translation>
    </message>
    <message>
        <source>Choose &amp;model folder…</source>
        <translation>选择模型文件夹(&amp;M)…</translation>
    </message>
    <message>
        <source>&amp;Models…</source>
        <translation>模型(&amp;M)…</translation>
    </message>
    <message>
        <source>Installed models, downloads, and folders you already have</source>
        <translation>已安装的模型、下载，以及你已有的文件夹</translation>
    </message>
    <message>
        <source>&amp;Export take…</source>
        <translation>导出合成(&amp;E)…</translation>
    </message>
    <message>
        <source>&amp;Quit</source>
        <translation>退出(&amp;Q)</translation>
    </message>
    <message>
        <source>S&amp;cript</source>
        <translation>脚本(&amp;C)</translation>
    </message>
    <message>
        <source>&amp;Regenerate a line…</source>
        <translation>重新生成一句(&amp;R)…</translation>
    </message>
    <message>
        <source>&amp;New project…</source>
        <translation>新建项目(&amp;N)…</translation>
    </message>
    <message>
        <source>&amp;Open project…</source>
        <translation>打开项目(&amp;O)…</translation>
    </message>
    <message>
        <source>&amp;Save project</source>
        <translation>保存项目(&amp;S)</translation>
    </message>
    <message>
        <source>Save project &amp;as…</source>
        <translation>项目另存为(&amp;A)…</translation>
    </message>
    <message>
        <source>&amp;Close project</source>
        <translation>关闭项目(&amp;C)</translation>
    </message>
    <message>
        <source>Open &amp;recent</source>
        <translation>最近的项目(&amp;R)</translation>
    </message>
    <message>
        <source>Back to the Untitled session, as you left it</source>
        <translation>回到“未命名”会话，保持你离开时的样子</translation>
    </message>
    <message>
        <source>Open &amp;text…</source>
        <translation>打开文本(&amp;T)…</translation>
    </message>
    <message>
        <source>Speak one line of the shown script take again (another seed or instruction) and splice it in</source>
        <translation>重新朗读所显示脚本录音中的一句（换种子或指令）并拼接回去</translation>
    </message>
    <message>
        <source>&amp;Undo line regeneration</source>
        <translation>撤销重新生成(&amp;U)</translation>
    </message>
    <message>
        <source>Put the shown take&apos;s previous version back (again: the newer one)</source>
        <translation>恢复所显示录音的上一个版本（再次执行：恢复较新的版本）</translation>
    </message>
    <message>
        <source>Re&amp;generate sentence…</source>
        <translation>重新生成句子(&amp;G)…</translation>
    </message>
    <message>
        <source>&amp;Undo regeneration</source>
        <translation>撤销重新生成(&amp;U)</translation>
    </message>
    <message>
        <source>Speak the sentence at the playhead of the shown take again (another seed or instruction); also a right-click on the waveform</source>
        <translation>重新说出当前录音中播放头所在的句子（换种子或指令）；也可在波形上右键</translation>
    </message>
    <message>
        <source>Put the shown take&apos;s previous version back (Ctrl+Z in the waveform; again: the newer one)</source>
        <translation>恢复当前录音的上一个版本（在波形中按 Ctrl+Z；再按一次：换回新版本）</translation>
    </message>
    <message>
        <source>Recent mo&amp;dels</source>
        <translation>最近的模型(&amp;D)</translation>
    </message>
    <message>
        <source>Ta&amp;kes</source>
        <translation>录音(&amp;K)</translation>
    </message>
    <message>
        <source>&amp;Voice</source>
        <translation>声音(&amp;V)</translation>
    </message>
    <message>
        <source>&amp;Record a voice…</source>
        <translation>录制声音(&amp;R)…</translation>
    </message>
    <message>
        <source>Voice from &amp;file…</source>
        <translation>从文件创建声音(&amp;F)…</translation>
    </message>
    <message>
        <source>&amp;Tools</source>
        <translation>工具(&amp;T)</translation>
    </message>
    <message>
        <source>Pronunciation &amp;dictionary…</source>
        <translation>发音词典(&amp;D)…</translation>
    </message>
    <message>
        <source>Terms and how to say them, for every voice</source>
        <translation>词语及其读法，适用于所有音色</translation>
    </message>
    <message>
        <source>&amp;Settings</source>
        <translation>设置(&amp;S)</translation>
    </message>
    <message>
        <source>&amp;Output device</source>
        <translation>输出设备(&amp;O)</translation>
    </message>
    <message>
        <source>&amp;Take storage limit…</source>
        <translation>合成存储上限(&amp;T)…</translation>
    </message>
    <message>
        <source>&amp;Language</source>
        <translation>语言(&amp;L)</translation>
    </message>
    <message>
        <source>System</source>
        <translation>跟随系统</translation>
    </message>
    <message>
        <source>&amp;Quality</source>
        <translation>质量(&amp;Q)</translation>
    </message>
    <message>
        <source>Local &amp;server…</source>
        <translation>本地服务器(&amp;S)…</translation>
    </message>
    <message>
        <source>&amp;Help</source>
        <translation>帮助(&amp;H)</translation>
    </message>
    <message>
        <source>&amp;About Cosy Studio</source>
        <translation>关于 Cosy Studio(&amp;A)</translation>
    </message>
    <message>
        <source>No model</source>
        <translation>未加载模型</translation>
    </message>
    <message>
        <source>The loaded model</source>
        <translation>已加载的模型</translation>
    </message>
    <message>
        <source>Where the model runs</source>
        <translation>模型运行的设备</translation>
    </message>
    <message>
        <source>The quality mode the model was loaded in (Settings › Quality)</source>
        <translation>加载模型时使用的质量模式（设置 › 质量）</translation>
    </message>
    <message>
        <source>Time to first audio of the last take</source>
        <translation>上一条合成的首段音频延迟</translation>
    </message>
    <message>
        <source>Real-time factor of the last take: seconds of work per second of audio (below 1 is faster than real time)</source>
        <translation>上一条合成的实时率：每秒音频所需的计算秒数（小于 1 即快于实时）</translation>
    </message>
    <message>
        <source>The audio output</source>
        <translation>音频输出</translation>
    </message>
    <message>
        <source>&amp;Keyboard shortcuts</source>
        <translation>键盘快捷键(&amp;K)</translation>
    </message>
    <message>
        <source>Playback</source>
        <translation>播放</translation>
    </message>
    <message>
        <source>{0}[*] — Cosy Studio</source>
        <translation>{0}[*] — Cosy Studio</translation>
    </message>
    <message>
        <source>The language changes when Cosy Studio is restarted.</source>
        <translation>重新启动 Cosy Studio 后语言才会更改。</translation>
    </message>
    <message>
        <source>About Cosy Studio</source>
        <translation>关于 Cosy Studio</translation>
    </message>
    <message>
        <source>Cosy Studio: voice cloning and instruction-controlled speech on CosyVoice2 and Fun-CosyVoice3.</source>
        <translation>Cosy Studio：基于 CosyVoice2 与 Fun-CosyVoice3 的声音克隆与指令控制语音合成。</translation>
    </message>
</context>
<context>
    <name>ModelScreen</name>
    <message>
        <source>Download a release from Hugging Face or ModelScope, with progress, resume and verification</source>
        <translation>从 Hugging Face 或 ModelScope 下载发布版本，带进度显示、断点续传和校验</translation>
    </message>
    <message>
        <source>No model loaded</source>
        <translation>未加载模型</translation>
    </message>
    <message>
        <source>Cosy Studio needs a CosyVoice2-0.5B or Fun-CosyVoice3-0.5B release folder.
Choose the folder that contains cosyvoice2.yaml or cosyvoice3.yaml.</source>
        <translation>Cosy Studio 需要 CosyVoice2-0.5B 或 Fun-CosyVoice3-0.5B 的发布文件夹。
请选择包含 cosyvoice2.yaml 或 cosyvoice3.yaml 的文件夹。</translation>
    </message>
    <message>
        <source>Choose model folder…</source>
        <translation>选择模型文件夹…</translation>
    </message>
    <message>
        <source>Pick a release folder you already have on disk</source>
        <translation>选择磁盘上已有的发布文件夹</translation>
    </message>
    <message>
        <source>Download…</source>
        <translation>下载…</translation>
    </message>
    <message>
        <source>Loading the model</source>
        <translation>正在加载模型</translation>
    </message>
    <message>
        <source>Loading the model…</source>
        <translation>正在加载模型…</translation>
    </message>
    <message>
        <source>Choose a model release folder</source>
        <translation>选择模型发布文件夹</translation>
    </message>
</context>
<context>
    <name>ModelsController</name>
    <message>
        <source>Cannot use this model folder</source>
        <translation>无法使用此模型文件夹</translation>
    </message>
    <message>
        <source>Choose a model release folder</source>
        <translation>选择模型发布文件夹</translation>
    </message>
    <message>
        <source>Loading {0}…</source>
        <translation>正在加载 {0}…</translation>
    </message>
    <message>
        <source>Loading the model: {0} ({1} %)</source>
        <translation>正在加载模型：{0}（{1} %）</translation>
    </message>
    <message>
        <source>Device: {0}</source>
        <translation>设备：{0}</translation>
    </message>
    <message>
        <source>Quality: {0}</source>
        <translation>质量：{0}</translation>
    </message>
    <message>
        <source>Quality: Auto ({0})</source>
        <translation>质量：自动（{0}）</translation>
    </message>
    <message>
        <source>Model loaded in {0:.1f} s</source>
        <translation>模型已加载，用时 {0:.1f} 秒</translation>
    </message>
    <message>
        <source>No model</source>
        <translation>未加载模型</translation>
    </message>
    <message>
        <source>Exact</source>
        <translation>精确</translation>
    </message>
    <message>
        <source>Fast</source>
        <translation>快速</translation>
    </message>
    <message>
        <source>Draft</source>
        <translation>草稿</translation>
    </message>
    <message>
        <source>Auto</source>
        <translation>自动</translation>
    </message>
    <message>
        <source>Exact on a graphics card; on the processor, the best mode this computer has been measured to play without gaps (Draft until Fast or Exact has been measured live).</source>
        <translation>有显卡时用精确；只用处理器时，选用本机实测能不间断播放的最佳模式（在快速或精确被测得可实时播放之前用草稿）。</translation>
    </message>
    <message>
        <source>The original model&apos;s computation: the reference sound, and the slowest.</source>
        <translation>与原始模型完全相同的计算：参考音质，速度最慢。</translation>
    </message>
    <message>
        <source>Faster: on the CPU the speech model runs in 8-bit integers, and streamed audio is computed only where it is new. The voice can differ slightly from Exact; loading takes a little longer for the warm-up.</source>
        <translation>更快：在 CPU 上语音模型以 8 位整数运行，流式音频只计算新增的部分。声音可能与“精确”略有不同；加载时需要预热，稍慢一些。</translation>
    </message>
    <message>
        <source>Fastest: Fast plus a 4-step audio decoder without guidance. Audibly rougher; for trying out texts and voices before the final take.</source>
        <translation>最快：在“快速”的基础上使用 4 步、无引导的音频解码器。音质明显较粗糙，适合在正式合成前试听文本和声音。</translation>
    </message>
    <message>
        <source>Quality {0} applies when a model is loaded.</source>
        <translation>质量“{0}”将在加载模型时生效。</translation>
    </message>
</context>
<context>
    <name>ModelsDialog</name>
    <message>
        <source>Models</source>
        <translation>模型</translation>
    </message>
    <message>
        <source>Change…</source>
        <translation>更改…</translation>
    </message>
    <message>
        <source>Download models into another folder</source>
        <translation>将模型下载到其他文件夹</translation>
    </message>
    <message>
        <source>%1 is missing. Download the model again (Resume keeps what is there) or choose a complete folder.</source>
        <translation>缺少 %1。请重新下载模型（“继续”会保留已有内容），或选择一个完整的文件夹。</translation>
    </message>
    <message>
        <source>ModelScope is greyed out because the modelscope package is not installed: pip install &apos;cosy-studio[modelscope]&apos;, then restart Cosy Studio.</source>
        <translation>ModelScope 不可用，因为未安装 modelscope 包：请运行 pip install &apos;cosy-studio[modelscope]&apos;，然后重新启动 Cosy Studio。</translation>
    </message>
    <message>
        <source>%1 (not installed)</source>
        <translation>%1（未安装）</translation>
    </message>
    <message>
        <source>huggingface.co, or a mirror such as https://hf-mirror.com</source>
        <translation>huggingface.co，或镜像，例如 https://hf-mirror.com</translation>
    </message>
    <message>
        <source>Where Hugging Face downloads come from; type a mirror&apos;s address if huggingface.co cannot be reached from here</source>
        <translation>Hugging Face 下载的来源；如果此处无法访问 huggingface.co，请输入镜像地址</translation>
    </message>
    <message>
        <source>Models folder:</source>
        <translation>模型文件夹：</translation>
    </message>
    <message>
        <source>Download from:</source>
        <translation>下载来源：</translation>
    </message>
    <message>
        <source>Mirror:</source>
        <translation>镜像：</translation>
    </message>
    <message>
        <source>Model</source>
        <translation>模型</translation>
    </message>
    <message>
        <source>Family</source>
        <translation>系列</translation>
    </message>
    <message>
        <source>Size</source>
        <translation>大小</translation>
    </message>
    <message>
        <source>Folder</source>
        <translation>文件夹</translation>
    </message>
    <message>
        <source>Use</source>
        <translation>使用</translation>
    </message>
    <message>
        <source>Load the selected model</source>
        <translation>加载所选模型</translation>
    </message>
    <message>
        <source>Verify</source>
        <translation>校验</translation>
    </message>
    <message>
        <source>Check the selected model&apos;s files against what was installed</source>
        <translation>按安装时的记录检查所选模型的文件</translation>
    </message>
    <message>
        <source>with a test synthesis</source>
        <translation>并试合成</translation>
    </message>
    <message>
        <source>Also load the model and synthesise a few sounds (takes a while)</source>
        <translation>同时加载模型并合成几段声音（需要一些时间）</translation>
    </message>
    <message>
        <source>Delete…</source>
        <translation>删除…</translation>
    </message>
    <message>
        <source>Use a folder I already have…</source>
        <translation>使用已有的文件夹…</translation>
    </message>
    <message>
        <source>Pick a CosyVoice2-0.5B or Fun-CosyVoice3-0.5B release folder on disk</source>
        <translation>选择磁盘上的 CosyVoice2-0.5B 或 Fun-CosyVoice3-0.5B 发布文件夹</translation>
    </message>
    <message>
        <source>Installed</source>
        <translation>已安装</translation>
    </message>
    <message>
        <source>Download</source>
        <translation>下载</translation>
    </message>
    <message>
        <source>%1 (your folder)</source>
        <translation>%1（你的文件夹）</translation>
    </message>
    <message>
        <source>✖ %1 (incomplete)</source>
        <translation>✖ %1（不完整）</translation>
    </message>
    <message>
        <source>%1 (unverified)</source>
        <translation>%1（未校验）</translation>
    </message>
    <message>
        <source>No published hash for: %1</source>
        <translation>以下文件没有公布的哈希值：%1</translation>
    </message>
    <message>
        <source>Forget</source>
        <translation>移出列表</translation>
    </message>
    <message>
        <source>Remove this folder from the list; nothing is deleted from disk</source>
        <translation>从列表中移除此文件夹；不会删除磁盘上的任何文件</translation>
    </message>
    <message>
        <source>Delete the selected model from disk</source>
        <translation>从磁盘删除所选模型</translation>
    </message>
    <message>
        <source>Asking %1 for the file list…</source>
        <translation>正在向 %1 获取文件列表…</translation>
    </message>
    <message>
        <source>Stopping…</source>
        <translation>正在停止…</translation>
    </message>
    <message>
        <source>Checking %1…</source>
        <translation>正在检查 %1…</translation>
    </message>
    <message>
        <source>%1 cannot be used: %2</source>
        <translation>%1 无法使用：%2</translation>
    </message>
    <message>
        <source>Delete model</source>
        <translation>删除模型</translation>
    </message>
    <message>
        <source>Delete %1 (%2) from %3?</source>
        <translation>要从 %3 删除 %1（%2）吗？</translation>
    </message>
    <message>
        <source>Deleted %1.</source>
        <translation>已删除 %1。</translation>
    </message>
    <message>
        <source>Transcribe needs the speech-recognition model: press its Download button below.</source>
        <translation>“识别文字”需要语音识别模型：请按下方该模型的“下载”按钮。</translation>
    </message>
    <message>
        <source>%1 is installed (%2).</source>
        <translation>%1 已安装（%2）。</translation>
    </message>
    <message>
        <source>%1 needs attention.</source>
        <translation>%1 需要处理。</translation>
    </message>
    <message>
        <source>Stopped. What was downloaded is kept; press Resume to continue.</source>
        <translation>已停止。已下载的部分会保留；按“继续”接着下载。</translation>
    </message>
    <message>
        <source>Stopped.</source>
        <translation>已停止。</translation>
    </message>
    <message>
        <source>%1. Check the internet connection and proxy settings, type a mirror under Mirror (for example https://hf-mirror.com) or download from the other source; if the model is already on disk, press “Use a folder I already have…”.</source>
        <translation>%1。请检查网络连接和代理设置，在“镜像”中输入镜像地址（例如 https://hf-mirror.com），或从另一个来源下载；如果模型已在磁盘上，请点击“使用我已有的文件夹…”。</translation>
    </message>
    <message>
        <source>Choose a model release folder</source>
        <translation>选择模型发布文件夹</translation>
    </message>
    <message>
        <source>Choose where models are downloaded</source>
        <translation>选择模型的下载位置</translation>
    </message>
</context>
<context>
    <name>PathRow</name>
    <message>
        <source>Browse…</source>
        <translation>浏览…</translation>
    </message>
</context>
<context>
    <name>PerformanceMenu</name>
    <message>
        <source>&amp;Performance</source>
        <translation>性能(&amp;P)</translation>
    </message>
    <message>
        <source>Threads: automatic ({0})</source>
        <translation>线程：自动（{0}）</translation>
    </message>
    <message>
        <source>Use every core. Waiting threads sleep instead of spinning, so a busy computer slows a take down gently; from 4 cores on, the speech model and the audio decoder also run side by side.</source>
        <translation>使用全部核心。等待中的线程休眠而不空转，因此电脑繁忙时合成只会平缓变慢；4 核及以上时，语音模型与音频解码器还会并行运行。</translation>
    </message>
    <message>
        <source>Threads: {0}</source>
        <translation>线程：{0}</translation>
    </message>
    <message>
        <source>Use {0} of the {1} cores for synthesis; fewer leaves more for other programs.</source>
        <translation>合成使用 {1} 个核心中的 {0} 个；用得越少，留给其他程序的越多。</translation>
    </message>
</context>
<context>
    <name>PieceRegenController</name>
    <message>
        <source>{0}
The take is unchanged.</source>
        <translation>{0}
录音未改变。</translation>
    </message>
    <message>
        <source>Cannot undo</source>
        <translation>无法撤销</translation>
    </message>
    <message>
        <source>Take {0} is back to its previous version; Undo again for the other.</source>
        <translation>录音 {0} 已恢复到上一个版本；再次撤销可换回另一个。</translation>
    </message>
</context>
<context>
    <name>PlaybackController</name>
    <message>
        <source>no audio</source>
        <translation>无音频</translation>
    </message>
    <message>
        <source>stopped</source>
        <translation>已停止</translation>
    </message>
    <message>
        <source>buffering</source>
        <translation>缓冲中</translation>
    </message>
    <message>
        <source>playing</source>
        <translation>播放中</translation>
    </message>
</context>
<context>
    <name>PresetNames</name>
    <message>
        <source>Cantonese</source>
        <translation>粤语</translation>
    </message>
    <message>
        <source>Sichuanese</source>
        <translation>四川话</translation>
    </message>
    <message>
        <source>Shanghainese</source>
        <translation>上海话</translation>
    </message>
    <message>
        <source>Zhengzhou</source>
        <translation>郑州话</translation>
    </message>
    <message>
        <source>Changsha</source>
        <translation>长沙话</translation>
    </message>
    <message>
        <source>Tianjin</source>
        <translation>天津话</translation>
    </message>
    <message>
        <source>Northeastern</source>
        <translation>东北话</translation>
    </message>
    <message>
        <source>Gansu</source>
        <translation>甘肃话</translation>
    </message>
    <message>
        <source>Guizhou</source>
        <translation>贵州话</translation>
    </message>
    <message>
        <source>Henan</source>
        <translation>河南话</translation>
    </message>
    <message>
        <source>Hubei</source>
        <translation>湖北话</translation>
    </message>
    <message>
        <source>Hunan</source>
        <translation>湖南话</translation>
    </message>
    <message>
        <source>Jiangxi</source>
        <translation>江西话</translation>
    </message>
    <message>
        <source>Minnan</source>
        <translation>闽南话</translation>
    </message>
    <message>
        <source>Ningxia</source>
        <translation>宁夏话</translation>
    </message>
    <message>
        <source>Shanxi</source>
        <translation>山西话</translation>
    </message>
    <message>
        <source>Shaanxi</source>
        <translation>陕西话</translation>
    </message>
    <message>
        <source>Shandong</source>
        <translation>山东话</translation>
    </message>
    <message>
        <source>Yunnan</source>
        <translation>云南话</translation>
    </message>
    <message>
        <source>Happy</source>
        <translation>高兴</translation>
    </message>
    <message>
        <source>Sad</source>
        <translation>悲伤</translation>
    </message>
    <message>
        <source>Surprised</source>
        <translation>惊讶</translation>
    </message>
    <message>
        <source>Angry</source>
        <translation>愤怒</translation>
    </message>
    <message>
        <source>Fearful</source>
        <translation>恐惧</translation>
    </message>
    <message>
        <source>Disgusted</source>
        <translation>厌恶</translation>
    </message>
    <message>
        <source>Calm</source>
        <translation>冷静</translation>
    </message>
    <message>
        <source>Serious</source>
        <translation>严肃</translation>
    </message>
    <message>
        <source>Fast</source>
        <translation>快速</translation>
    </message>
    <message>
        <source>Very fast</source>
        <translation>非常快</translation>
    </message>
    <message>
        <source>Slow</source>
        <translation>慢速</translation>
    </message>
    <message>
        <source>Very slow</source>
        <translation>非常慢</translation>
    </message>
    <message>
        <source>Loud</source>
        <translation>大声</translation>
    </message>
    <message>
        <source>Soft</source>
        <translation>轻声</translation>
    </message>
    <message>
        <source>Mysterious</source>
        <translation>神秘</translation>
    </message>
    <message>
        <source>Fierce</source>
        <translation>凶猛</translation>
    </message>
    <message>
        <source>Curious</source>
        <translation>好奇</translation>
    </message>
    <message>
        <source>Elegant</source>
        <translation>优雅</translation>
    </message>
    <message>
        <source>Lonely</source>
        <translation>孤独</translation>
    </message>
    <message>
        <source>Robot</source>
        <translation>机器人</translation>
    </message>
    <message>
        <source>Peppa Pig</source>
        <translation>小猪佩奇</translation>
    </message>
</context>
<context>
    <name>PresetPicker</name>
    <message>
        <source>Search presets (name, text or meaning)</source>
        <translation>搜索预设（名称、文本或含义）</translation>
    </message>
    <message>
        <source>One per group: a dialect, an emotion, a speed and a volume combine in that order. A role play or a custom preset stands alone.</source>
        <translation>每组选一个：方言、情感、语速和音量按此顺序组合。角色扮演或自定义预设只能单独使用。</translation>
    </message>
    <message>
        <source>Dialect</source>
        <translation>方言</translation>
    </message>
    <message>
        <source>Emotion</source>
        <translation>情感</translation>
    </message>
    <message>
        <source>Speed</source>
        <translation>语速</translation>
    </message>
    <message>
        <source>Volume</source>
        <translation>音量</translation>
    </message>
    <message>
        <source>Role play</source>
        <translation>角色扮演</translation>
    </message>
    <message>
        <source>Custom</source>
        <translation>自定义</translation>
    </message>
    <message>
        <source>Use “Save as preset” to keep an instruction you typed</source>
        <translation>用“另存为预设”保存你输入的指令</translation>
    </message>
    <message>
        <source>None documented for this model</source>
        <translation>此模型没有公开的此类指令</translation>
    </message>
    <message>
        <source>Delete this preset</source>
        <translation>删除此预设</translation>
    </message>
</context>
<context>
    <name>ProjectsController</name>
    <message>
        <source>Untitled</source>
        <translation>未命名</translation>
    </message>
    <message>
        <source>Unsaved changes</source>
        <translation>未保存的更改</translation>
    </message>
    <message>
        <source>Save the changes to the project “{0}”?</source>
        <translation>要保存对项目“{0}”的更改吗？</translation>
    </message>
    <message>
        <source>The takes are kept either way; Don&apos;t save goes back to the texts as they were last saved.</source>
        <translation>无论如何录音都会保留；“不保存”会让文本回到上次保存时的样子。</translation>
    </message>
    <message>
        <source>Projects</source>
        <translation>项目</translation>
    </message>
    <message>
        <source>A long text is being rendered to a file. Pause or cancel it in the render panel, or wait until it ends, then try again.</source>
        <translation>正在把一段长文本渲染到文件。请在渲染面板中暂停或取消它，或等它结束，然后再试。</translation>
    </message>
    <message>
        <source>A take is being made, or a Speak waits for the model. Stop it (Esc), or wait until it ends, then try again.</source>
        <translation>正在生成一条录音，或有一次朗读在等待模型。请停止它（Esc），或等它结束，然后再试。</translation>
    </message>
    <message>
        <source>Open project</source>
        <translation>打开项目</translation>
    </message>
    <message>
        <source>Cosy Studio projects (*{0})</source>
        <translation>Cosy Studio 项目 (*{0})</translation>
    </message>
    <message>
        <source>Cannot open the project</source>
        <translation>无法打开项目</translation>
    </message>
    <message>
        <source>Some takes could not be read</source>
        <translation>有些录音无法读取</translation>
    </message>
    <message>
        <source>These take folders in {0} were left as they are:
{1}</source>
        <translation>{0} 中的这些录音文件夹保持原样：
{1}</translation>
    </message>
    <message>
        <source>Project: {0}</source>
        <translation>项目：{0}</translation>
    </message>
    <message>
        <source>These voices of the project are not in your voice library: {0}. Add them (Voice › Voice from file…, or copy their .cosyvoice files into {1}); until then their takes still play, but new takes cannot use them.</source>
        <translation>项目用到的这些声音不在你的声音库中：{0}。请添加它们（“声音 › 从文件创建声音…”，或把它们的 .cosyvoice 文件复制到 {1}）；在此之前，用它们做的录音仍可播放，但新录音无法使用它们。</translation>
    </message>
    <message>
        <source>These voices differ from the ones the project was saved with (same name, another file): {0}.</source>
        <translation>这些声音与项目保存时的不同（名字相同，文件不同）：{0}。</translation>
    </message>
    <message>
        <source>These takes of the project are not in its takes folder {0}: {1}.</source>
        <translation>项目的这些录音不在其录音文件夹 {0} 中：{1}。</translation>
    </message>
    <message>
        <source>Project “{0}”</source>
        <translation>项目“{0}”</translation>
    </message>
    <message>
        <source>Cannot save the project</source>
        <translation>无法保存项目</translation>
    </message>
    <message>
        <source>Saved {0}.</source>
        <translation>已保存 {0}。</translation>
    </message>
    <message>
        <source>{0} already exists and holds files. A project gets a folder of its own, and Cosy Studio never writes over files it did not make: choose another name, or another place.</source>
        <translation>{0} 已存在且其中有文件。每个项目都有自己的文件夹，Cosy Studio 从不覆盖不是它创建的文件：请换一个名字或位置。</translation>
    </message>
    <message>
        <source>Save project as</source>
        <translation>项目另存为</translation>
    </message>
    <message>
        <source>Copying the takes into {0}…</source>
        <translation>正在把录音复制到 {0}…</translation>
    </message>
    <message>
        <source>The takes changed while they were being copied.</source>
        <translation>复制录音期间录音发生了变化。</translation>
    </message>
    <message>
        <source>Save as cancelled; nothing was saved.</source>
        <translation>已取消“另存为”，没有保存任何内容。</translation>
    </message>
    <message>
        <source>{0}
Nothing was saved; the work is still open as it was.</source>
        <translation>{0}
没有保存任何内容；工作仍按原样打开着。</translation>
    </message>
    <message>
        <source>New project</source>
        <translation>新建项目</translation>
    </message>
    <message>
        <source>Cannot make the project</source>
        <translation>无法创建项目</translation>
    </message>
    <message>
        <source>{0} (not found)</source>
        <translation>{0}（找不到）</translation>
    </message>
    <message>
        <source>{0} is not there any more (moved, renamed, or on a drive that is not connected)</source>
        <translation>{0} 已不在原处（被移动、改名，或位于未连接的驱动器上）</translation>
    </message>
    <message>
        <source>No recent projects</source>
        <translation>没有最近的项目</translation>
    </message>
    <message>
        <source>Clear list</source>
        <translation>清空列表</translation>
    </message>
</context>
<context>
    <name>RecentModelsController</name>
    <message>
        <source>{0} (missing)</source>
        <translation>{0}（缺失）</translation>
    </message>
    <message>
        <source>(none yet)</source>
        <translation>（暂无）</translation>
    </message>
    <message>
        <source>{0} is loaded already.</source>
        <translation>{0} 已经加载。</translation>
    </message>
</context>
<context>
    <name>Recorder</name>
    <message>
        <source>The clip is sampled at {0} Hz; a voice needs at least {1} kHz (telephone-quality audio cannot be used). Record it again, or export it at 16 kHz or higher.</source>
        <translation>该音频的采样率为 {0} Hz；音色至少需要 {1} kHz（无法使用电话音质的音频）。请重新录制，或以 16 kHz 或更高的采样率导出。</translation>
    </message>
    <message>
        <source>The recording is {0:.1f} s long; a voice needs at least {1:g} s.</source>
        <translation>录音长 {0:.1f} 秒；声音至少需要 {1:g} 秒。</translation>
    </message>
    <message>
        <source>The recording is {0:.1f} s long; trim it to at most {1:g} s.</source>
        <translation>录音长 {0:.1f} 秒；请裁剪到不超过 {1:g} 秒。</translation>
    </message>
    <message>
        <source>The recording is silent. Check the microphone and its volume.</source>
        <translation>录音是静音。请检查麦克风及其音量。</translation>
    </message>
    <message>
        <source>The level is low ({0:.0f} dBFS); move closer to the microphone.</source>
        <translation>电平偏低（{0:.0f} dBFS）；请靠近麦克风。</translation>
    </message>
    <message>
        <source>The recording is clipped ({0:.1%} of samples at full scale); record a little quieter.</source>
        <translation>录音削波（{0:.1%} 的采样达到满幅）；请稍微小声一点录。</translation>
    </message>
    <message>
        <source>Record a voice</source>
        <translation>录制声音</translation>
    </message>
    <message>
        <source>The microphone to record from</source>
        <translation>用于录音的麦克风</translation>
    </message>
    <message>
        <source>Refresh</source>
        <translation>刷新</translation>
    </message>
    <message>
        <source>Look for microphones again (after plugging one in)</source>
        <translation>重新查找麦克风（插入新设备后）</translation>
    </message>
    <message>
        <source>Record</source>
        <translation>录音</translation>
    </message>
    <message>
        <source>Start recording; read a sentence or two naturally (3-30 s)</source>
        <translation>开始录音；自然地朗读一两句话（3–30 秒）</translation>
    </message>
    <message>
        <source>Recorded time; recording stops by itself at 30 s</source>
        <translation>已录时长；到 30 秒自动停止</translation>
    </message>
    <message>
        <source>Open file…</source>
        <translation>打开文件…</translation>
    </message>
    <message>
        <source>Use an audio file instead of the microphone</source>
        <translation>使用音频文件代替麦克风</translation>
    </message>
    <message>
        <source>Drag the shaded area&apos;s edges to trim the recording</source>
        <translation>拖动阴影区域的边缘来裁剪录音</translation>
    </message>
    <message>
        <source>Play</source>
        <translation>播放</translation>
    </message>
    <message>
        <source>Listen to the trimmed recording</source>
        <translation>试听裁剪后的录音</translation>
    </message>
    <message>
        <source>e.g. Anna, calm</source>
        <translation>例如：小安，平静</translation>
    </message>
    <message>
        <source>A name for the new voice</source>
        <translation>新声音的名称</translation>
    </message>
    <message>
        <source>Exactly what is said in the recording</source>
        <translation>录音中所说的原文</translation>
    </message>
    <message>
        <source>Needed for Clone mode; may stay empty for Cross-lingual and Instruct</source>
        <translation>克隆模式需要；跨语种和指令模式可留空</translation>
    </message>
    <message>
        <source>Save as voice</source>
        <translation>保存为声音</translation>
    </message>
    <message>
        <source>Make the voice from the trimmed recording and add it to the library</source>
        <translation>用裁剪后的录音创建声音并加入声音库</translation>
    </message>
    <message>
        <source>Close</source>
        <translation>关闭</translation>
    </message>
    <message>
        <source>Close the recorder</source>
        <translation>关闭录音器</translation>
    </message>
    <message>
        <source>Microphone:</source>
        <translation>麦克风：</translation>
    </message>
    <message>
        <source>Name:</source>
        <translation>名称：</translation>
    </message>
    <message>
        <source>Transcript:</source>
        <translation>文本：</translation>
    </message>
    <message>
        <source>No microphone found</source>
        <translation>未找到麦克风</translation>
    </message>
    <message>
        <source>Cannot record from {0}: {1}</source>
        <translation>无法从 {0} 录音：{1}</translation>
    </message>
    <message>
        <source>Recording… speak now.</source>
        <translation>正在录音…请开始说话。</translation>
    </message>
    <message>
        <source>Stop</source>
        <translation>停止</translation>
    </message>
    <message>
        <source>Stop recording</source>
        <translation>停止录音</translation>
    </message>
    <message>
        <source>{0:.1f} s / {1:g} s</source>
        <translation>{0:.1f} 秒 / {1:g} 秒</translation>
    </message>
    <message>
        <source>Nothing recorded yet.</source>
        <translation>尚未录音。</translation>
    </message>
    <message>
        <source>No transcript: the voice will speak in Cross-lingual and Instruct modes only. Type exactly what is said in the selection to use Clone mode.</source>
        <translation>没有文本：该音色只能用于跨语种和指令模式。请准确输入所选部分说的内容，才能使用克隆模式。</translation>
    </message>
    <message>
        <source>✔ The recording looks good.</source>
        <translation>✔ 录音良好。</translation>
    </message>
    <message>
        <source>The clip is {0:.1f} s long and a voice can use {1:g} s, so only {2:.1f}–{3:.1f} s is selected: the transcript must cover exactly that part (drag the shaded area to choose another).</source>
        <translation>该音频长 {0:.1f} 秒，而音色最多使用 {1:g} 秒，因此只选中了 {2:.1f}–{3:.1f} 秒：文本必须恰好对应这一部分（拖动阴影区域可选择其他部分）。</translation>
    </message>
    <message>
        <source>The selection ({0:.1f}–{1:.1f} s) leaves out some of the speech: the transcript must cover only the selected part.</source>
        <translation>所选部分（{0:.1f}–{1:.1f} 秒）漏掉了一些语音：文本只能对应所选部分。</translation>
    </message>
    <message>
        <source>✖ Give the voice a name.</source>
        <translation>✖ 请为声音命名。</translation>
    </message>
    <message>
        <source>Making the voice…</source>
        <translation>正在创建声音…</translation>
    </message>
    <message>
        <source>✔ Saved as “{0}”.</source>
        <translation>✔ 已保存为“{0}”。</translation>
    </message>
</context>
<context>
    <name>RegenController</name>
    <message>
        <source>Show a script take first (Script mode, Speak).</source>
        <translation>请先显示一个脚本录音（脚本模式，朗读）。</translation>
    </message>
    <message>
        <source>This take holds no spoken line yet.</source>
        <translation>此录音中还没有已朗读的台词。</translation>
    </message>
    <message>
        <source>Regenerate line {0} ({1})…</source>
        <translation>重新生成第 {0} 句（{1}）…</translation>
    </message>
    <message>
        <source>Regenerate a line…</source>
        <translation>重新生成一句…</translation>
    </message>
    <message>
        <source>Undo line regeneration</source>
        <translation>撤销重新生成</translation>
    </message>
    <message>
        <source>Cannot regenerate the line</source>
        <translation>无法重新生成这一句</translation>
    </message>
    <message>
        <source>Regenerating line {0} of take {1}…</source>
        <translation>正在重新生成录音 {1} 的第 {0} 句…</translation>
    </message>
    <message>
        <source>Take {0} is not a script take.</source>
        <translation>录音 {0} 不是脚本录音。</translation>
    </message>
    <message>
        <source>Load a model first.</source>
        <translation>请先加载模型。</translation>
    </message>
    <message>
        <source>Wait until the take being made is finished.</source>
        <translation>请等待正在生成的录音完成。</translation>
    </message>
    <message>
        <source>A line is being regenerated; wait until it is done.</source>
        <translation>正在重新生成一句；请等待完成。</translation>
    </message>
    <message>
        <source>Take {0} is not saved on disk, so its lines cannot be regenerated.</source>
        <translation>录音 {0} 未保存到磁盘，因此无法重新生成其中的台词。</translation>
    </message>
    <message>
        <source>Two lines of this take touch without a pause; its lines cannot be regenerated one by one.</source>
        <translation>此录音中有两句台词之间没有停顿；无法逐句重新生成。</translation>
    </message>
    <message>
        <source>Cannot save the regenerated line</source>
        <translation>无法保存重新生成的台词</translation>
    </message>
    <message>
        <source>Line {0} of take {1} regenerated with seed {2}; Script › Undo line regeneration puts the previous one back.</source>
        <translation>已用种子 {2} 重新生成录音 {1} 的第 {0} 句；“脚本 › 撤销重新生成”可恢复之前的版本。</translation>
    </message>
    <message>
        <source>There is no line regeneration to undo.</source>
        <translation>没有可撤销的重新生成。</translation>
    </message>
</context>
<context>
    <name>RegenerateDialog</name>
    <message>
        <source>Regenerate a line</source>
        <translation>重新生成一句</translation>
    </message>
    <message>
        <source>Regenerate a sentence</source>
        <translation>重新生成一个句子</translation>
    </message>
    <message>
        <source>{0}. {1}: {2}</source>
        <translation>{0}. {1}：{2}</translation>
    </message>
    <message>
        <source>{0}. {1}</source>
        <translation>{0}. {1}</translation>
    </message>
    <message>
        <source>Another seed speaks the line another way; the line&apos;s own seed remakes it</source>
        <translation>换一个种子会换一种说法；用这一句原来的种子会重新得到它</translation>
    </message>
    <message>
        <source>Another seed speaks the sentence another way</source>
        <translation>换一个种子，句子会以另一种方式说出</translation>
    </message>
    <message>
        <source>Keep the line&apos;s instruction, speak it without one, or choose a preset or type another</source>
        <translation>保留这一句的指令、不用指令，或选择预设、输入其他指令</translation>
    </message>
    <message>
        <source>Keep the sentence&apos;s instruction, speak it without one, or choose a preset or type another</source>
        <translation>保留该句的指令、不用指令朗读，或选择预设、输入其他指令</translation>
    </message>
    <message>
        <source>(keep the line&apos;s instruction)</source>
        <translation>（保留这一句的指令）</translation>
    </message>
    <message>
        <source>(keep the sentence&apos;s instruction)</source>
        <translation>（保留该句的指令）</translation>
    </message>
    <message>
        <source>(no instruction)</source>
        <translation>（无指令）</translation>
    </message>
    <message>
        <source>Regenerate</source>
        <translation>重新生成</translation>
    </message>
    <message>
        <source>Line:</source>
        <translation>台词：</translation>
    </message>
    <message>
        <source>Sentence:</source>
        <translation>句子：</translation>
    </message>
    <message>
        <source>Seed:</source>
        <translation>种子：</translation>
    </message>
    <message>
        <source>Instruction:</source>
        <translation>指令：</translation>
    </message>
    <message>
        <source>seed {0}</source>
        <translation>种子 {0}</translation>
    </message>
    <message>
        <source>a random seed</source>
        <translation>随机种子</translation>
    </message>
    <message>
        <source>Spoken with {0}; instruction: {1}</source>
        <translation>用 {0} 朗读；指令：{1}</translation>
    </message>
    <message>
        <source>none</source>
        <translation>无</translation>
    </message>
</context>
<context>
    <name>RemakeController</name>
    <message>
        <source>Cannot re-make “{0}”</source>
        <translation>无法重新制作“{0}”</translation>
    </message>
    <message numerus="yes">
        <source>Re-making %n voice(s) for the loaded model…</source>
        <translation>
            <numerusform>正在为已加载的模型重新制作 %n 个声音…</numerusform>
        </translation>
    </message>
    <message>
        <source>The cast&apos;s voices were made for the loaded model.</source>
        <translation>角色的声音已为已加载的模型制作。</translation>
    </message>
</context>
<context>
    <name>RenderDialog</name>
    <message>
        <source>Render to file</source>
        <translation>渲染到文件</translation>
    </message>
    <message>
        <source>A file:</source>
        <translation>文件：</translation>
    </message>
    <message>
        <source>a .txt or .md file</source>
        <translation>.txt 或 .md 文件</translation>
    </message>
    <message>
        <source>Choose…</source>
        <translation>选择…</translation>
    </message>
    <message numerus="yes">
        <source>The text in the editor (%n character(s))</source>
        <translation>
            <numerusform>编辑器中的文本（%n 个字符）</numerusform>
        </translation>
    </message>
    <message>
        <source>Headings (# …) start chapters, as in Markdown</source>
        <translation>标题（# …）开始新章节，与 Markdown 相同</translation>
    </message>
    <message>
        <source>none: clone (or cross-lingual without a transcript)</source>
        <translation>无：克隆（没有文字稿时为跨语种）</translation>
    </message>
    <message>
        <source>With an instruction every segment is spoken in instruct mode</source>
        <translation>有指令时，每一段都以指令模式朗读</translation>
    </message>
    <message>
        <source>book.flac or book.wav</source>
        <translation>book.flac 或 book.wav</translation>
    </message>
    <message>
        <source>A cue sheet beside the file (.cue)</source>
        <translation>文件旁的 cue 表（.cue）</translation>
    </message>
    <message>
        <source>One file per chapter, and a playlist (.m3u)</source>
        <translation>每章一个文件，外加播放列表（.m3u）</translation>
    </message>
    <message>
        <source>No chapter marks</source>
        <translation>不标记章节</translation>
    </message>
    <message>
        <source>Chapters start at Markdown headings</source>
        <translation>章节从 Markdown 标题开始</translation>
    </message>
    <message>
        <source>Voice:</source>
        <translation>声音：</translation>
    </message>
    <message>
        <source>Instruction:</source>
        <translation>指令：</translation>
    </message>
    <message>
        <source>Speed:</source>
        <translation>语速：</translation>
    </message>
    <message>
        <source>Save as:</source>
        <translation>保存为：</translation>
    </message>
    <message>
        <source>Chapters:</source>
        <translation>章节：</translation>
    </message>
    <message>
        <source>Render</source>
        <translation>渲染</translation>
    </message>
    <message>
        <source>Text to render:</source>
        <translation>要渲染的文本：</translation>
    </message>
    <message>
        <source>It runs in the background: keep working, and speak takes meanwhile (the render waits for them). Stopped or closed, it resumes where it stopped.</source>
        <translation>它在后台运行：你可以继续工作，也可以同时进行合成（渲染会让它们先完成）。停止或关闭后，它会从停下的地方继续。</translation>
    </message>
    <message>
        <source>Text to render</source>
        <translation>要渲染的文本</translation>
    </message>
    <message>
        <source>Text and Markdown (*.txt *.md *.markdown)</source>
        <translation>文本和 Markdown (*.txt *.md *.markdown)</translation>
    </message>
    <message>
        <source>Save the rendered audio as</source>
        <translation>把渲染的音频保存为</translation>
    </message>
    <message>
        <source>FLAC (*.flac);;WAV (*.wav)</source>
        <translation>FLAC (*.flac);;WAV (*.wav)</translation>
    </message>
    <message>
        <source>Choose the file to render.</source>
        <translation>请选择要渲染的文件。</translation>
    </message>
    <message>
        <source>{0} is not a .txt or .md file.</source>
        <translation>{0} 不是 .txt 或 .md 文件。</translation>
    </message>
    <message>
        <source>{0} does not exist.</source>
        <translation>{0} 不存在。</translation>
    </message>
    <message>
        <source>There is no saved voice yet: record one or make one from a file first.</source>
        <translation>还没有保存的声音：请先录制一个，或从文件制作一个。</translation>
    </message>
    <message>
        <source>Choose where to save the audio.</source>
        <translation>请选择音频的保存位置。</translation>
    </message>
    <message>
        <source>Save as .flac or .wav (not {0}).</source>
        <translation>请保存为 .flac 或 .wav（而不是 {0}）。</translation>
    </message>
    <message>
        <source>no extension</source>
        <translation>无扩展名</translation>
    </message>
    <message>
        <source>The folder {0} does not exist.</source>
        <translation>文件夹 {0} 不存在。</translation>
    </message>
</context>
<context>
    <name>RenderPanel</name>
    <message>
        <source>Segments are paragraphs and headings; the time left is estimated from this session&apos;s speed</source>
        <translation>段落和标题各为一段；剩余时间按本次会话的速度估算</translation>
    </message>
    <message>
        <source>Pause</source>
        <translation>暂停</translation>
    </message>
    <message>
        <source>Stop now; Resume goes on from the last finished segment</source>
        <translation>立即停止；“继续”会从最后完成的一段接着渲染</translation>
    </message>
    <message>
        <source>Resume</source>
        <translation>继续</translation>
    </message>
    <message>
        <source>Go on from the last finished segment</source>
        <translation>从最后完成的一段接着渲染</translation>
    </message>
    <message>
        <source>Start over</source>
        <translation>重新开始</translation>
    </message>
    <message>
        <source>Render the text as it is now, from the beginning (the unfinished audio is discarded)</source>
        <translation>按现在的文本从头渲染（未完成的音频会被丢弃）</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>Stop rendering; the audio made so far is kept, and File › Unfinished renders resumes it later</source>
        <translation>停止渲染；已生成的音频会保留，之后可在 文件 › 未完成的渲染 中继续</translation>
    </message>
    <message>
        <source>Discard…</source>
        <translation>丢弃…</translation>
    </message>
    <message>
        <source>Delete this unfinished render&apos;s partial audio</source>
        <translation>删除这个未完成渲染的部分音频</translation>
    </message>
    <message>
        <source>Show folder</source>
        <translation>显示文件夹</translation>
    </message>
    <message>
        <source>Open the folder with the rendered files</source>
        <translation>打开存放渲染文件的文件夹</translation>
    </message>
    <message>
        <source>Close</source>
        <translation>关闭</translation>
    </message>
    <message>
        <source>Hide this panel (an unfinished render stays in File › Unfinished renders)</source>
        <translation>隐藏此面板（未完成的渲染仍保留在 文件 › 未完成的渲染 中）</translation>
    </message>
    <message>
        <source>{0}/{1} segments done</source>
        <translation>已完成 {0}/{1} 段</translation>
    </message>
    <message>
        <source>estimating…</source>
        <translation>正在估算…</translation>
    </message>
    <message>
        <source>{0}/{1} segments · {2:.0f} % · {3} of audio · elapsed {4} · {5} left</source>
        <translation>{0}/{1} 段 · {2:.0f} % · 音频 {3} · 已用 {4} · 剩余 {5}</translation>
    </message>
    <message>
        <source>Pausing…</source>
        <translation>正在暂停…</translation>
    </message>
    <message>
        <source>Wrote {0} in {1}</source>
        <translation>已写入 {0}，位于 {1}</translation>
    </message>
</context>
<context>
    <name>RenderRunner</name>
    <message>
        <source>Paused: another model was loaded. Resume goes on with the model loaded now; the audio made so far stays as it is.</source>
        <translation>已暂停：加载了另一个模型。“继续”会用现在加载的模型接着渲染；已生成的音频保持不变。</translation>
    </message>
    <message>
        <source>{0}, the voice, the dictionary or the settings changed since this render began, so it cannot go on where it stopped. Start over renders the text as it is now (the unfinished audio is discarded); or put {0} back as it was and press Resume.</source>
        <translation>{0}、声音、词典或设置在这次渲染开始后发生了变化，因此无法从停下的地方继续。“重新开始”会按现在的文本渲染（未完成的音频会被丢弃）；或者把 {0} 恢复原样，然后按“继续”。</translation>
    </message>
    <message>
        <source>The disk is full: {0} has no room for the audio. Free some space, then press Resume.</source>
        <translation>磁盘已满：{0} 没有空间存放音频。请腾出一些空间，然后按“继续”。</translation>
    </message>
    <message>
        <source>The {0} finished segments are kept in {1}; Resume goes on from there.</source>
        <translation>已完成的 {0} 段保存在 {1} 中；“继续”会从那里接着渲染。</translation>
    </message>
</context>
<context>
    <name>ScriptController</name>
    <message>
        <source>There is no saved voice called “{0}” any more.</source>
        <translation>已没有名为“{0}”的音色。</translation>
    </message>
    <message>
        <source>The voice “{0}” cannot be read: {1}</source>
        <translation>无法读取音色“{0}”：{1}</translation>
    </message>
    <message>
        <source>No voice is cast for {0}: choose one in the cast table below the text.</source>
        <translation>{0} 还没有分配音色：请在文本下方的演员表中选择一个。</translation>
    </message>
    <message>
        <source>{0}&apos;s voice: {1}</source>
        <translation>{0} 的音色：{1}</translation>
    </message>
    <message numerus="yes">
        <source>%n problem(s), underlined in the text. First: line {0}: {1}</source>
        <translation>
            <numerusform>%n 个问题，已在文本中标出。第一个：第 {0} 行：{1}</numerusform>
        </translation>
    </message>
    <message>
        <source>Write lines like “Anna: Hello.” or “Ben (whispering): Quiet.”</source>
        <translation>写下“Anna: Hello.”或“Ben (whispering): Quiet.”这样的台词</translation>
    </message>
    <message numerus="yes">
        <source>%n line(s); load a model to check them against it.</source>
        <translation>
            <numerusform>%n 句台词；加载模型后可按模型检查。</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n line(s), ready to speak (about {0:.0f} s).</source>
        <translation>
            <numerusform>%n 句台词，可以朗读（约 {0:.0f} 秒）。</numerusform>
        </translation>
    </message>
    <message>
        <source>Opened {0} as a script. Ctrl+Z in the editor brings back the text it replaced.</source>
        <translation>已将 {0} 作为剧本打开。在编辑器中按 Ctrl+Z 可恢复被替换的文本。</translation>
    </message>
    <message>
        <source>The model is still loading; Speak when it is ready.</source>
        <translation>模型仍在加载；加载完成后再朗读。</translation>
    </message>
    <message>
        <source>No model</source>
        <translation>未加载模型</translation>
    </message>
    <message>
        <source>Load a model first.</source>
        <translation>请先加载模型。</translation>
    </message>
    <message>
        <source>Write a script first: lines like “Anna: Hello.”</source>
        <translation>请先写脚本：像“Anna: Hello.”这样的台词</translation>
    </message>
    <message>
        <source>… and {0} more</source>
        <translation>……另有 {0} 个</translation>
    </message>
    <message>
        <source>The script cannot be spoken yet</source>
        <translation>脚本暂时无法朗读</translation>
    </message>
    <message>
        <source>Fix the underlined lines first (hover them for what to do):
{0}</source>
        <translation>请先修正标出的行（鼠标悬停可查看处理方法）：
{0}</translation>
    </message>
    <message>
        <source>The dictionary cannot be used</source>
        <translation>无法使用该词典</translation>
    </message>
    <message>
        <source>Line {0} ({1}): {2}</source>
        <translation>第 {0} 句（{1}）：{2}</translation>
    </message>
</context>
<context>
    <name>ScriptExportDialog</name>
    <message>
        <source>Export script take</source>
        <translation>导出脚本录音</translation>
    </message>
    <message>
        <source>Subtitles, SRT (one cue per line, with the speaker&apos;s name)</source>
        <translation>字幕，SRT（每句一条，带说话人名字）</translation>
    </message>
    <message>
        <source>Subtitles, WebVTT (the speaker as a voice span)</source>
        <translation>字幕，WebVTT（说话人写作 voice 标记）</translation>
    </message>
    <message>
        <source>Stems: one file per speaker, as long as the take, in a folder beside it</source>
        <translation>分轨：每位说话人一个文件，与录音等长，放在旁边的文件夹中</translation>
    </message>
    <message>
        <source>Export</source>
        <translation>导出</translation>
    </message>
    <message>
        <source>File:</source>
        <translation>文件：</translation>
    </message>
    <message>
        <source>Format:</source>
        <translation>格式：</translation>
    </message>
    <message>
        <source>Audio (*.wav *.flac)</source>
        <translation>音频 (*.wav *.flac)</translation>
    </message>
</context>
<context>
    <name>SentenceRegenController</name>
    <message>
        <source>Show a take first (click it in the Takes list).</source>
        <translation>请先显示一个录音（在录音列表中点击它）。</translation>
    </message>
    <message>
        <source>Regenerate sentence {0}…</source>
        <translation>重新生成第 {0} 句…</translation>
    </message>
    <message>
        <source>Regenerate a sentence…</source>
        <translation>重新生成句子…</translation>
    </message>
    <message>
        <source>Undo regeneration</source>
        <translation>撤销重新生成</translation>
    </message>
    <message>
        <source>Cannot regenerate the sentence</source>
        <translation>无法重新生成句子</translation>
    </message>
    <message>
        <source>Regenerating sentence {0} of take {1}…</source>
        <translation>正在重新生成录音 {1} 的第 {0} 句…</translation>
    </message>
    <message>
        <source>Load a model first.</source>
        <translation>请先加载模型。</translation>
    </message>
    <message>
        <source>Wait until the take or regeneration being made is finished.</source>
        <translation>请等待正在生成的录音或重新生成完成。</translation>
    </message>
    <message>
        <source>Take {0} has no sentence {1} to speak again.</source>
        <translation>录音 {0} 没有可重新说出的第 {1} 句。</translation>
    </message>
    <message>
        <source>Take {0} is not saved on disk, so its sentences cannot be regenerated.</source>
        <translation>录音 {0} 未保存在磁盘上，因此无法重新生成其中的句子。</translation>
    </message>
    <message>
        <source>The voice “{0}” of take {1} is not in the voice library any more; its sentences cannot be spoken again.</source>
        <translation>录音 {1} 的声音“{0}”已不在声音库中；无法重新说出其中的句子。</translation>
    </message>
    <message>
        <source>Cannot save the regenerated sentence</source>
        <translation>无法保存重新生成的句子</translation>
    </message>
    <message>
        <source>Sentence {0} of take {1} regenerated with seed {2}; Ctrl+Z puts the previous one back.</source>
        <translation>录音 {1} 的第 {0} 句已用种子 {2} 重新生成；按 Ctrl+Z 恢复上一个版本。</translation>
    </message>
    <message>
        <source>There is no regeneration to undo.</source>
        <translation>没有可撤销的重新生成。</translation>
    </message>
    <message>
        <source>Wait until the regeneration being made is finished.</source>
        <translation>请等待正在进行的重新生成完成。</translation>
    </message>
</context>
<context>
    <name>ShortcutsDialog</name>
    <message>
        <source>Keyboard shortcuts</source>
        <translation>键盘快捷键</translation>
    </message>
    <message>
        <source>Keys</source>
        <translation>按键</translation>
    </message>
    <message>
        <source>Does</source>
        <translation>作用</translation>
    </message>
    <message>
        <source>Speak</source>
        <translation>朗读</translation>
    </message>
    <message>
        <source>Stop making and playing</source>
        <translation>停止生成和播放</translation>
    </message>
    <message>
        <source>Space</source>
        <translation>空格</translation>
    </message>
    <message>
        <source>Play or pause the shown take (in the Takes list or the waveform)</source>
        <translation>播放或暂停显示的录音（在录音列表或波形中）</translation>
    </message>
    <message>
        <source>Left, Right</source>
        <translation>左、右</translation>
    </message>
    <message>
        <source>Seek 5 s back or on (in the Takes list or the waveform)</source>
        <translation>后退或前进 5 秒（在录音列表或波形中）</translation>
    </message>
    <message>
        <source>Enter</source>
        <translation>回车</translation>
    </message>
    <message>
        <source>Play the selected take (Takes list)</source>
        <translation>播放选中的录音（录音列表）</translation>
    </message>
    <message>
        <source>Rename the selected take (Takes list)</source>
        <translation>重命名选中的录音（录音列表）</translation>
    </message>
    <message>
        <source>Delete</source>
        <translation>删除</translation>
    </message>
    <message>
        <source>Move the selected takes to the trash (Takes list)</source>
        <translation>将选中的录音移到回收站（录音列表）</translation>
    </message>
    <message>
        <source>Undo the last removal or regeneration (Takes list); the shown take&apos;s previous version (waveform)</source>
        <translation>撤销最近一次移除或重新生成（录音列表）；当前录音的上一个版本（波形）</translation>
    </message>
    <message>
        <source>Next or previous field, in the order of the layout</source>
        <translation>按布局顺序切换到下一个或上一个字段</translation>
    </message>
</context>
<context>
    <name>SpeakingController</name>
    <message>
        <source>The model is still loading; Speak when it is ready.</source>
        <translation>模型仍在加载；加载完成后再朗读。</translation>
    </message>
    <message>
        <source>No model</source>
        <translation>没有模型</translation>
    </message>
    <message>
        <source>No model is chosen yet: choose a model folder (File › Choose model folder…) or download one (File › Models…) first.</source>
        <translation>尚未选择模型：请先选择模型文件夹（文件 › 选择模型文件夹…）或下载一个（文件 › 模型…）。</translation>
    </message>
    <message>
        <source>Type some text to speak first.</source>
        <translation>请先输入要朗读的文本。</translation>
    </message>
    <message>
        <source>No voice</source>
        <translation>没有声音</translation>
    </message>
    <message>
        <source>Record a voice or make one from a file first.</source>
        <translation>请先录制一个声音，或从文件创建一个。</translation>
    </message>
    <message>
        <source>No instruction</source>
        <translation>没有指令</translation>
    </message>
    <message>
        <source>Instruct mode needs an instruction: pick a preset or type one.</source>
        <translation>指令模式需要一条指令：请选择预设或自行输入。</translation>
    </message>
    <message>
        <source>No transcript</source>
        <translation>没有文本</translation>
    </message>
    <message>
        <source>Clone mode needs the transcript of the voice&apos;s recording. Type it, press Transcribe under the field to have it written from the recording, or use Cross-lingual mode, which needs none.</source>
        <translation>克隆模式需要该声音录音的文字内容。请输入，或按输入框下方的“识别文字”根据录音自动写出，或改用不需要文本的跨语种模式。</translation>
    </message>
    <message>
        <source>Pronunciation dictionary</source>
        <translation>发音词典</translation>
    </message>
    <message>
        <source>Speaking take {0}…</source>
        <translation>正在合成第 {0} 条…</translation>
    </message>
    <message>
        <source>First audio {0:.2f} s</source>
        <translation>首段音频 {0:.2f} 秒</translation>
    </message>
    <message>
        <source>RTF {0:.2f}</source>
        <translation>实时率 {0:.2f}</translation>
    </message>
    <message>
        <source>Take {0}: {1:.1f} s of audio in {2:.1f} s</source>
        <translation>合成 {0}：{2:.1f} 秒生成了 {1:.1f} 秒音频</translation>
    </message>
    <message>
        <source>Stopped take {0} after {1:.1f} s.</source>
        <translation>已在 {1:.1f} 秒处停止第 {0} 条合成。</translation>
    </message>
    <message>
        <source>Cannot speak</source>
        <translation>无法朗读</translation>
    </message>
    <message>
        <source>Cannot convert</source>
        <translation>无法转换</translation>
    </message>
    <message>
        <source>Stopped before any audio was made.</source>
        <translation>在生成任何音频之前已停止。</translation>
    </message>
</context>
<context>
    <name>StudioSession</name>
    <message>
        <source>Cannot save take {0}</source>
        <translation>无法保存合成 {0}</translation>
    </message>
    <message>
        <source>{0}
The take stays in this session only; export it to keep it.</source>
        <translation>{0}
该合成只保留在本次会话中；请导出以保存它。</translation>
    </message>
</context>
<context>
    <name>SynthesisControls</name>
    <message>
        <source>Clone</source>
        <translation>克隆</translation>
    </message>
    <message>
        <source>Speak the text in the chosen voice; uses the voice&apos;s transcript (best for the same language)</source>
        <translation>用所选声音朗读文本；会用到该声音的文本（同语种效果最好）</translation>
    </message>
    <message>
        <source>Cross-lingual</source>
        <translation>跨语种</translation>
    </message>
    <message>
        <source>Speak the text in the voice without using its transcript (for another language than the voice&apos;s)</source>
        <translation>用该声音朗读文本而不使用其文本（适合与声音不同的语种）</translation>
    </message>
    <message>
        <source>Instruct</source>
        <translation>指令</translation>
    </message>
    <message>
        <source>Speak in the voice the way an instruction says: dialect, emotion, speed, role</source>
        <translation>按指令用该声音朗读：方言、情感、语速、角色</translation>
    </message>
    <message>
        <source>Instruction:</source>
        <translation>指令：</translation>
    </message>
    <message>
        <source>e.g. Please speak very happily.</source>
        <translation>例如：请非常开心地说一句话。</translation>
    </message>
    <message>
        <source>Presets ▾</source>
        <translation>预设 ▾</translation>
    </message>
    <message>
        <source>Script</source>
        <translation>脚本</translation>
    </message>
    <message>
        <source>A dialogue: every line “Name: text” spoken by the voice cast for that name, optionally with its own instruction “Name (whispering): text”; one take</source>
        <translation>对话：每一行“名字: 文本”由分配给该名字的音色朗读，可带自己的指令“名字 (whispering): 文本”；合成一个录音</translation>
    </message>
    <message>
        <source>Convert</source>
        <translation>转换</translation>
    </message>
    <message>
        <source>Voice conversion: a recording of your own (a file, the microphone, or live) spoken again in the chosen voice</source>
        <translation>声音转换：把您自己的录音（文件、麦克风或实时）用选中的音色重新说出来</translation>
    </message>
    <message>
        <source>Ready-made instructions of the loaded model, by group, with search; a dialect, an emotion, a speed and a volume can be combined</source>
        <translation>已加载模型的现成指令，按组排列，可搜索；方言、情感、语速和音量可以组合</translation>
    </message>
    <message>
        <source>How to speak, in your own words or from the presets</source>
        <translation>怎样说：用你自己的话，或从预设中选择</translation>
    </message>
    <message>
        <source>Save as preset…</source>
        <translation>另存为预设…</translation>
    </message>
    <message>
        <source>Keep this instruction under a name in the Custom group; it is saved with the settings and exported with voices</source>
        <translation>以一个名称把这条指令保存到“自定义”组；它随设置保存，并随声音一起导出</translation>
    </message>
    <message>
        <source>Exactly the prompt text the model&apos;s language model receives before the text to speak</source>
        <translation>模型的语言模型在要说的文本之前收到的提示文本，一字不差</translation>
    </message>
    <message>
        <source>Speaking speed, 0.5x to 2x</source>
        <translation>语速，0.5 倍到 2 倍</translation>
    </message>
    <message>
        <source>Speed:</source>
        <translation>语速：</translation>
    </message>
    <message>
        <source>Random</source>
        <translation>随机</translation>
    </message>
    <message>
        <source>The same seed with the same text and voice gives the same take; Random draws a new one each time</source>
        <translation>相同的种子、文本和声音会得到相同的合成；“随机”每次都取新的种子</translation>
    </message>
    <message>
        <source>Seed:</source>
        <translation>种子：</translation>
    </message>
    <message>
        <source>Stream</source>
        <translation>流式</translation>
    </message>
    <message>
        <source>Start playing while the rest is still being made; off: each sentence plays when it is complete</source>
        <translation>边生成边播放；关闭时每句生成完毕后再播放</translation>
    </message>
    <message>
        <source>Speak</source>
        <translation>朗读</translation>
    </message>
    <message>
        <source>Make and play a take of the text (Ctrl+Enter)</source>
        <translation>合成并播放这段文本 (Ctrl+Enter)</translation>
    </message>
    <message>
        <source>Stop</source>
        <translation>停止</translation>
    </message>
    <message>
        <source>Stop making and playing the take (Esc)</source>
        <translation>停止合成和播放 (Esc)</translation>
    </message>
    <message>
        <source>Source: CosyVoice 2 paper (arXiv 2412.10117), instruction table</source>
        <translation>来源：CosyVoice 2 论文（arXiv 2412.10117）的指令表</translation>
    </message>
    <message>
        <source>Source: the original&apos;s example.py (CosyVoice2 instruct)</source>
        <translation>来源：原版的 example.py（CosyVoice2 指令）</translation>
    </message>
    <message>
        <source>Source: the original&apos;s instruct list (cosyvoice/utils/common.py)</source>
        <translation>来源：原版的指令列表（cosyvoice/utils/common.py）</translation>
    </message>
    <message>
        <source>Worded like the paper&apos;s example for this group; the exact training sentence is not published</source>
        <translation>按论文中此组示例的句式措辞；确切的训练语句未公开</translation>
    </message>
    <message>
        <source>Delete the preset “{0}”?</source>
        <translation>删除预设“{0}”？</translation>
    </message>
    <message>
        <source>Delete preset</source>
        <translation>删除预设</translation>
    </message>
    <message>
        <source>Save as preset</source>
        <translation>另存为预设</translation>
    </message>
    <message>
        <source>Type an instruction first, then save it under a name.</source>
        <translation>请先输入指令，再用一个名称保存。</translation>
    </message>
    <message>
        <source>Name of the preset:</source>
        <translation>预设名称：</translation>
    </message>
    <message>
        <source>Cannot save the preset</source>
        <translation>无法保存预设</translation>
    </message>
    <message>
        <source>Load a model to see what it receives.</source>
        <translation>加载模型后可查看它收到的内容。</translation>
    </message>
    <message>
        <source>&lt;instruction&gt;</source>
        <translation>&lt;指令&gt;</translation>
    </message>
    <message>
        <source>The model receives: {0} then the text.</source>
        <translation>模型收到：{0}，然后是文本。</translation>
    </message>
    <message>
        <source>Not usable: {0}</source>
        <translation>无法使用：{0}</translation>
    </message>
    <message>
        <source>Convert the source into the chosen voice as a new take (Ctrl+Enter)</source>
        <translation>把源录音转换成选中的音色，生成新的片段（Ctrl+Enter）</translation>
    </message>
</context>
<context>
    <name>TakeEditDialog</name>
    <message>
        <source> s</source>
        <translation> 秒</translation>
    </message>
    <message>
        <source>Where the take starts after trimming</source>
        <translation>裁剪后录音开始的位置</translation>
    </message>
    <message>
        <source>Where the take ends after trimming</source>
        <translation>裁剪后录音结束的位置</translation>
    </message>
    <message>
        <source>Fade in from silence over this long</source>
        <translation>在这段时间内从静音淡入</translation>
    </message>
    <message>
        <source>Fade out to silence over this long</source>
        <translation>在这段时间内淡出到静音</translation>
    </message>
    <message>
        <source>Normalise loudness to {0:g} LUFS</source>
        <translation>将响度标准化为 {0:g} LUFS</translation>
    </message>
    <message>
        <source>Integrated loudness (ITU-R BS.1770), the level podcasts and streaming services use; peaks stay under -1 dBFS</source>
        <translation>综合响度（ITU-R BS.1770），播客和流媒体服务使用的电平；峰值保持在 -1 dBFS 以下</translation>
    </message>
    <message>
        <source>Start:</source>
        <translation>开始：</translation>
    </message>
    <message>
        <source>End:</source>
        <translation>结束：</translation>
    </message>
    <message>
        <source>Fade in:</source>
        <translation>淡入：</translation>
    </message>
    <message>
        <source>Fade out:</source>
        <translation>淡出：</translation>
    </message>
    <message>
        <source>Loudness now:</source>
        <translation>当前响度：</translation>
    </message>
    <message>
        <source>Edits are made from the original audio, which is kept: reset at any time.</source>
        <translation>编辑基于保留的原始音频进行：随时可以还原。</translation>
    </message>
    <message>
        <source>&amp;Reset to original</source>
        <translation>还原为原始音频(&amp;R)</translation>
    </message>
    <message>
        <source>Give the take back as it was made</source>
        <translation>将录音恢复为生成时的样子</translation>
    </message>
</context>
<context>
    <name>TakeToolsController</name>
    <message>
        <source>Export failed</source>
        <translation>导出失败</translation>
    </message>
    <message>
        <source>&amp;Edit take…</source>
        <translation>编辑录音(&amp;E)…</translation>
    </message>
    <message>
        <source>Trim, fade and normalise the loudness of the shown take; the original is kept</source>
        <translation>裁剪显示的录音、加淡入淡出并标准化响度；原始音频会保留</translation>
    </message>
    <message>
        <source>Export &amp;all takes…</source>
        <translation>导出全部录音(&amp;A)…</translation>
    </message>
    <message>
        <source>{0:.1f} LUFS</source>
        <translation>{0:.1f} LUFS</translation>
    </message>
    <message>
        <source>silence</source>
        <translation>静音</translation>
    </message>
    <message>
        <source>Choose a finished take to edit.</source>
        <translation>请选择一条已完成的录音来编辑。</translation>
    </message>
    <message>
        <source>Cannot edit take {0}</source>
        <translation>无法编辑录音 {0}</translation>
    </message>
    <message>
        <source>Edit take {0}</source>
        <translation>编辑录音 {0}</translation>
    </message>
    <message>
        <source>Take {0}: back to the original.</source>
        <translation>录音 {0}：已恢复为原始音频。</translation>
    </message>
    <message>
        <source>Take {0} edited; the original is kept.</source>
        <translation>录音 {0} 已编辑；原始音频已保留。</translation>
    </message>
    <message>
        <source>There are no takes to export yet.</source>
        <translation>还没有可导出的录音。</translation>
    </message>
    <message>
        <source>Replace files?</source>
        <translation>替换文件？</translation>
    </message>
    <message>
        <source>{0} of these files exist already:
{1}
Replace them? (No: skip those takes.)</source>
        <translation>其中 {0} 个文件已存在：
{1}
要替换吗？（否：跳过这些录音。）</translation>
    </message>
    <message>
        <source>Exporting {0} takes…</source>
        <translation>正在导出 {0} 条录音…</translation>
    </message>
    <message>
        <source>Exported {0} takes to {1}</source>
        <translation>已将 {0} 条录音导出到 {1}</translation>
    </message>
</context>
<context>
    <name>TakesController</name>
    <message>
        <source>Some saved takes could not be read</source>
        <translation>有些已保存的合成无法读取</translation>
    </message>
    <message>
        <source>These take folders in {0} were left as they are:
{1}</source>
        <translation>{0} 中的这些合成文件夹保持原样：
{1}</translation>
    </message>
    <message>
        <source>Saved takes are over the storage limit</source>
        <translation>已保存的合成超过了存储上限</translation>
    </message>
    <message>
        <source>Saved takes use {0:.0f} MB, more than the limit of {1} MB. Nothing is deleted and new takes are still saved: remove or clear takes you no longer need, or raise the limit in Settings › Take storage limit.</source>
        <translation>已保存的合成占用 {0:.0f} MB，超过上限 {1} MB。不会删除任何内容，新的合成仍会保存：请移除或清空不再需要的合成，或在“设置 › 合成存储上限”中调高上限。</translation>
    </message>
    <message>
        <source>Removed take {0}.</source>
        <translation>已移除合成 {0}。</translation>
    </message>
    <message>
        <source>Removed {0} takes.</source>
        <translation>已移除 {0} 个合成。</translation>
    </message>
    <message>
        <source>Undo</source>
        <translation>撤销</translation>
    </message>
    <message>
        <source>Undo the last removal or regeneration (Ctrl+Z in the Takes list)</source>
        <translation>撤销最近一次移除或重新生成（在录音列表中按 Ctrl+Z）</translation>
    </message>
    <message>
        <source>Put back {0} take(s).</source>
        <translation>已恢复 {0} 个合成。</translation>
    </message>
    <message>
        <source>Cannot open the take</source>
        <translation>无法打开录音</translation>
    </message>
    <message>
        <source>{0} is take {1} now (a copy; the folder is left as it is).</source>
        <translation>{0} 现在是录音 {1}（副本；原文件夹保持不变）。</translation>
    </message>
    <message>
        <source>Clear takes</source>
        <translation>清空合成</translation>
    </message>
    <message>
        <source>Take storage limit</source>
        <translation>合成存储上限</translation>
    </message>
    <message>
        <source>Saved takes use {0:.0f} MB in {1}.
Above the limit Cosy Studio warns you; it never deletes a take by itself, and new takes are still saved.
Limit in MB:</source>
        <translation>已保存的合成在 {1} 中占用 {0:.0f} MB。
超过上限时 Cosy Studio 会提醒你；它从不自行删除合成，新的合成仍会保存。
上限（MB）：</translation>
    </message>
    <message>
        <source>Remove all {0} takes? They go to the trash: Undo (Ctrl+Z) or Takes › Trash puts them back until you empty it.</source>
        <translation>移除全部 {0} 条录音？它们会进入回收站：在清空回收站之前，撤销（Ctrl+Z）或 录音 › 回收站 可以恢复。</translation>
    </message>
    <message>
        <source>Rename take {0}</source>
        <translation>重命名合成 {0}</translation>
    </message>
    <message>
        <source>Name (empty: the start of its text):</source>
        <translation>名称（留空则使用文本开头）：</translation>
    </message>
</context>
<context>
    <name>TakesList</name>
    <message>
        <source>Takes</source>
        <translation>合成记录</translation>
    </message>
    <message>
        <source>Saved takes; select two (Ctrl+click) to compare them. F2 renames, Delete removes, Ctrl+Z puts removed takes back</source>
        <translation>已保存的合成；选择两个（Ctrl+单击）进行比较。F2 重命名，Delete 移除，Ctrl+Z 恢复已移除的合成</translation>
    </message>
    <message>
        <source>Play</source>
        <translation>播放</translation>
    </message>
    <message>
        <source>Play the selected take from the start (Enter)</source>
        <translation>从头播放所选合成 (Enter)</translation>
    </message>
    <message>
        <source>A/B</source>
        <translation>A/B</translation>
    </message>
    <message>
        <source>Switch playback between the two selected takes at the same moment</source>
        <translation>在两条所选合成的同一时刻之间切换播放</translation>
    </message>
    <message>
        <source>Export…</source>
        <translation>导出…</translation>
    </message>
    <message>
        <source>Save the selected take as WAV, FLAC or SRT subtitles (Ctrl+E)</source>
        <translation>将所选合成保存为 WAV、FLAC 或 SRT 字幕 (Ctrl+E)</translation>
    </message>
    <message>
        <source>Rename…</source>
        <translation>重命名…</translation>
    </message>
    <message>
        <source>Give the selected take a name (F2); exports are named after it</source>
        <translation>为所选合成命名（F2）；导出文件以此命名</translation>
    </message>
    <message>
        <source>Remove</source>
        <translation>移除</translation>
    </message>
    <message>
        <source>Clear…</source>
        <translation>清空…</translation>
    </message>
    <message>
        <source>Script</source>
        <translation>脚本</translation>
    </message>
    <message>
        <source>Convert</source>
        <translation>转换</translation>
    </message>
    <message>
        <source>{0:.1f} s</source>
        <translation>{0:.1f} 秒</translation>
    </message>
    <message>
        <source>{0} → {1}</source>
        <translation>{0} → {1}</translation>
    </message>
    <message>
        <source>Take {0} · {1}</source>
        <translation>合成 {0} · {1}</translation>
    </message>
    <message>
        <source>Source: {0}</source>
        <translation>源录音：{0}</translation>
    </message>
    <message>
        <source>Target voice: {0}</source>
        <translation>目标音色：{0}</translation>
    </message>
    <message>
        <source>Instruction: {0}</source>
        <translation>指令：{0}</translation>
    </message>
    <message>
        <source>seed {0}</source>
        <translation>种子 {0}</translation>
    </message>
    <message>
        <source>speed {0:g}x</source>
        <translation>语速 {0:g}x</translation>
    </message>
    <message>
        <source>Stop</source>
        <translation>停止</translation>
    </message>
    <message>
        <source>Stop playing this take (Esc)</source>
        <translation>停止播放此合成（Esc）</translation>
    </message>
    <message>
        <source>Clone</source>
        <translation>克隆</translation>
    </message>
    <message>
        <source>Move the selected takes to the trash (Delete); Ctrl+Z puts them back</source>
        <translation>将选中的录音移到回收站（Delete）；Ctrl+Z 可恢复</translation>
    </message>
    <message>
        <source>Remove every take (to the trash); Undo puts them back</source>
        <translation>移除所有录音（到回收站）；撤销可恢复</translation>
    </message>
    <message>
        <source>Cross-lingual</source>
        <translation>跨语种</translation>
    </message>
    <message>
        <source>Instruct</source>
        <translation>指令</translation>
    </message>
    <message>
        <source>making…</source>
        <translation>生成中…</translation>
    </message>
    <message>
        <source>stopped</source>
        <translation>已停止</translation>
    </message>
    <message>
        <source>failed</source>
        <translation>失败</translation>
    </message>
    <message>
        <source>recovered</source>
        <translation>已恢复</translation>
    </message>
    <message>
        <source>partial export</source>
        <translation>不完整导出</translation>
    </message>
    <message>
        <source>Voice: {0}</source>
        <translation>声音：{0}</translation>
    </message>
</context>
<context>
    <name>TextEditor</name>
    <message>
        <source>Type or paste the text to speak…</source>
        <translation>输入或粘贴要朗读的文本…</translation>
    </message>
    <message>
        <source>The text to speak. Tags such as [laughter] or &lt;strong&gt;…&lt;/strong&gt; are spoken as sounds or emphasis.</source>
        <translation>要朗读的文本。[laughter] 或 &lt;strong&gt;…&lt;/strong&gt; 等标签会读作声音或重读。</translation>
    </message>
    <message>
        <source>Insert:</source>
        <translation>插入：</translation>
    </message>
    <message>
        <source>More tags</source>
        <translation>更多标签</translation>
    </message>
    <message>
        <source>Every sound and emphasis tag the models understand</source>
        <translation>模型能理解的全部声音与重读标签</translation>
    </message>
    <message>
        <source>Characters in the text, and the sentences it will be spoken in</source>
        <translation>文本字数，以及将分成的句子数</translation>
    </message>
    <message>
        <source>How the text will be split and read, after normalisation (numbers and dates are written out)</source>
        <translation>规范化后文本的分句和读法（数字和日期会写成文字）</translation>
    </message>
    <message>
        <source>Sentence preview</source>
        <translation>分句预览</translation>
    </message>
    <message>
        <source>Wrap the selection in {0}…{1}</source>
        <translation>用 {0}…{1} 包住所选文本</translation>
    </message>
    <message>
        <source>Insert {0} at the cursor</source>
        <translation>在光标处插入 {0}</translation>
    </message>
    <message numerus="yes">
        <source>%n character(s)</source>
        <translation>
            <numerusform>%n 个字符</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n sentence(s)</source>
        <translation>
            <numerusform>%n 句</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>spoken in %n part(s)</source>
        <translation>
            <numerusform>分 %n 段朗读</numerusform>
        </translation>
    </message>
    <message>
        <source>Cannot preview: {0}</source>
        <translation>无法预览：{0}</translation>
    </message>
</context>
<context>
    <name>TextReadingMenu</name>
    <message>
        <source>As the quality mode</source>
        <translation>跟随质量模式</translation>
    </message>
    <message>
        <source>Exact reads text like the original CosyVoice; Fast and Draft use the improved English reading.</source>
        <translation>精确模式按原版 CosyVoice 读文本；快速和草稿模式使用改进的英文读法。</translation>
    </message>
    <message>
        <source>Original</source>
        <translation>原版</translation>
    </message>
    <message>
        <source>The original CosyVoice&apos;s text normalisation: the same text ids as the original, e.g. &quot;$3.50&quot; is read &quot;three point five dollars&quot;.</source>
        <translation>原版 CosyVoice 的文本规范化：文本编号与原版相同，例如 &quot;$3.50&quot; 读作 &quot;three point five dollars&quot;。</translation>
    </message>
    <message>
        <source>Improved English reading</source>
        <translation>改进的英文读法</translation>
    </message>
    <message>
        <source>Money, dates, units and abbreviations read in full, e.g. &quot;$3.50&quot; is read &quot;three dollars and fifty cents&quot;; runs of marks such as &quot;?!&quot; are kept.</source>
        <translation>金额、日期、单位和缩写完整读出，例如 &quot;$3.50&quot; 读作 &quot;three dollars and fifty cents&quot;；保留 &quot;?!&quot; 这样的连续标点。</translation>
    </message>
    <message>
        <source>&amp;Text reading</source>
        <translation>文本读法(&amp;T)</translation>
    </message>
</context>
<context>
    <name>TranscribeRow</name>
    <message>
        <source>Transcribe</source>
        <translation>识别文字</translation>
    </message>
    <message>
        <source>Write the transcript from the recording with speech recognition (SenseVoice, on this computer); check the words afterwards</source>
        <translation>用语音识别根据录音写出文字稿（SenseVoice，在本机运行）；之后请核对文字</translation>
    </message>
    <message>
        <source>Get the model…</source>
        <translation>获取模型…</translation>
    </message>
    <message>
        <source>Open Models… on the speech-recognition model (about 240 MB)</source>
        <translation>打开“模型…”并定位到语音识别模型（约 240 MB）</translation>
    </message>
    <message>
        <source>The speech-recognition model (SenseVoice-Small, about 240 MB) is not installed. Get it in Models…, or type the transcript.</source>
        <translation>语音识别模型（SenseVoice-Small，约 240 MB）尚未安装。请在“模型…”中获取，或手动输入文字稿。</translation>
    </message>
    <message>
        <source>There is no recording to transcribe yet.</source>
        <translation>还没有可识别的录音。</translation>
    </message>
    <message>
        <source>Listening to the recording…</source>
        <translation>正在识别录音…</translation>
    </message>
    <message>
        <source>Transcribed%1. Check the words: they are what Clone mode reads with the recording.</source>
        <translation>已识别%1。请核对文字：克隆模式会把它与录音一起读取。</translation>
    </message>
    <message>
        <source>Transcribing…</source>
        <translation>正在识别…</translation>
    </message>
</context>
<context>
    <name>TrashController</name>
    <message>
        <source>&amp;Trash…</source>
        <translation>回收站(&amp;T)…</translation>
    </message>
    <message>
        <source>Removed takes: put them back, or empty the trash</source>
        <translation>已移除的录音：恢复它们，或清空回收站</translation>
    </message>
    <message>
        <source>Put back {0} take(s) from the trash.</source>
        <translation>已从回收站恢复 {0} 条录音。</translation>
    </message>
    <message>
        <source>Empty trash</source>
        <translation>清空回收站</translation>
    </message>
    <message>
        <source>These folders in {0} hold files Cosy Studio did not make; they were kept:
{1}</source>
        <translation>{0} 中的这些文件夹含有不是 Cosy Studio 创建的文件；已保留：
{1}</translation>
    </message>
    <message>
        <source>The trash is empty.</source>
        <translation>回收站是空的。</translation>
    </message>
</context>
<context>
    <name>TrashDialog</name>
    <message>
        <source>Trash</source>
        <translation>回收站</translation>
    </message>
    <message>
        <source>Removed takes stay here until you empty the trash.</source>
        <translation>已移除的录音会留在这里，直到你清空回收站。</translation>
    </message>
    <message>
        <source>&amp;Restore</source>
        <translation>恢复(&amp;R)</translation>
    </message>
    <message>
        <source>Put the selected takes back into the Takes list (Enter)</source>
        <translation>将选中的录音放回录音列表（回车）</translation>
    </message>
    <message>
        <source>&amp;Empty trash…</source>
        <translation>清空回收站(&amp;E)…</translation>
    </message>
    <message>
        <source>Delete every take in the trash for good (asks first)</source>
        <translation>永久删除回收站中的所有录音（会先询问）</translation>
    </message>
    <message>
        <source>Take {0} · {1}
{2:.1f} s · {3}</source>
        <translation>录音 {0} · {1}
{2:.1f} 秒 · {3}</translation>
    </message>
    <message>
        <source>Removed takes stay here until you empty the trash. These folders could not be read and are left as they are:
{0}</source>
        <translation>已移除的录音会留在这里，直到你清空回收站。这些文件夹无法读取，保持原样：
{0}</translation>
    </message>
    <message>
        <source>Empty trash</source>
        <translation>清空回收站</translation>
    </message>
    <message>
        <source>Delete the {0} takes in the trash for good? This cannot be undone.</source>
        <translation>永久删除回收站中的 {0} 条录音？此操作无法撤销。</translation>
    </message>
    <message>
        <source>Delete</source>
        <translation>删除</translation>
    </message>
</context>
<context>
    <name>VoiceEditor</name>
    <message>
        <source>Edit voice “{0}”</source>
        <translation>编辑音色“{0}”</translation>
    </message>
    <message>
        <source>Exactly what is said in the voice&apos;s recording (Clone mode reads it with the recording)</source>
        <translation>音色录音中所说的准确内容（克隆模式会将其与录音一起读取）</translation>
    </message>
    <message>
        <source>not known yet, e.g. en, zh</source>
        <translation>暂不知道，例如 en、zh</translation>
    </message>
    <message>
        <source>The language spoken in the recording, e.g. zh, en, ja</source>
        <translation>录音中所说的语言，例如 zh、en、ja</translation>
    </message>
    <message>
        <source>e.g. calm, narrator, female</source>
        <translation>例如：平静、旁白、女声</translation>
    </message>
    <message>
        <source>Words to find the voice by in the library&apos;s search, separated by commas</source>
        <translation>在声音库搜索中用来找到此声音的词，用逗号分隔</translation>
    </message>
    <message>
        <source>Anything worth remembering about this voice</source>
        <translation>关于此音色值得记下的任何信息</translation>
    </message>
    <message>
        <source>Transcript:</source>
        <translation>文本：</translation>
    </message>
    <message>
        <source>Language:</source>
        <translation>语言：</translation>
    </message>
    <message>
        <source>Tags:</source>
        <translation>标签：</translation>
    </message>
    <message>
        <source>Notes:</source>
        <translation>备注：</translation>
    </message>
</context>
<context>
    <name>VoicePanel</name>
    <message>
        <source>{0}  ({1:.1f} s, {2})</source>
        <translation>{0}（{1:.1f} 秒，{2}）</translation>
    </message>
    <message>
        <source>Voices</source>
        <translation>声音</translation>
    </message>
    <message>
        <source>Saved voices; the selected one speaks the text</source>
        <translation>已保存的声音；所选声音将朗读文本</translation>
    </message>
    <message>
        <source>Search voices and tags…</source>
        <translation>搜索声音和标签…</translation>
    </message>
    <message>
        <source>Shows the voices whose name, tags, language, transcript or notes hold every word typed</source>
        <translation>显示名称、标签、语言、文本或备注中包含所有输入词的声音</translation>
    </message>
    <message>
        <source>Olive: made for the other model family; re-made from its recording when used.</source>
        <translation>橄榄色：为另一个模型系列制作；使用时会用其录音重新制作。</translation>
    </message>
    <message>
        <source>Record…</source>
        <translation>录制…</translation>
    </message>
    <message>
        <source>Record a new voice with the microphone (3-30 s)</source>
        <translation>用麦克风录制新声音（3–30 秒）</translation>
    </message>
    <message>
        <source>From file…</source>
        <translation>从文件…</translation>
    </message>
    <message>
        <source>Make a new voice from an audio file</source>
        <translation>从音频文件创建新声音</translation>
    </message>
    <message>
        <source>Import…</source>
        <translation>导入…</translation>
    </message>
    <message>
        <source>Add a saved voice (.cosyvoice file) to the library</source>
        <translation>将已保存的声音（.cosyvoice 文件）加入声音库</translation>
    </message>
    <message>
        <source>Export…</source>
        <translation>导出…</translation>
    </message>
    <message>
        <source>Save the selected voice as a .cosyvoice file to share</source>
        <translation>将所选声音保存为 .cosyvoice 文件以便分享</translation>
    </message>
    <message>
        <source>Rename…</source>
        <translation>重命名…</translation>
    </message>
    <message>
        <source>Give the selected voice another name</source>
        <translation>为所选声音改名</translation>
    </message>
    <message>
        <source>Delete</source>
        <translation>删除</translation>
    </message>
    <message>
        <source>Delete the selected voice from the library</source>
        <translation>从声音库中删除所选声音</translation>
    </message>
    <message>
        <source>Edit…</source>
        <translation>编辑…</translation>
    </message>
    <message>
        <source>Edit the selected voice&apos;s transcript, language and notes</source>
        <translation>编辑所选音色的文本、语言和备注</translation>
    </message>
    <message>
        <source>Transcript:</source>
        <translation>文本：</translation>
    </message>
    <message>
        <source>Exactly what is said in the voice&apos;s recording</source>
        <translation>该声音录音中所说的原文</translation>
    </message>
    <message>
        <source>Clone mode reads the recording together with its transcript; it must match what is said. Saved into the voice when you leave the field</source>
        <translation>克隆模式会将录音与其文本一起读取；文本必须与所说内容一致。离开此输入框时会保存到音色中</translation>
    </message>
    <message>
        <source>Kept the transcript of “{0}” that was typed meanwhile.</source>
        <translation>已保留在识别期间为“{0}”输入的文字稿。</translation>
    </message>
    <message>
        <source>Saved the transcript of “{0}”; correct it in the field if a word is wrong.</source>
        <translation>已保存“{0}”的文字稿；如有错字，请在输入框中修改。</translation>
    </message>
    <message>
        <source>(no transcript: Clone mode needs one; Edit… adds it)</source>
        <translation>（没有文本：克隆模式需要文本；可用“编辑…”添加）</translation>
    </message>
    <message>
        <source>The selected voice&apos;s recording</source>
        <translation>所选声音的录音</translation>
    </message>
    <message>
        <source>Dictionary…</source>
        <translation>词典…</translation>
    </message>
    <message>
        <source>The selected voice&apos;s own pronunciation dictionary (saved in the voice file; it goes with the voice when exported)</source>
        <translation>所选音色自己的发音词典（保存在音色文件中，导出音色时一并带走）</translation>
    </message>
    <message>
        <source>Listen</source>
        <translation>试听</translation>
    </message>
    <message>
        <source>Play the selected voice&apos;s recording</source>
        <translation>播放所选声音的录音</translation>
    </message>
    <message>
        <source>Tags: {0}</source>
        <translation>标签：{0}</translation>
    </message>
    <message>
        <source>Made for another model; it is re-made from its recording when used.</source>
        <translation>为另一个模型创建；使用时会根据其录音重新生成。</translation>
    </message>
    <message>
        <source>{0}  (broken)</source>
        <translation>{0}  （已损坏）</translation>
    </message>
    <message>
        <source>No voice yet: record one or make one from a file.</source>
        <translation>还没有声音：请录制一个，或从文件创建。</translation>
    </message>
    <message>
        <source>{0:.1f} s</source>
        <translation>{0:.1f} 秒</translation>
    </message>
    <message>
        <source>language {0}</source>
        <translation>语言 {0}</translation>
    </message>
    <message>
        <source>Import voices</source>
        <translation>导入声音</translation>
    </message>
    <message>
        <source>Cosy Studio voices (*{0})</source>
        <translation>Cosy Studio 声音 (*{0})</translation>
    </message>
    <message>
        <source>Cannot import {0}</source>
        <translation>无法导入 {0}</translation>
    </message>
    <message>
        <source>Export voice</source>
        <translation>导出声音</translation>
    </message>
    <message>
        <source>Cannot export the voice</source>
        <translation>无法导出声音</translation>
    </message>
    <message>
        <source>Rename voice</source>
        <translation>重命名声音</translation>
    </message>
    <message>
        <source>New name:</source>
        <translation>新名称：</translation>
    </message>
    <message>
        <source>Cannot rename the voice</source>
        <translation>无法重命名声音</translation>
    </message>
    <message>
        <source>Cannot save the voice</source>
        <translation>无法保存音色</translation>
    </message>
    <message>
        <source>Saved the changes to the voice “{0}”.</source>
        <translation>已保存对音色“{0}”的修改。</translation>
    </message>
    <message>
        <source>Delete the voice “{0}”? This cannot be undone.</source>
        <translation>删除声音“{0}”？此操作无法撤销。</translation>
    </message>
    <message>
        <source>Delete voice</source>
        <translation>删除声音</translation>
    </message>
    <message>
        <source>Cannot delete the voice</source>
        <translation>无法删除声音</translation>
    </message>
</context>
<context>
    <name>VoicesController</name>
    <message>
        <source>Make a voice from an audio file</source>
        <translation>从音频文件创建声音</translation>
    </message>
    <message>
        <source>Audio files (*.wav *.flac *.ogg *.mp3)</source>
        <translation>音频文件 (*.wav *.flac *.ogg *.mp3)</translation>
    </message>
    <message>
        <source>Cannot read {0}</source>
        <translation>无法读取 {0}</translation>
    </message>
    <message>
        <source>Cannot use {0}</source>
        <translation>无法使用 {0}</translation>
    </message>
    <message>
        <source>No model</source>
        <translation>未加载模型</translation>
    </message>
    <message>
        <source>Load a model first: making a voice needs it.</source>
        <translation>请先加载模型：创建声音需要用到它。</translation>
    </message>
    <message>
        <source>Making the voice “{0}”…</source>
        <translation>正在创建声音“{0}”…</translation>
    </message>
    <message>
        <source>Cannot save the voice</source>
        <translation>无法保存声音</translation>
    </message>
    <message>
        <source>The voice “{0}” was made again for this model and saved.</source>
        <translation>已为当前模型重新生成并保存音色“{0}”。</translation>
    </message>
    <message>
        <source>Saved the voice “{0}”.</source>
        <translation>已保存声音“{0}”。</translation>
    </message>
    <message>
        <source>Could not save “{0}” for this model: {1}</source>
        <translation>无法为当前模型保存“{0}”：{1}</translation>
    </message>
    <message>
        <source>Cannot make the voice: {0}</source>
        <translation>无法生成音色：{0}</translation>
    </message>
    <message>
        <source>Cannot make the voice</source>
        <translation>无法创建声音</translation>
    </message>
</context>
<context>
    <name>WaitingSpeak</name>
    <message>
        <source>Speak waits for the model; it starts by itself when the model is ready.</source>
        <translation>朗读正在等待模型；模型就绪后会自动开始。</translation>
    </message>
    <message>
        <source>The waiting Speak was cancelled.</source>
        <translation>已取消等待中的朗读。</translation>
    </message>
    <message>
        <source>Starting</source>
        <translation>正在启动</translation>
    </message>
    <message>
        <source>The model did not load, so the waiting Speak was cancelled.</source>
        <translation>模型未能加载，等待中的朗读已取消。</translation>
    </message>
</context>
<context>
    <name>WaitingSpeakBar</name>
    <message>
        <source>How far the model has loaded</source>
        <translation>模型的加载进度</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>Do not speak when the model is ready (Esc)</source>
        <translation>模型就绪时不朗读（Esc）</translation>
    </message>
    <message>
        <source>Speaks when the model is ready: {0}, {1} %…</source>
        <translation>模型就绪后朗读：{0}，{1} %…</translation>
    </message>
    <message>
        <source>Speaks when the model is ready: {0}, {1} %, about {2} s left…</source>
        <translation>模型就绪后朗读：{0}，{1} %，约剩 {2} 秒…</translation>
    </message>
</context>
<context>
    <name>WaveformView</name>
    <message>
        <source>seconds</source>
        <translation>秒</translation>
    </message>
</context>
<context>
    <name>background_work</name>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
</context>
</TS>
