// Command scrapestorm is a test helper: N clients GET a URL back to back,
// each keeping its connection alive as a scraper would, until SIGTERM; it
// then prints "scrapes=OK errors=FAILED" and the first errors. It runs as
// its own process so that the storm's CPU is not the measuring process's.
//
//	scrapestorm -n 500 http://127.0.0.1:9464/metrics
package main

import (
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/signal"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

func main() {
	n := flag.Int("n", 500, "parallel clients")
	timeout := flag.Duration("timeout", 30*time.Second, "per scrape")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: scrapestorm [-n N] [-timeout D] URL")
		os.Exit(2)
	}
	url := flag.Arg(0)
	var ok, failed atomic.Int64
	var mu sync.Mutex
	var firstErrs []string
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for range *n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			client := &http.Client{Transport: &http.Transport{}, Timeout: *timeout}
			for {
				select {
				case <-stop:
					return
				default:
				}
				resp, err := client.Get(url)
				if err == nil {
					_, err = io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					if err == nil && resp.StatusCode != http.StatusOK {
						err = fmt.Errorf("status %s", resp.Status)
					}
				}
				if err != nil {
					failed.Add(1)
					mu.Lock()
					if len(firstErrs) < 3 {
						firstErrs = append(firstErrs, err.Error())
					}
					mu.Unlock()
					continue
				}
				ok.Add(1)
			}
		}()
	}
	fmt.Println("storming")
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM, syscall.SIGINT)
	<-sig
	close(stop)
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(*timeout):
	}
	fmt.Printf("scrapes=%d errors=%d\n", ok.Load(), failed.Load())
	for _, e := range firstErrs {
		fmt.Println("error:", e)
	}
}
