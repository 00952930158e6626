#!/usr/bin/env bash
# Sets up Cosy Studio on Linux (Debian/Ubuntu for the system libraries) or macOS: system libraries
# (apt, when run as root or with sudo), a virtual environment in .venv, the torch build that fits
# this machine, and the project.
#
#   bash installer/setup.sh               app only
#   bash installer/setup.sh --dev         app + test/lint tools + headless test helpers
#   bash installer/setup.sh --cpu         the CPU build of torch even where there is an NVIDIA GPU
#   bash installer/setup.sh --cuda        the CUDA build of torch even where no GPU is detected
#   bash installer/setup.sh --torch-index URL   take torch from this package index (a mirror, or
#                                         https://download.pytorch.org/whl/cu126 for an older driver)
#   bash installer/setup.sh --print-plan  print which torch would be installed, from where, and why;
#                                         installs nothing
#
# Which torch (always version $TORCH_VERSION, the one the project tests):
#   * Linux x86-64, no NVIDIA GPU: torch==2.13.0+cpu. If pip's own configuration (find-links, an
#     index) already offers that wheel, it is installed from there; otherwise from the PyTorch CPU
#     index, https://download.pytorch.org/whl/cpu (PyPI's Linux x86-64 wheel is the CUDA build,
#     several GB, which a machine without a GPU does not need).
#   * Linux x86-64 with an NVIDIA GPU (`nvidia-smi -L` lists one, or /proc/driver/nvidia/gpus has
#     one): torch===2.13.0 from PyPI, the CUDA 13 build; its nvidia-* wheels bring the CUDA runtime,
#     only the driver must be on the machine. A driver that reports an older CUDA gets a warning
#     that names the --torch-index to use instead.
#   * Linux aarch64: PyPI's wheel is the CPU build; a CUDA build needs --torch-index.
#   * macOS: torch==2.13.0 from PyPI (CPU, and MPS on Apple silicon); there is no CUDA.
#   * Windows: not handled by this script (see installer/README.md); under WSL it is Linux.
# Environment: PYTHON (the interpreter that makes the venv, default python3), COSY_TORCH_INDEX (as
# --torch-index). For tests only: COSY_VENV, COSY_NVIDIA_SMI, COSY_NVIDIA_PROC, COSY_UNAME_S,
# COSY_UNAME_M replace .venv, nvidia-smi, /proc/driver/nvidia/gpus and `uname -s` / `uname -m`.
set -euo pipefail
cd "$(dirname "$0")/.."

TORCH_VERSION=2.13.0
CPU_INDEX=https://download.pytorch.org/whl/cpu
CUDA_MAJOR=13            # PyPI's Linux x86-64 torch 2.13.0 is built for CUDA 13 (nvidia-*-cu13 wheels)
OLDER_CUDA_INDEX=https://download.pytorch.org/whl/cu126

usage() { sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; }

dev=0
want=auto
print_plan=0
torch_index=${COSY_TORCH_INDEX:-}
while [ $# -gt 0 ]; do
  case "$1" in
    --dev) dev=1 ;;
    --cpu) want=cpu ;;
    --cuda) want=cuda ;;
    --print-plan|--dry-run) print_plan=1 ;;
    --torch-index) [ $# -ge 2 ] || { echo "setup.sh: --torch-index needs a URL" >&2; exit 2; }
                   torch_index=$2; shift ;;
    --torch-index=*) torch_index=${1#--torch-index=} ;;
    -h|--help) usage; exit 0 ;;
    *) echo "setup.sh: unknown option $1 (use --dev, --cpu, --cuda, --torch-index URL, --print-plan)" >&2
       exit 2 ;;
  esac
  shift
done

PYTHON=${PYTHON:-python3}
VENV=${COSY_VENV:-.venv}
NVIDIA_SMI=${COSY_NVIDIA_SMI:-nvidia-smi}
NVIDIA_PROC=${COSY_NVIDIA_PROC:-/proc/driver/nvidia/gpus}
os=${COSY_UNAME_S:-$(uname -s)}
arch=${COSY_UNAME_M:-$(uname -m)}

die() { echo "setup.sh: $*" >&2; exit 2; }
warn() { echo "setup.sh: warning: $*" >&2; }

case "$os" in
  Linux|Darwin) ;;
  MINGW*|MSYS*|CYGWIN*|Windows_NT)
    die "on Windows use the PowerShell steps in installer/README.md (section Windows); under WSL this script works as on Linux" ;;
  *) die "unsupported system $os (Linux and macOS are handled; see installer/README.md)" ;;
esac

