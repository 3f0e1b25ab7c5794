// Package approvals owns the human decisions a2atop sends to agents: the
// inbox queue derived from the model, reply and approve/deny building,
// the audit journal, and the at-most-once send with reconciliation.
//
// It talks to agents through a Sender (satisfied by *a2aclient.Manager)
// and does no I/O of its own beyond the journal file; every Service
// method that touches the network or the disk blocks, so the UI calls
// them from a tea.Cmd. It may import the standard library, the SDK's a2a
// types, a2atop/model and a2atop/a2aclient/a2aerr (the failure
// vocabulary, pure), never the rest of a2aclient, ui or terminal code.
//
// The flow:
//
//	items := svc.Queue(fleet, model.SortAge)        // every interrupted task, with its chain
//	d, err := svc.Prepare(items[i], approvals.Input{Kind: approvals.KindApprove})
//	// show d.Message to the operator; send after a confirmed "y"
//	out := svc.Send(ctx, d)                          // journal (fsync) -> check -> send -> journal outcome
//	if out.FollowUp { d2, _ := svc.PrepareFollowUp(out.MessageID); ... }
//	if out.Result == approvals.ResultUnknown { svc.Reconcile(ctx) }  // later, or on demand
//
// The journal's format is on its record type (entry.go), the at-most-once
// rules on Send and Reconcile, the message shapes on Template.
package approvals
