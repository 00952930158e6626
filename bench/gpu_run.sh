#!/usr/bin/env bash
# The CUDA checks and figures of README "Performance › GPU", in one go, on a machine with an NVIDIA GPU.
#
#   bash bench/gpu_run.sh OUTDIR [CONFORMANCE_FOLDER ...]
#
# In order of importance (each step has its own time limit, and a failed step does not stop the
# others): conformance of the CUDA path (model sections on the GPU, float32 without TF32), one
# request per quality mode as the engine runs it on CUDA (Auto picks exact there), the README's
# bfloat16 + compiled-decode commands, and LM decode speed. Every report is written as JSON with
# the chunk timelines that bench/bench_playback.py replays through the app's player.
#
# Writes OUTDIR/all.log (everything printed, nvidia-smi first) and one JSON report per benchmark
# step. PY (default python3) is the interpreter; this checkout is put first on PYTHONPATH. BUDGET
# (default 520) is the whole run's limit in seconds: a step gets at most what is left, and steps
# are skipped once under 20 s are left. Nothing here asserts a speed.
set -u
OUT=${1:?usage: bash bench/gpu_run.sh OUTDIR [CONFORMANCE_FOLDER ...]}
shift
PY=${PY:-python3}
AUDIO=${AUDIO:-10}   # seconds of speech per request
RUNS=${RUNS:-4}      # requests per process: the first is reported alone (cold), then the median of the rest
mkdir -p "$OUT"
BUDGET=${BUDGET:-520}
START=$(date +%s)
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}" PYTHONUNBUFFERED=1
LOG="$OUT/all.log"

step() {  # step NAME SECONDS COMMAND...: run with a time limit, keep going whatever happens
    local name=$1 limit=$2 t0 rc left
    shift 2
    t0=$(date +%s)
    left=$(( BUDGET - (t0 - START) ))
    if (( left < 20 )); then echo "=== $name: skipped, $left s of the budget left" | tee -a "$LOG"; return; fi
    (( limit > left )) && limit=$left
    echo "=== $name: $*" | tee -a "$LOG"
    timeout "$limit" "$@" >>"$LOG" 2>&1
    rc=$?
    echo "=== $name: exit $rc after $(( $(date +%s) - t0 )) s" | tee -a "$LOG"
}

{ date -u; uname -a; nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv
  "$PY" -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda,
  torch.cuda.get_device_name(0) if torch.cuda.is_available() else "NO CUDA")'; } 2>&1 | tee -a "$LOG"

for d in "$@"; do
    step "conformance $(basename "$d")" 120 "$PY" -m cosycore.conformance "$d" --device cuda
done

B=("$PY" bench/bench_perf.py)
R=(request --device cuda --runs "$RUNS" --audio-seconds "$AUDIO" --prompt-seconds 3)
for fam in cosyvoice2 cosyvoice3; do
    step "$fam exact (engine)" 120 "${B[@]}" "${R[@]}" --family "$fam" --quality exact \
        --json "$OUT/$fam-exact.json"
done
for fam in cosyvoice2 cosyvoice3; do
    step "$fam bf16 compiled (README)" 180 "${B[@]}" "${R[@]}" --family "$fam" --dtype bfloat16 --compile --warmup \
        --json "$OUT/$fam-bf16-compile.json"
done
step "cosyvoice2 llm-speed" 90 "${B[@]}" llm-speed --device cuda --family cosyvoice2 \
    --json "$OUT/cosyvoice2-llm-speed.json"
for q in fast draft; do
    step "cosyvoice2 $q (engine)" 90 "${B[@]}" "${R[@]}" --family cosyvoice2 --quality "$q" \
        --json "$OUT/cosyvoice2-$q.json"
done
echo "=== done $(date -u)" | tee -a "$LOG"
