package ui

import (
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"a2atop/model"
)

// UUIDv7 ids, as the Go SDK makes them: the first 8 characters are the
// minute they were made in, so the screens show the last 8.
const (
	idV7a a2a.TaskID = "019ad5c1-7e2a-7b3c-9d4e-5f60436c2b42" // shown 436c2b42
	idV7b a2a.TaskID = "019ad5c1-7e2a-7b3c-9d4e-5f612b42aa01" // shown 2b42aa01
	idV7c a2a.TaskID = "019ad5c1-7e2a-7b3c-9d4e-5f612b4f0000" // shown 2b4f0000
)

// v7Model is the dashboard on the fixture and three running UUIDv7 tasks.
func v7Model(t *testing.T) *Model {
	t.Helper()
	f := fixtureFleet()
	f.Apply([]model.Event{
		taskEvent("test-runner", idV7a, a2a.TaskStateWorking, time.Second, "lint"),
		taskEvent("deployer", idV7b, a2a.TaskStateWorking, time.Second, "build"),
		taskEvent("deployer", idV7c, a2a.TaskStateWorking, time.Second, "push"),
	})
	m, _ := newTestModel(t, Options{Fleet: f})
	return sized(m, 120, 40)
}

// TestCommandTakesAStartOfTheShortID: :cancel takes a start of the short
// id a row shows; a start several short ids share lists them.
func TestCommandTakesAStartOfTheShortID(t *testing.T) {
	m := v7Model(t)
	runLine(m, "cancel 436c")
	if !confirming(m) || tasksOf(m).Targets()[0].ID != idV7a {
		t.Fatalf(":cancel 436c did not ask to cancel %s: %q", idV7a, m.status.text)
	}
	press(m, "esc")
	runLine(m, "cancel 2b4")
	for _, want := range []string{"2b4 could be", "deployer · 2b42aa01", "deployer · 2b4f0000"} {
		if !strings.Contains(m.status.text, want) {
			t.Errorf(":cancel 2b4 says %q, want %q", m.status.text, want)
		}
	}
	runLine(m, "cancel 019ad5c1")
	if !strings.Contains(m.status.text, "could be") || !strings.Contains(m.status.text, "test-runner · 436c2b42") {
		t.Errorf(":cancel of the shared start says %q", m.status.text)
	}
}

// TestFilterTakesAnID: id: in the filter selects the tasks it names, as
// the commands read ids.
func TestFilterTakesAnID(t *testing.T) {
	m := v7Model(t)
	runLine(m, "filter id:2b42")
	if n := tasksOf(m).PaneOf(model.ClassActive).Count; n != 1 {
		t.Fatalf("id:2b42 shows %d active tasks, want 1 (%s)", n, idV7b)
	}
	if !strings.Contains(m.View(), "2b42aa01") || strings.Contains(m.View(), "436c2b42") {
		t.Fatalf("id:2b42 shows the wrong rows:\n%s", m.View())
	}
}
