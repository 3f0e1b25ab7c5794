package a2aclient

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"a2atop/internal/sdktest"
	"a2atop/model"
)

// TestReferenceTaskIdsEveryHTTPBinding: referenceTaskIds survive both ways
// on every HTTP binding, including A2A 0.3 HTTP+JSON, where the SDK v2.4.0
// drops them (refFix puts them back): the follow-up we send names the
// ended task on the wire, and the references an agent's tasks carry reach
// the model from sweeps or polls, from streams (snapshot and status
// update) and from Get's history.
func TestReferenceTaskIdsEveryHTTPBinding(t *testing.T) {
	for _, kind := range []sdktest.Kind{sdktest.JSONRPC, sdktest.REST, sdktest.Legacy, sdktest.LegacyREST} {
		t.Run(string(kind), func(t *testing.T) {
			t.Parallel()
			rs := &sdktest.RefServer{}
			a := sdktest.Start(t, kind, true, rs.Wrap)
			rs.Exec.Store(a.Exec)
			base := a.Send(t, "ask")
			chained := a.Send(t, "chain:"+string(base))
			// Working and naming base before the watcher looks: a stream
			// opened earlier would get the reference in a status update,
			// not in its snapshot.
			a.Stored(t, chained, a2a.TaskStateWorking)
			o := fast("a", a.URL())
			o.Tasks = []a2a.TaskID{base, chained}
			m, c := runManager(t, []AgentOptions{o}, Options{})
			want := []a2a.TaskID{base}

			for _, src := range []model.Source{model.SourceStream, listedOrPolled(kind)} {
				c.waitFor(t, "the chained task's references via "+src.String(), 10*time.Second, func(evs []model.Event) bool {
					return slices.ContainsFunc(evs, func(e model.Event) bool {
						return e.Kind == model.EventTask && e.Task.ID == chained && e.Source == src &&
							e.Task.Status.Message != nil && slices.Equal(e.Task.Status.Message.ReferenceTasks, want)
					})
				})
			}
			a.Exec.Release()
			c.waitFor(t, "the stream's status update with its references", 10*time.Second, func(evs []model.Event) bool {
				return slices.ContainsFunc(evs, func(e model.Event) bool {
					return e.Kind == model.EventStatus && e.Status.TaskID == chained && e.Source == model.SourceStream &&
						e.Status.Status.State == a2a.TaskStateInputRequired && e.Status.Status.Message != nil &&
						slices.Equal(e.Status.Status.Message.ReferenceTasks, want)
				})
			})

			follow := a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("ask again"))
			follow.ID, follow.ReferenceTasks = "follow-up-"+string(kind), want
			fu, err := m.Reply(t.Context(), "a", follow)
			if err != nil || fu == nil {
				t.Fatalf("Reply: %v, %v", fu, err)
			}
			if got := rs.SentRefs(follow.ID); !slices.Equal(got, want) {
				t.Fatalf("the follow-up reached the agent with referenceTaskIds %v, want %v", got, want)
			}
			if !sentInCapture(m.Capture("a"), follow.ID, want) {
				t.Errorf("the raw capture does not show the follow-up sent with referenceTaskIds %v", want)
			}
			got, err := m.Get(t.Context(), "a", fu.ID, 10, false)
			if err != nil {
				t.Fatal(err)
			}
			i := slices.IndexFunc(got.History, func(h *a2a.Message) bool { return h.ID == follow.ID })
			if i < 0 || !slices.Equal(got.History[i].ReferenceTasks, want) {
				for _, h := range got.History {
					t.Logf("history: %s refs %v", h.ID, h.ReferenceTasks)
				}
				t.Fatalf("Get: the follow-up's history does not hold our message naming %s", base)
			}
		})
	}
}

func listedOrPolled(kind sdktest.Kind) model.Source {
	if kind == sdktest.Legacy {
		return model.SourcePoll
	}
	return model.SourceSweep
}

// sentInCapture reports whether the capture holds a SendMessage whose
// message (a REST body's "message" or a JSON-RPC request's
// params.message) is id with referenceTaskIds want, as it went out.
func sentInCapture(exs []model.Exchange, id string, want []a2a.TaskID) bool {
	for _, ex := range exs {
		_, body, ok := strings.Cut(ex.Request, "\n\n")
		if ex.RPC != "SendMessage" && ex.RPC != "message/send" || !ok {
			continue
		}
		type wireMsg struct {
			ID   string       `json:"messageId"`
			Refs []a2a.TaskID `json:"referenceTaskIds"`
		}
		var req struct {
			Message *wireMsg `json:"message"`
			Params  struct {
				Message *wireMsg `json:"message"`
			} `json:"params"`
		}
		if json.Unmarshal([]byte(body), &req) != nil {
			continue
		}
		msg := req.Message
		if msg == nil {
			msg = req.Params.Message
		}
		if msg != nil && msg.ID == id && slices.Equal(msg.Refs, want) {
			return true
		}
	}
	return false
}
