package plan

import (
	"fmt"
	"regexp"
	"strings"
)

// hostName is what a host may be called: it is typed in host:TARGET and
// shown in the host column, so no ':' and no blanks.
var hostName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)

// DefaultHostSup is the sup a host entry runs when it names none: the
// first sup in the remote login's PATH.
const DefaultHostSup = "sup"

// validateHosts checks hosts: and fills each entry's default sup.
func validateHosts(hosts []HostConfig) error {
	seen := map[string]bool{}
	for i := range hosts {
		h := &hosts[i]
		switch {
		case !hostName.MatchString(h.Name):
			return fmt.Errorf("hosts[%d].name %q: must be a name of letters, digits, '.', '_' or '-' (it is typed as NAME:TARGET)", i, h.Name)
		case h.Name == "all":
			return fmt.Errorf("hosts[%d].name %q: reserved (--host all means every host); choose another name", i, h.Name)
		case seen[h.Name]:
			return fmt.Errorf("hosts[%d].name %q: listed twice; each host needs its own name", i, h.Name)
		case h.SSH == "" || strings.HasPrefix(h.SSH, "-") || strings.ContainsAny(h.SSH, " \t\n"):
			return fmt.Errorf("hosts[%d].ssh %q: must be an ssh destination such as user@gpu-box or a Host alias of ~/.ssh/config", i, h.SSH)
		case strings.ContainsAny(h.Sup, "\n\x00"):
			return fmt.Errorf("hosts[%d].sup %q: must be a path such as /usr/local/bin/sup (or empty: sup in the host's PATH)", i, h.Sup)
		}
		seen[h.Name] = true
		if h.Sup == "" {
			h.Sup = DefaultHostSup
		}
	}
	return nil
}
