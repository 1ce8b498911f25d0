#!/bin/sh
# Sequences whose rendering tmux decides; record_test.go replays tmux's
# recording of this script into Screen and compares with capture-pane.
# Raw output: \n is a bare line feed here, as in a TUI.
stty -onlcr -echo
p() { printf "$@"; }
p '\033[2J\033[H'
p 'top row\r\n'
# Autowrap: 80 columns then one more character.
p '%080d' 0; p 'W\r\n'
# Pending wrap then CR LF: no blank row.
p '%080d' 1; p '\r\nafter-exact\r\n'
# Wide runes: one that fits in the last two columns, one that does not.
p '\033[6;79H你好'
p '\033[8;80H界'
# Combining mark and ZWJ sequences, no-break space after the prompt glyph.
p '\033[9;1He\314\201 \342\235\257\302\240draft'
# Scroll region with line feeds at its bottom.
p '\033[10;14r\033[10;1Hr1\nr2\nr3\nr4\nr5\nr6\nr7\033[r'
# IL and DL inside a region and outside it.
p '\033[15;1Hil-target\033[15;1H\033[L\033[16;5Hx'
p '\033[20;1Hdl-a\033[21;1Hdl-b\033[20;1H\033[M'
# ICH, DCH, ECH.
p '\033[17;1Habcdefghij\033[17;3H\033[2@\033[17;9H\033[2P\033[17;2H\033[2X'
# Tabs, a cleared stop and REP.
p '\033[18;1Ha\tb\tc\033[18;9H\033[g\033[18;1H\tT'
p '\033[19;1Hz\033[4b'
# CUB from a pending wrap lands on the last column.
p '\033[21;1H%080d' 2; p '\033[DQ'
# A bare LF at a pending wrap keeps it: the next character wraps.
p '\033[22;1H%079d' 3; p 'E\nZ'
# DEC special graphics via G0 and via SO/SI with G1.
p '\033[11;40H\033(0lqqk\033(B \033)0\016mqqj\017 done'
# Origin mode.
p '\033[2;4r\033[?6h\033[1;30HORG\033[?6l\033[r'
# Save and restore the cursor, ED 1 and EL 1.
p '\033[12;40H\0337\033[1;1Hxx\0338SAVED'
p '\033[13;40Hkeep-left\033[13;44H\033[1K'
# Alternate screen: drawn, then left; the main screen comes back.
p '\033[?1049h\033[2J\033[HALT SCREEN\033[?1049l'
# Reverse index at the top of a region.
p '\033[5;7r\033[5;1H\033Mri\033[r'
# Backspace at column 0 of a wrapped row goes back up.
p '\033[24;1H%079d' 4; p 'AB\b\b\bC'
p '\033[1;60Hend'
sleep 1000
