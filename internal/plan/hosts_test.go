//go:build linux

package plan

import (
	"reflect"
	"strings"
	"testing"
)

func TestUnitConfigHosts(t *testing.T) {
	dir, _ := unitWriteConfig(t, "hosts:\n  - {name: gpu, ssh: me@gpu-box}\n  - {name: vm, ssh: devvm, sup: /opt/sup/bin/sup}\n")
	cfg, err := LoadConfig(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := []HostConfig{{Name: "gpu", SSH: "me@gpu-box", Sup: "sup"}, {Name: "vm", SSH: "devvm", Sup: "/opt/sup/bin/sup"}}
	if !reflect.DeepEqual(cfg.Hosts, want) {
		t.Errorf("hosts = %+v, want %+v", cfg.Hosts, want)
	}
}

func TestUnitConfigHostsErrors(t *testing.T) {
	for _, tt := range []struct{ content, want string }{
		{"hosts:\n  - {name: 'a:b', ssh: x}\n", "hosts[0].name"},
		{"hosts:\n  - {name: all, ssh: x}\n", "reserved"},
		{"hosts:\n  - {name: a, ssh: x}\n  - {name: a, ssh: y}\n", "hosts[1].name \"a\": listed twice"},
		{"hosts:\n  - {name: a}\n", "hosts[0].ssh \"\": must be an ssh destination"},
		{"hosts:\n  - {name: a, ssh: -oProxyCommand=x}\n", "hosts[0].ssh"},
		{"hosts:\n  - {name: a, ssh: x, shh: y}\n", "shh"},
	} {
		dir, path := unitWriteConfig(t, tt.content)
		_, err := LoadConfig(dir)
		if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), path) {
			t.Errorf("LoadConfig(%q) = %v; want an error naming %s and %q", tt.content, err, path, tt.want)
		}
	}
}