# --- Is there an NVIDIA GPU? ---------------------------------------------------------------------
gpu=none
gpu_how="no nvidia-smi that lists a GPU, no $NVIDIA_PROC entry"
driver_cuda=""
if [ "$os" = Linux ]; then
  if smi_list=$("$NVIDIA_SMI" -L 2>/dev/null) && printf '%s\n' "$smi_list" | grep -q '^GPU [0-9]'; then
    gpu=nvidia
    gpu_how="$(printf '%s\n' "$smi_list" | head -n 1)"
    # The header of plain `nvidia-smi` says the newest CUDA the driver supports ("CUDA Version: 12.4").
    driver_cuda=$("$NVIDIA_SMI" 2>/dev/null | sed -n 's/.*CUDA Version: *\([0-9][0-9.]*\).*/\1/p' | head -n 1 || true)
  elif [ -d "$NVIDIA_PROC" ] && [ -n "$(ls -A "$NVIDIA_PROC" 2>/dev/null)" ]; then
    gpu=nvidia
    gpu_how="$NVIDIA_PROC lists a GPU (nvidia-smi is missing or failed)"
  fi
fi

if [ "$want" = auto ]; then
  if [ "$gpu" = nvidia ]; then build=cuda; else build=cpu; fi
  build_why="auto: $gpu_how"
else
  build=$want
  build_why="--$want"
fi
if [ "$build" = cuda ] && [ "$os" = Darwin ]; then
  die "macOS has no CUDA; run without --cuda (PyPI's torch for macOS uses the CPU, and MPS on Apple silicon)"
fi
if [ "$build" = cuda ] && [ "$os" = Linux ] && [ "$arch" != x86_64 ] && [ -z "$torch_index" ]; then
  die "PyPI's torch for Linux $arch is the CPU build; for CUDA pass --torch-index https://download.pytorch.org/whl/cuXYZ (the CUDA versions of torch $TORCH_VERSION are listed on pytorch.org), or use --cpu"
fi
if [ "$want" = cuda ] && [ "$gpu" = none ]; then
  warn "--cuda, but no NVIDIA GPU was detected; torch will fall back to the CPU at run time"
fi

# --- Which torch, from where? --------------------------------------------------------------------
venv_python="$VENV/bin/python"
pip_for_probe() {
  if [ -x "$venv_python" ]; then "$venv_python" -m pip "$@"; else "$PYTHON" -m pip "$@"; fi
}
flavour_of() {  # version string -> cpu / cuda / other
  case "$1" in
    *+cpu*) echo cpu ;;
    *+cu*) echo cuda ;;
    *+*) echo other ;;
    *) if [ "$os" = Linux ] && [ "$arch" = x86_64 ]; then echo cuda; else echo cpu; fi ;;
  esac
}

# Sets spec, flavour, index_args, source, installed and keep. Called once the venv exists (its pip
# then answers the probe), or for --print-plan with whatever pip there is.
plan_torch() {
index_args=()
if [ "$os" = Darwin ]; then
  spec="torch==$TORCH_VERSION"; flavour=cpu; source="PyPI (the macOS wheel: CPU, and MPS on Apple silicon)"
elif [ "$build" = cpu ] && [ "$arch" != x86_64 ]; then
  spec="torch==$TORCH_VERSION"; flavour=cpu; source="PyPI (its Linux $arch wheel is the CPU build)"
  if [ -n "$torch_index" ]; then index_args=(--index-url "$torch_index"); source="$torch_index (--torch-index)"; fi
elif [ "$build" = cpu ]; then
  spec="torch==$TORCH_VERSION+cpu"; flavour=cpu
  if [ -n "$torch_index" ]; then
    index_args=(--index-url "$torch_index"); source="$torch_index (--torch-index)"
  # Does pip's own configuration (find-links, a local index) already offer the CPU wheel? --no-index
  # keeps this probe off the network: it looks only at find-links, so it answers in about a second.
  elif pip_for_probe install --dry-run --ignore-installed --no-deps --no-index -q "$spec" >/dev/null 2>&1; then
    source="pip's configured find-links (a local wheel; no download)"
  else
    index_args=(--index-url "$CPU_INDEX"); source="$CPU_INDEX (the PyTorch CPU index)"
  fi
else  # CUDA on Linux
  if [ -n "$torch_index" ]; then
    spec="torch==$TORCH_VERSION"; flavour=cuda
    index_args=(--index-url "$torch_index"); source="$torch_index (--torch-index)"
  else
    # '===' matches the bare version only, so a local +cpu wheel in pip's find-links cannot stand in.
    spec="torch===$TORCH_VERSION"; flavour=cuda
    source="PyPI (its Linux x86-64 wheel is the CUDA $CUDA_MAJOR build)"
    if [ -n "$driver_cuda" ] && [ "${driver_cuda%%.*}" -lt "$CUDA_MAJOR" ]; then
      warn "the NVIDIA driver supports CUDA $driver_cuda, older than the CUDA $CUDA_MAJOR of PyPI's torch; update the driver, or run again with --torch-index $OLDER_CUDA_INDEX"
    fi
  fi
fi

# The torch already in the venv, if any, and whether it is the build we want.
installed=""
if [ -x "$venv_python" ]; then
  installed=$("$venv_python" -c 'import importlib.metadata as m; print(m.version("torch"))' 2>/dev/null || true)
fi
keep=0
if [ -n "$installed" ] && [ "${installed%%+*}" = "$TORCH_VERSION" ] && [ "$(flavour_of "$installed")" = "$flavour" ]; then
  keep=1
fi
}

