#!/usr/bin/env bash
# An example bot for hub's JSON bot protocol (docs/bots.md) in bash, for any declared game:
# it plays the first legal move of every turn. Over pipes: `hub play connect4 ./json_bot.sh
# ai:1`; over TCP: `json_bot.sh HOST PORT` (bash's /dev/tcp) against `hub serve GAME`.
# hub writes compact JSON, one object a line, with "legal" after "view" in a turn, so sed
# can pick the first legal move without a JSON parser.
set -u
if [ $# -eq 2 ]; then
    exec 3<>"/dev/tcp/$1/$2" || exit 1
    exec 0<&3 1>&3
fi
while IFS= read -r line; do
    case "$line" in
        *'"type":"welcome"'*)
            printf '{"type":"hello","name":"json_bot.sh"}\n' ;;
        *'"type":"turn"'*)
            move=$(printf '%s\n' "$line" | sed -n 's/.*"legal":\["\([^"]*\)".*/\1/p')
            printf '{"move":"%s"}\n' "$move" ;;
        *'"type":"end"'*)
            exit 0 ;;
    esac
done
