// Package atomicfile is sup's one way to replace a file: write a
// temporary file beside it, then rename it over the old one, so a reader
// (a broker listing the queue, Prometheus's textfile collector, an agent
// CLI reading its settings) sees the old file or the new one, never half
// of one.
//
// Invariants:
//   - The temporary file is in the target's directory (a rename across
//     file systems is not atomic) and its name starts with "." and ends in
//     ".tmp", which the textfile collector and sup's own directory scans
//     skip.
//   - On any error the temporary file is removed and the target is as it
//     was.
//   - The mode is set on the temporary file before the rename: the new
//     file never exists with a wider mode than asked.
package atomicfile
