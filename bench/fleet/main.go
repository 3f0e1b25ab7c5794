// Command fleet is a2atop's fleet-scale benchmark: real A2A agents (the Go
// SDK's server, JSON-RPC, streaming, in-memory stores) on loopback in one
// process, a2atop's real watchers, model and dashboard (ui.Model run by
// Bubble Tea, drawing to nowhere) in another, and the figures of both
// side by side with the sweep a2atop had before (list_by_state = false)
// and with the SDK's bare client doing the same listing.
//
//	go run ./bench/fleet                     # everything, 10 minutes of churn
//	go run ./bench/fleet -duration 2m -idle 2m   # a shorter run
//
// Scenarios: "fleet", 50 agents of 2,000 tasks (30 running and streamed,
// 10 waiting for a person, the rest finished), with a steady churn of
// status changes and artifact chunks; "big", one agent of 100,000 tasks
// (2,500 working, 500 waiting, 97,000 finished) where nothing changes;
// "unstamped", the same agent holding 3,000 open tasks of which 500 are
// SUBMITTED without a status timestamp (as the SDK's store emits them),
// where nothing changes, and then one of those 500 moves to WORKING.
// BENCHMARKS.md says what each figure is and holds the last run's.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"time"

	"a2atop/model"
)

// roleEnv selects what a process of this command is: the orchestrator
// (unset), "agents" or "watch"; the spec comes as JSON in specEnv.
const (
	roleEnv = "A2ATOP_BENCH_ROLE"
	specEnv = "A2ATOP_BENCH_SPEC"
)

func main() {
	var err error
	switch os.Getenv(roleEnv) {
	case "agents":
		var spec fleetSpec
		if err = json.Unmarshal([]byte(os.Getenv(specEnv)), &spec); err == nil {
			err = agentsMain(spec)
		}
	case "watch":
		var spec watchSpec
		if err = json.NewDecoder(os.Stdin).Decode(&spec); err == nil {
			err = watchMain(spec)
		}
	default:
		err = orchestrate()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench/fleet:", err)
		os.Exit(1)
	}
}

type config struct {
	scenarios, modes       string
	duration, idle         time.Duration
	rate                   float64
	agents, tasks, active  int
	interrupted            int
	big, bigActive, bigInt int
	unWorking, unSubmitted int
	unInput, unAuth        int
	keep, terminalTotal    int
	bare                   bool
	streamsTotal           int
	memLimitMiB            int64
	profile                string
}

