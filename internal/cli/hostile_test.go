package cli

import (
	"bufio"
	"context"
	"fmt"
	"iter"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
	"github.com/a2aproject/a2a-go/v2/a2asrv/taskstore"
)

// evil is agent text built to act on a terminal: an OSC title, CSI, the
// C1 forms of CSI and OSC (an OSC 52 clipboard write), DEL, bidi
// overrides and isolates, and the Unicode line and paragraph separators.
const evil = "\x1b]0;TITLE\x07\x1b[2J\x1b[31mred\u009b2J\u009d52;c;QUFBQQ==\u0007\x7fdel" +
	"\u202eevil\u202c\u2066iso\u2069\u200f\u2028line\u2029para\u0085nel"

// hostileState is a task state that carries an OSC sequence.
const hostileState = a2a.TaskState("TASK_STATE_\x1b]0;TITLE\x07X")

// hostileStore is the SDK's in-memory store, with every task owned by
// one user (so ListTasks answers), that fails GetTask on the task "boom"
// and, when failList is set, every ListTasks, with evil in the message.
type hostileStore struct {
	*taskstore.InMemory
	failList bool
}

func (s *hostileStore) Get(ctx context.Context, id a2a.TaskID) (*taskstore.StoredTask, error) {
	if id == "boom" {
		return nil, fmt.Errorf("%w: store says %s", a2a.ErrInternalError, evil)
	}
	return s.InMemory.Get(ctx, id)
}

func (s *hostileStore) List(ctx context.Context, req *a2a.ListTasksRequest) (*a2a.ListTasksResponse, error) {
	if s.failList {
		return nil, fmt.Errorf("%w: listing says %s", a2a.ErrInternalError, evil)
	}
	return s.InMemory.List(ctx, req)
}

// hostileExec answers every message with an evil artifact and a status in
// hostileState whose message is evil.
type hostileExec struct{}

func (hostileExec) Execute(_ context.Context, ec *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		art := a2a.NewArtifactEvent(ec, a2a.NewTextPart(evil))
		art.Artifact.Name = evil
		if !yield(art, nil) {
			return
		}
		yield(a2a.NewStatusUpdateEvent(ec, hostileState, a2a.NewMessageForTask(a2a.MessageRoleAgent, ec, a2a.NewTextPart(evil))), nil)
	}
}

func (hostileExec) Cancel(context.Context, *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(func(a2a.Event, error) bool) {}
}

// hostileTasks are the tasks a hostile agent holds from the start.
var hostileTasks = []struct {
	id    a2a.TaskID
	state a2a.TaskState
}{
	{"odd-state", hostileState},
	{"question", a2a.TaskStateInputRequired},
	{"data-question", a2a.TaskStateInputRequired},
	{"approval", a2a.TaskStateAuthRequired},
	{"denial", a2a.TaskStateAuthRequired},
	{"evil-\x1b[2J\u202e-1", a2a.TaskStateInputRequired},
	{"evil-\u009b2J\u2066-2", a2a.TaskStateWorking},
	{"done", a2a.TaskStateFailed},
}

// startHostileAgent serves a real SDK agent (JSON-RPC) on loopback whose
// card, task ids, states, status texts, artifacts and error messages all
// carry evil, and returns its base URL.
func startHostileAgent(t *testing.T, failList bool) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	base := "http://" + ln.Addr().String()
	owner := func(context.Context) (string, error) { return "op", nil }
	store := &hostileStore{InMemory: taskstore.NewInMemory(&taskstore.InMemoryStoreConfig{Authenticator: owner}), failList: failList}
	now := time.Now().UTC()
	for i, ht := range hostileTasks {
		at := now.Add(-time.Duration(len(hostileTasks)-i) * time.Second)
		task := &a2a.Task{ID: ht.id, ContextID: "ctx-" + string(rune('a'+i)), Status: a2a.TaskStatus{State: ht.state, Timestamp: &at,
			Message: a2a.NewMessage(a2a.MessageRoleAgent, a2a.NewTextPart("asks: "+evil))},
			Artifacts: []*a2a.Artifact{{ID: "log", Name: evil, Description: evil, Parts: a2a.ContentParts{a2a.NewTextPart(evil)}}},
			Metadata:  map[string]any{"note": evil}}
		if _, err := store.Create(context.Background(), task); err != nil {
			t.Fatal(err)
		}
	}
	card := &a2a.AgentCard{Name: "hostile " + evil, Description: evil, Version: evil,
		Capabilities:        a2a.AgentCapabilities{Streaming: true},
		SupportedInterfaces: []*a2a.AgentInterface{a2a.NewAgentInterface(base+"/invoke", a2a.TransportProtocolJSONRPC)},
		DefaultInputModes:   []string{"text"}, DefaultOutputModes: []string{"text"},
		Skills: []a2a.AgentSkill{{ID: "s", Name: evil, Description: evil, Tags: []string{evil}}}}
	mux := http.NewServeMux()
	mux.Handle(a2asrv.WellKnownAgentCardPath, a2asrv.NewStaticAgentCardHandler(card))
	mux.Handle("/invoke", a2asrv.NewJSONRPCHandler(a2asrv.NewHandler(hostileExec{}, a2asrv.WithTaskStore(store))))
	srv := &http.Server{Handler: mux}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return base
}

