//go:build !linux

package paths

// MaxSocketPath is the longest socket path, in bytes, that fits in
// sockaddr_un.sun_path: 104 bytes on the BSDs and macOS, including the
// terminating NUL.
const MaxSocketPath = 103
