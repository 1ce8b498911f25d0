package config

import (
	"bufio"
	"errors"
	"fmt"
	"net/url"
	"os"
	"regexp"
	"strings"
	"time"
)

// Defaults of Model.
const (
	DefaultTimeout = 10 * time.Second
	DefaultBudget  = 60 // calls per hour per host
	MaxBudget      = 3600
)

// Model is config.yaml's `model:` section, the configuration of
// supervisor/modelread. The model reader is off while Endpoint is empty.
type Model struct {
	// Endpoint is the base URL of an OpenAI-compatible API
	// (https://openrouter.ai/api/v1, https://api.openai.com/v1,
	// http://127.0.0.1:11434/v1 for Ollama); sup POSTs to
	// <endpoint>/chat/completions.
	Endpoint string `yaml:"endpoint"`
	Name     string `yaml:"name"` // the model
	// KeyEnv names the environment variable holding the API key; EnvFile a
	// .env file (NAME=VALUE lines) read when the variable is not set. A
	// local server may need neither.
	KeyEnv  string        `yaml:"key_env"`
	EnvFile string        `yaml:"env_file"`
	Timeout time.Duration `yaml:"timeout"`
	// Budget is the most calls per hour on this host, all sessions
	// together; 0: DefaultBudget.
	Budget int `yaml:"budget"`
	// Redact are the user's patterns (Go regexps), on top of the built-in
	// ones.
	Redact []string `yaml:"redact"`
	// Summaries: also ask for a summary of a dialog a rule knows but
	// reads no summary from.
	Summaries bool `yaml:"summaries"`

	// Key is here only to be refused with a clear error.
	Key string `yaml:"key"`
}

// Enabled reports whether the model reader is on.
func (c Model) Enabled() bool { return c.Endpoint != "" }

// WithDefaults fills the zero numbers.
func (c Model) WithDefaults() Model {
	if c.Timeout <= 0 {
		c.Timeout = DefaultTimeout
	}
	if c.Budget <= 0 {
		c.Budget = DefaultBudget
	}
	return c
}

// Validate checks the section; every error names the key and what is valid.
func (c Model) Validate() error {
	if c.Key != "" {
		return errors.New("model: key: the API key never goes in config.yaml; put it in an environment variable and name it with key_env (or in a .env file named by env_file)")
	}
	if !c.Enabled() {
		if c.Name != "" || c.KeyEnv != "" || c.EnvFile != "" || len(c.Redact) > 0 {
			return errors.New("model: endpoint is empty, so the model reader is off; give endpoint (e.g. https://openrouter.ai/api/v1) or remove the model: section")
		}
		return nil
	}
	u, err := url.Parse(c.Endpoint)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("model: endpoint %q: want an http(s) base URL such as https://openrouter.ai/api/v1 (sup POSTs to <endpoint>/chat/completions)", c.Endpoint)
	}
	if u.RawQuery != "" || u.Fragment != "" || u.User != nil {
		return fmt.Errorf("model: endpoint %q: no query, fragment or user:password in it (the key goes in key_env)", c.Endpoint)
	}
	if strings.TrimSpace(c.Name) == "" {
		return errors.New("model: name: empty; give the model's name as the endpoint knows it (e.g. openai/gpt-4o-mini)")
	}
	if c.Timeout < 0 || c.Budget < 0 {
		return fmt.Errorf("model: timeout %s, budget %d: must not be negative (0: the defaults %s, %d)", c.Timeout, c.Budget, DefaultTimeout, DefaultBudget)
	}
	if c.Budget > MaxBudget {
		return fmt.Errorf("model: budget %d: at most %d calls per hour", c.Budget, MaxBudget)
	}
	if c.KeyEnv != "" && !envName(c.KeyEnv) {
		return fmt.Errorf("model: key_env %q: want an environment variable's name (letters, digits, _), not the key itself", c.KeyEnv)
	}
	if c.EnvFile != "" && c.KeyEnv == "" {
		return errors.New("model: env_file needs key_env, the variable to read from it")
	}
	_, err = RedactPatterns(c.Redact)
	return err
}

// RedactPatterns compiles the user's redact patterns (Go regexps); an
// error names the pattern and why it is refused. modelread.NewRedactor
// adds them to its built-in ones.
func RedactPatterns(user []string) ([]*regexp.Regexp, error) {
	var out []*regexp.Regexp
	for i, p := range user {
		re, err := regexp.Compile(p)
		if err != nil {
			return nil, fmt.Errorf("model: redact[%d] %q: bad regex: %v", i, p, err)
		}
		if re.MatchString("") {
			return nil, fmt.Errorf("model: redact[%d] %q: matches the empty string (it would redact nothing useful and everything between)", i, p)
		}
		out = append(out, re)
	}
	return out, nil
}

func envName(s string) bool {
	for i, r := range s {
		if !(r == '_' || r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || i > 0 && r >= '0' && r <= '9') {
			return false
		}
	}
	return s != ""
}

// LoadKey finds the API key: the variable KeyEnv in the environment
// (lookup), else in EnvFile. "" with no error when KeyEnv is empty (a local
// server without a key); an error when KeyEnv is named but set nowhere.
func (c Model) LoadKey(lookup func(string) (string, bool)) (string, error) {
	if c.KeyEnv == "" {
		return "", nil
	}
	if v, ok := lookup(c.KeyEnv); ok && v != "" {
		return v, nil
	}
	if c.EnvFile == "" {
		return "", fmt.Errorf("model: key_env %s is not set in sup's environment (and no env_file is named)", c.KeyEnv)
	}
	v, err := readEnvFile(c.EnvFile, c.KeyEnv)
	if err != nil {
		return "", fmt.Errorf("model: env_file %s: %w", c.EnvFile, err)
	}
	return v, nil
}

// readEnvFile reads NAME from a .env file: NAME=VALUE lines, optionally
// "export ", quotes around the value, # comments.
func readEnvFile(path, name string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		line = strings.TrimPrefix(line, "export ")
		k, v, ok := strings.Cut(line, "=")
		if !ok || strings.HasPrefix(line, "#") || strings.TrimSpace(k) != name {
			continue
		}
		v = strings.TrimSpace(v)
		if len(v) >= 2 && (v[0] == '"' || v[0] == '\'') && v[len(v)-1] == v[0] {
			v = v[1 : len(v)-1]
		}
		if v == "" {
			break
		}
		return v, nil
	}
	if err := sc.Err(); err != nil {
		return "", err
	}
	return "", fmt.Errorf("no %s=… line in it", name)
}
