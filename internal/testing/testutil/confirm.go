//go:build linux

package testutil

// ConfirmProfile is a user profile (write it as
// config/sup/profiles/confirm.yaml) for fakeagent -raw -confirm: its title
// says when it asks, its question line carries the summary, and y, n or a
// digit answers it.
const ConfirmProfile = `command: [fakeagent]
submit_delay: 1ms
classify:
  rules:
    - name: confirm
      activity: needs_confirmation
      reason: permission
      title: '^\[\?\] '
      summary: '(?m)^Allow (.+)\? \[y/n\]$'
    - name: idle
      activity: ready
      reason: idle
      title: '^\[>\] '
answers:
  permission:
    yes: "y"
    no: "n"
    numbers: true
    options: '^  ([1-9])\. (.+)$'
`
