package common

import "github.com/charmbracelet/bubbles/key"

// TeamHelp is a screen's task keys for the help: on a hub, cancel and
// reply only when the operator's roles allow them on some agent.
func (a *TaskActions) TeamHelp(keys []key.Binding) []key.Binding {
	if a.ctx.Team == nil {
		return keys
	}
	answers := a.ctx.MayAnywhere(RoleAnswer) || a.ctx.MayAnywhere(RoleApprove)
	out := make([]key.Binding, len(keys))
	for i, b := range keys {
		switch {
		case SameKeys(b, a.keys.Cancel):
			b = Offer(b, a.ctx.MayAnywhere(RoleCancel))
		case SameKeys(b, a.keys.Reply):
			b = Offer(b, answers)
		case SameKeys(b, a.keys.Approve), SameKeys(b, a.keys.Deny):
			b = Offer(b, a.ctx.MayAnywhere(RoleApprove))
		}
		out[i] = b
	}
	return out
}

// SameKeys reports whether two bindings answer the same keys.
func SameKeys(a, b key.Binding) bool {
	ak, bk := a.Keys(), b.Keys()
	if len(ak) != len(bk) {
		return false
	}
	for i := range ak {
		if ak[i] != bk[i] {
			return false
		}
	}
	return true
}
