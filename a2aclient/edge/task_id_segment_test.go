package edge

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
	sdk "github.com/a2aproject/a2a-go/v2/a2aclient"

	"a2atop/internal/sdktest"
	"a2atop/model"
)

// urlTrap is a RoundTripper that keeps the URL of every request and
// sends none.
type urlTrap struct{ urls []*url.URL }

func (u *urlTrap) RoundTrip(r *http.Request) (*http.Response, error) {
	u.urls = append(u.urls, r.URL)
	return nil, errors.New("trapped")
}

// FuzzTaskIDOneSegment: for every id CheckTaskID lets through, the form
// idFix hands the SDK's own REST transport comes out of it as exactly
// one path segment (no query, no fragment, no other segment) that
// decodes to the id, for GetTask and CancelTask.
func FuzzTaskIDOneSegment(f *testing.F) {
	for _, s := range []string{"abc", "../../secret-admin?delete=all", "../../admin/users/42?action=delete#", "..%2F..%2Fended:cancel", "%", "%2e%2E", "a b", "é/ü", ":", "?#", "...", "./x", "~"} {
		f.Add(s)
	}
	base, _ := url.Parse("http://127.0.0.1:1/a2a/rest")
	f.Fuzz(func(t *testing.T, id string) {
		if model.CheckTaskID(id) != nil {
			return
		}
		trap := &urlTrap{}
		tr := sdk.NewRESTTransport(base, &http.Client{Transport: trap})
		fix := &idFix{}
		sid := a2a.TaskID(fix.seg(id))
		_, _ = tr.GetTask(context.Background(), sdk.ServiceParams{}, &a2a.GetTaskRequest{ID: sid})
		_, _ = tr.CancelTask(context.Background(), sdk.ServiceParams{}, &a2a.CancelTaskRequest{ID: sid})
		if len(trap.urls) != 2 {
			t.Fatalf("%d requests", len(trap.urls))
		}
		for i, suffix := range []string{"", ":cancel"} {
			u := trap.urls[i]
			seg, ok := strings.CutPrefix(u.EscapedPath(), "/a2a/rest/tasks/")
			if !ok || u.RawQuery != "" || u.Fragment != "" || strings.Contains(seg, "/") {
				t.Fatalf("id %q: %s, want /a2a/rest/tasks/<one segment>%s", id, u, suffix)
			}
			seg, ok = strings.CutSuffix(seg, suffix)
			if got, err := url.PathUnescape(seg); !ok || err != nil || got != id {
				t.Fatalf("id %q: the segment of %s reads %q (%v)", id, u, got, err)
			}
		}
	})
}

// TestSDKJoinsTaskIDIntoRESTPath documents what task_id_segment.go works
// around: the SDK v2.4.0's HTTP+JSON clients, alone, paste a task id into
// the request's path, so "../../secret-admin?delete=all" reaches another
// path of the agent's origin: GET /secret-admin?delete=all on A2A 1.0
// (the interface is under /rest), GET /rest03/secret-admin on 0.3 (under
// /rest03, its paths under /v1). It fails the day the SDK escapes ids itself: delete
// task_id_segment.go's escaping then (keep CheckID's refusals).
func TestSDKJoinsTaskIDIntoRESTPath(t *testing.T) {
	for kind, want := range map[sdktest.Kind]string{sdktest.REST: "GET /secret-admin?delete=all", sdktest.LegacyREST: "GET /rest03/secret-admin"} {
		t.Run(string(kind), func(t *testing.T) {
			g := &sdktest.RouteGuard{}
			a := sdktest.Start(t, kind, true, g.Wrap)
			bare := a.Bare(t, nil)
			_, err := bare.GetTask(t.Context(), &a2a.GetTaskRequest{ID: sdktest.HostileGet})
			strays := g.StrayRequests()
			if err == nil || !slices.Contains(strays, want) {
				t.Fatalf("bare SDK GetTask(%q): err %v, strays %q; pinned: the request reached %s", sdktest.HostileGet, err, strays, want)
			}
		})
	}
}
