#!/usr/bin/env bash
# Sets up Cosy Studio on a fresh Debian/Ubuntu machine: system libraries (when run as root or
# with sudo), a virtual environment in .venv, the CPU build of torch, and the project.
#   bash installer/setup.sh          app only
#   bash installer/setup.sh --dev    app + test/lint tools + headless test helpers
set -euo pipefail
cd "$(dirname "$0")/.."

dev=0
for arg in "$@"; do
  case "$arg" in
    --dev) dev=1 ;;
    *) echo "setup.sh: unknown option $arg (use --dev)" >&2; exit 2 ;;
  esac
done

PYTHON=${PYTHON:-python3}
TORCH_SPEC=${COSY_TORCH_SPEC:-torch==2.13.0}

apt_packages=(libportaudio2 libsndfile1 libxcb-cursor0 libxcb-icccm4 libxcb-keysyms1 libxcb-image0
  libxcb-render-util0 libxcb-shape0 libxcb-randr0 libxcb-xkb1 libxkbcommon-x11-0 libegl1 libgl1
  libfontconfig1 libdbus-1-3 fonts-dejavu-core fonts-wqy-microhei)
if [ "$dev" = 1 ]; then
  apt_packages+=(xvfb espeak-ng sox imagemagick x11-apps)
fi

missing=()
if command -v dpkg-query >/dev/null 2>&1; then
  for p in "${apt_packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
fi
if [ "${#missing[@]}" -gt 0 ]; then
  if [ "$(id -u)" = 0 ]; then SUDO=""; elif command -v sudo >/dev/null 2>&1; then SUDO="sudo"; else SUDO="none"; fi
  if [ "$SUDO" = none ]; then
    echo "setup.sh: please install these system packages first: ${missing[*]}" >&2
  else
    echo "setup.sh: installing system packages: ${missing[*]}"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  fi
fi

if [ ! -x .venv/bin/python ]; then
  "$PYTHON" -m venv .venv
fi
# torch first, pinned, so nothing else can pull a multi-GB CUDA build.
.venv/bin/python -m pip install -q "$TORCH_SPEC"
if [ "$dev" = 1 ]; then
  .venv/bin/python -m pip install -q -e ".[dev]"
else
  .venv/bin/python -m pip install -q -e .
fi
echo "setup.sh: ready (.venv)"
