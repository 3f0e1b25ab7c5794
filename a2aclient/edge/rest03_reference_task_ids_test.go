package edge

import (
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"a2atop/internal/sdktest"
)

// TestSDKDropsReferenceTaskIdsOn03REST documents what
// rest03_reference_task_ids.go works around: the SDK v2.4.0's A2A 0.3
// HTTP+JSON client, alone, sends a message without its referenceTaskIds
// and decodes the messages of a conformant agent's answers without
// theirs. It fails the day the SDK keeps them: delete
// rest03_reference_task_ids.go then.
func TestSDKDropsReferenceTaskIdsOn03REST(t *testing.T) {
	rs := &sdktest.RefServer{}
	a := sdktest.Start(t, sdktest.LegacyREST, false, rs.Wrap)
	rs.Exec.Store(a.Exec)
	ended := a.Send(t, "done")
	bare := a.Other(t)
	ctx := t.Context()

	msg := a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("ask"))
	msg.ReferenceTasks = []a2a.TaskID{ended}
	if _, err := bare.SendMessage(ctx, &a2a.SendMessageRequest{Message: msg}); err != nil {
		t.Fatal(err)
	}
	waiting := a.Send(t, "ref:"+string(ended))
	st := a.Stored(t, waiting, a2a.TaskStateAuthRequired).Status.Message
	if sent := rs.SentRefs(msg.ID); sent != nil || st == nil || a.Exec.RefsOf(st.ID) == nil || st.ReferenceTasks != nil {
		t.Fatalf("bare SDK over 0.3 HTTP+JSON: sent referenceTaskIds %v, decoded the status message with %v; "+
			"pinned: none sent, none decoded though the answer carries them", sent, st)
	}
}
