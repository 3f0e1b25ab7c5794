package detail

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"a2atop/internal/sanitize"
	"a2atop/model"
	"a2atop/ui/common"
)

// bodyKey is what the content below the overview (references, history,
// artifacts) and the raw JSON are built from. The 1 Hz tick changes none
// of it, so a tick rebuilds only the overview with its ages; a large log
// is not wrapped and sanitized again every second.
type bodyKey struct {
	task    model.TaskKey
	version uint64 // the fleet: this task, and the tasks its links name
	seq     int    // the GetTask answer (fetched, err)
	loading bool
	w, link int
	raw     bool
}

// content builds the detail text for the current width.
func (v *Screen) content() string {
	f := v.ctx.Fleet
	t := f.Task(v.key)
	if t != nil {
		v.built = builtOf(t)
	}
	snap := v.snapshot(t)
	v.links = referenceIDs(snap)
	v.link = common.Clamp(v.link, 0, len(v.links)-1)
	key := bodyKey{task: v.key, version: f.Version(), seq: v.seq, loading: v.loading, w: v.w, link: v.link, raw: v.raw}
	if v.raw {
		return v.body(key, func() string { return v.rawJSON(snap) })
	}
	var b common.Section
	b.W, b.Th = max(v.w, 10), v.ctx.Theme
	v.overview(&b, t, snap)
	body := v.body(key, func() string {
		var b common.Section
		b.W, b.Th = max(v.w, 10), v.ctx.Theme
		v.references(&b)
		v.historySection(&b)
		artifacts(&b, snap, t)
		return b.String()
	})
	return strings.TrimRight(b.String()+body, "\n")
}

// body returns the cached body for key, building it when key changed.
func (v *Screen) body(key bodyKey, build func() string) string {
	if !v.cached || v.bodyKey != key {
		v.bodyText, v.bodyKey, v.cached = build(), key, true
		v.bodyBuilds++
	}
	return v.bodyText
}

// snapshot is the newest task data we have: the GetTask answer, unless
// the fleet's snapshot has a newer status or the fleet has heard more of
// the task since the GetTask was asked (artifact chunks streamed since
// then leave the status timestamp as it was). The answer keeps its
// history either way.
func (v *Screen) snapshot(t *model.Task) *a2a.Task {
	switch {
	case v.fetched == nil:
		if t != nil {
			return t.Snapshot
		}
		return nil
	case t == nil || t.Snapshot == nil || newer(v.fetched, t.Snapshot):
		return v.fetched
	case newer(t.Snapshot, v.fetched) || t.Rev != v.fetchRev:
		return t.Snapshot
	}
	return v.fetched
}

// newer reports whether a's status is strictly newer than b's.
func newer(a, b *a2a.Task) bool {
	if a.Status.Timestamp == nil || b.Status.Timestamp == nil {
		return false
	}
	return a.Status.Timestamp.After(*b.Status.Timestamp)
}

// overview is state, timestamps, agent, binding and the status message.
func (v *Screen) overview(b *common.Section, t *model.Task, snap *a2a.Task) {
	th, now := v.ctx.Theme, v.ctx.Now()
	if t == nil && snap == nil {
		b.Line(th.Warn.Render("this task is not in the fleet"))
		if v.loading {
			b.Line(th.Muted.Render("asking " + sanitize.Line(v.key.Agent, 64) + " for it…"))
		}
		if v.err != nil {
			b.Line(th.Error.Render("GetTask: " + sanitize.Line(v.err.Error(), common.MaxLineText)))
		}
		return
	}
	state := a2a.TaskState("")
	if snap != nil {
		state = snap.Status.State
	}
	if t != nil {
		state = t.State
	}
	b.Field("state", th.State(state).Render(common.StateText(state)))
	if t != nil {
		b.Field("updated", v.ctx.Clock.Stamp(now, t.Updated))
		b.Field("first seen", v.ctx.Clock.Stamp(now, t.FirstSeen))
		b.Field("last heard", v.ctx.Clock.Stamp(now, t.LastHeard)+"  via "+t.Source.String())
		if t.Stale {
			b.Field("stale", th.Warn.Render("its agent is not answering; this is the last we heard"))
		}
		if t.Gone {
			b.Field("gone", th.Warn.Render("the agent no longer knows this task (expired, or these credentials lost access)"))
		}
		if t.Hint != "" {
			b.Field("hint", th.Warn.Render(sanitize.Line(t.Hint, common.MaxLineText)))
		}
		v.claimField(b, t)
		v.voteFields(b, t)
		if t.Violations > 0 {
			b.Field("violations", th.Error.Render(strconv.Itoa(int(t.Violations))+" protocol violations seen on this task"))
		}
	}
	b.Field("agent", v.agentLine())
	if snap != nil {
		b.Field("contextId", sanitize.Line(snap.ContextID, common.MaxLineText))
	}
	if t != nil {
		if bl := v.ctx.Fleet.BlockedBy(t.Key); bl != nil {
			b.Field("waiting on", sanitize.Line(bl.Key.Agent+" · "+string(bl.Key.ID), common.MaxLineText)+
				" ("+common.StateText(bl.State)+")")
		}
	}
	if t != nil {
		v.pictures(b, t)
	}
	b.Heading("Status message")
	if snap == nil || snap.Status.Message == nil {
		b.Line(th.Muted.Render("(none)"))
	} else {
		parts(b, snap.Status.Message.Parts)
	}
}

