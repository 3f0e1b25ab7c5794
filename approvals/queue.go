package approvals

import (
	"github.com/a2aproject/a2a-go/v2/a2a"

	"a2atop/model"
)

// Item is one row of the inbox: an interrupted task with its place in its
// chain. Items are values built by Queue from the fleet at one moment;
// the *model.Task pointers belong to the fleet (read them on the UI
// goroutine only).
type Item struct {
	Task *model.Task
	// Chain is the chain this task is part of, root (what a person or a
	// planner started) to leaf (the task that actually asks). A task that
	// waits on nothing and that nothing waits on is a chain of one.
	Chain []*model.Task
	// Depth is the task's place in the tree drawn for its group: 0 for a
	// root, Depth of the leaf = the longest path to it.
	Depth int
	// Actionable is true for the leaf: the one task of the chain that
	// takes the answer. Ancestors are shown, not answered.
	Actionable bool
	// WaitingOn is, for an ancestor, the task it waits on (nil for the leaf).
	WaitingOn *model.Task
	// Leaf is the task that actually asks, for every item of the group.
	Leaf *model.Task
	// Prompt is the key of the prompt the task shows now (see PromptOf).
	Prompt string
	// Prior is the latest decision recorded for this prompt, if any: a
	// new decision needs the operator to confirm again (Input.Again).
	Prior *Entry
}

// AnsweredElsewhere says, when the prompt's last decision was made by
// another process or approver, who answered and how ("answered elsewhere
// by ops@host at 14:02:11: approved"); "" otherwise.
func (it Item) AnsweredElsewhere() string {
	if it.Prior == nil {
		return ""
	}
	return it.Prior.ElsewhereWords()
}

// Key is the item's task key.
func (it Item) Key() model.TaskKey { return it.Task.Key }

// Question is the task's status message: the agent's question, every
// part of it (text, data, files). nil if the agent sent none.
func (it Item) Question() *a2a.Message {
	if it.Task == nil || it.Task.Snapshot == nil {
		return nil
	}
	return it.Task.Snapshot.Status.Message
}

// Queue returns every interrupted task of the fleet as inbox items,
// grouped by chain: each group is drawn root to leaf, the leaf carries
// the action, and groups come in the order of their leaves under sort
// (model.SortAge = the oldest waiting first). Chains may cross agents. It
// reads the fleet, so call it on the UI goroutine.
func (s *Service) Queue(f *model.Fleet, sort model.SortBy) []Item {
	interrupted := f.Interrupted(sort)
	leafOf := make(map[*model.Task]*model.Task, len(interrupted))
	dist := make(map[*model.Task]int, len(interrupted)) // steps from the task down to its leaf
	for _, t := range interrupted {
		leaf, d := walkToLeaf(f, t)
		leafOf[t], dist[t] = leaf, d
	}
	// A group comes once, at the place of its first member in the
	// fleet's order (so "oldest first" holds for whole chains).
	members := map[*model.Task][]*model.Task{}
	var order []*model.Task
	for _, t := range interrupted {
		l := leafOf[t]
		if _, ok := members[l]; !ok {
			order = append(order, l)
		}
		members[l] = append(members[l], t)
	}
	out := make([]Item, 0, len(interrupted))
	for _, leaf := range order {
		out = s.appendGroup(out, f, leaf, members[leaf], dist)
	}
	return out
}

// appendGroup appends the items of leaf's group: its members (in the
// fleet's order) root first, the farthest from the leaf, then nearer;
// stable within a distance.
func (s *Service) appendGroup(out []Item, f *model.Fleet, leaf *model.Task, group []*model.Task, dist map[*model.Task]int) []Item {
	maxd := 0
	for _, t := range group {
		maxd = max(maxd, dist[t])
	}
	for d := maxd; d >= 0; d-- {
		for _, t := range group {
			if dist[t] == d {
				out = append(out, s.item(f, t, leaf, maxd-d))
			}
		}
	}
	return out
}

// walkToLeaf follows BlockedBy from t while the next task is interrupted,
// and returns the last one and the number of steps. Cycles stop the walk.
func walkToLeaf(f *model.Fleet, t *model.Task) (*model.Task, int) {
	seen := map[*model.Task]bool{t: true}
	cur, steps := t, 0
	for {
		next := f.BlockedBy(cur.Key)
		if next == nil || seen[next] || next.Class != model.ClassInterrupted {
			return cur, steps
		}
		seen[next] = true
		cur = next
		steps++
	}
}

// item builds the Item for t in the group of leaf.
func (s *Service) item(f *model.Fleet, t, leaf *model.Task, depth int) Item {
	it := Item{Task: t, Leaf: leaf, Depth: depth, Actionable: t == leaf, Chain: f.Chain(t.Key)}
	if len(it.Chain) == 0 {
		it.Chain = []*model.Task{t}
	}
	if !it.Actionable {
		it.WaitingOn = f.BlockedBy(t.Key)
	}
	it.Prompt = PromptOf(t.Snapshot)
	if e, ok := s.Prior(t.Key.Agent, t.Key.ID, it.Prompt); ok {
		it.Prior = &e
	}
	return it
}

// ItemFor builds the Item for one task without a fleet, for callers that
// hold a task but no chain (the non-interactive reply command, tests):
// a chain of one, actionable if the task is interrupted.
func (s *Service) ItemFor(t *model.Task) Item {
	it := Item{Task: t, Leaf: t, Chain: []*model.Task{t}, Actionable: true, Prompt: PromptOf(t.Snapshot)}
	if e, ok := s.Prior(t.Key.Agent, t.Key.ID, it.Prompt); ok {
		it.Prior = &e
	}
	return it
}
