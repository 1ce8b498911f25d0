package ipc_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"time"

	"github.com/sup-tmux/sup/ipc"
)

// A client finds the sessions in the runtime dir and asks one for its
// state. The first half stands in for a supervisor (the real server on a
// real socket, answering state), so the example runs without one; a
// client author keeps the second half.
func ExampleDial() {
	dir, err := os.MkdirTemp("", "sup-example-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)

	// The stand-in supervisor.
	path, err := ipc.SocketPath(dir, "s1")
	if err != nil {
		log.Fatal(err)
	}
	ln, err := ipc.Listen(path)
	if err != nil {
		log.Fatal(err)
	}
	srv := ipc.NewServer(ipc.ServerConfig{})
	srv.Handle(ipc.MethodState, func(context.Context, *ipc.Request) (any, error) {
		return ipc.State{SessionID: "s1", Name: "docs", Activity: "working"}, nil
	})
	go srv.Serve(ln)
	defer srv.Shutdown(time.Second)

	// The client. Outside this example the dir is ipc.RuntimeDir(os.Getenv),
	// and a supervisor's agent finds its own socket in $SUP_SOCKET.
	runtimeDir := ipc.RuntimeDir(func(k string) string {
		if k == "SUP_RUNTIME_DIR" {
			return dir
		}
		return os.Getenv(k)
	})
	if err := ipc.CheckRuntimeDir(runtimeDir); err != nil {
		log.Fatal(err) // not ours, or writable by others: trust nothing in it
	}
	socks, err := filepath.Glob(filepath.Join(runtimeDir, "*.sock"))
	if err != nil {
		log.Fatal(err)
	}
	for _, sock := range socks {
		c, err := ipc.Dial(sock, time.Second) // checks the server runs as our uid
		if err != nil {
			log.Print(err) // a stale socket (ipc.ErrStale) or another user's
			continue
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		var st ipc.State
		err = c.Call(ctx, ipc.MethodState, nil, &st)
		cancel()
		c.Close()
		if err != nil {
			log.Print(err)
			continue
		}
		fmt.Println(st.SessionID, st.Name, st.Activity)
	}
	// Output: s1 docs working
}
