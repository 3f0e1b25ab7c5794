package ui_test

import (
	"context"
	"io"
	"regexp"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	tea "github.com/charmbracelet/bubbletea"

	"a2atop/a2aclient"
	"a2atop/demo"
	"a2atop/model"
	"a2atop/ui"
	"a2atop/ui/common"
	"a2atop/ui/internal/uitest"
	"a2atop/ui/theme"
)

// chunkRE finds the log chunks of the demo's full-suite run: one
// "=== package pkg/moduleNN" line each.
var chunkRE = regexp.MustCompile(`=== package pkg/module(\d+) @`)

// chunksIn returns the chunk numbers s shows, in the order it shows them.
func chunksIn(s string) []int {
	var out []int
	for _, m := range chunkRE.FindAllStringSubmatch(s, -1) {
		n, _ := strconv.Atoi(m[1])
		out = append(out, n)
	}
	return out
}

// newestChunk is the highest chunk number an event carries (0: none).
func newestChunk(ev model.Event) int {
	var parts []*a2a.Part
	switch {
	case ev.Artifact != nil && ev.Artifact.Artifact != nil:
		parts = ev.Artifact.Artifact.Parts
	case ev.Task != nil:
		for _, a := range ev.Task.Artifacts {
			parts = append(parts, a.Parts...)
		}
	}
	n := 0
	for _, p := range parts {
		for _, c := range chunksIn(p.Text()) {
			n = max(n, c)
		}
	}
	return n
}

// TestDetailShowsEveryStreamedChunk runs the demo's test-runner (the
// SDK's server) with the real watchers and opens the detail of a
// full-suite run while it streams test.log: after every batch the
// watchers deliver, the screen shows every chunk any event has carried
// so far, in order, once each, and so does the raw JSON (J). The detail
// used to keep showing the GetTask answer it fetched when it opened,
// because appended chunks do not move the status timestamp: the log
// stopped at the chunk it had when opened until the task ended.
func TestDetailShowsEveryStreamedChunk(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the demo's test-runner")
	}
	// With the fleet's default caps the log fits; with 700 bytes it does
	// not: the screen then shows the newest chunks, in order, up to the
	// last one sent, and all of them once the run has ended.
	for _, limit := range []int{0, 700} {
		t.Run("cap="+strconv.Itoa(limit), func(t *testing.T) { detailStreams(t, limit) })
	}
}

func detailStreams(t *testing.T, limit int) {
	const chunks = 16
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	df, err := demo.Start(ctx, demo.Options{NoPlanner: true, Timings: demo.Timings{
		Step: 20 * time.Millisecond, LogEvery: 150 * time.Millisecond, LogChunks: chunks}})
	if err != nil {
		t.Fatalf("demo.Start: %v", err)
	}
	defer df.Close()
	var url string
	for _, a := range df.Agents() {
		if a.Name == demo.TestRunner {
			url = a.URL
		}
	}
	fleet := model.NewFleet(model.Options{MaxArtifactBytes: limit})
	fleet.AddAgent(demo.TestRunner, url)
	mgr := a2aclient.New([]a2aclient.AgentOptions{{Name: demo.TestRunner, URL: url, Subscribe: true,
		SweepInterval: 100 * time.Millisecond}}, a2aclient.Options{})
	done := make(chan struct{})
	go func() { mgr.Run(ctx); close(done) }()
	defer func() { cancel(); <-done }()

	m := ui.New(ui.Options{Fleet: fleet, Backend: mgr, Output: io.Discard,
		Theme: theme.New(theme.Options{Mode: theme.ModeDark}), HistoryLength: 10})
	update := func(msg tea.Msg) {
		_, cmd := m.Update(msg)
		for pending := []tea.Cmd{cmd}; len(pending) > 0; pending = pending[1:] {
			for _, msg := range uitest.Run(pending[0]) {
				_, next := m.Update(msg)
				pending = append(pending, next)
			}
		}
	}
	update(tea.WindowSizeMsg{Width: 140, Height: 200}) // the whole log fits

	task, err := mgr.Reply(ctx, demo.TestRunner, a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("run the full suite at 9f3c2e1")))
	if err != nil || task == nil {
		t.Fatalf("starting the full suite: %v, %v", task, err)
	}
	key := model.TaskKey{Agent: demo.TestRunner, ID: task.ID}
	opened, sent, checks, raw := false, 0, 0, false
	for {
		var batch []model.Event
		select {
		case ev := <-mgr.Events():
			batch = append(batch, ev)
		case <-ctx.Done():
			t.Fatalf("the run did not complete on screen; %d chunks sent, screen:\n%s", sent, m.View())
		}
		for drained := false; !drained; {
			select {
			case ev := <-mgr.Events():
				batch = append(batch, ev)
			default:
				drained = true
			}
		}
		for _, ev := range batch {
			if ev.Artifact != nil && ev.Artifact.TaskID == key.ID || ev.Task != nil && ev.Task.ID == key.ID {
				sent = max(sent, newestChunk(ev))
			}
		}
		update(common.ApplyMsg{Events: batch})
		if !opened && fleet.Task(key) != nil && sent >= 3 {
			// Opened while the log streams, as a person would: the
			// detail fetches the task with GetTask.
			update(common.OpenTaskMsg{Key: key})
			opened = true
		}
		if !opened {
			continue
		}
		tk := fleet.Task(key)
		got, want := chunksIn(m.View()), make([]int, sent)
		for i := range want {
			want[i] = i + 1
		}
		if limit > 0 && tk.Class != model.ClassTerminal && len(got) > 0 {
			want = want[max(len(want)-len(got), 0):] // the newest, the older cut to the cap
		}
		if !slices.Equal(got, want) {
			t.Fatalf("after a batch with chunk %d the detail shows chunks %v, want %v:\n%s", sent, got, want, m.View())
		}
		if sent > 0 && !raw && sent >= chunks/2 {
			update(uitest.Key("J"))
			if got := chunksIn(m.View()); len(got) == 0 || got[len(got)-1] != sent && tk.Class != model.ClassTerminal {
				t.Fatalf("the raw JSON shows chunks %v, want up to %d:\n%s", got, sent, m.View())
			}
			update(uitest.Key("J"))
			raw = true
		}
		checks++
		if tk.State == a2a.TaskStateCompleted && sent == chunks {
			break
		}
	}
	if checks < chunks/3 {
		t.Errorf("only %d batches were checked while %d chunks streamed", checks, chunks)
	}
}
