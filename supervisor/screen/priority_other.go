//go:build !linux

package screen

// yieldCPU does nothing where threads have no priority of their own.
func yieldCPU() {}
