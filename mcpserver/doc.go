// Package mcpserver is mfdlq's Model Context Protocol server: the
// read-only steps as tools an incident agent can call over stdio (mfdlq
// mcp). An agent proposes; a person runs the command a plan prints.
//
// # Tool
//
// One read-only mfdlq command with fixed flags: ls, contain, inspect,
// classify, changes, logs, triage, verify (one look, no wait) and
// redrive_plan (redrive --dry-run). A tool's input becomes the command's
// argv, every value as --flag=VALUE so none can be read as a flag of its
// own, and the command's own flag validation checks it: there is no second
// copy of the rules here.
//
// # Guard
//
// Before any run, Guard checks the argv against an allow-list: the
// command must be one of the read-only ones and every flag one that
// command may take here (redrive only with --dry-run; never --yes,
// --pause-mapping, --delete, --out…). A tool that built anything else is
// refused, whatever the input.
//
// # Runner
//
// Runs one argv of mfdlq in-process with --output json and captured
// streams (cmd provides it). The server never imports cmd.
//
// # Result
//
// The command's JSON, every string in it redacted (redact), made safe
// (untrusted: no control, escape or bidi character reaches the agent) and
// shortened, arrays cut, the whole bounded (MaxResult): an agent's context
// is a terminal too.
//
// Reading order: tools.go, guard.go, result.go, server.go.
package mcpserver
