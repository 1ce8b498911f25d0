// Package plan resolves what one run of an agent is: the document and its
// frontmatter, the configuration (config.yaml), the profile (built-in YAML
// in profiles/, overlaid by the user's), the working directory and the
// child's environment. Resolve turns Options into a Plan; the supervisor
// resolves again before every restart, so an edited document takes effect
// without restarting sup.
//
// The package is pure: it reads files and environment lists, starts no
// process and imports no pty, screen or classifier code — nothing under
// supervisor/: the sections that configure the supervisor's parts are
// internal/config's types — so the broker and the CLI can load profiles and
// configuration cheaply. A profile's classify: section is kept as written
// (PackSource); the supervisor compiles it (supervisor.CompilePack).
//
// Every bad input is an error naming the file, the line where there is one,
// and the valid choices (specs/supervisor.md, specs/config.md).
package plan
