//go:build linux

package testutil

import (
	"fmt"
	"slices"
	"sync"
	"time"
)

// LoadResult is what RunLoad measured.
type LoadResult struct {
	Clients, Calls int
	Elapsed        time.Duration
	Latencies      []time.Duration // every call's, sorted
	Errors         int
	FirstErr       error
}

// RunLoad runs clients goroutines at once; each calls connect once and then
// the call it returned calls times, timing every call. A failed connect
// counts as calls errors.
func RunLoad(clients, calls int, connect func() (call func() error, done func(), err error)) LoadResult {
	res := LoadResult{Clients: clients, Calls: calls}
	var mu sync.Mutex
	fail := func(n int, err error) {
		mu.Lock()
		defer mu.Unlock()
		res.Errors += n
		if res.FirstErr == nil {
			res.FirstErr = err
		}
	}
	lat := make([][]time.Duration, clients)
	var wg sync.WaitGroup
	start := time.Now()
	for i := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			call, done, err := connect()
			if err != nil {
				fail(calls, err)
				return
			}
			defer done()
			lat[i] = make([]time.Duration, 0, calls)
			for range calls {
				t0 := time.Now()
				err := call()
				lat[i] = append(lat[i], time.Since(t0))
				if err != nil {
					fail(1, err)
				}
			}
		}()
	}
	wg.Wait()
	res.Elapsed = time.Since(start)
	res.Latencies = slices.Concat(lat...)
	slices.Sort(res.Latencies)
	return res
}

// Percentile returns the latency at p (0..1).
func (r LoadResult) Percentile(p float64) time.Duration {
	if len(r.Latencies) == 0 {
		return 0
	}
	return r.Latencies[int(p*float64(len(r.Latencies)-1))]
}

// String summarises the run for a test log.
func (r LoadResult) String() string {
	return fmt.Sprintf("%d clients × %d calls in %v (%.0f calls/s): p50 %v, p99 %v, max %v, %d errors",
		r.Clients, r.Calls, r.Elapsed.Round(time.Millisecond), float64(len(r.Latencies))/r.Elapsed.Seconds(),
		r.Percentile(0.5), r.Percentile(0.99), r.Percentile(1), r.Errors)
}
