#!/usr/bin/env bash
# Builds the one-folder Cosy Studio bundle on this machine (Linux, with whatever torch the
# environment has: the CPU build from installer/setup.sh, or a CUDA build, see installer/README.md),
# turns it into an AppDir, and runs the bundled app's --self-test headless.
#
#   bash installer/build_bundle.sh                 build into build/bundle/dist/cosy-studio
#   bash installer/build_bundle.sh --no-self-test  build only
#   DIST=/somewhere bash installer/build_bundle.sh another output folder
#   PYTHON=/path/to/python bash installer/build_bundle.sh   another environment (default .venv)
#
# Needs libportaudio2 (the bundle carries a copy of it) and about 4 GB of free disk while building.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)

self_test=1
for arg in "$@"; do
  case "$arg" in
    --no-self-test) self_test=0 ;;
    *) echo "build_bundle.sh: unknown option $arg (use --no-self-test)" >&2; exit 2 ;;
  esac
done

PYTHON=${PYTHON:-$ROOT/.venv/bin/python}
OUT=${DIST:-$ROOT/build/bundle/dist}
WORK=${WORK:-$ROOT/build/bundle/work}
APP="$OUT/cosy-studio"

if [ ! -x "$PYTHON" ]; then
  echo "build_bundle.sh: $PYTHON not found; run installer/setup.sh first (or set PYTHON)" >&2
  exit 1
fi
if ! "$PYTHON" -c "import PyInstaller, onnx" 2>/dev/null; then
  echo "build_bundle.sh: installing the bundle extra (pyinstaller, onnx)"
  "$PYTHON" -m pip install -q "pyinstaller>=6.10" "onnx>=1.16"
fi
if ! ldconfig -p 2>/dev/null | grep -q libportaudio.so.2; then
  echo "build_bundle.sh: warning: libportaudio2 is not installed, so the bundle will have no sound" >&2
fi
"$PYTHON" -c "import torch; print('build_bundle.sh: torch', torch.__version__, 'CUDA' if torch.version.cuda else 'CPU')"

start=$(date +%s)
"$PYTHON" -m PyInstaller --noconfirm --clean --log-level WARN \
  --distpath "$OUT" --workpath "$WORK" installer/cosy_studio.spec
echo "build_bundle.sh: PyInstaller took $(( $(date +%s) - start )) s"

# AppDir layout (the bundle folder itself): `appimagetool build/bundle/dist/cosy-studio` makes an AppImage.
cp installer/cosy-studio.desktop "$APP/cosy-studio.desktop"
cp resources/icons/cosy-studio.png "$APP/cosy-studio.png"
cat > "$APP/AppRun" <<'APPRUN'
#!/bin/sh
HERE=$(dirname "$(readlink -f "$0")")
exec "$HERE/cosy-studio" "$@"
APPRUN
chmod +x "$APP/AppRun"

size=$(du -sh "$APP" | cut -f1)
files=$(find "$APP" -type f | wc -l)
echo "build_bundle.sh: bundle $APP: $size in $files files"

if [ "$self_test" = 1 ]; then
  # Headless: Qt's offscreen platform, and an ALSA null device (it records what was played).
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  cat > "$tmp/asound.conf" <<ALSA
</usr/share/alsa/alsa.conf>
pcm.!default { type plug slave.pcm "tee2file" }
pcm.tee2file { type file slave.pcm "nullsink" file "$tmp/PLAYED.raw" format "raw" }
pcm.nullsink { type null }
ALSA
  echo "build_bundle.sh: running $APP/cosy-studio --self-test"
  t0=$(date +%s.%N)
  set +e
  QT_QPA_PLATFORM=offscreen ALSA_CONFIG_PATH="$tmp/asound.conf" COSY_STUDIO_HOME="$tmp/home" \
    "$APP/cosy-studio" --self-test 2>&1 | while IFS= read -r line; do
      printf '  [%6.2f s] %s\n' "$(awk -v t0="$t0" -v t1="$(date +%s.%N)" 'BEGIN{print t1 - t0}')" "$line"
    done
  rc=${PIPESTATUS[0]}
  set -e
  played=$(stat -c %s "$tmp/PLAYED.raw" 2>/dev/null || echo 0)
  echo "build_bundle.sh: self-test exit code $rc, $(awk -v t0="$t0" -v t1="$(date +%s.%N)" 'BEGIN{printf "%.1f", t1 - t0}') s in all, $played bytes reached the audio device"
  exit "$rc"
fi
