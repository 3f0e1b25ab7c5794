package cli

import (
	"fmt"
	"io"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"a2atop/internal/sanitize"
	"a2atop/model"
)

// writeJSON writes v as one line of JSON: every JSON that tasks and watch
// print goes through it. Agent text is kept as data, but the characters a
// terminal could act on even inside a JSON string are written as \uXXXX
// escapes (sanitize.WriteJSON), so piping the output to a terminal is safe
// and a JSON reader gets the same string.
func writeJSON(w io.Writer, v any) error { return sanitize.WriteJSON(w, v) }

// jsonHealth is an agent's connection state in JSON.
type jsonHealth struct {
	Health       string     `json:"health"`
	Error        string     `json:"error,omitempty"`
	Listing      bool       `json:"listing"`
	ListingNote  string     `json:"listingNote,omitempty"`
	Streams      int        `json:"streams"`
	StreamsShort int        `json:"streamsShort,omitempty"`
	LastSuccess  *time.Time `json:"lastSuccess,omitempty"`
	NextRetry    *time.Time `json:"nextRetry,omitempty"`
}

// newJSONHealth converts a health update; nil is "connecting".
func newJSONHealth(h *model.HealthUpdate) jsonHealth {
	if h == nil {
		return jsonHealth{Health: model.HealthConnecting.String()}
	}
	return jsonHealth{Health: h.State.String(), Error: h.Err, Listing: h.Listing, ListingNote: h.ListingNote,
		Streams: h.Streams, StreamsShort: h.StreamsShort, LastSuccess: timePtr(h.LastSuccess), NextRetry: timePtr(h.NextRetry)}
}

// jsonCard is what an agent's card says, in JSON.
type jsonCard struct {
	CardName        string `json:"cardName,omitempty"`
	ProtocolVersion string `json:"protocolVersion,omitempty"`
	Binding         string `json:"binding,omitempty"`
	InterfaceURL    string `json:"interfaceUrl,omitempty"`
	Streaming       bool   `json:"streaming"`
	Push            bool   `json:"push"`
	ReadOnly        bool   `json:"readOnly"`
}

// newJSONCard converts agent info; nil when the card was never read.
func newJSONCard(i *model.AgentInfo) *jsonCard {
	if i == nil {
		return nil
	}
	return &jsonCard{CardName: i.CardName, ProtocolVersion: i.ProtocolVersion, Binding: i.Binding,
		InterfaceURL: i.InterfaceURL, Streaming: i.Streaming, Push: i.Push, ReadOnly: i.ReadOnly}
}

// jsonAgent is an agent as `tasks --json` prints it.
type jsonAgent struct {
	Name string `json:"name"`
	URL  string `json:"url"`
	jsonHealth
	Card *jsonCard `json:"card,omitempty"`
}

func timePtr(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	return &t
}

// jsonTask is one task as `tasks --json` prints it: what the dashboard
// shows on its row, plus the agent's last snapshot as A2A JSON.
type jsonTask struct {
	Agent     string     `json:"agent"`
	ID        a2a.TaskID `json:"id"`
	ContextID string     `json:"contextId,omitempty"`
	State     string     `json:"state"`
	Class     string     `json:"class"`
	Updated   time.Time  `json:"updated"`
	Since     time.Time  `json:"since"`
	Text      string     `json:"text,omitempty"`
	Hint      string     `json:"hint,omitempty"`
	Stale     bool       `json:"stale,omitempty"`
	Gone      bool       `json:"gone,omitempty"`
	Source    string     `json:"source"`
	BlockedBy *taskRef   `json:"blockedBy,omitempty"`
	Task      *a2a.Task  `json:"task,omitempty"`
}

// taskRef names a task of the fleet.
type taskRef struct {
	Agent string     `json:"agent"`
	ID    a2a.TaskID `json:"id"`
}

// newJSONTask converts a fleet task.
func newJSONTask(f *model.Fleet, t *model.Task) jsonTask {
	j := jsonTask{Agent: t.Key.Agent, ID: t.Key.ID, State: string(t.State), Class: t.Class.String(),
		Updated: t.Updated, Since: t.Since, Text: t.Text, Hint: t.Hint, Stale: t.Stale, Gone: t.Gone,
		Source: t.Source.String(), Task: t.Snapshot}
	if t.Snapshot != nil {
		j.ContextID = t.Snapshot.ContextID
	}
	if b := f.BlockedBy(t.Key); b != nil {
		j.BlockedBy = &taskRef{Agent: b.Key.Agent, ID: b.Key.ID}
	}
	return j
}

// jsonEvent is one line of `watch --jsonl`: the event's kind and agent,
// and the one payload its kind carries, as A2A JSON where it is A2A data.
type jsonEvent struct {
	At       time.Time                    `json:"at"`
	Agent    string                       `json:"agent"`
	Kind     string                       `json:"kind"`
	Source   string                       `json:"source,omitempty"`
	Task     *a2a.Task                    `json:"task,omitempty"`
	Status   *a2a.TaskStatusUpdateEvent   `json:"status,omitempty"`
	Artifact *a2a.TaskArtifactUpdateEvent `json:"artifact,omitempty"`
	Health   *jsonHealth                  `json:"health,omitempty"`
	Info     *jsonCard                    `json:"info,omitempty"`
}

// kindNames are the "kind" values of jsonEvent.
var kindNames = map[model.EventKind]string{
	model.EventTask: "task", model.EventStatus: "status", model.EventArtifact: "artifact",
	model.EventHealth: "health", model.EventAgent: "agent", model.EventGone: "gone",
}

// newJSONEvent converts a watcher event.
func newJSONEvent(ev model.Event) jsonEvent {
	j := jsonEvent{At: ev.At, Agent: ev.Agent, Kind: kindNames[ev.Kind], Task: ev.Task, Status: ev.Status, Artifact: ev.Artifact}
	if j.Kind == "" {
		j.Kind = fmt.Sprintf("kind-%d", ev.Kind)
	}
	if ev.Kind <= model.EventArtifact || ev.Kind == model.EventGone {
		j.Source = ev.Source.String()
	}
	if ev.Health != nil {
		h := newJSONHealth(ev.Health)
		j.Health = &h
	}
	j.Info = newJSONCard(ev.Info)
	return j
}
