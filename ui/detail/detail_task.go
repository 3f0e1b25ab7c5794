package detail

import (
	"context"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	tea "github.com/charmbracelet/bubbletea"

	"a2atop/model"
	"a2atop/ui/common"
)

// fetchTimeout bounds a GetTask for the detail view.
const fetchTimeout = 15 * time.Second

// TaskLoadedMsg carries a GetTask answer for the detail view. Seq ties it
// to the request, so a late answer for a task no longer shown is dropped.
type TaskLoadedMsg struct {
	Key  model.TaskKey
	Seq  int
	Task *a2a.Task
	Err  error
}

// open shows a task and returns the Cmd that fetches its history.
func (v *Screen) open(k model.TaskKey) tea.Cmd {
	v.key, v.fetched, v.err, v.raw, v.link, v.built = k, nil, nil, false, 0, builtFrom{}
	v.rebuild(true)
	return v.fetch()
}

// followLink opens the selected referenceTaskIds link: the fleet's task
// with that id (same agent first), else asks the same agent for it. The
// task shown is remembered: back returns to it.
func (v *Screen) followLink() tea.Cmd {
	id := v.selectedLink()
	if id == "" {
		return nil
	}
	target := model.TaskKey{Agent: v.key.Agent, ID: id}
	if v.ctx.Fleet.Task(target) == nil {
		if ts := v.ctx.Fleet.Lookup(id); len(ts) > 0 {
			target = ts[0].Key
		}
	}
	v.stack = append(v.stack, v.key)
	return v.open(target)
}

// pop returns to the task a link was followed from; false if none.
func (v *Screen) pop() (tea.Cmd, bool) {
	if len(v.stack) == 0 {
		return nil, false
	}
	k := v.stack[len(v.stack)-1]
	v.stack = v.stack[:len(v.stack)-1]
	return v.open(k), true
}

// fetch asks the agent for the task with its history and artifacts.
func (v *Screen) fetch() tea.Cmd {
	b := v.ctx.Backend
	if b == nil {
		return nil
	}
	v.seq++
	v.loading = true
	v.fetchRev = 0
	if t := v.ctx.Fleet.Task(v.key); t != nil {
		v.fetchRev = t.Rev
	}
	k, seq, history := v.key, v.seq, v.history
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), fetchTimeout)
		defer cancel()
		t, err := b.Get(ctx, k.Agent, k.ID, history, true)
		return TaskLoadedMsg{Key: k, Seq: seq, Task: t, Err: err}
	}
}

// loaded takes a GetTask answer if it is for the task shown.
func (v *Screen) loaded(msg TaskLoadedMsg) {
	if msg.Key != v.key || msg.Seq != v.seq {
		return
	}
	if msg.Err != nil {
		v.ctx.Logger().Warn("get task failed", common.LogKeyAgent, msg.Key.Agent, common.LogKeyTask, string(msg.Key.ID), common.LogKeyErr, msg.Err)
	}
	v.loading, v.fetched, v.err = false, msg.Task, msg.Err
	v.rebuild(false)
}

// sync rebuilds the content when the fleet holds a newer snapshot. When
// the task shown has just ended it asks for it again: the GetTask answer
// has the whole of its artifacts and history, past the fleet's caps.
func (v *Screen) sync() tea.Cmd {
	t := v.ctx.Fleet.Task(v.key)
	if t == nil {
		return nil
	}
	var cmd tea.Cmd
	if v.shown && !v.loading && t.Class == model.ClassTerminal && v.fetched != nil &&
		model.ClassOf(v.fetched.Status.State) != model.ClassTerminal {
		cmd = v.fetch()
	}
	if builtOf(t) != v.built || cmd != nil {
		v.rebuild(false)
	}
	return cmd
}

// builtFrom identifies the state of a fleet task: the Fleet updates tasks
// (and their snapshots) in place. Rev moves with every change of the
// task's data, an appended artifact chunk included (the snapshot pointer
// and the streaming marks may stay as they were); LastHeard with every
// event, for the "last heard" line.
type builtFrom struct {
	rev   uint64
	heard time.Time
}

func builtOf(t *model.Task) builtFrom { return builtFrom{rev: t.Rev, heard: t.LastHeard} }

// rebuild lays the content out again; top scrolls back to the start.
// Scrolled to the end (of a log being streamed, say), it stays at the
// end as the content grows, like tail -f; anywhere else it stays put.
func (v *Screen) rebuild(top bool) {
	if v.key == (model.TaskKey{}) {
		return
	}
	off, end := v.vp.YOffset, v.vp.YOffset > 0 && v.vp.AtBottom()
	v.vp.SetContent(v.search.mark(v.ctx.Theme, v.content()))
	switch {
	case top:
		v.vp.GotoTop()
	case end:
		v.vp.GotoBottom()
	default:
		v.vp.SetYOffset(off)
	}
}

// selectedLink is the referenced task enter follows, or "".
func (v *Screen) selectedLink() a2a.TaskID {
	if v.link >= 0 && v.link < len(v.links) {
		return v.links[v.link]
	}
	return ""
}
