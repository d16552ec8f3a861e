#!/bin/sh
# A clubs player in POSIX shell, to show that clubhub runs any program that follows clubs.md.
# Usage: first_legal.sh N ID. It plays the first card of its hand (kept in the order the hub
# sent it) that follows the led suit, else the first card of its hand. No error checking.
printf '%s' -
hand=,
led=
while IFS= read -r line; do
    case $line in
    "newround "*)
        hand=",${line#newround },"
        led=
        ;;
    newtrick | yourturn)
        pick=
        if [ "$line" = yourturn ]; then
            rest=${hand#,}
            while [ -n "$rest" ]; do
                card=${rest%%,*}
                rest=${rest#*,}
                case $card in
                ?"$led") pick=$card; break ;;
                esac
            done
        fi
        if [ -z "$pick" ]; then
            pick=${hand#,}
            pick=${pick%%,*}
        fi
        hand="${hand%%,"$pick",*},${hand#*,"$pick",}"
        printf '%s\n' "$pick"
        ;;
    "played "*)
        if [ -z "$led" ]; then
            card=${line#played }
            led=${card#?}
        fi
        ;;
    trickover) led= ;;
    end) exit 0 ;;
    esac
done
exit 4
