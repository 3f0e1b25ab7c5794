package detail

import (
	"github.com/a2aproject/a2a-go/v2/a2a"

	"a2atop/model"
)

// What the screen shows and where its fetch stands, read by the root's
// tests through the model they drive (the screen is built and updated
// by the root only).

// Task is the task shown.
func (v *Screen) Task() model.TaskKey { return v.key }

// Seq numbers the GetTask of the task shown: an answer (TaskLoadedMsg)
// of another Seq is an old one's, dropped.
func (v *Screen) Seq() int { return v.seq }

// Err is why the last GetTask failed, nil when it did not.
func (v *Screen) Err() error { return v.err }

// Raw reports whether the raw JSON is shown (J).
func (v *Screen) Raw() bool { return v.raw }

// Links are the tasks the one shown references, in the order enter
// follows them.
func (v *Screen) Links() []a2a.TaskID { return v.links }

// BodyBuilds is how often the content below the overview was built.
func (v *Screen) BodyBuilds() int { return v.bodyBuilds }

// Confirming reports whether the cancel confirmation is open.
func (v *Screen) Confirming() bool { return v.act.Confirming() }

// SearchLines are the lines of the text shown that hold the search.
func (v *Screen) SearchLines() []int { return v.search.lines }

// SearchCurrent is the index in SearchLines of the line n and N are at.
func (v *Screen) SearchCurrent() int { return v.search.cur }

// SearchLine is the line n and N are at.
func (v *Screen) SearchLine() int { return v.search.line() }

// Searching reports whether a search is set (typed or kept).
func (v *Screen) Searching() bool { return v.search.active() }
