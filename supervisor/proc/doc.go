//go:build linux

// Package proc is the process layer under a supervisor, the part shaped
// like creack/pty: StartChild starts the agent behind a new pty as the
// leader of its own session, Child.Pump copies its output, Child.Wait
// reaps it and ends whatever is left of its run, Child.Terminate ends it
// on request; SetSize, Termios and FDControl reach the pty through a
// non-blocking master (Pollable).
//
// sup is the head of the agent's process family (BecomeFamilyHead): a
// subreaper that forks every child from one locked OS thread, so that
// nothing a run started outlives it, and a guard process (StartGuard,
// RunGuardIfAsked) that cleans up when sup itself is SIGKILLed
// (specs/reliability.md). Linux only: it reads /proc and uses
// PR_SET_CHILD_SUBREAPER and Pdeathsig.
package proc