func orchestrate() error {
	var c config
	flag.StringVar(&c.scenarios, "scenarios", "fleet,big", "which scenarios: fleet, big, unstamped")
	flag.StringVar(&c.modes, "modes", "state,all", "which sweeps: state (a2atop now), all (list_by_state = false, as before)")
	flag.DurationVar(&c.duration, "duration", 10*time.Minute, "how long the fleet churns before RSS and heap are read")
	flag.DurationVar(&c.idle, "idle", 3*time.Minute, "how long nothing changes while idle CPU and requests are measured")
	flag.Float64Var(&c.rate, "rate", 1000, "events per second over the fleet while it churns (status changes and artifact chunks)")
	flag.IntVar(&c.agents, "agents", 50, "fleet: agents")
	flag.IntVar(&c.tasks, "tasks", 2000, "fleet: tasks per agent")
	flag.IntVar(&c.active, "active", 30, "fleet: running tasks per agent (max_streams is 32 per agent, max_streams_total 128 for the fleet)")
	flag.IntVar(&c.interrupted, "interrupted", 10, "fleet: tasks per agent waiting for a person")
	flag.IntVar(&c.big, "big", 100000, "big: tasks of the single agent")
	flag.IntVar(&c.bigActive, "big-active", 2500, "big: working tasks")
	flag.IntVar(&c.bigInt, "big-interrupted", 500, "big: tasks waiting for a person")
	flag.IntVar(&c.unWorking, "unstamped-working", 2000, "unstamped: working tasks of the -big tasks")
	flag.IntVar(&c.unSubmitted, "unstamped-submitted", 500, "unstamped: SUBMITTED tasks without a status timestamp")
	flag.IntVar(&c.unInput, "unstamped-input", 300, "unstamped: input-required tasks")
	flag.IntVar(&c.unAuth, "unstamped-auth", 200, "unstamped: auth-required tasks")
	flag.IntVar(&c.keep, "keep", 1000, "terminal_per_agent")
	flag.IntVar(&c.terminalTotal, "terminal-total", model.DefaultTerminalTotal, "terminal_total: each agent keeps its share of it, at most -keep")
	flag.IntVar(&c.streamsTotal, "streams-total", 0, "max_streams_total, the streams of the whole fleet (0: a2atop's default, 128)")
	flag.Int64Var(&c.memLimitMiB, "memlimit", 0, "a soft memory limit for a2atop's process, in MiB, as GOMEMLIMIT sets (0: none)")
	flag.BoolVar(&c.bare, "bare", true, "also time the SDK's bare client on the same listings")
	flag.StringVar(&c.profile, "cpuprofile", "", "write profiles of a2atop's side: CPU (PREFIX-SCENARIO-MODE for the idle window, .churn for the churn) and the heap after the churn (.heap)")
	flag.Parse()

	rep := &report{start: time.Now(), load: [2]string{loadAvg(), ""}, c: c}
	for _, sc := range strings.Split(c.scenarios, ",") {
		spec := fleetSpec{Agents: c.agents, Tasks: c.tasks, Active: c.active, Interrupted: c.interrupted, Live: true,
			Keep: model.TerminalKept(c.keep, c.terminalTotal, c.agents)}
		steady, idle := c.duration, c.idle
		switch sc {
		case "big":
			spec = fleetSpec{Agents: 1, Tasks: c.big, Active: c.bigActive, Interrupted: c.bigInt, Keep: model.TerminalKept(c.keep, c.terminalTotal, 1)}
			steady = 0
		case "unstamped":
			spec = fleetSpec{Agents: 1, Tasks: c.big, Active: c.unWorking, Interrupted: c.unInput + c.unAuth, Auth: c.unAuth,
				Submitted: c.unSubmitted, Keep: model.TerminalKept(c.keep, c.terminalTotal, 1)}
			steady = 0
		}
		for _, mode := range strings.Split(c.modes, ",") {
			fmt.Fprintf(os.Stderr, "== %s, %s: starting the agents (load %s)\n", sc, mode, loadAvg())
			ag, err := startAgents(spec)
			if err != nil {
				return err
			}
			fmt.Fprintf(os.Stderr, "   seeded in %s; watching\n", ag.ready.Seeded)
			prof := ""
			if c.profile != "" {
				prof = c.profile + "-" + sc + "-" + mode
			}
			res, err := runWatch(watchSpec{Ready: ag.ready, ListAll: mode == "all", Keep: spec.Keep,
				Startup: 5 * time.Minute, Steady: steady, Rate: c.rate, Idle: idle, Profile: prof, StreamsTotal: c.streamsTotal, MemoryLimit: c.memLimitMiB << 20,
				Touch: sc == "unstamped"})
			if err == nil && c.bare && mode == "state" && sc != "unstamped" {
				fmt.Fprintf(os.Stderr, "   the SDK's bare client on the same agents\n")
				rep.bare(sc, ag.ready, steady > 0, c, spec.Keep)
			}
			ag.stop()
			if err != nil {
				return err
			}
			rep.add(sc, res)
		}
	}
	rep.load[1] = loadAvg()
	rep.print(os.Stdout)
	return nil
}

// agents is a running agents process.
type agents struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	ready readyMsg
}

func startAgents(spec fleetSpec) (*agents, error) {
	b, _ := json.Marshal(spec)
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), roleEnv+"=agents", specEnv+"="+string(b))
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	a := &agents{cmd: cmd, stdin: in}
	line, err := bufio.NewReaderSize(out, 64<<20).ReadBytes('\n')
	if err != nil {
		cmd.Process.Kill()
		return nil, fmt.Errorf("agents process: %w", err)
	}
	if err := json.Unmarshal(line, &a.ready); err != nil {
		cmd.Process.Kill()
		return nil, err
	}
	return a, nil
}

func (a *agents) stop() {
	a.stdin.Close()
	done := make(chan struct{})
	go func() { a.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		a.cmd.Process.Kill()
		<-done
	}
}

// runWatch runs one watch process and reads its result.
func runWatch(spec watchSpec) (watchResult, error) {
	var res watchResult
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), roleEnv+"=watch")
	b, _ := json.Marshal(spec)
	cmd.Stdin = strings.NewReader(string(b))
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		return res, fmt.Errorf("watch process: %w", err)
	}
	return res, json.Unmarshal(out, &res)
}

func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}

// bare times the SDK's bare client on the first agent: the same listings,
// and (when it churns) streams.
func (r *report) bare(sc string, ready readyMsg, churns bool, c config, keep int) {
	ctx := context.Background()
	a := ready.Agents[0]
	b, err := bareListing(ctx, a.URL, keep, true)
	if err != nil {
		fmt.Fprintln(os.Stderr, "   bare listing:", err)
		return
	}
	if len(ready.Agents) > 1 {
		b.FleetPicture, err = bareFleet(ctx, ready.Agents, keep)
		if err != nil {
			fmt.Fprintln(os.Stderr, "   bare listing of every agent:", err)
		}
	}
	if churns {
		get(ready.Control + fmt.Sprintf("/churn?rate=%g", c.rate))
		time.Sleep(10 * time.Second)
		b.StreamN, b.StreamP50, b.StreamP99, err = bareStreams(ctx, a.URL, c.active, time.Minute)
		get(ready.Control + "/churn?rate=0")
		if err != nil {
			fmt.Fprintln(os.Stderr, "   bare streams:", err)
		}
	}
	r.bares = append(r.bares, bareRow{scenario: sc, agent: a.Name, res: b})
}
