package ui

import (
	"context"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/viewport"
	tea "github.com/charmbracelet/bubbletea"

	"a2atop/internal/sanitize"
	"a2atop/model"
	"a2atop/ui/common"
)

// fetchTimeout bounds a GetTask for the detail view.
const fetchTimeout = 15 * time.Second

// taskLoadedMsg carries a GetTask answer for the detail view. Seq ties it
// to the request, so a late answer for a task no longer shown is dropped.
type taskLoadedMsg struct {
	Key  model.TaskKey
	Seq  int
	Task *a2a.Task
	Err  error
}

// detailView shows one task: state, timestamps, status message, links,
// history (fetched on demand), artifacts, and the raw JSON on J.
type detailView struct {
	ctx  *common.Context
	keys *KeyMap
	vp   viewport.Model
	w, h int

	key     model.TaskKey
	stack   []model.TaskKey // tasks left by following links; esc returns
	seq     int
	loading bool
	fetched *a2a.Task
	err     error
	raw     bool
	links   []a2a.TaskID
	link    int
	built   builtFrom // what of the fleet's task the content was built from

	bodyKey    bodyKey // what bodyText was built from
	bodyText   string  // references, history and artifacts (or the raw JSON)
	cached     bool
	bodyBuilds int // how often the body was built (tests)
}

func newDetailView(ctx *common.Context, keys *KeyMap) detailView {
	return detailView{ctx: ctx, keys: keys, vp: viewport.New(80, 20)}
}

func (v *detailView) setSize(w, h int) {
	v.w, v.h = w, h
	v.vp.Width, v.vp.Height = w, max(h-1, 1)
	v.rebuild(false)
}

// open shows a task and returns the Cmd that fetches its history.
func (v *detailView) open(k model.TaskKey, history int) tea.Cmd {
	v.key, v.fetched, v.err, v.raw, v.link, v.built = k, nil, nil, false, 0, builtFrom{}
	v.rebuild(true)
	return v.fetch(history)
}

// follow opens a linked task, remembering where we came from.
func (v *detailView) follow(k model.TaskKey, history int) tea.Cmd {
	v.stack = append(v.stack, v.key)
	return v.open(k, history)
}

// pop returns to the task a link was followed from; false if none.
func (v *detailView) pop(history int) (tea.Cmd, bool) {
	if len(v.stack) == 0 {
		return nil, false
	}
	k := v.stack[len(v.stack)-1]
	v.stack = v.stack[:len(v.stack)-1]
	return v.open(k, history), true
}

// fetch asks the agent for the task with its history and artifacts.
func (v *detailView) fetch(history int) tea.Cmd {
	b := v.ctx.Backend
	if b == nil {
		return nil
	}
	v.seq++
	v.loading = true
	k, seq := v.key, v.seq
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), fetchTimeout)
		defer cancel()
		t, err := b.Get(ctx, k.Agent, k.ID, history, true)
		return taskLoadedMsg{Key: k, Seq: seq, Task: t, Err: err}
	}
}

// loaded takes a GetTask answer if it is for the task shown.
func (v *detailView) loaded(msg taskLoadedMsg) {
	if msg.Key != v.key || msg.Seq != v.seq {
		return
	}
	v.loading, v.fetched, v.err = false, msg.Task, msg.Err
	v.rebuild(false)
}

// sync rebuilds the content when the fleet holds a newer snapshot.
func (v *detailView) sync() {
	if t := v.ctx.Fleet.Task(v.key); t != nil && builtOf(t) != v.built {
		v.rebuild(false)
	}
}

// builtFrom identifies the state of a fleet task: the Fleet updates tasks
// (and may update snapshots) in place, and every event for the task moves
// LastHeard.
type builtFrom struct {
	snap  *a2a.Task
	heard time.Time
	parts int
}

func builtOf(t *model.Task) builtFrom {
	return builtFrom{snap: t.Snapshot, heard: t.LastHeard, parts: len(t.Partial)}
}

// rebuild lays the content out again; top scrolls back to the start.
func (v *detailView) rebuild(top bool) {
	if v.key == (model.TaskKey{}) {
		return
	}
	off := v.vp.YOffset
	v.vp.SetContent(v.content())
	if top {
		v.vp.GotoTop()
	} else {
		v.vp.SetYOffset(off)
	}
}

// selectedLink is the referenced task enter follows, or "".
func (v *detailView) selectedLink() a2a.TaskID {
	if v.link >= 0 && v.link < len(v.links) {
		return v.links[v.link]
	}
	return ""
}

// update handles scrolling, links and J.
func (v *detailView) update(msg tea.KeyMsg) {
	k := v.keys
	switch {
	case key.Matches(msg, k.Up):
		v.vp.ScrollUp(1)
	case key.Matches(msg, k.Down):
		v.vp.ScrollDown(1)
	case k.page(&v.vp, msg):
	case key.Matches(msg, k.Raw):
		v.toggleRaw()
	case key.Matches(msg, k.NextLink) && len(v.links) > 0:
		v.link = (v.link + 1) % len(v.links)
		v.rebuild(false)
	case key.Matches(msg, k.PrevLink) && len(v.links) > 0:
		v.link = (v.link - 1 + len(v.links)) % len(v.links)
		v.rebuild(false)
	}
}

// toggleRaw switches between the task and the raw JSON of its snapshot.
func (v *detailView) toggleRaw() {
	v.raw = !v.raw
	v.rebuild(true)
}

// view is a title line and the scrollable content.
func (v *detailView) view() string {
	t := v.ctx.Theme
	title := v.key.Agent + " · " + string(v.key.ID)
	mode := ""
	if v.raw {
		mode = "  raw JSON (J or esc: back)"
	}
	pct := ""
	if v.vp.TotalLineCount() > v.vp.Height {
		pct = " " + itoa(int(v.vp.ScrollPercent()*100)) + "%"
	}
	line := t.Title.Render(sanitize.Line(title, max(v.w-len(mode)-len(pct)-1, 1))) + t.Muted.Render(mode+pct)
	return line + "\n" + v.vp.View()
}

// help is the footer and help screen of the detail view.
func (v *detailView) help() bindingHelp {
	k := v.keys
	return bindingHelp{
		short: []key.Binding{k.Back, k.Down, k.Up, k.NextLink, k.Open, k.Raw, k.Cancel, k.Reply, k.Copy, k.Help},
		full: [][]key.Binding{
			{k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom},
			{k.NextLink, k.PrevLink, k.Open, k.Raw, k.Back},
			{k.Cancel, k.Reply, k.Copy},
		},
	}
}
