// Command peer is a test helper for ipc's peer-uid checks, run as another
// user (setpriv):
//
//	peer SOCKET        connect without the client's check (net.Dial and
//	                   ipc.NewClient: the server's check is under test),
//	                   call hello and print "ok", "code=<CODE>" or
//	                   "error=<text>"
//	peer -dial SOCKET  the same through ipc.Dial, which checks the server
//	peer -serve SOCKET a fake supervisor, as a hostile local user would
//	                   run one: it listens on SOCKET (mode 0666), answers
//	                   every request ok whoever asks, and prints
//	                   "serving", then "frame <method>" for each request,
//	                   until killed
package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"time"

	"github.com/sup-tmux/sup/ipc"
	"github.com/vmihailenco/msgpack/v5"
)

func main() {
	switch {
	case len(os.Args) == 2:
		nc, err := net.DialTimeout("unix", os.Args[1], 2*time.Second)
		if err != nil {
			fmt.Printf("error=%v\n", err)
			return
		}
		hello(ipc.NewClient(nc))
	case len(os.Args) == 3 && os.Args[1] == "-dial":
		c, err := ipc.Dial(os.Args[2], 2*time.Second)
		if err != nil {
			report(err)
			return
		}
		hello(c)
	case len(os.Args) == 3 && os.Args[1] == "-serve":
		serve(os.Args[2])
	default:
		fmt.Fprintln(os.Stderr, "usage: peer [-dial|-serve] SOCKET")
		os.Exit(2)
	}
}

func hello(c *ipc.Client) {
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	report(c.Call(ctx, ipc.MethodHello, nil, nil))
}

func report(err error) {
	var e *ipc.Error
	switch {
	case err == nil:
		fmt.Println("ok")
	case errors.As(err, &e):
		fmt.Printf("code=%s %s\n", e.Code, e.Message)
	default:
		fmt.Printf("error=%v\n", err)
	}
}

func serve(path string) {
	ln, err := net.Listen("unix", path)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Chmod(path, 0o666) // Best effort: the victim needs write permission to connect.
	fmt.Println("serving")
	for {
		nc, err := ln.Accept()
		if err != nil {
			return
		}
		go func() {
			defer nc.Close()
			for {
				body, err := ipc.ReadFrame(nc, ipc.DefaultMaxFrame)
				if err != nil {
					return
				}
				var req ipc.Request
				msgpack.Unmarshal(body, &req) // Best effort: a method-less frame still counts
				fmt.Printf("frame %s\n", req.Method)
				ipc.WriteFrame(nc, ipc.Response{ID: req.ID, OK: true})
			}
		}()
	}
}
