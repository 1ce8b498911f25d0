package modelread

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/sup-tmux/sup/internal/config"
)

// Client asks one endpoint. Safe for concurrent use.
type Client struct {
	cfg  config.Model
	key  string
	red  *Redactor
	http *http.Client
}

// NewClient makes a client for cfg (validated, defaults applied by the
// caller or here); key is the API key (LoadKey), "" for none.
func NewClient(cfg config.Model, key string) (*Client, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if !cfg.Enabled() {
		return nil, errors.New("model: no endpoint configured")
	}
	red, err := NewRedactor(cfg.Redact)
	if err != nil {
		return nil, err
	}
	cfg = cfg.WithDefaults()
	return &Client{cfg: cfg, key: key, red: red, http: &http.Client{Timeout: cfg.Timeout}}, nil
}

// Config returns the client's configuration, defaults applied.
func (c *Client) Config() config.Model { return c.cfg }

// URL is where requests go.
func (c *Client) URL() string { return strings.TrimRight(c.cfg.Endpoint, "/") + "/chat/completions" }

// Request returns the body Read would send for screen: what leaves the
// machine (`sup classify --model` shows it).
func (c *Client) Request(examples []config.ModelExample, screen string) ([]byte, error) {
	return BuildRequest(c.cfg.Name, examples, c.red, screen)
}

// Read asks the model to read screen (redacted here) with examples as
// few-shot turns. It returns within the timeout; a failure is an *Error.
func (c *Client) Read(ctx context.Context, examples []config.ModelExample, screen string) (Reply, error) {
	body, err := c.Request(examples, screen)
	if err != nil {
		return Reply{}, &Error{Kind: FailHTTP, Err: err}
	}
	ctx, cancel := context.WithTimeout(ctx, c.cfg.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.URL(), bytes.NewReader(body))
	if err != nil {
		return Reply{}, &Error{Kind: FailHTTP, Err: err}
	}
	req.Header.Set("Content-Type", "application/json")
	if c.key != "" {
		req.Header.Set("Authorization", "Bearer "+c.key)
	}
	start := time.Now()
	resp, err := c.http.Do(req)
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) || isTimeout(err) {
			return Reply{}, &Error{Kind: FailTimeout, Err: fmt.Errorf("no reply from %s within %s", c.URL(), c.cfg.Timeout)}
		}
		return Reply{}, &Error{Kind: FailHTTP, Err: fmt.Errorf("POST %s: %v", c.URL(), scrub(err.Error(), c.key))}
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		kind := FailHTTP
		if isTimeout(err) || time.Since(start) >= c.cfg.Timeout {
			kind = FailTimeout
		}
		return Reply{}, &Error{Kind: kind, Err: fmt.Errorf("reading the reply of %s: %v", c.URL(), err)}
	}
	if resp.StatusCode != http.StatusOK {
		return Reply{}, &Error{Kind: FailHTTP, Err: fmt.Errorf("POST %s: %s: %s", c.URL(), resp.Status, clip(config.Clean(scrub(string(data), c.key), 200), 200))}
	}
	return ParseResponse(data)
}

func isTimeout(err error) bool {
	var t interface{ Timeout() bool }
	return errors.As(err, &t) && t.Timeout()
}

// scrub removes the key from a message, should an endpoint echo it.
func scrub(s, key string) string {
	if key == "" {
		return s
	}
	return strings.ReplaceAll(s, key, Redacted)
}
