package edge

import (
	"strings"
	"testing"
)

func TestRedactPushSecrets(t *testing.T) {
	for _, in := range []string{
		`{"taskId":"t","token":"s3cret-tok","authentication":{"scheme":"Bearer","credentials":"s3cret-tok"},"url":"http://x"}`,
		`{"pushNotificationConfig":{"token" : "s3cret-tok"}}`,
		`{"params":{"token":"s3cret-t`, // cut by the capture's limit
		`{"token":"s3cret\"-tok"}`,
	} {
		out := NewRedactor(nil).Text(in)
		if strings.Contains(out, "s3cret") {
			t.Errorf("%s -> %s", in, out)
		}
	}
	if out := NewRedactor(nil).Text(`{"nextPageToken":"abc","tokens":1}`); out != `{"nextPageToken":"abc","tokens":1}` {
		t.Errorf("redacted what is no push secret: %s", out)
	}
}

func TestPushRPCNames(t *testing.T) {
	for _, tc := range []struct{ method, path, want string }{
		{"POST", "/tasks/t1/pushNotificationConfigs", "CreateTaskPushNotificationConfig"},
		{"GET", "/tenant/tasks/t1/pushNotificationConfigs", "ListTaskPushNotificationConfigs"},
		{"GET", "/tasks/t1/pushNotificationConfigs/c1", "GetTaskPushNotificationConfig"},
		{"DELETE", "/tasks/t1/pushNotificationConfigs/c1", "DeleteTaskPushNotificationConfig"},
		{"GET", "/tasks/t1", "GetTask"},
	} {
		if got := rpcName(tc.method, tc.path, ""); got != tc.want {
			t.Errorf("%s %s = %q, want %q", tc.method, tc.path, got, tc.want)
		}
	}
}
