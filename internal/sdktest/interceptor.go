package sdktest

import (
	"context"
	"slices"
	"strings"
	"sync"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
)

// Interceptor authenticates every caller as one user, so ListTasks is
// allowed (the in-memory store refuses the anonymous user), and records
// the A2A-Version it saw.
type Interceptor struct {
	a2asrv.PassthroughCallInterceptor
	Mu       sync.Mutex             // guards the fields below it that it records
	Versions []string               // the A2A-Version of every call
	Anon     bool                   // leave the caller anonymous (ListTasks is then refused)
	DenySub  bool                   // refuse SubscribeToTask with ErrUnauthenticated
	NoList   bool                   // refuse ListTasks with ErrUnsupportedOperation
	Lists    []bool                 // per ListTasks call: was it a full listing (no statusTimestampAfter)?
	Tenants  []string               // the tenant of every ListTasks and GetTask request
	Secrets  []string               // the authorization and x-api-key values of every call, "" when none
	ListReqs []a2a.ListTasksRequest // every ListTasks request, in order
	Gets     []a2a.TaskID           // the task of every GetTask request, in order
}

// Seen returns the authorization and x-api-key values of every call so far.
func (u *Interceptor) Seen() []string {
	u.Mu.Lock()
	defer u.Mu.Unlock()
	return append([]string(nil), u.Secrets...)
}

// ListRequests returns the ListTasks requests so far.
func (u *Interceptor) ListRequests() []a2a.ListTasksRequest {
	u.Mu.Lock()
	defer u.Mu.Unlock()
	return append([]a2a.ListTasksRequest(nil), u.ListReqs...)
}

// Got reports whether GetTask was asked for id.
func (u *Interceptor) Got(id a2a.TaskID) bool {
	u.Mu.Lock()
	defer u.Mu.Unlock()
	return slices.Contains(u.Gets, id)
}

// Before records the call and refuses it as Anon, DenySub and NoList say.
func (u *Interceptor) Before(ctx context.Context, cc *a2asrv.CallContext, req *a2asrv.Request) (context.Context, any, error) {
	if !u.Anon {
		cc.User = a2asrv.NewAuthenticatedUser("tester", nil)
	}
	if u.DenySub && cc.Method() == "SubscribeToTask" {
		return ctx, nil, a2a.ErrUnauthenticated
	}
	if u.NoList && cc.Method() == "ListTasks" {
		return ctx, nil, a2a.ErrUnsupportedOperation
	}
	switch p := req.Payload.(type) {
	case *a2a.ListTasksRequest:
		u.Mu.Lock()
		u.Lists = append(u.Lists, p.StatusTimestampAfter == nil)
		u.Tenants = append(u.Tenants, p.Tenant)
		u.ListReqs = append(u.ListReqs, *p)
		u.Mu.Unlock()
	case *a2a.GetTaskRequest:
		u.Mu.Lock()
		u.Tenants = append(u.Tenants, p.Tenant)
		u.Gets = append(u.Gets, p.ID)
		u.Mu.Unlock()
	}
	if p := cc.ServiceParams(); p != nil {
		v, _ := p.Get(strings.ToLower(a2a.SvcParamVersion))
		auth, _ := p.Get("authorization")
		key, _ := p.Get("x-api-key")
		u.Mu.Lock()
		u.Versions = append(u.Versions, strings.Join(v, ","))
		u.Secrets = append(u.Secrets, strings.Join(auth, ",")+strings.Join(key, ","))
		u.Mu.Unlock()
	}
	return ctx, nil, nil
}
