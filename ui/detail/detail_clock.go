package detail

import (
	"time"

	"a2atop/model"
	"a2atop/ui/common"
)

// What of the detail view changes with the clock alone, besides its
// timestamps' ages (Clock.Stamp): the timeline of a task that has not
// ended grows (its bar and "for 3m12s so far", to the second), and a
// stream still open says how long ago its last chunk came. The detail
// builds its text on the clock's tick (Screen.Update), so asking
// while it builds is asking for the next build.

// askTimelineClock asks for the next second while the timeline's last
// state has not ended.
func askTimelineClock(c *common.Clock, marks []model.StateMark, now time.Time) {
	if n := len(marks); n > 0 && model.ClassOf(marks[n-1].State) != model.ClassTerminal && !marks[n-1].At.IsZero() {
		c.EverySecond(now)
	}
}

// askStreamClock asks for the next second while s is still streaming.
func askStreamClock(c *common.Clock, s model.Stream, now time.Time) {
	if !s.Done {
		c.EverySecond(now)
	}
}
