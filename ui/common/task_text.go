package common

import (
	"github.com/a2aproject/a2a-go/v2/a2a"

	"a2atop/internal/sanitize"
	"a2atop/model"
)

// The widths a task's short id and state take in a row or a notice.
const (
	// IDWidth is a short id's (model.ShortID).
	IDWidth = 8
	// MaxStateWidth bounds the state of an Unknown row, shown whole up
	// to here: "unknown(TASK_STATE_PAUSED)".
	MaxStateWidth = 32
)

// StateText is a task state as a row or a notice shows it: an unknown
// state is the agent's own string, so it is sanitized like any agent text.
func StateText(s a2a.TaskState) string {
	return sanitize.Line(model.ShortState(s), MaxStateWidth)
}

// ShortIDText is a task's short id, sanitized: the id is the agent's.
func ShortIDText(id a2a.TaskID) string { return sanitize.Line(model.ShortID(id), IDWidth) }
