package paneinput

import (
	"bytes"
	"reflect"
	"testing"
	"time"
)

// FuzzTokenize feeds arbitrary bytes whole, split in two at an arbitrary
// point, and one byte per read, all at one instant: nothing may panic, the
// tokens' bytes must add up to the input in every case, and the split
// feeds must give the tokens of the whole feed (pastes and streamed string
// pieces joined), so no sequence completed by a later read was released
// as a lone Esc or as keys. A last feed with the clock moving past every
// deadline checks that timeouts, too, lose and add nothing.
func FuzzTokenize(f *testing.F) {
	for _, c := range append(append([]tokenCase{}, reportCases...), operatorCases...) {
		f.Add([]byte(c.in), uint16(len(c.in)/2))
	}
	f.Add([]byte("\x1b[200~\x1b[20\x1b[201~\x1b"), uint16(9))
	f.Add([]byte("\x1b]11;\x1b\x1b\\\x1bP>|x\x18\x1b[M\x1b"), uint16(5))
	f.Fuzz(func(t *testing.T, data []byte, split uint16) {
		k := int(split) % (len(data) + 1)
		whole := feedAll(data)
		if got := concat(whole); !bytes.Equal(got, data) {
			t.Fatalf("whole feed: tokens add up to %q, input %q", got, data)
		}
		halves := feedAll(data[:k], data[k:])
		if got := concat(halves); !bytes.Equal(got, data) {
			t.Fatalf("split at %d: tokens add up to %q, input %q", k, got, data)
		}
		if !reflect.DeepEqual(merged(halves), merged(whole)) {
			t.Fatalf("split at %d:\n got %v\nwant %v", k, merged(halves), merged(whole))
		}
		var bytewise [][]byte
		for i := range data {
			bytewise = append(bytewise, data[i:i+1])
		}
		one := feedAll(bytewise...)
		if !reflect.DeepEqual(merged(one), merged(whole)) {
			t.Fatalf("byte by byte:\n got %v\nwant %v", merged(one), merged(whole))
		}

		tz := New(time.Millisecond)
		var slow []tok
		now := t0
		for i := range data {
			slow = append(slow, own(tz.Feed(data[i:i+1], now))...)
			now = now.Add(time.Duration(data[i]%3) * time.Millisecond)
			slow = append(slow, own(tz.Flush(now))...)
		}
		slow = append(slow, own(tz.Flush(now.Add(time.Hour)))...)
		if got := concat(slow); !bytes.Equal(got, data) || len(tz.Held()) != 0 {
			t.Fatalf("with timeouts: tokens add up to %q (held %q), input %q", got, tz.Held(), data)
		}
	})
}
