// Package approvals owns the human decisions a2atop sends to agents: the
// inbox queue derived from the model, reply and approve/deny building,
// the audit journal, and the at-most-once send with reconciliation.
//
// It talks to agents through a Sender (satisfied by *a2aclient.Manager)
// and does no I/O of its own beyond the journal file; every Service
// method that touches the network or the disk blocks, so the UI calls
// them from a tea.Cmd. It may import the standard library, the SDK's a2a
// types, a2atop/model, a2atop/a2aclient/a2aerr (the failure vocabulary,
// pure) and a2atop/internal/statefile (which opens state files so that
// another user cannot plant them), never the rest of a2aclient, ui or
// terminal code.
//
// The flow:
//
//	items := svc.Queue(fleet, model.SortAge)        // every interrupted task, with its chain
//	qc := svc.NewQueueCache(); items = qc.Queue(fleet, model.SortAge) // the same, rebuilt where the fleet or the journal changed
//	d, err := svc.Prepare(items[i], approvals.Input{Kind: approvals.KindApprove})
//	// show d.Message to the operator; send after a confirmed "y"
//	out := svc.Send(ctx, d)                          // lock: read, check, journal (fsync); unlock -> GetTask -> send -> journal outcome
//	if out.FollowUp { d2, _ := svc.PrepareFollowUp(out.MessageID); ... }
//	if out.Result == approvals.ResultUnknown { svc.Reconcile(ctx) }  // later, or on demand
//	r, _ := svc.Refresh()                            // on a tick: what other processes journaled
//	svc.Observe(svc.Observations(fleet))             // after a batch: the states of decided tasks
//
// # Several processes, one journal
//
// A dashboard, `a2atop reply` and another dashboard may share one journal.
// Every process that writes it takes an exclusive flock on the lock file
// beside it (PATH.lock, mode 0600, opened through statefile like the
// journal) for one check-and-record: it reads what the others appended
// since it last read (following the file by offset, never re-reading it
// whole), checks the decision against the journal as it now is, appends
// the record and fsyncs it, and lets go. The lock is never held across
// the network: GetTask and the send come after. Readers take the lock
// shared, so a line without its newline seen under the lock is a write
// that never finished, not one under way. A second decision on a prompt
// is refused as within one process: a decision another process recorded
// and may be sending now (its send window, until, has not passed and,
// on this host, its pid still runs) is ErrAlreadyDecided; one left pending
// by a process that ended is open (ErrOutcomeOpen, until reconciled). A
// confirmed second decision (Input.Again) goes out only over the decision
// it was confirmed over (Decision.PriorID), not over one made since.
//
// The journal sits behind a small store (follow; check-and-append under
// an exclusive hold); the file is one store. A team's hubs share
// another: a SharedLog (Options.Shared; NATS JetStream in
// approvals/jetstore), on which each check-and-append is optimistic: it
// reads what the others appended, checks, and appends each record on
// its prompt's key only if nothing was appended on that key since;
// otherwise it reads the winner and checks again, so a second decision
// is refused with the first's words on every hub.
//
// # The journal
//
// One JSON object per line (JSONL) in a file of mode 0600, each record
// fsynced before the call that wrote it returns. Records share these
// fields: "v" (format version: 2; version 1 records, without checksum or
// agent identity, are still read), "type", "id" (the messageId of the
// decision, the key that ties records together), "at" (RFC 3339, when it
// was written), and last "sum": the CRC-32C (8 hex digits) of the line's
// bytes without the sum member, so that a changed byte anywhere makes the
// line damaged rather than another record. Records that name an agent
// carry "agent" (its name when written), "url" and "tenant" (its
// identity: decisions are keyed by identity, and entries show the name
// the agent has now; a version 1 record whose name is no longer
// configured is matched by the host:port a command-line URL was named
// after, and Entry.AgentNote says so). The types:
//
//   - "decision": written BEFORE anything is sent. Fields: agent, url,
//     tenant, task, context, kind ("reply", "approve", "deny",
//     "follow-up"), prompt (the task's status timestamp, or "message:ID"
//     of its status message, that the operator answered), state (the
//     task's state when decided), parts (the a2a parts exactly as sent),
//     reason, approver (user@host), refs (referenceTaskIds; a follow-up
//     names the ended task), attempt 1, and the writer's host, pid, svc
//     (its Service's random id, as two Services may share a process;
//     absent in records written before it) and until (its send is over
//     by then).
//   - "retry": an operator confirmed sending the same decision again,
//     with the same messageId: the very message decided, so approver is
//     still the decision's (whose name and time it carries) and by is
//     who sent it again. Fields: agent, url, task, approver, by, attempt
//     (2, 3, …), host, pid, svc, until. (Retries written before "by" named
//     the one who sent it again as approver.)
//   - "outcome": what the send achieved. Fields: agent, url, task, result
//     ("accepted", "refused", "unknown", "not-delivered", "superseded"),
//     state (what the agent returned or GetTask showed), problem (a short
//     code such as "task-ended" or "out-of-band"), error (the error text),
//     via ("send", "check" or "reconcile"), attempt.
//   - "state": the agent's state change, a separate fact from the human
//     decision (spec §7.6.4: a state change is not a grant). Fields:
//     agent, url, task, from, to, source ("reply", "get", "fleet"), note.
//     The id is empty when no decision of ours is involved (a task resumed
//     out of band while a reply was being written). The fleet's states
//     after a decision (working, asked again, completed) are recorded
//     through Observations and Observe, once across processes.
//   - "torn": line, hash: the line numbered line, whose bytes hash
//     ("sha256:…") names, is a write that never finished (a crash); the
//     next writer, finding the file without its last newline, starts a
//     new line and writes this record first.
//   - "ack": line, hash, approver, note: an operator (a2atop journal
//     check --accept) or Reconcile resolved that damaged line, as it was.
//   - "vote": under an agent's approval Policy, one approver's approve or
//     deny: agent, url, task, kind, prompt, state, reason, approver, at.
//     The vote that completes the policy is written with the decision it
//     sends (same id, same hold), whose "votes" ([{"name","at","reason"}])
//     are the votes it counted; see vote.go.
//   - "segment": the first line of every segment after the first (see
//     below). Fields: line (its own number in the whole journal), seg
//     {seq, prev, carried, entries}.
//   - "checkpoint": key, sig: a hub's Ed25519 signature of the chain's
//     head (see The chain).
//   - "chain-accepted": line, hash, approver, note: the hub was started,
//     told to, on a chain broken at that line.
//
// # Segments
//
// With Options.Segment the file rotates: once the open segment is past
// its size or age, the next write closes it, under the exclusive lock.
// The new segment, written beside the journal and fsynced, begins with
// a "segment" record and restates every open decision (and the settled
// last decision on a task that may still wait at its prompt) as records
// whose "carried" is the new segment's number; it is renamed over the
// journal's path once the old one has its closed name, PATH.000001, …
// (a hard link, so the journal's path always names a whole segment),
// and the closed one is made read-only (0400) and never written again.
// Line numbers run on across segments. A process following the file by
// offset sees its file is no longer the path's, reads it to its end,
// and goes on in the next segment past its header and restated records;
// one that opens the journal reads the open segment alone (the earlier
// entries count as forgotten, History reads them back), and MemoryAll
// reads every segment, oldest first. The open votes are restated too.
// The chain runs through the segments: the new segment's header links
// to the closed segment's last line, and a reader that starts at the new
// segment checks it against that line (segment_chain.go); a hub signs a
// checkpoint after the restated records. VerifyJournal of SegmentFiles
// walks them all.
//
// # The chain
//
// Every record written since the chain exists also carries "seq" (its
// place in the chain: 1, 2, …) and "prev" ("sha256:…" of the exact bytes
// of the line before it, without the newline; none on the first line of
// a journal), just before "sum". A hub signs a checkpoint every 100
// records and when it stops: a "checkpoint" record whose "sig" is the
// Ed25519 signature (standard base64) of
// "a2atop-journal-checkpoint:SEQ:PREV" (its own seq and prev) by "key"
// ("ed25519:" and the public key in standard base64), and keeps it in
// JOURNAL.head too. VerifyJournal and Service.Chain walk the chain and
// name each break: a record edited, removed, inserted, reordered, the
// file cut, a checkpoint whose signature fails. A journal written before
// the chain starts it at its first chained record. See chain.go.
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
// # Damaged lines
//
// A line that is not a record (it does not parse, its checksum does not
// match, its version or type is unknown, or it records the outcome or
// state of a decision no readable line holds) stands for "a decision may
// exist": no new decision, retry or follow-up is prepared or sent on the
// agent it names, or on every agent when it names none the journal knows,
// until an operator looks at it and accepts it (an "ack" record; the file
// is never rewritten). A torn last line is expected after a crash and
// blocks nothing, unless it holds a decision. Whether that decision
// reached the agent is unknown until GetTask settles it: a crash in its
// write means it never left (a decision is written and fsynced before
// anything leaves), but a file cut later (a copy, a restore, a disk) may
// cut one that was sent. It blocks its agent until Reconcile finds with
// GetTask that the agent does not hold its messageId (an "ack"), or an
// operator accepts it; one the agent holds (Damage.Delivered) waits for
// the operator. Service.Damage and Blocking list the lines with their
// number and what can be read from them.
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
