package main

import (
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
)

// Log keys used by package main.
const (
	logKeyAgents = "agents"
	logKeyCmd    = "cmd"
	logKeyErr    = "err"
	logKeyPath   = "path"
)

// openLog opens (appending) the log file at path, creating its directory.
// When it cannot, it says so on st.Err (before any screen is drawn) and
// returns a logger that discards, so a read-only home never stops a2atop.
func openLog(path, cmd string, st streams) (*slog.Logger, func()) {
	f, err := func() (*os.File, error) {
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			return nil, err
		}
		return os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	}()
	if err != nil {
		fmt.Fprintf(st.Err, "a2atop: not logging: %v (set log_path in the config)\n", err)
		return slog.New(slog.DiscardHandler), func() {}
	}
	h := slog.NewTextHandler(f, &slog.HandlerOptions{Level: logLevel()})
	return slog.New(h).With(logKeyCmd, cmd), func() { _ = f.Close() }
}

// logLevel reads $A2ATOP_LOG_LEVEL (debug, info, warn, error); info by default.
func logLevel() slog.Level {
	var l slog.Level
	if err := l.UnmarshalText([]byte(os.Getenv("A2ATOP_LOG_LEVEL"))); err != nil {
		return slog.LevelInfo
	}
	return l
}
