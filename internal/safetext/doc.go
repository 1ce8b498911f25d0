// Package safetext is sup's one rule for untrusted text on its way to a
// terminal (specs/security.md, "Untrusted text").
//
// Untrusted is every string an agent, a child's output, a hook payload, a
// document's name or another host produced: any agent can be
// prompt-injected, and then what it says is the attacker's. A terminal
// acts on control bytes (OSC 52 writes the clipboard, OSC 0 renames the
// window, CSI clears the screen, C1 0x9b is a CSI on its own) and bidi
// controls reorder what the human reads.
//
// Invariants:
//
//   - Field's output holds no C0 control (tab and newline included: a
//     field is one line), no DEL, no C1 control (U+0080–U+009F), no
//     bidi or isolate control (U+200E, U+200F, U+061C, U+202A–U+202E,
//     U+2066–U+2069), no line or paragraph separator (U+2028, U+2029)
//     and no invalid UTF-8. Each becomes a visible escape (\x1b, \n,
//     \u202e, \xff), so the human sees that it was there.
//   - Field's output is at most MaxField bytes of the input's runes plus
//     the escapes and a final "…": a 1 MB line cannot flood a table.
//   - Text keeps newlines (a block of lines) and is otherwise Field per
//     line, without the cap.
//   - Safe text (printable ASCII and ordinary Unicode) comes back
//     unchanged, without allocating.
//   - JSON writes encoding/json's output with C1, DEL and the bidi
//     controls escaped as \uXXXX (encoding/json passes them raw; a JSON
//     reader that prints a string would hand them to a terminal).
package safetext