if [ "$print_plan" = 1 ]; then
  plan_torch
  echo "os=$os"
  echo "arch=$arch"
  echo "gpu=$gpu"
  echo "build=$build"
  echo "why=$build_why"
  echo "spec=$spec"
  echo "index=${index_args[*]:-}"
  echo "source=$source"
  echo "installed=${installed:-none}"
  if [ "$keep" = 1 ]; then echo "action=keep"; else echo "action=install"; fi
  exit 0
fi

# --- System packages (Debian/Ubuntu) -------------------------------------------------------------
apt_packages=(libportaudio2 libsndfile1 libxcb-cursor0 libxcb-icccm4 libxcb-keysyms1 libxcb-image0
  libxcb-render-util0 libxcb-shape0 libxcb-randr0 libxcb-xkb1 libxkbcommon-x11-0 libegl1 libgl1
  libfontconfig1 libdbus-1-3 fonts-dejavu-core fonts-wqy-microhei)
if [ "$dev" = 1 ]; then
  apt_packages+=(xvfb espeak-ng sox imagemagick x11-apps)
fi

missing=()
if [ "$os" = Linux ] && command -v dpkg-query >/dev/null 2>&1; then
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
if [ "$os" = Darwin ] && [ "$dev" = 1 ] && ! command -v espeak-ng >/dev/null 2>&1; then
  echo "setup.sh: note: some tests use espeak-ng (brew install espeak-ng); they skip without it"
fi

# --- The installer: uv where it can be had, pip otherwise ---------------------------------------
# uv (a pip-compatible installer from PyPI) resolves, downloads and unpacks in parallel and keeps
# its own cache: the project's ~100 packages take about 10 s instead of pip's 70 s. It does not read
# pip's configuration, so the settings that decide what gets installed (find-links, which holds the
# CPU torch wheel on the CI machines, the indexes, constraints, the certificate bundle) are read from
# `pip config list` and passed on; a setting that uv cannot be told about keeps plain pip. uv is
# installed into the venv with pip; where that fails (no network, an old Python) plain pip does it
# all. COSY_INSTALLER=pip forces pip.
uv_args=()
uv_env=()
uv_index=""
pip_setting() {  # NAME -> the value pip uses (environment over [install] over [global]), or nothing
  local scope line
  for scope in ':env:' install global; do
    line=$(printf '%s\n' "$pip_config" | grep -m 1 "^$scope\.$1=" || true)
    if [ -n "$line" ]; then line=${line#*=}; line=${line#\'}; printf '%s' "${line%\'}"; return; fi
  done
}
uv_from_pip_config() {  # fills uv_args and uv_env, or says why uv cannot stand in for pip
  pip_config=$("${venv_pip[@]}" config list 2>/dev/null) || { uv_why="pip config list failed"; return 1; }
  local key name value
  while IFS= read -r line; do
    [ -n "$line" ] || continue
    key=${line%%=*}
    name=${key#*.}
    case "$name" in
      find-links|index-url|extra-index-url|constraint|no-index|cert|timeout|default-timeout) ;;
      disable-pip-version-check|no-warn-script-location|root-user-action|progress-bar|quiet|verbose|no-input|no-color|cache-dir|no-cache-dir|require-virtualenv|break-system-packages) ;;
      *) uv_why="pip's configuration sets $key, which uv is not told about"; return 1 ;;
    esac
  done <<< "$pip_config"
  for value in $(pip_setting find-links); do uv_args+=(--find-links "$value"); done
  uv_index=$(pip_setting index-url)
  for value in $(pip_setting extra-index-url); do uv_args+=(--extra-index-url "$value"); done
  for value in $(pip_setting constraint); do uv_args+=(--constraint "$value"); done
  case "$(pip_setting no-index)" in 1|true|yes|on) uv_args+=(--no-index) ;; esac
  value=$(pip_setting cert); [ -z "$value" ] || uv_env+=("SSL_CERT_FILE=$value")
  value=$(pip_setting timeout); [ -n "$value" ] || value=$(pip_setting default-timeout)
  [ -z "$value" ] || uv_env+=("UV_HTTP_TIMEOUT=${value%%.*}")
  # pip takes the best version across all its indexes and find-links; uv's default stops at the
  # first index that has the package.
  uv_args+=(--index-strategy unsafe-best-match)
}
installer=pip
uv_why="COSY_INSTALLER=pip"
choose_installer() {
  [ "${COSY_INSTALLER:-}" != pip ] || return 0
  uv_from_pip_config || return 0
  if [ ! -x "$VENV/bin/uv" ] && ! "${venv_pip[@]}" install -q 'uv>=0.5' >/dev/null 2>&1; then
    uv_why="uv could not be installed"; return 0
  fi
  installer=uv
}
install_packages() {  # pip install arguments (an --index-url first, as in index_args, replaces pip's)
  if [ "$installer" = uv ]; then
    local index=()
    if [ "${1:-}" != --index-url ] && [ -n "$uv_index" ]; then index=(--index-url "$uv_index"); fi
    env ${uv_env[@]+"${uv_env[@]}"} "$VENV/bin/uv" pip install -q --python "$venv_python" \
      ${index[@]+"${index[@]}"} ${uv_args[@]+"${uv_args[@]}"} "$@"
  else
    "$venv_python" -m pip install -q --no-compile "$@"
  fi
}

