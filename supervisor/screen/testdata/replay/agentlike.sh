#!/bin/sh
# What Claude Code and Codex write around their frames (specs/testing.md,
# "Stream signals"): mode switches, queries, kitty probes, titles, OSC 7501,
# synchronized output. tmux answers the queries itself; the screen must
# show only the frames. record_test.go compares Screen with tmux.
stty -onlcr -echo raw
p() { printf "$@"; }
p 'prelude on the main screen\r\n'
p '\033[?2004h\033[?2031h\033[?1004h\033[?1049h\033[?1000h\033[?1002h\033[?1003h\033[?1006h'
p '\033[>0q\033[?u\033[c\033[16t\033]7501;?\033\\'
p '\033_Gi=31,s=1,v=1,a=q,t=d,f=24;AAAA\033\\'
p '\033[>5u\033[>4;0m\033[?1007h\033[6n\033]10;?\033\\\033]11;?\007'
p '\033[?2026h\033[H\033[2J'
p ' \342\226\220\342\226\233\342\226\210\342\226\210\342\226\210\342\226\233\342\226\210   Claude Code v2.1.330\r\n'
p '\033[38;2;215;119;87m\342\226\235\342\226\234\342\226\210\342\226\210\342\226\210\342\226\210\342\226\210\342\226\210\342\226\200\033[39m  Opus 5.5 \302\267 API Usage Billing\r\n'
p '\033[5;1H\033[2m%s\033[22m' "$(printf '\342\224\200%.0s' $(seq 1 80))"
p '\033[6;1H\342\235\257\302\240\033[7mH\033[27m\033[K'
p '\033[7;1H\033[2m%s\033[22m' "$(printf '\342\224\200%.0s' $(seq 1 80))"
p '\033[8;3H\342\217\270 manual mode on \302\267 ? for shortcuts'
p '\033[?2026l'
p '\033]0;\342\234\263 Claude Code\007'
p '\033]7501;state=idle:app=codex\033\\'
# A busy frame: spinner line inserted above the input box, synchronized.
p '\033[?2026h\033[4;1H\342\234\266 Imagining\342\200\246 (2s \302\267 \342\206\223 36 tokens)\033[K\033[?2026l'
p '\033]0;\342\227\220 Claude Code\007\033]7501;state=working:app=codex\033\\'
p '\033P>|fake xtversion reply echoed\033\\'
p '\033]9;Approval requested: touch made.txt\007'
p '\033]9;4;1;42\007\007'
p '\033[?2026h\033[4;1H\342\234\273 Cooked for 6s \302\267 done 4:51 AM\033[K\033[6;3H\033[?2026l'
p '\033]0;\342\234\263 Claude Code\007\033]7501;state=done:app=codex\033\\'
sleep 1000
