// Package question decides whether an agent's finished turn ends by asking
// the human something, from the turn's last assistant message (the Stop
// hook's last_assistant_message, Codex notify's last-assistant-message,
// Gemini AfterAgent's response). A turn that asks is a state of its own
// (activity ready, reason asked): a trigger pasted after it would be read as
// the answer (specs/detection.md, "Questions"; specs/triggers.md, "A
// trigger does not answer a question").
//
// The rule, with its wording kept in the profile as data (the profile's
// `questions:` section, a config.Questions compiled by Compile):
//
//  1. Mask what is not the agent's own prose: fenced code blocks, inline
//     code spans, URLs, quoted text ("…", “…”, '…'), block quotes and table
//     rows. A `?` inside them never asks.
//  2. Take the final paragraph of what is left (blank lines separate
//     paragraphs). When it is an option list, the paragraph before it is its
//     lead-in and belongs to it.
//  3. It asks when its last sentence is a question; or when any question
//     sentence in it addresses the human (Ask: "should I", "you", "want me
//     to"); or when it asks for a choice without a question mark (Choice:
//     "let me know which", "please confirm"); or when it offers at least two
//     options (Option) under a lead-in that presents them (OptionLead: "Two
//     options:"). Question sentences that only invite more work (Courtesy:
//     "Anything else?") never ask.
//
// Invariants: Detect is pure and deterministic, never panics, and runs in
// time linear in its input (RE2 patterns, a bounded input: MaxInput bytes
// from the message's end). The question it returns is one line, taken from
// the message as written (code and quotes kept), at most MaxQuestion runes.
package question
