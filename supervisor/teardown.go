//go:build linux

package supervisor

// teardown is what Start set up, as a value: each step adds the function
// that undoes it, and Close runs them in reverse order (the last thing set
// up comes down first), once. The order is data a test can check instead
// of a column of defers whose order only comments explain.
type teardown struct{ fns []func() }

// Add registers fn to run at Close, before everything added earlier.
func (t *teardown) Add(fn func()) { t.fns = append(t.fns, fn) }

// Close runs the registered functions, last added first, and forgets them:
// a second Close does nothing.
func (t *teardown) Close() {
	for i := len(t.fns) - 1; i >= 0; i-- {
		t.fns[i]()
	}
	t.fns = nil
}
