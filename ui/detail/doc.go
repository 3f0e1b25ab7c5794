// Package detail is the task detail screen, a ui/common Component: one
// task's state, timestamps, status message, the tasks it references
// (enter follows one, esc comes back), its history, fetched with GetTask
// in a tea.Cmd (detail_task.go), its artifacts, the timeline of the states
// this dashboard saw and the progress of what it streamed
// (detail_content.go), who on the team is at work on it (claims.go), and
// its raw JSON on J; / searches the text shown (detail_search.go). The
// task keys (cancel, reply, approve, deny, follow-up, copy) are
// common.TaskActions, shared with the tasks screen.
//
// The root builds it with New and reaches it only through the Component
// contract and common.Context: it opens a task with common.OpenTaskMsg
// and redraws the claim line with common.ClaimsChangedMsg; the screen
// asks the root for anything (go back, a notice; the task actions hand a
// task to the inbox) through Context.Out. Task, Seq, Err, Raw, Links,
// BodyBuilds, Confirming and the Search accessors say what it shows.
//
// It may import ui/common, ui/theme, model, internal/sanitize and the
// charm libraries; never the root ui, nor another screen.
package detail
