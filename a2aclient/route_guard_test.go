package a2aclient

import (
	"testing"
	"time"

	"a2atop/internal/sdktest"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
	"github.com/a2aproject/a2a-go/v2/a2asrv/push"
)

// withPush restarts the agent (same port, same store) with push
// notifications: an in-memory config store whose configs are never
// delivered (the test's tasks do not change).
func withPush(a *sdktest.Agent, t *testing.T) {
	t.Helper()
	a.Stop()
	a.H = a2asrv.NewHandler(a.Exec, a2asrv.WithTaskStore(a.Store), a2asrv.WithCallInterceptors(a.Icpt),
		a2asrv.WithPushNotifications(push.NewInMemoryStore(), push.NewHTTPPushSender(&push.HTTPSenderConfig{Timeout: time.Second})))
	a.Card.Capabilities.PushNotifications = true
	a.Start()
}

// createInStoreAs adds a task named id straight into the agent's store,
// as the agent's user: the agent's own ListTasks then lists it.
func createInStoreAs(a *sdktest.Agent, t testing.TB, id a2a.TaskID, st a2a.TaskState) {
	t.Helper()
	ctx, cc := a2asrv.NewCallContext(t.Context(), nil)
	cc.User = a2asrv.NewAuthenticatedUser("tester", nil)
	now := time.Now()
	task := &a2a.Task{ID: id, ContextID: a2a.NewContextID(), Status: a2a.TaskStatus{State: st, Timestamp: &now}}
	if _, err := a.Store.Create(ctx, task); err != nil {
		t.Fatal(err)
	}
}
