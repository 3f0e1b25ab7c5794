package edge

import (
	"errors"
	"strings"
	"testing"

	"a2atop/internal/sdktest"

	"github.com/a2aproject/a2a-go/v2/a2a"
	sdk "github.com/a2aproject/a2a-go/v2/a2aclient"
)

// TestSDKHidesWireCodes documents what hidden_codes.go works around: the
// SDK v2.4.0, alone, keeps neither the JSON-RPC code of an error it does
// not know (it becomes ErrInternalError), nor the HTTP status of a
// JSON-RPC call refused with 401 (untyped words), nor that of a REST
// error (only its A2A reason): no error it returns says RPCCode or
// HTTPStatus. It fails the day the SDK's errors carry them: delete the
// probe (hidden_codes.go) then. TestOperations, TestRESTErrorShapes and
// TestHostilePeer (a2aclient) show Error carrying them today.
func TestSDKHidesWireCodes(t *testing.T) {
	h := sdktest.StartHostile(t, "badsse") // answers CancelTask with -32050
	unknown, err := sdk.NewFromEndpoints(t.Context(),
		[]*a2a.AgentInterface{a2a.NewAgentInterface(h.URL+"/rpc", a2a.TransportProtocolJSONRPC)},
		sdk.WithJSONRPCTransport(nil))
	if err != nil {
		t.Fatal(err)
	}
	defer unknown.Destroy()
	locked := sdktest.Start(t, sdktest.JSONRPC, false, sdktest.RequireBearer("not-sent"))
	rest := sdktest.Start(t, sdktest.REST, false, nil)
	ctx := t.Context()

	_, cancelErr := unknown.CancelTask(ctx, &a2a.CancelTaskRequest{ID: "t1"})
	_, lockedErr := locked.Other(t).GetTask(ctx, &a2a.GetTaskRequest{ID: "t1"})
	_, restErr := rest.Other(t).GetTask(ctx, &a2a.GetTaskRequest{ID: "no-such-task"})
	for _, tc := range []struct {
		what     string
		err      error
		sentinel error
		hidden   string // the fact on the wire the error does not say
	}{
		{"JSON-RPC code -32050", cancelErr, a2a.ErrInternalError, "-32050"},
		{"JSON-RPC over HTTP 401", lockedErr, nil, ""},
		{"REST 404", restErr, a2a.ErrTaskNotFound, "404"},
	} {
		var code interface{ RPCCode() int }
		var status interface{ HTTPStatus() int }
		if tc.err == nil || errors.As(tc.err, &code) || errors.As(tc.err, &status) ||
			tc.sentinel != nil && !errors.Is(tc.err, tc.sentinel) || tc.hidden != "" && strings.Contains(tc.err.Error(), tc.hidden) {
			t.Errorf("%s: the bare SDK returned %v; pinned: %v, with no RPCCode or HTTPStatus", tc.what, tc.err, tc.sentinel)
		}
	}
	if !strings.Contains(lockedErr.Error(), "unexpected HTTP status: 401") {
		t.Errorf("JSON-RPC over HTTP 401: %v; pinned: only the words say 401", lockedErr)
	}
}
