package cli

import (
	"fmt"
	"io"
	"log/slog"
	"os"
	"sync"

	"google.golang.org/grpc/grpclog"

	"a2atop/internal/statefile"
)

// Log keys used by the commands.
const (
	logKeyAgent  = "agent"
	logKeyAgents = "agents"
	logKeyCmd    = "cmd"
	logKeyErr    = "err"
	logKeyPath   = "path"
	logKeyResult = "result"
)

// processSink is where loggers we do not construct write: slog.Default
// (which the SDK's servers and the standard log package fall back to) and
// grpc's logger, which would otherwise print to stderr over the screen.
// captureProcessLogs points them here once, from Main; a command's openLog
// then sends the sink to its log file. Safe for concurrent use.
type processSink struct {
	mu sync.Mutex
	w  io.Writer
}

func (s *processSink) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}

func (s *processSink) set(w io.Writer) {
	s.mu.Lock()
	s.w = w
	s.mu.Unlock()
}

// sink is the process's one processSink; it starts discarding.
var sink = &processSink{w: io.Discard}

// captureProcessLogs routes the process-wide loggers to sink. Call it once,
// from Main, before anything logs.
func captureProcessLogs() {
	slog.SetDefault(slog.New(slog.NewTextHandler(sink, &slog.HandlerOptions{Level: logLevel()})))
	grpclog.SetLoggerV2(grpclog.NewLoggerV2(io.Discard, sink, sink))
}

// openLog opens (appending) the log file at path, creating its directory,
// refusing one another user could have planted (statefile.OpenAppend),
// and sends the process-wide loggers there too. When it cannot, it says so
// on st.Err (before any screen is drawn) and returns a logger that
// discards, so a read-only home never stops a2atop.
func openLog(path, cmd string, st Streams) (*slog.Logger, func()) {
	f, err := statefile.OpenAppend(path)
	if err != nil {
		fmt.Fprintf(st.Err, "a2atop: not logging: %v (set log_path in the config)\n", err)
		return slog.New(slog.DiscardHandler), func() {}
	}
	sink.set(f)
	h := slog.NewTextHandler(f, &slog.HandlerOptions{Level: logLevel()})
	return slog.New(h).With(logKeyCmd, cmd), func() {
		sink.set(io.Discard)
		_ = f.Close()
	}
}

// logLevel reads $A2ATOP_LOG_LEVEL (debug, info, warn, error); info by default.
func logLevel() slog.Level {
	var l slog.Level
	if err := l.UnmarshalText([]byte(os.Getenv("A2ATOP_LOG_LEVEL"))); err != nil {
		return slog.LevelInfo
	}
	return l
}
