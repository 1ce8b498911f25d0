// Command flood is an attacker for the connection-slot tests: one process
// that opens N connections to a supervisor's socket and sends a `trigger`
// with wait on each (to a busy agent they all wait), then holds them until
// its stdin closes, and exits without closing them (the kernel does).
//
//	flood SOCKET N [loop|subscribe]
//
// It prints one line: "waiting W refused R other O" — the calls still
// waiting after a moment, those answered TOO_MANY_CLIENTS, and anything
// else (connect failures, other answers). With loop, it then keeps N
// calls outstanding until stdin closes: each call that ends (refused,
// closed) is sent again at once on a new connection, the hardest one
// process can press. With subscribe, it sends `subscribe` instead of a
// trigger (the attack review's subflood.py: subscriptions held from one
// process) and prints "subscribed S refused R other O".
package main

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/sup-tmux/sup/ipc"
	"github.com/vmihailenco/msgpack/v5"
)

func main() {
	mode := ""
	if len(os.Args) == 4 {
		mode = os.Args[3]
	}
	if len(os.Args) < 3 || len(os.Args) > 4 || (mode != "" && mode != "loop" && mode != "subscribe") {
		fmt.Fprintln(os.Stderr, "usage: flood SOCKET N [loop|subscribe]")
		os.Exit(2)
	}
	n, err := strconv.Atoi(os.Args[2])
	if err != nil || n < 1 {
		fmt.Fprintf(os.Stderr, "flood: N %q: need a positive number\n", os.Args[2])
		os.Exit(2)
	}
	var mu sync.Mutex
	counts := map[string]int{}
	var wg sync.WaitGroup
	var conns []net.Conn
	for i := range n {
		c, err := dial(os.Args[1])
		if err != nil {
			counts["other"]++
			continue
		}
		conns = append(conns, c)
		p := ipc.TriggerParams{TriggerID: fmt.Sprintf("flood-%d-%d", os.Getpid(), i), ThreadID: fmt.Sprintf("flood-%d", i),
			Prompt: "flood", Wait: true, Requester: "flood"}
		req := map[string]any{"v": ipc.ProtocolVersion, "id": 1, "method": ipc.MethodTrigger, "params": p}
		if mode == "subscribe" {
			req = map[string]any{"v": ipc.ProtocolVersion, "id": 1, "method": ipc.MethodSubscribe}
		}
		if err := ipc.WriteFrame(c, req); err != nil {
			counts["other"]++
			continue
		}
		// A trigger still unanswered after a moment is waiting (held); a
		// subscribe is always answered, at once on an idle machine, but
		// seconds late beside a loaded suite: a short deadline would
		// count a late answer as neither.
		wait := time.Second
		if mode == "subscribe" {
			wait = 15 * time.Second
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			c.SetReadDeadline(time.Now().Add(wait))
			body, err := ipc.ReadFrame(c, 0)
			kind := "other"
			switch {
			case errors.Is(err, os.ErrDeadlineExceeded):
				kind = "waiting"
			case err == nil:
				var r ipc.Response
				switch {
				case msgpack.Unmarshal(body, &r) != nil:
				case r.Error != nil && r.Error.Code == ipc.CodeTooManyClients:
					kind = "refused"
				case r.OK && mode == "subscribe":
					kind = "subscribed"
				}
			}
			mu.Lock()
			counts[kind]++
			mu.Unlock()
		}()
	}
	wg.Wait()
	if mode == "subscribe" {
		fmt.Printf("subscribed %d refused %d other %d\n", counts["subscribed"], counts["refused"], counts["other"])
	} else {
		fmt.Printf("waiting %d refused %d other %d\n", counts["waiting"], counts["refused"], counts["other"])
	}
	if mode == "loop" {
		for i := range n {
			go func() {
				for j := 0; ; j++ {
					c, err := dial(os.Args[1])
					if err != nil {
						continue
					}
					p := ipc.TriggerParams{TriggerID: fmt.Sprintf("loop-%d-%d-%d", os.Getpid(), i, j), ThreadID: fmt.Sprintf("loop-%d", i),
						Prompt: "flood", Wait: true, Requester: "flood"}
					ipc.WriteFrame(c, map[string]any{"v": ipc.ProtocolVersion, "id": 1, "method": ipc.MethodTrigger, "params": p})
					ipc.ReadFrame(c, 0) // waits while the call does; ends when refused or closed
					c.Close()
				}
			}()
		}
	}
	io.Copy(io.Discard, os.Stdin)
	os.Exit(0) // the connections are left for the kernel to close
}

// dial connects, retrying while the accept backlog is full (EAGAIN).
func dial(path string) (net.Conn, error) {
	for try := 0; ; try++ {
		c, err := net.Dial("unix", path)
		if !errors.Is(err, syscall.EAGAIN) || try == 200 {
			return c, err
		}
		time.Sleep(5 * time.Millisecond)
	}
}
