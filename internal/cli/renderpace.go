package cli

import (
	"reflect"
	"sync"
	"time"
	"unsafe"

	tea "github.com/charmbracelet/bubbletea"
)

// Bubble Tea v1.3.10's standard renderer draws on a time.Ticker at the
// frame rate that never stops: at 30 frames a second an idle dashboard
// woke 30 times a second to find nothing to draw, about two thirds of
// its CPU at rest (0.82 % of a core with five quiet agents; 0.23 % with
// the ticker at 1 Hz). The library offers no way to pause it and no way
// to plug in another renderer short of drawing everything ourselves, so
// paced reaches its ticker (an unexported field, found by reflection
// once) and stops it while the view does not change: each View that
// differs from the last starts it again, and it stops once the view has
// stayed the same for restAfter, by when at least two frames drew the
// last change. A change still reaches the screen within one frame; the
// first change after a frame without one (the first frame, a lone event
// after a quiet spell) is drawn at once: the ticker first ticks after a
// millisecond, then at the frame rate again.
//
// When the field is not there (another Bubble Tea version, a program
// without the standard renderer) pacing is off and the renderer ticks
// as before; TestPacedFindsTheTicker fails the day that happens.

// restAfter is how long the view stays the same before the ticker stops.
const restAfter = 3 * time.Second / FrameRate

// kickAfter is when the ticker first ticks for a change that comes a
// frame or more after the last: at once, give or take the scheduler.
const kickAfter = time.Millisecond

// paced is a tea.Model that runs the model it wraps and paces the
// program's frame ticker by what its View returns. Bubble Tea calls it
// on its one goroutine; the rest timer runs on its own, under mu.
type paced struct {
	inner tea.Model
	p     *pacer
}

// pacer holds the ticker of one program. The zero value is unusable:
// call newPaced.
type pacer struct {
	prog   *tea.Program
	looked bool
	last   string // the last View
	frame  time.Duration

	mu      sync.Mutex
	tk      *time.Ticker // nil: not found, pacing off
	running bool
	changed time.Time   // when the view last changed
	rest    *time.Timer // stops the ticker (settle)
	kicked  time.Time   // when the ticker was last set to tick at once
	back    *time.Timer // sets it back to the frame rate after a kick
}

// NewProgram is tea.NewProgram on a paced m: the dashboard's program,
// and bench/fleet's, which measures it.
func NewProgram(m tea.Model, opts ...tea.ProgramOption) *tea.Program {
	pm := newPaced(m)
	p := tea.NewProgram(pm, opts...)
	pm.attach(p)
	return p
}

// newPaced wraps m; call attach with the program before running it.
func newPaced(m tea.Model) paced { return paced{inner: m, p: &pacer{}} }

// attach names the program whose renderer is paced.
func (m paced) attach(p *tea.Program) { m.p.prog = p }

// Init is the wrapped model's.
func (m paced) Init() tea.Cmd { return m.inner.Init() }

// Update runs the wrapped model's Update. A resize starts the ticker
// even when the view stays the same: Bubble Tea repaints the whole
// screen then, on its next tick.
func (m paced) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	inner, cmd := m.inner.Update(msg)
	m.inner = inner
	if _, ok := msg.(tea.WindowSizeMsg); ok {
		m.p.wake()
	}
	return m, cmd
}

// View is the wrapped model's; a view that differs from the last starts
// the frame ticker.
func (m paced) View() string {
	v := m.inner.View()
	if v != m.p.last {
		m.p.last = v
		m.p.wake()
	}
	return v
}

// wake starts the ticker if it is stopped and (re)arms the rest timer.
// Bubble Tea's goroutine calls it, after Run started the renderer.
func (p *pacer) wake() {
	if !p.looked {
		p.looked = true
		p.tk, p.frame = frameTicker(p.prog)
	}
	if p.tk == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	now := time.Now()
	quiet := now.Sub(p.changed) >= p.frame && now.Sub(p.kicked) >= p.frame
	p.changed = now
	switch {
	case quiet: // draw at once, then at the frame rate
		p.tk.Reset(kickAfter)
		p.kicked = now
		if p.back == nil {
			p.back = time.AfterFunc(2*kickAfter, p.unkick)
		} else {
			p.back.Reset(2 * kickAfter)
		}
	case !p.running:
		p.tk.Reset(p.frame)
	}
	p.running = true
	if p.rest == nil {
		p.rest = time.AfterFunc(restAfter, p.settle)
	} else {
		p.rest.Reset(restAfter)
	}
}

// settle stops the ticker when the view stayed the same for restAfter,
// or waits the rest of it.
func (p *pacer) settle() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if left := restAfter - time.Since(p.changed); left > 0 {
		p.rest.Reset(left)
		return
	}
	p.tk.Stop()
	p.running = false
}

// unkick sets the ticker back to the frame rate after a kick.
func (p *pacer) unkick() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.running {
		p.tk.Reset(p.frame)
	}
}

// resting reports whether the ticker is stopped (for tests).
func (p *pacer) resting() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.tk != nil && !p.running
}

// frameTicker returns the ticker and frame period of p's standard
// renderer, or nil when it has none (see above).
func frameTicker(p *tea.Program) (*time.Ticker, time.Duration) {
	if p == nil {
		return nil, 0
	}
	r := reflect.ValueOf(p).Elem().FieldByName("renderer")
	if !r.IsValid() || r.Kind() != reflect.Interface || r.IsNil() {
		return nil, 0
	}
	sr := r.Elem()
	if sr.Kind() != reflect.Pointer || sr.Type().Elem().Name() != "standardRenderer" || sr.IsNil() {
		return nil, 0
	}
	tk := sr.Elem().FieldByName("ticker")
	fr := sr.Elem().FieldByName("framerate")
	if !tk.IsValid() || tk.Type() != reflect.TypeFor[*time.Ticker]() || !fr.IsValid() || fr.Type() != reflect.TypeFor[time.Duration]() {
		return nil, 0
	}
	t := *(**time.Ticker)(unsafe.Pointer(tk.UnsafeAddr()))
	d := *(*time.Duration)(unsafe.Pointer(fr.UnsafeAddr()))
	if t == nil || d <= 0 {
		return nil, 0
	}
	return t, d
}
