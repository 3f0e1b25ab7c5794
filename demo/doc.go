// Package demo runs the embedded demo fleet behind `a2atop demo`: five real
// A2A agents built on the official Go SDK server (a2asrv), each on its own
// 127.0.0.1 port, plus a small planner client that keeps giving them work
// at a human pace so a dashboard has something alive to show.
//
// The agents act out a small release workflow, the same every run:
//
//   - test-runner (A2A 1.0, JSON-RPC, streaming) runs a suite at a commit:
//     9f3c2e1 completes with 1 failed / 11 passed in summary.json, deadbee
//     fails, a full-suite run streams log chunks and can be canceled.
//   - code-reviewer (A2A 1.0, HTTP+JSON) asks which branch to compare
//     against (INPUT_REQUIRED) and completes when answered on the same task.
//   - deployer (A2A 1.0, JSON-RPC) rejects production deploys and puts
//     staging deploys in AUTH_REQUIRED until approved or denied, by a
//     message on the task or out of band by a change ticket.
//   - planner (A2A 1.0, JSON-RPC) ships a commit by asking the deployer,
//     waiting in AUTH_REQUIRED with referenceTaskIds naming the deployer's
//     task: a chain of two across agents.
//   - legacy-intake (A2A 0.3 JSON-RPC) asks for an email address
//     (input-required) and completes when given one.
//
// Approval by message: the Go SDK treats AUTH_REQUIRED as a non-final state,
// so the deployer's execution keeps running while it waits and the SDK
// refuses a second execution on the task (-32603 "task execution is already
// in progress"). A server CallInterceptor (see handoff.go) therefore sees a
// SendMessage on a task that waits for a decision, parses the decision,
// hands it to the waiting executor over a channel, and answers with the
// task once the executor has recorded the message in the task's history.
// A decision is a data part {"decision": "approve"|"deny", "reason": ...,
// "approver": ...} or text starting with approve, approved, deny or denied
// (the rest is the reason); anything else on a waiting task is refused with
// invalid params (-32602) saying so. A retry with a messageId already in
// the task's history gets the task back, not a second decision. A staging
// deploy whose request names a change ticket ("... with change ticket
// CHG-2041") is approved out of band after Timings.OutOfBand, with no
// message. A message to a planner task that waits on the deployer is
// refused (-32004) with the deployer task to answer instead.
//
// Every agent accepts any caller and scopes every task to one user, "demo",
// so ListTasks works for an anonymous dashboard.
//
// # What demo owns and may import
//
// demo owns everything under demo/: the five agents, the planner client
// that drives them, and the ports they listen on. It may import the A2A
// SDK (github.com/a2aproject/a2a-go/v2/...) and the standard library only,
// never model, a2aclient, approvals, ui or a terminal package, so the demo
// exercises a2atop only over the wire, as any agent would. Package main
// calls Start, Agents, StopAgent, StartAgent and Close.
package demo
