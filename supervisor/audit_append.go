package supervisor

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
)

// AppendAudit appends one record (any JSON object) to stateDir/audit.jsonl,
// the trail the supervisors' triggers write too, and syncs it: the broker's
// routing steps go there with "source": "broker". One write of one line
// with O_APPEND keeps lines whole among concurrent writers.
func AppendAudit(stateDir string, rec any) error {
	line, err := json.Marshal(rec)
	if err != nil {
		return fmt.Errorf("audit: encode: %w", err)
	}
	if err := os.MkdirAll(stateDir, 0o700); err != nil {
		return fmt.Errorf("audit: %w", err)
	}
	path := filepath.Join(stateDir, "audit.jsonl")
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("audit: open %s: %w", path, err)
	}
	defer f.Close()
	if _, err := f.Write(append(line, '\n')); err != nil {
		return fmt.Errorf("audit: write %s: %w", path, err)
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("audit: sync %s: %w", path, err)
	}
	return nil
}