# --- The venv, torch first, then the project -----------------------------------------------------
venv_pip=("$venv_python" -m pip)
if [ ! -x "$venv_python" ]; then
  # ensurepip's copy of pip, unpacked and byte-compiled, is nearly all of the ~6 s that `python -m venv`
  # takes. Where this Python's own pip can work on another environment (pip 22.3 and later: --python),
  # the venv is made without pip, and pip goes in once the installer is chosen (uv: under a second).
  # (pip's --python wants an interpreter's path: "python3" or a pyenv shim is resolved first.)
  base_python=$("$PYTHON" -c 'import sys; print(sys.executable)' 2>/dev/null) || base_python=$PYTHON
  if [ "${COSY_INSTALLER:-}" != pip ] && "$PYTHON" -m pip --python "$base_python" --version >/dev/null 2>&1; then
    "$PYTHON" -m venv --without-pip "$VENV"
    venv_pip=("$PYTHON" -m pip --python "$venv_python")
  else
    "$PYTHON" -m venv "$VENV"
  fi
fi
choose_installer
if [ "${venv_pip[0]}" != "$venv_python" ]; then  # the venv was made without pip: every venv has it
  if [ "$installer" = uv ]; then install_packages pip; else "$venv_python" -m ensurepip -q >/dev/null; fi
  venv_pip=("$venv_python" -m pip)
fi
if [ "$installer" = uv ]; then echo "setup.sh: installing with uv"; else echo "setup.sh: installing with pip ($uv_why)"; fi
plan_torch
# torch first, pinned, so that nothing else can pull in another build of it.
if [ "$keep" = 1 ]; then
  echo "setup.sh: torch $installed ($build) is already installed"
else
  echo "setup.sh: installing torch $TORCH_VERSION, $build build ($build_why), from $source"
  install_packages ${index_args[@]+"${index_args[@]}"} "$spec"
  got=$("$venv_python" -c 'import importlib.metadata as m; print(m.version("torch"))')
  if [ "$(flavour_of "$got")" != "$flavour" ]; then
    echo "setup.sh: $installer installed torch $got, not the $build build; check pip's configuration (pip config list)" >&2
    exit 1
  fi
fi
if [ "$dev" = 1 ]; then
  install_packages -e ".[dev]"
else
  install_packages -e .
fi
# Neither installer byte-compiles (pip's one-by-one compiling of the venv's ~17,000 .py files took
# about 80 s of CPU; compileall on both cores, 40 s of the 53 s setup). What the app and the engine
# import is compiled once here, by importing every module of app/ and cosycore/ with byte-code
# writing on: a third of the time, and each later process, also under PYTHONDONTWRITEBYTECODE, reads
# the .pyc files. What is imported only on demand (onnx, transformers, ...) is compiled by its first
# user where writing is allowed (installer/test.sh allows it).
PYTHONDONTWRITEBYTECODE='' "$venv_python" installer/warm_imports.py app cosycore
echo "setup.sh: ready ($VENV, torch $build build)"
