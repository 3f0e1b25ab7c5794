package a2aclient

import (
	"context"
	"fmt"
	"hash/maphash"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	sdk "github.com/a2aproject/a2a-go/v2/a2aclient"

	"a2atop/a2aclient/edge"
)

// maxPageTokenBytes bounds one page token. The token goes back to the
// agent in the next request and a listing remembers it (by hash, to tell
// a repeat); SDK agents send tokens of about 80 bytes.
const maxPageTokenBytes = 16 << 10

// listQuery is one ListTasks listing: one status, or every status when
// status is "" (TASK_STATE_UNSPECIFIED asks for no filter), from a status
// timestamp on when after is set.
type listQuery struct {
	status   a2a.TaskState
	after    *time.Time
	pageSize int
	token    string // the page to begin at; "" for the first
}

// pageFunc handles one page of a listing (first is the first page) and
// says whether to ask for the next one.
type pageFunc func(resp *a2a.ListTasksResponse, first bool) (more bool)

// list runs q page by page until the agent's last page or until each
// says stop. Every page counts against the sweep's budget in ctx
// (withSweepBudget: pages and bytes); a page token longer than
// maxPageTokenBytes, or one the listing already followed, is a protocol
// error. The tokens followed are remembered as 64-bit hashes, so a
// listing that never ends costs its pages' budget, not memory.
func (w *watcher) list(ctx context.Context, q listQuery, each pageFunc) error {
	zero := 0
	req := &a2a.ListTasksRequest{PageSize: q.pageSize, HistoryLength: &zero, Tenant: w.o.Tenant, Status: q.status, PageToken: q.token}
	if q.after != nil {
		after := *q.after
		req.StatusTimestampAfter = &after
		ctx = edge.WithSweepAfter(ctx, after)
	}
	budget := sweepBudgetFrom(ctx)
	seed := maphash.MakeSeed()
	followed := map[uint64]struct{}{}
	for first := true; ; first = false {
		if err := budget.page(); err != nil {
			return w.wrap("ListTasks", "", nil, err)
		}
		var resp *a2a.ListTasksResponse
		err := w.call(ctx, "ListTasks", func(ctx context.Context, cl *sdk.Client) (err error) {
			resp, err = cl.ListTasks(ctx, req)
			return err
		})
		if err != nil {
			return err
		}
		if !each(resp, first) {
			return nil
		}
		tok := resp.NextPageToken
		switch h := maphash.String(seed, tok); {
		case tok == "":
			return nil
		case len(tok) > maxPageTokenBytes:
			return w.wrap("ListTasks", "", nil, fmt.Errorf("%w: the agent sent a page token of %d bytes (more than %d); sweep stopped",
				a2a.ErrInvalidAgentResponse, len(tok), maxPageTokenBytes))
		default:
			if _, again := followed[h]; again {
				return w.wrap("ListTasks", "", nil, fmt.Errorf("%w: the agent repeated page token %.40q; sweep stopped", a2a.ErrInvalidAgentResponse, tok))
			}
			followed[h] = struct{}{}
		}
		req.PageToken = tok
	}
}
