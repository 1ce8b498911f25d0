// Package modelread asks a language model to read a terminal screen that no
// rule of the profile's pack reads: it builds the OpenAI-compatible
// chat-completions request (POST <endpoint>/chat/completions), redacts the
// screen first, parses and validates the reply against the contract of the
// readiness-monitor design (seed 002):
//
//	{"state": "READY"|"BUSY"|"NEEDS_CONFIRMATION"|"ERROR",
//	 "summary": "<one line>",
//	 "actions_needed": [{"label": "<as shown>", "key": "<the key(s) that pick it>"}]}
//
// and keeps the two things that bound what it costs: a cache by screen hash
// (an unchanged screen is never sent twice) and a budget of calls per hour
// per host, with an injected clock.
//
// Invariants:
//   - Nothing leaves the machine but Redact's output: the request builder
//     takes the raw screen and redacts it itself, so a caller cannot forget.
//   - A reply is either a fully valid Reply or an error with a Failure kind
//     (timeout, http, not_json, bad_reply): a state outside the four, a
//     summary over one line, a key that is not one printable
//     character or one named key — all are failures, never partly
//     applied.
//   - A Reply's text fields are safe to show: control characters and bidi
//     overrides are removed, lengths are capped.
//   - Keys are data for `sup answer` only, typed after a human picked the
//     option; ParseKey refuses anything but the one keypress a human
//     would make on that screen (one printable character or one named key).
//   - The package starts no goroutine; Client.Read is synchronous and
//     bounded by the configured timeout. Budget and Cache take the time
//     from their caller.
//   - The API key is never in config.Model: its Validate refuses a key field,
//     and the key is read from the environment variable key_env (or the
//     .env file env_file) when the client is made.
package modelread