// unsafeRunes lists what in out could act on a terminal: ESC and the
// other C0 controls but newline and tab, DEL, C1 controls, bidi
// formatting characters, U+2028/U+2029, and bytes that are not UTF-8
// (a lone 0x9b is CSI to some terminals).
func unsafeRunes(out string) []string {
	var bad []string
	for i := 0; i < len(out); {
		r, size := utf8.DecodeRuneInString(out[i:])
		switch {
		case r == utf8.RuneError && size == 1,
			r < 0x20 && r != '\n' && r != '\t',
			r >= 0x7f && r <= 0x9f,
			r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069, r == 0x200e, r == 0x200f, r == 0x061c,
			r == 0x2028, r == 0x2029:
			lo, hi := max(i-20, 0), min(i+20, len(out))
			bad = append(bad, fmt.Sprintf("%U at %d in %q", r, i, out[lo:hi]))
		}
		i += size
	}
	return bad
}

// checkSafe fails the test for anything unsafe in a command's output.
func checkSafe(t *testing.T, what, stream, out string) {
	t.Helper()
	if bad := unsafeRunes(out); len(bad) > 0 {
		t.Errorf("%s: %s holds %d unsafe characters, first %s", what, stream, len(bad), bad[0])
	}
}

// Every command, run against agents whose every string is hostile, prints
// nothing that could act on a terminal: on stdout and stderr, in tables,
// messages and errors alike, and in JSON (where such characters are
// \u escapes).
func TestHostileAgentTextNeverReachesTheTerminal(t *testing.T) {
	isolate(t)
	url := startHostileAgent(t, false)
	broken := startHostileAgent(t, true)
	ctx := context.Background()
	runs := [][]string{
		{"check", "--timeout", "10s", url, broken},
		{"tasks", "--timeout", "10s", url, broken},
		{"tasks", "--json", "--timeout", "10s", url, broken},
		{"tasks", "--state", "input", "--timeout", "10s", url},
		{"reply", url, "question", "--text", "yes"},
		{"reply", url, "data-question", "--data", `{"answer": 42}`},
		{"reply", url, "approval", "--approve", "--reason", "ok"},
		{"reply", url, "denial", "--deny", "--reason", "no"},
		{"reply", url, "odd-state", "--approve"},      // not waiting: its state in the refusal
		{"reply", url, "done", "--text", "late"},      // ended: its state in the refusal
		{"reply", url, "boom", "--approve"},           // GetTask fails with evil
		{"reply", url, "evil", "--approve"},           // ambiguous between two evil ids
		{"reply", url, "evil-\x1b[2J", "--text", "x"}, // one evil id, which the messages name
		{"reply", broken, "nothing-here", "--approve"},
	}
	for _, args := range runs {
		code, out, errOut := runCmd(ctx, args...)
		what := strings.Join(args[:min(len(args), 3)], " ")
		t.Logf("%s: %d\nstdout: %q\nstderr: %q", what, code, out, errOut)
		checkSafe(t, what, "stdout", out)
		checkSafe(t, what, "stderr", errOut)
		if args[1] == broken && !strings.Contains(errOut, "listing the agent's tasks to look for one that starts with it failed") {
			t.Errorf("%s: %q does not say that the listing failed", what, errOut)
		}
	}

	// watch --jsonl until the agents' tasks and the broken one's error arrived.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var out, errOut syncBuffer
	done := make(chan int, 1)
	go func() { done <- run(ctx, []string{"watch", "--jsonl", url, broken}, Streams{Out: &out, Err: &errOut}) }()
	deadline := time.After(20 * time.Second)
	for !strings.Contains(out.String(), `listing says`) || strings.Count(out.String(), `"kind":"task"`) < len(hostileTasks) {
		select {
		case <-deadline:
			cancel()
			t.Fatalf("watch never showed the hostile tasks and errors:\n%s\n%s", out.String(), errOut.String())
		case <-time.After(20 * time.Millisecond):
		}
	}
	cancel()
	<-done
	sc := bufio.NewScanner(strings.NewReader(out.String()))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		checkSafe(t, "watch --jsonl", "a line", sc.Text())
	}
	checkSafe(t, "watch --jsonl", "stderr", errOut.String())
}
