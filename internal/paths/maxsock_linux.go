package paths

// MaxSocketPath is the longest socket path, in bytes, that fits in
// sockaddr_un.sun_path (108 bytes on Linux, including the terminating NUL).
const MaxSocketPath = 107
