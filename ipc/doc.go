// Package ipc is sup's control-socket protocol (v1): framing, message types,
// a server and a client.
//
// A frame is a 4-byte big-endian length N followed by N bytes holding one
// msgpack value. Requests are maps {"v":1,"id":uint,"method":str,"params":map};
// responses are {"id","ok","result"|"error"}; a subscribed connection carries
// events {"event","seq","at","data"}. specs/ipc.md is the full reference.
//
// Every event's data is a type of eventdata.go (specs/ipc.md's event
// table, held to it by TestEventKeysMatchSpec): the server publishes
// those, and a Go client decodes into them with Event.DecodeData.
//
// Editor plugins and dashboards written in Go can import this package and
// use [Dial] and [Client.Call]; clients in other languages need only the spec.
//
// Portability: the package (server side included) builds and works on
// Linux, macOS and FreeBSD; only the supervisor's process layer is
// Linux-only. The peer check reads SO_PEERCRED on Linux and LOCAL_PEERCRED
// on the BSDs (peer_*.go); FreeBSD reports no peer pid (0). On any other
// system the package builds but refuses every connection, since it cannot
// learn who is at the other end. Two Linux-specific behaviours have
// portable fallbacks: a zombie process counts as alive without pidfds
// (PIDAlive), and a BSD server whose backlog is full refuses connections
// instead of making them wait, so a prober there may take it for stale.
package ipc