// agentLine is the agent's name, URL, binding and protocol version.
func (v *Screen) agentLine() string {
	name := sanitize.Line(v.key.Agent, 64)
	a := v.ctx.Fleet.Agent(v.key.Agent)
	if a == nil {
		return name
	}
	info := a.Info
	url := info.InterfaceURL
	if url == "" {
		url = a.URL
	}
	s := name + "  " + sanitize.Line(url, common.MaxLineText)
	if info.Binding != "" {
		s += "  " + sanitize.Line(info.Binding, 32)
	}
	if info.ProtocolVersion != "" {
		s += "  A2A " + sanitize.Line(info.ProtocolVersion, 16)
	}
	return s
}

// references lists referenceTaskIds as links; tab selects, enter follows.
func (v *Screen) references(b *common.Section) {
	if len(v.links) == 0 {
		return
	}
	th := v.ctx.Theme
	b.Heading("References (tab selects, enter opens)")
	for i, id := range v.links {
		label := sanitize.Line(string(id), common.MaxLineText)
		where := th.Muted.Render("  not in the fleet")
		if ts := v.ctx.Fleet.Lookup(id); len(ts) > 0 {
			where = "  " + th.Muted.Render(sanitize.Line(ts[0].Key.Agent, 64)+" · ") +
				th.State(ts[0].State).Render(common.StateText(ts[0].State))
		}
		style, mark := th.Link, "  "
		if i == v.link {
			style, mark = th.LinkFocused, "› "
		}
		b.Line(mark + style.Render(label) + where)
	}
}

// historySection shows the history GetTask returned, or why there is none.
func (v *Screen) historySection(b *common.Section) {
	th := v.ctx.Theme
	switch {
	case v.loading:
		b.Heading("History")
		b.Line(th.Muted.Render("fetching with GetTask…"))
		return
	case v.err != nil:
		b.Heading("History")
		b.Line(th.Error.Render("GetTask failed: " + sanitize.Line(v.err.Error(), common.MaxLineText)))
		return
	case v.fetched == nil:
		b.Heading("History")
		b.Line(th.Muted.Render("not fetched (no backend)"))
		return
	}
	b.Heading("History (" + common.Plural(len(v.fetched.History), "message") + ")")
	if len(v.fetched.History) == 0 {
		b.Line(th.Muted.Render("(empty)"))
	}
	for _, msg := range v.fetched.History {
		if msg == nil {
			continue
		}
		role := strings.ToLower(strings.TrimPrefix(string(msg.Role), "ROLE_"))
		b.Line(th.Label.Render("["+sanitize.Line(role, 16)+"]") + th.Muted.Render(" "+sanitize.Line(msg.ID, 64)))
		parts(b, msg.Parts)
	}
}

