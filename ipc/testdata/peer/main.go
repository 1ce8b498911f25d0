// Command peer is a test helper for ipc's peer-uid check: run as another
// user, it calls hello on the socket named by its argument and prints the
// outcome ("ok", "code=<CODE>" or "error=<text>").
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/sup-tmux/sup/ipc"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: peer SOCKET")
		os.Exit(2)
	}
	c, err := ipc.Dial(os.Args[1], 2*time.Second)
	if err != nil {
		fmt.Printf("error=%v\n", err)
		return
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	err = c.Call(ctx, ipc.MethodHello, nil, nil)
	var e *ipc.Error
	switch {
	case err == nil:
		fmt.Println("ok")
	case errors.As(err, &e):
		fmt.Printf("code=%s\n", e.Code)
	default:
		fmt.Printf("error=%v\n", err)
	}
}
