package activity

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"time"
)

// PromptID names one open prompt: a hash of its reason, its summary, its
// detail (the whole command it asks to approve, State.Detail) and when it
// appeared (State.PromptSince), so a prompt that was answered and came
// back, was replaced by another, or shows another command has another id.
// An answer sent with the id of the prompt its sender saw is refused when
// the id changed (specs/ipc.md, `answer`). "" when since is zero.
func PromptID(reason, summary, detail string, since time.Time) string {
	if since.IsZero() {
		return ""
	}
	h := sha256.New()
	for _, part := range []string{reason, summary, detail, strconv.FormatInt(since.UnixMilli(), 10)} {
		h.Write([]byte(part)) // hash.Hash never fails.
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}