// artifacts shows each artifact's parts; files are named, never fetched.
// Artifacts still streaming are marked, and so is content the fleet cut
// to its memory caps (the GetTask answer, when newer, has it all).
func artifacts(b *common.Section, snap *a2a.Task, t *model.Task) {
	if snap == nil || len(snap.Artifacts) == 0 {
		return
	}
	head := "Artifacts (" + strconv.Itoa(len(snap.Artifacts)) + ")"
	if t != nil && t.Truncated && snap == t.Snapshot {
		head += " — cut to the in-memory cap"
		if t.Class != model.ClassTerminal {
			head += " (the newest content is kept)"
		}
	}
	b.Heading(head)
	streaming := map[a2a.ArtifactID]bool{}
	if t != nil {
		for _, id := range t.Partial {
			streaming[id] = true
		}
	}
	for _, a := range snap.Artifacts {
		if a == nil {
			continue
		}
		name := a.Name
		if name == "" {
			name = string(a.ID)
		}
		head := b.Th.Text.Bold(true).Render(sanitize.Line(name, common.MaxLineText))
		if streaming[a.ID] {
			head += b.Th.Warn.Render("  streaming…")
		}
		if a.Description != "" {
			head += b.Th.Muted.Render("  " + sanitize.Line(a.Description, common.MaxLineText))
		}
		b.Line(head)
		parts(b, a.Parts)
	}
}

// parts writes message or artifact parts: text, data as pretty JSON,
// files by name, media type and URL.
func parts(b *common.Section, ps a2a.ContentParts) {
	for _, p := range ps {
		if p == nil {
			continue
		}
		switch c := p.Content.(type) {
		case a2a.Text:
			b.Text(string(c))
		case a2a.Data:
			js, err := json.MarshalIndent(c.Value, "", "  ")
			if err != nil {
				b.Line(b.Th.Error.Render("data part: " + err.Error()))
				continue
			}
			b.Text(string(js))
		case a2a.URL, a2a.Raw:
			b.Line(b.Th.Label.Render("file ") + fileLine(p))
		}
	}
}

// fileLine names a file part without fetching it.
func fileLine(p *a2a.Part) string {
	var f []string
	if p.Filename != "" {
		f = append(f, sanitize.Line(p.Filename, common.MaxLineText))
	}
	if p.MediaType != "" {
		f = append(f, sanitize.Line(p.MediaType, 128))
	}
	switch c := p.Content.(type) {
	case a2a.URL:
		f = append(f, sanitize.Line(string(c), common.MaxLineText))
	case a2a.Raw:
		f = append(f, fmt.Sprintf("%d bytes inline", len(c)))
	}
	return strings.Join(f, "  ")
}

// referenceIDs gathers referenceTaskIds from the status message and the
// history, in order, without repeats.
func referenceIDs(t *a2a.Task) []a2a.TaskID {
	if t == nil {
		return nil
	}
	seen := map[a2a.TaskID]bool{t.ID: true}
	var out []a2a.TaskID
	add := func(m *a2a.Message) {
		if m == nil {
			return
		}
		for _, id := range m.ReferenceTasks {
			if !seen[id] {
				seen[id] = true
				out = append(out, id)
			}
		}
	}
	add(t.Status.Message)
	for _, m := range t.History {
		add(m)
	}
	return out
}

// rawJSON is the snapshot as JSON, sanitized like any agent text.
func (v *Screen) rawJSON(t *a2a.Task) string {
	if t == nil {
		return v.ctx.Theme.Muted.Render("no snapshot")
	}
	js, err := json.MarshalIndent(t, "", "  ")
	if err != nil {
		return v.ctx.Theme.Error.Render("cannot show JSON: " + err.Error())
	}
	return common.Wrap(sanitize.Text(string(js), common.MaxFieldText*4), max(v.w, 10))
}

// pictures are the task's timeline of states and, for each artifact it
// streamed, how it came in.
func (v *Screen) pictures(b *common.Section, t *model.Task) {
	th, now := v.ctx.Theme, v.ctx.Now()
	marks, dropped := v.ctx.Fleet.Timeline(t.Key)
	askTimelineClock(v.ctx.Clock, marks, now)
	b.Heading("Timeline (the states this dashboard saw)")
	for _, l := range common.Timeline(th, marks, dropped, now, b.W) {
		b.Line(l)
	}
	var streams []model.Stream
	for _, s := range v.ctx.Fleet.Streams(t.Key) {
		if s.Chunks > 1 { // streamed, not sent whole
			streams = append(streams, s)
		}
	}
	if len(streams) == 0 {
		return
	}
	b.Heading("Streams")
	for _, s := range streams {
		askStreamClock(v.ctx.Clock, s, now)
		b.Line("  " + th.Text.Render(sanitize.Line(string(s.Artifact), 40)) + "  " + common.Progress(th, s, now))
	}
}
