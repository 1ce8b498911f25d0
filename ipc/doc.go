//go:build linux

// Package ipc is sup's control-socket protocol (v1): framing, message types,
// a server and a client.
//
// A frame is a 4-byte big-endian length N followed by N bytes holding one
// msgpack value. Requests are maps {"v":1,"id":uint,"method":str,"params":map};
// responses are {"id","ok","result"|"error"}; a subscribed connection carries
// events {"event","seq","at","data"}. specs/ipc.md is the full reference.
//
// Editor plugins and dashboards written in Go can import this package and
// use [Dial] and [Client.Call]; clients in other languages need only the spec.
package ipc
