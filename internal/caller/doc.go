// Package caller decides who made a call on a supervisor socket: the
// operator, or an agent (specs/security.md, "Who is calling").
//
// The kernel names the caller's process (SO_PEERCRED); its ancestry, read
// from the process table, says whether it runs inside a supervised agent.
// A supervisor is a child subreaper (supervisor/proc.BecomeFamilyHead), so
// every process an agent starts — a background job, a double-forked setsid
// daemon — keeps a chain of parents that leads through the supervisor.
//
// Invariants (Decide; tested over fake process tables in caller_test.go):
//
//   - The verdict is operator only when the whole chain from the caller to
//     the root was read and no ancestor encloses it. Anything unread — a
//     process gone mid-walk, a pid reused (a parent that started after its
//     child), a chain longer than MaxDepth or with a cycle — is an error,
//     never a guess.
//   - An ancestor A encloses the chain when A is of the caller's uid, runs
//     sup (Config.IsSup: the same executable as the decider, or one named
//     sup) and the chain's process just below A is outside A's session (A
//     started it behind a new pty, or adopted it as an orphan). A sup
//     client's own children (same session) are not enclosed; sup's own
//     helpers (the guard, in sup's session) are not agents. The decider's
//     own pid (Config.Self) encloses without looking at its executable.
//     Init (pid 1) never encloses unless it is the decider: it adopts
//     every orphan of the host (a subreaper failing would leave the
//     agent's daemons there, which sup logs as subreaper_failed).
//   - Only facts an agent cannot forge decide: parent links, sessions,
//     start times and the executables of the enclosing processes, all read
//     from /proc. Files in the runtime and state directories (which every
//     process of the uid can write) never make a caller the operator.
//   - An ancestor whose exe cannot be read (not dumpable: of our uid on
//     some kernels, root's on a stock one) is judged by its comm, which
//     execve set and no other process can change (CommIsSup).
//   - Walking goes on above processes of other uids: a sudo between the
//     caller and its agent does not hide the agent. One exception fails
//     closed: root owns /proc/PID of a process that is not dumpable (a
//     supervisor run from a 0711 binary), so an ancestor owned by root
//     whose comm is sup's is taken for a supervisor.
//   - A caller the kernel could not name (pid 0: another pid namespace)
//     is an agent of an unidentified session.
package caller
