// Package approvals owns the human decisions a2atop sends to agents: the
// inbox queue derived from the model, reply and approve/deny building,
// the audit journal, and the at-most-once send with reconciliation.
//
// It has no terminal code and does no I/O of its own beyond the journal
// file: it talks to agents through a Sender (satisfied by
// *a2aclient.Manager) and may import package model, the SDK's a2a types
// and the standard library only. Every Service method that touches the
// network or the disk blocks, so the UI calls them from a tea.Cmd.
//
// # The flow
//
//	items := svc.Queue(fleet, model.SortAge)        // every interrupted task, with its chain
//	d, err := svc.Prepare(items[i], approvals.Input{Kind: approvals.KindApprove})
//	// show d.Message to the operator; send after a confirmed "y"
//	out := svc.Send(ctx, d)                          // journal (fsync) -> check -> send -> journal outcome
//	if out.FollowUp { d2, _ := svc.PrepareFollowUp(out.MessageID); ... }
//	if out.Result == approvals.ResultUnknown { svc.Reconcile(ctx) }  // later, or on demand
//
// # The journal
//
// One JSON object per line (JSONL) in a file of mode 0600, each record
// fsynced before the call that wrote it returns. Records share these
// fields: "v" (format version, 1), "type", "id" (the messageId of the
// decision, the key that ties records together), "at" (RFC 3339, when it
// was written). The types:
//
//   - "decision": written BEFORE anything is sent. Fields: agent, task,
//     context, kind ("reply", "approve", "deny", "follow-up"), prompt (the
//     task's status timestamp, or "message:ID" of its status message, that
//     the operator answered), state (the task's state when decided),
//     parts (the a2a parts exactly as sent), reason, approver (user@host),
//     refs (referenceTaskIds; a follow-up names the ended task), attempt 1.
//   - "retry": the operator confirmed sending the same decision again,
//     with the same messageId. Fields: approver, attempt (2, 3, …).
//   - "outcome": what the send achieved. Fields: result ("accepted",
//     "refused", "unknown", "not-delivered", "superseded"), state (what the
//     agent returned or GetTask showed), problem (a short code such as
//     "task-ended" or "out-of-band"), error (the error text), via ("send",
//     "check" or "reconcile"), attempt.
//   - "state": the agent's state change, a separate fact from the human
//     decision (spec §7.6.4: a state change is not a grant). Fields:
//     agent, task, from, to, source ("reply", "get", "fleet"), note. The
//     id is empty when no decision of ours is involved (a task resumed
//     out of band while a reply was being written).
//
// A decision with no outcome (a crash between the record and the send, or
// during the send) and a decision whose latest outcome is "unknown" (a
// timeout) are open. Reconcile resolves them with GetTask: our messageId in
// the task's history (or status message) means accepted; absent while the
// task still waits at the same prompt means not-delivered (the operator may
// retry, with the same messageId); absent after the task moved on means
// superseded. Nothing is ever resent automatically. While a prompt's last
// decision is open, no new decision (new messageId) on that prompt is
// prepared or sent, even confirmed again: it may have arrived, and only a
// Retry with its own messageId lets the agent see a repeat.
//
// A torn last line (a crash in the middle of a write) is skipped when the
// journal is read back, and the next record starts on a new line.
//
// # Templates
//
// An agent's approve/deny message shape can be replaced with a Template:
// two text lines and a JSON document in which the placeholders
// {{decision}} ("approve" or "deny"), {{approved}} (true or false),
// {{reason}}, {{approver}} and {{at}} (RFC 3339) stand for JSON values and
// are substituted as such, never inside quotes:
//
//	approve_text = "LGTM"
//	deny_text    = "no: {{reason}}"              # in text, placeholders are plain text
//	data = '{"verdict": {{decision}}, "ok": {{approved}}, "note": {{reason}}, "by": {{approver}}}'
//
// The default is text "approved" / "denied: REASON" and the data part
// {"decision","reason","approver","at"}.
package approvals
