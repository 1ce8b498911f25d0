//go:build linux

package supervisor

import "testing"

// TestUnitChangesSignal: a waiter's channel is closed by the next change
// and only by it; after it, a new wait gets a new, open channel; a change
// nobody waits for is lost to nobody.
func TestUnitChangesSignal(t *testing.T) {
	var c changes
	c.poke() // nobody waits: nothing to close
	a, b := c.wait(), c.wait()
	if a != b {
		t.Fatal("two waiters before a change got different channels")
	}
	select {
	case <-a:
		t.Fatal("closed before any change")
	default:
	}
	c.poke()
	select {
	case <-a:
	default:
		t.Fatal("the change did not close the waiter's channel")
	}
	n := c.wait()
	select {
	case <-n:
		t.Fatal("a wait after the change got a closed channel")
	default:
	}
}
