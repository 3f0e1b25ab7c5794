package sdktest

import "github.com/a2aproject/a2a-go/v2/a2a"

// The hostile ids of issue 21: each, pasted into a path, names another
// path on the agent's origin. HostileListed and HostileEnded are meant
// for the agent's own tasks (working, completed), HostileConfig for a
// push config.
const (
	HostileGet    = a2a.TaskID("../../secret-admin?delete=all")
	HostileCancel = a2a.TaskID("../../admin/users/42?action=delete#")
	HostileConfig = "../../../../admin/keys?drop=1#"
	HostileListed = a2a.TaskID("../../../listed-admin/x?y=1#z") // the agent's own, working
	HostileEnded  = a2a.TaskID("..%2F..%2Fended:cancel")        // the agent's own, completed
)
