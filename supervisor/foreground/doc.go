// Package foreground reads what the terminal's foreground process group is
// doing, for programs sup has no screen rules for (the shell profile, any
// command under a profile without a classifier pack).
//
// A screen says nothing reliable about a shell: a prompt looks like output.
// What does say it is the kernel: a process that waits for the human is
// blocked in a read of the terminal. So Sample looks at every task of the
// pty's foreground process group (TIOCGPGRP on the master) and asks /proc
// which system call each is blocked in (/proc/PID/task/TID/syscall), and on
// which file: a read of the pty's own slave, or a poll/select while the
// slave is the task's standard input (bash and readline wait in pselect6
// on fd 0), counts as waiting for the human. When /proc will not say
// (another uid, a kernel without syscall), wchan is the fallback, and
// failing that the facts say Unknown.
//
// Decide turns facts plus output recency into an activity (pure: the
// caller passes the time):
//
//   - output within the busy window: busy, whatever the process does (a
//     command that prints every 200 ms is never idle, even when the sample
//     lands while it sleeps between lines);
//   - otherwise, a task blocked reading the terminal: ready;
//   - otherwise: busy (running, sleeping, waiting for a child).
//
// A sample never lists /proc: the group comes from the master (TIOCGPGRP,
// TIOCGSID), the leader is read first, and only when it does not read the
// terminal are the other members looked for, among the session's own
// processes (/proc/PID/task/TID/children from the session leader down).
// The cost is O(processes of this terminal's session), never O(processes
// on the host) (specs/detection.md, "What a look costs"). The supervisor
// samples only when it has to decide: after output goes quiet, and while a
// quiet command is still busy (backing off to tens of seconds), never
// while the program is known to wait.
package foreground
