package model

import (
	"slices"
	"unicode/utf8"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// maxChain bounds a chain's length.
const maxChain = 64

// BlockedBy returns the known task that task k waits on, or nil. The
// blocker may be in any non-terminal state; see Chain for the
// interrupted-only chain the inbox shows.
func (f *Fleet) BlockedBy(k TaskKey) *Task {
	t := f.Task(k)
	if t == nil {
		return nil
	}
	return f.blockedBy(t)
}

func (f *Fleet) blockedBy(t *Task) *Task {
	if !t.hasRefs || t.Class == ClassTerminal || t.removed {
		return nil
	}
	s := t.Snapshot
	if b := f.resolveMessage(t, s.Status.Message); b != nil {
		return b
	}
	for i := len(s.History) - 1; i >= 0; i-- {
		if b := f.resolveMessage(t, s.History[i]); b != nil {
			return b
		}
	}
	return f.resolveMeta(t, s.Metadata)
}

func (f *Fleet) resolveMessage(t *Task, m *a2a.Message) *Task {
	if m == nil {
		return nil
	}
	for _, id := range m.ReferenceTasks {
		if b := f.resolve(t, id); b != nil {
			return b
		}
	}
	return f.resolveMeta(t, m.Metadata)
}

func (f *Fleet) resolveMeta(t *Task, md map[string]any) *Task {
	key := t.agent.chainKey
	if key == "" || md == nil {
		return nil
	}
	switch v := md[key].(type) {
	case string:
		return f.resolve(t, a2a.TaskID(v))
	case []string:
		for _, id := range v {
			if b := f.resolve(t, a2a.TaskID(id)); b != nil {
				return b
			}
		}
	case []any:
		for _, x := range v {
			if id, ok := x.(string); ok {
				if b := f.resolve(t, a2a.TaskID(id)); b != nil {
					return b
				}
			}
		}
	}
	return nil
}

// resolve finds the non-terminal task with this id, other than t.
func (f *Fleet) resolve(t *Task, id a2a.TaskID) *Task {
	if id == "" {
		return nil
	}
	var best *Task
	for c := f.byID[f.idHash(id)]; c != nil; c = c.twin {
		if c.Key.ID != id || c == t || c.Class == ClassTerminal {
			continue
		}
		if best == nil || better(c, best) {
			best = c
		}
	}
	return best
}

// better reports whether blocker c beats b: interrupted first, then the
// most recently updated, then the agent added first.
func better(c, b *Task) bool {
	ci, bi := c.Class == ClassInterrupted, b.Class == ClassInterrupted
	switch {
	case ci != bi:
		return ci
	case !c.Updated.Equal(b.Updated):
		return c.Updated.After(b.Updated)
	}
	return c.agent.pos < b.agent.pos
}

// link is the chain step from t: its blocker when both are interrupted.
func (f *Fleet) link(t *Task) *Task {
	if t.Class != ClassInterrupted {
		return nil
	}
	if b := f.blockedBy(t); b != nil && b.Class == ClassInterrupted {
		return b
	}
	return nil
}

// Chain returns the chain through task k, root first, leaf last: the
// root is the task that waits (the planner's AUTH_REQUIRED task, which
// names the deployer's task), the leaf the one that asks (the deployer's
// AUTH_REQUIRED task, where an approval goes). See "Chains" in the
// package documentation. A task in no chain is a
// chain of one; an unknown key gives nil. When several tasks wait on the
// same task, the one the fleet knows longest (oldest Since) is taken as
// its parent; Waiters lists them all.
func (f *Fleet) Chain(k TaskKey) []*Task {
	t := f.Task(k)
	if t == nil {
		return nil
	}
	chain := []*Task{t}
	for cur := t; len(chain) < maxChain; {
		b := f.link(cur)
		if b == nil || slices.Contains(chain, b) {
			break
		}
		chain = append(chain, b)
		cur = b
	}
	w := f.waitersMap()
	var up []*Task
	for cur := t; len(chain)+len(up) < maxChain; {
		var next *Task
		for _, x := range w[cur] {
			if !slices.Contains(chain, x) && !slices.Contains(up, x) {
				next = x
				break
			}
		}
		if next == nil {
			break
		}
		up = append(up, next)
		cur = next
	}
	if len(up) == 0 {
		return chain
	}
	slices.Reverse(up)
	return append(up, chain...)
}

// Waiters returns the interrupted tasks whose chain link points at task
// k (they wait on it), oldest Since first; nil if none. With Chain it
// lets the inbox draw a chain as a tree.
func (f *Fleet) Waiters(k TaskKey) []*Task {
	t := f.Task(k)
	if t == nil {
		return nil
	}
	return slices.Clone(f.waitersMap()[t])
}

// waitersMap inverts link over the tasks that name a blocker, cached
// until the next change.
func (f *Fleet) waitersMap() map[*Task][]*Task {
	if f.waitersOK && f.waitersVer == f.version {
		return f.waiters
	}
	if f.waiters == nil {
		f.waiters = make(map[*Task][]*Task)
	}
	clear(f.waiters)
	for r := range f.referrers {
		if b := f.link(r); b != nil {
			f.waiters[b] = append(f.waiters[b], r)
		}
	}
	for _, ws := range f.waiters {
		slices.SortFunc(ws, func(a, b *Task) int {
			if c := a.Since.Compare(b.Since); c != 0 {
				return c
			}
			if a.seq < b.seq {
				return -1
			}
			return 1
		})
	}
	f.waitersOK, f.waitersVer = true, f.version
	return f.waiters
}

// setRefs records whether t names a possible blocker anywhere.
func (f *Fleet) setRefs(t *Task, has bool) {
	if has == t.hasRefs {
		return
	}
	t.hasRefs = has
	if has {
		f.referrers[t] = struct{}{}
	} else {
		delete(f.referrers, t)
	}
}

func (f *Fleet) msgRefs(t *Task, m *a2a.Message) bool {
	return m != nil && (len(m.ReferenceTasks) > 0 || len(m.Metadata) > 0 && f.chainKeyIn(t, m.Metadata))
}

func (f *Fleet) historyRefs(t *Task, h []*a2a.Message) bool {
	for _, m := range h {
		if f.msgRefs(t, m) {
			return true
		}
	}
	return false
}

func (f *Fleet) chainKeyIn(t *Task, md map[string]any) bool {
	if len(md) == 0 {
		return false
	}
	key := t.agent.chainKey
	return key != "" && md[key] != nil
}

// RowHint is the one-line note a row shows after the status text, by
// priority: a terminal task's own Hint; "gone: agent no longer knows
// this task"; "stale: agent unreachable" (or unauthorized, backing off;
// only "stale" while the hub relaying the agent is unreachable);
// "waiting on AGENT · SHORTID" when blocked; else the task's Hint. It is
// computed on demand, for visible rows only, because it depends on other
// tasks and on the agent. Raw agent data: the UI sanitizes it.
func (f *Fleet) RowHint(t *Task) string {
	if t.Class == ClassTerminal && t.Hint != "" {
		return t.Hint
	}
	switch {
	case t.Gone:
		return "gone: agent no longer knows this task"
	case t.Stale && t.agent.Health.HubDown: // the banner says why, once
		return "stale"
	case t.Stale:
		return "stale: agent " + t.agent.Health.State.String()
	}
	if b := f.blockedBy(t); b != nil {
		return "waiting on " + b.Key.Agent + " · " + ShortID(b.Key.ID)
	}
	return t.Hint
}

// ShortID is the part of a task id that rows and hints show: the first
// 8 characters, except for a UUID of version 7 (the Go SDK's ids), whose
// first 8 characters are a timestamp shared by every task created in the
// same minute, so its random last 8 characters are shown instead. It
// never cuts a UTF-8 sequence in two.
func ShortID(id a2a.TaskID) string {
	s := string(id)
	if len(s) <= 8 {
		return s
	}
	if isUUIDv7(s) {
		return s[len(s)-8:]
	}
	n := 8
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// isUUIDv7 reports whether s is a canonical UUID of version 7.
func isUUIDv7(s string) bool {
	if len(s) != 36 || s[8] != '-' || s[13] != '-' || s[18] != '-' || s[23] != '-' || s[14] != '7' {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '-' && !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}
