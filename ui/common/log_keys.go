package common

// Log keys of the UI's slog records (the root's and the screens').
const (
	LogKeyAgent = "agent"
	LogKeyTask  = "task"
	LogKeyErr   = "err"
	LogKeyState = "state"
)
