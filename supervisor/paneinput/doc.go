// Package paneinput splits the byte stream a pane sends to sup (tmux's or
// the terminal's input to the agent) into tokens: keys, pastes, mouse
// events, focus events and terminal reports, so sup can forward every byte
// to the agent unchanged while counting only what a human did as operator
// activity.
//
// Invariants (each is tested, and FuzzTokenize checks them on any input):
//
//   - Nothing is lost, added or reordered: the Raw bytes of every token a
//     [Tokenizer] returns, followed by [Tokenizer.Held], equal the bytes fed.
//   - Only keys, pastes and mouse events are operator activity
//     ([Token.IsOperator]); focus events and reports are sent by the
//     terminal on its own or in reply to the agent's queries.
//   - A sequence split across reads is held until it completes and is then
//     one token, exactly as if it had arrived in one read: feeding input in
//     two parts gives the same tokens as feeding it at once (pastes aside,
//     which stream in pieces). An ESC is never released as a lone Esc key
//     while the rest of its sequence may still come.
//   - What is held is released as keys once [DefaultTimeout] (or the
//     configured timeout) has passed since the last byte arrived, as
//     terminals do with a lone Esc (tmux's escape-time). Time is passed in
//     by the caller, so the tokenizer never reads a clock.
//   - What is held is bounded: a bracketed paste and an over-long string
//     sequence (OSC, DCS, APC) stream out in pieces as they arrive, holding
//     back at most the bytes that could begin their terminator, so a paste's
//     end marker is recognised whole however the reads split it.
//
// CSI sequences and DCS headers are decoded by charmbracelet/x/ansi's
// DecodeSequence; this package adds what an output parser does not know
// about input, or gets wrong for it: string sequences end at BEL or ESC \
// only (DecodeSequence also ends them at 0x9c, a UTF-8 continuation byte), ESC followed by a key is Alt+key, ESC O is SS3 (a key, not
// an ESC sequence), X10 mouse carries three raw bytes after ESC [ M, a
// bracketed paste runs from ESC[200~ to ESC[201~, and an incomplete
// sequence at the end of a read must wait for the next read. See
// specs/detection.md, "Operator input".
package paneinput
