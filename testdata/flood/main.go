// Command flood is an attacker for the connection-slot tests: one process
// that opens N connections to a supervisor's socket and sends a `trigger`
// with wait on each (to a busy agent they all wait), then holds them until
// its stdin closes, and exits without closing them (the kernel does).
//
//	flood SOCKET N [loop|subscribe]
//
// It prints one line: "waiting W refused R other O" — the calls still
// unanswered once no call has been answered for 3 s, those answered
// TOO_MANY_CLIENTS, and anything else (connect failures, other answers). With loop, it then keeps N
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
	var (
		mu             sync.Mutex
		counts         = map[string]int{}
		sent, answered int
		last           = time.Now() // the last call sent or answered
	)
	count := func(kind string) {
		mu.Lock()
		defer mu.Unlock()
		counts[kind]++
	}
	var conns []net.Conn
	for i := range n {
		c, err := dial(os.Args[1])
		if err != nil {
			count("other")
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
			count("other")
			continue
		}
		mu.Lock()
		sent++
		last = time.Now()
		mu.Unlock()
		go func() {
			// No read deadline: one that expires between a frame's
			// length and its body loses the frame's start.
			body, err := ipc.ReadFrame(c, 0)
			kind := "other"
			if err == nil {
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
			defer mu.Unlock()
			counts[kind]++
			answered++
			last = time.Now()
		}()
	}
	// The calls still unanswered once none has been answered for quiet
	// are waiting. (A fixed one-second deadline per call counted
	// refusals a loaded supervisor sent late as waiting: "subscribed 16
	// refused 55", 41 lost, in a CI run under -race beside the
	// real-agent tests. The supervisor answers every call it refuses.)
	const quiet = 3 * time.Second
	for {
		mu.Lock()
		if answered == sent || time.Since(last) >= quiet {
			counts["waiting"] = sent - answered
			break // holding mu: late answers wait until the report is out
		}
		mu.Unlock()
		time.Sleep(20 * time.Millisecond)
	}
	if mode == "subscribe" {
		fmt.Printf("subscribed %d refused %d other %d\n", counts["subscribed"], counts["refused"], counts["other"])
	} else {
		fmt.Printf("waiting %d refused %d other %d\n", counts["waiting"], counts["refused"], counts["other"])
	}
	mu.Unlock()
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
