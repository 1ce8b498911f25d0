//go:build linux

package supervisor

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// dropExecPages unmaps the pages of sup's own binary that this process has
// mapped read-only: its code and read-only data. Start-up maps most of
// them (the runtime reads its tables, and the kernel maps the page cache
// around each fault in whole folios: 5.7 of 6.5 MB of code and 5.2 of 6.7
// MB of read-only data in an idle supervisor that ran a few code paths),
// and they stay counted in its RSS for good. They are the page cache's,
// so dropping the mapping loses nothing: the next use maps them again with
// a minor fault, and while idle they count for no process and are the
// kernel's to reclaim first (specs/performance.md, "Idle RSS").
//
// Only mappings that hold no private page are touched (smaps' Anonymous
// is 0): MADV_DONTNEED on a page a write made private (a relocation)
// would bring back the file's bytes. It returns the bytes unmapped.
func dropExecPages() int {
	// The binary by device and inode, not by path: after an upgrade moved
	// or deleted it, smaps names it "PATH (deleted)" and /proc/self/exe
	// no longer matches a path field (nor does a path with a space, which
	// smaps does not quote) — the attack trial's finding.
	var st unix.Stat_t
	if err := unix.Stat("/proc/self/exe", &st); err != nil {
		return 0 // Best effort: memory, not correctness.
	}
	ino := strconv.FormatUint(st.Ino, 10)
	dev := fmt.Sprintf("%02x:%02x", unix.Major(st.Dev), unix.Minor(st.Dev))
	b, err := os.ReadFile("/proc/self/smaps")
	if err != nil {
		return 0 // Best effort.
	}
	type span struct{ start, end uintptr }
	var spans []span
	var cur *span
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		line := sc.Text()
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		if a, z, ok := strings.Cut(f[0], "-"); ok && len(f) >= 5 && !strings.HasSuffix(f[0], ":") {
			cur = nil
			if len(f) >= 6 && f[4] == ino && f[3] == dev && len(f[1]) == 4 && f[1][1] == '-' {
				start, err1 := strconv.ParseUint(a, 16, 64)
				end, err2 := strconv.ParseUint(z, 16, 64)
				if err1 == nil && err2 == nil {
					spans = append(spans, span{uintptr(start), uintptr(end)})
					cur = &spans[len(spans)-1]
				}
			}
			continue
		}
		if cur != nil && f[0] == "Anonymous:" && len(f) >= 2 && f[1] != "0" {
			cur.start, cur.end = 0, 0 // holds private pages: leave it
		}
	}
	n := 0
	for _, s := range spans {
		if s.end <= s.start {
			continue
		}
		if _, _, errno := unix.Syscall(unix.SYS_MADVISE, s.start, s.end-s.start, unix.MADV_DONTNEED); errno == 0 {
			n += int(s.end - s.start)
		}
	}
	return n
}
