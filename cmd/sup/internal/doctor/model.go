//go:build linux

package doctor

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"time"

	"github.com/sup-tmux/sup/internal/paths"
	"github.com/sup-tmux/sup/internal/plan"
	"github.com/sup-tmux/sup/supervisor/modelread"
)

// modelTestScreen is what the test call sends: a question any model reads,
// with nothing of the user's in it.
const modelTestScreen = "Overwrite notes.txt? [y/n]"

// checkModel checks the model reader when config.yaml turns it on: the
// key is where key_env says, and the endpoint answers a test screen in
// the reply contract. The test call is not counted against the budget.
func checkModel(ctx context.Context, o *Options) []Finding {
	cfg, err := plan.LoadConfig(o.ConfigDir)
	if err != nil || !cfg.Model.Enabled() {
		return nil // a bad config is checkConfig's finding; no model: nothing to check
	}
	path := paths.ConfigFile(o.ConfigDir)
	m := cfg.Model
	key, err := m.LoadKey(func(k string) (string, bool) { v := o.Getenv(k); return v, v != "" })
	if err != nil {
		return []Finding{{Check: "model", Severity: Problem, Subject: m.KeyEnv, Message: err.Error() + "; the model reader is off",
			Fix: "export " + m.KeyEnv + "=… before starting sup, or name a .env file holding it with model.env_file in " + path}}
	}
	c, err := modelread.NewClient(m, key)
	if err != nil {
		return []Finding{{Check: "model", Severity: Problem, Subject: path, Message: err.Error(), Fix: "edit " + path}}
	}
	var out []Finding
	if u, _ := url.Parse(m.Endpoint); key != "" && u.Scheme == "http" && !loopback(u.Hostname()) {
		out = append(out, Finding{Check: "model", Severity: Warning, Subject: m.Endpoint,
			Message: "the API key and the redacted screens go over plain http to " + u.Hostname(),
			Fix:     "use https for model.endpoint in " + path})
	}
	start := time.Now()
	r, err := c.Read(ctx, nil, modelTestScreen)
	if err != nil {
		fix := "check model.endpoint and model.name in " + path
		if k := modelread.KindOf(err); k == modelread.FailNotJSON || k == modelread.FailBadReply {
			fix = "the model answers, but not with the JSON asked for: try another model (model.name)"
		}
		return append(out, Finding{Check: "model", Severity: Problem, Subject: c.URL(), Message: err.Error(), Fix: fix})
	}
	return append(out, Finding{Check: "model", Severity: OK, Subject: c.URL(), Message: fmt.Sprintf("model %s answered a test screen (%s, %d options) in %d ms; budget %d calls/hour",
		m.Name, r.State, len(r.Actions), time.Since(start).Milliseconds(), c.Config().Budget)})
}

// loopback reports whether host is this machine (a local model server).
func loopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
