package fakemodel

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"
)

func postChat(t *testing.T, s *Server, screen string) (int, string) {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"model": "m", "messages": []any{
		map[string]any{"role": "system", "content": "read it"},
		map[string]any{"role": "user", "content": screen},
	}})
	resp, err := http.Post(s.URL+"/v1/chat/completions", "application/json", strings.NewReader(string(body)))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out struct {
		Choices []struct {
			Message struct{ Content string } `json:"message"`
		} `json:"choices"`
	}
	json.NewDecoder(resp.Body).Decode(&out)
	if len(out.Choices) == 0 {
		return resp.StatusCode, ""
	}
	return resp.StatusCode, out.Choices[0].Message.Content
}

func TestChatCompletions(t *testing.T) {
	s := startServer(t)
	if code, got := postChat(t, s, "Screen:\n<<<\nDeploy?\n  a) yes\nPick one:\n>>>"); code != 200 || !strings.Contains(got, `"summary":"Pick one:"`) {
		t.Fatalf("default reading: %d %s", code, got)
	}
	s.Queue(Turn{Text: `{"state":"READY","summary":"idle","actions_needed":[]}`, Delay: 100 * time.Millisecond}, Turn{Status: 500})
	start := time.Now()
	if code, got := postChat(t, s, "x"); code != 200 || !strings.Contains(got, "READY") || time.Since(start) < 100*time.Millisecond {
		t.Fatalf("queued reading: %d %s after %v", code, got, time.Since(start))
	}
	if code, _ := postChat(t, s, "x"); code != 500 {
		t.Fatalf("scripted failure: %d", code)
	}
	if n := s.Count("chat"); n != 3 {
		t.Fatalf("%d chat requests logged, want 3", n)
	}
}
