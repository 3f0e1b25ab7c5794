// Package soak holds a2atop's soak test, run on demand (build tag soak):
// the dashboard's real watchers, model and approvals journal against
// real A2A agents (the Go SDK's server on loopback) that restart, drop
// streams, flood, trickle and churn tasks, checked for leaks (the heap's
// slope over the last half of the run against the decisions made in it;
// heap, goroutines, file descriptors at the end against the warm-up), for
// an intact journal, and for every agent's tasks being what the agent
// holds. TestSoakHub does the same for a2atop serve's hub, with a
// dashboard answering through it and others attaching and leaving, and
// checks at each point of rest that the tasks the hub's fleet let go
// since the last one are unreachable, whatever the run's length.
//
//	go test -tags soak ./bench/soak -run Soak -soak.duration 1h -timeout 2h
//
// The README says how to run it for an hour; .ci/run runs two minutes of
// each, at once in two processes (the hub's with -soak.window 2000, a
// replay window that fills within the warm-up). -soak.leak N keeps N
// bytes per decision, to see the slope catch a leak; -soak.heapprofile
// DIR writes heap profiles at each point of rest.
package soak
