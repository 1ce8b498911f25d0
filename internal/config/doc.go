// Package config holds the sections of config.yaml and of a profile that
// configure the supervisor's parts, as data: `trigger:` (Trigger),
// `notify:` (Notify), `model:` (Model), a profile's `questions:`
// (Questions) and `model_examples:` (ModelExample, with the model
// reader's reading contract, ModelReply), each with its defaults and its
// validation.
//
// internal/plan owns config.yaml and the profiles and decodes into these
// types; the supervisor's leaf packages (supervisor/trigger, notify,
// modelread, question) take them as their configuration. So plan checks a
// whole configuration without importing the supervisor (specs/supervisor.md,
// "Layout").
//
// Invariants:
//   - Pure: the standard library only, no goroutine, no state. The one
//     read is Model.LoadKey's .env file, which is the configuration's
//     own: where the API key is kept.
//   - Every Validate error names the key and the valid choices, as the
//     rest of config.yaml's errors do (specs/config.md).
//   - Behaviour stays with its package: the trigger schedule, notify's
//     policy, the model client and the question detector are not here.
package config
