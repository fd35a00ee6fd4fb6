#!/usr/bin/env bash
# A check as a person would make it: the full-screen client running in tmux,
# keys sent, the screen captured and read. Starts its own server on a free
# loopback port with a temporary database, uses a private tmux socket, and
# cleans both up whatever happens. Exit status 0 means every step was seen.
#
#   tests/client_cli/tmux_play.sh            (PYTHON=... to choose the interpreter)
set -euo pipefail

PY=${PYTHON:-python3}
# The client must take its size from its terminal (tmux's pane), never from these:
# pytest-xdist's workers set them to 80 and 24, and the tmux server and the client
# in its pane would inherit them.
unset COLUMNS LINES
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
WORK=$(mktemp -d)
SOCK="cribsquares-test-$$-$RANDOM"
SERVER_PID=""

cleanup() {
    tmux -L "$SOCK" kill-server 2>/dev/null || true
    if [ -n "$SERVER_PID" ]; then kill "$SERVER_PID" 2>/dev/null || true; fi
    rm -rf "$WORK"
}
trap cleanup EXIT

screen() { tmux -L "$SOCK" capture-pane -p -t play; }

fail() {
    echo "FAILED: $*" >&2
    echo "---- screen ----" >&2
    screen >&2 || true
    echo "---- server log ----" >&2
    cat "$WORK/server.log" >&2 || true
    exit 1
}

# wait_for TEXT [SECONDS]: until TEXT is on the screen
wait_for() {
    local text=$1 limit=${2:-10} waited=0
    until screen | grep -qF -- "$text"; do
        sleep 0.1
        waited=$((waited + 1))
        [ "$waited" -ge $((limit * 10)) ] && fail "never saw: $text"
    done
    return 0
}

# wait_gone TEXT [SECONDS]: until TEXT has left the screen
wait_gone() {
    local text=$1 limit=${2:-10} waited=0
    while screen | grep -qF -- "$text"; do
        sleep 0.1
        waited=$((waited + 1))
        [ "$waited" -ge $((limit * 10)) ] && fail "still showing: $text"
    done
    return 0
}

# keys KEY...: one key at a time, as fingers would (a burst can merge escape sequences)
keys() {
    local key
    for key in "$@"; do
        tmux -L "$SOCK" send-keys -t play "$key"
        sleep 0.05
    done
}

cd "$ROOT"
"$PY" -m client_cli serve --host 127.0.0.1 --port 0 --db "$WORK/server.db" >"$WORK/server.log" 2>&1 &
SERVER_PID=$!
URL=""
for _ in $(seq 100); do
    URL=$(grep -o 'ws://127\.0\.0\.1:[0-9]*/ws' "$WORK/server.log" || true)
    [ -n "$URL" ] && break
    sleep 0.1
done
[ -n "$URL" ] || fail "the server did not start"

# The window's size is fixed before the client starts, so that the client reads
# 110x36 when it starts (a detached session may be given its size late, and a
# client started meanwhile would lay itself out for the default 80x24).
tmux -L "$SOCK" -f /dev/null new-session -d -s play -x 110 -y 36 "sleep 600"
tmux -L "$SOCK" set-option -t play window-size manual
tmux -L "$SOCK" resize-window -t play -x 110 -y 36
size=$(tmux -L "$SOCK" display-message -p -t play '#{window_width}x#{window_height}')
[ "$size" = 110x36 ] || fail "the tmux window is $size, not 110x36"
tmux -L "$SOCK" respawn-pane -k -t play \
    "cd '$ROOT' && XDG_CONFIG_HOME='$WORK/config' '$PY' -m client_cli play --server '$URL' --name tmuxer; sleep 30"

# sign-in and the lobby, with its help
wait_for "No open rooms" 15
wait_for "tmuxer"
keys "?"
wait_for "Help: lobby"
keys Escape
wait_gone "Help: lobby"

# a solo room: the seats field is the second
keys n
wait_for "New room"
sleep 0.5
keys Tab
sleep 0.3
keys End BSpace 1 Enter
wait_for "You created this room"
wait_for "Squares   public"
screen | grep -qF "(empty seat)" && fail "the room is not a solo room"
keys s
wait_for "Card 1 of 16"
wait_for "online"

# place row by row, which is always legal; try an illegal cell on the way
turn=1
for row in 1 2 3 4; do
    for col in a b c d; do
        if [ "$turn" -eq 2 ]; then
            keys d 4
            wait_for "does not touch"
            wait_for "Card 2 of 16"
        fi
        keys "$col" "$row"
        turn=$((turn + 1))
        if [ "$turn" -le 16 ]; then wait_for "Card $turn of 16"; fi
    done
done

# the results: every board, the itemized scores, the verified deal
wait_for "deal verified" 10
wait_for "Starter"
wait_for "row 1"
wait_for "col d"
wait_for "total"
screen | grep -qF "#1 tmuxer (you)" || fail "no ranked board"

# the replay
keys p
wait_for "before the first card"
keys Right
wait_for "placement 1 of 16"
keys End
wait_for "and the scores"
keys Escape
wait_gone "and the scores"  # the replay's end (the results may say "the starter is a jack")
wait_for "deal verified"

# back to the lobby, then quit cleanly
keys Enter
wait_for "Open rooms"
keys q
wait_gone "Open rooms"
screen | grep -qF "Traceback" && fail "a traceback reached the user"
echo "ok: signed in, created a solo room, played 16 cards, verified results, replayed, quit"
