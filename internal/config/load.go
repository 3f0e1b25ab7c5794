package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	toml "github.com/pelletier/go-toml/v2"
)

// EnvConfig is the environment variable that names the config file when
// --config is not given.
const EnvConfig = "A2ATOP_CONFIG"

// Error is a problem with the configuration, located as precisely as
// known. Every error Load, Parse and Validate return is an *Error, so a
// caller can tell a config problem (exit status 2) from any other.
type Error struct {
	File string // the file, "" for command-line URLs or no file
	Line int    // 1-based; 0 when unknown
	Key  string // dotted key, e.g. "agent[2].auth.token"; may be ""
	Msg  string
	Err  error // the underlying error, if any
}

// Error reads "file:line: key: msg".
func (e *Error) Error() string {
	var b strings.Builder
	if e.File != "" {
		b.WriteString(e.File)
		if e.Line > 0 {
			fmt.Fprintf(&b, ":%d", e.Line)
		}
		b.WriteString(": ")
	}
	if e.Key != "" {
		b.WriteString(e.Key)
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// Unwrap returns the underlying error.
func (e *Error) Unwrap() error { return e.Err }

// Locate returns the config file to read: flagPath when set, else
// $A2ATOP_CONFIG, else os.UserConfigDir()/a2atop/config.toml. required is
// false only for that last default, which may be absent.
func Locate(flagPath string) (path string, required bool) {
	if flagPath != "" {
		return flagPath, true
	}
	if p := os.Getenv(EnvConfig); p != "" {
		return p, true
	}
	dir, err := os.UserConfigDir()
	if err != nil {
		return "", false
	}
	return filepath.Join(dir, "a2atop", "config.toml"), false
}

// Load finds the config file (see Locate), reads it if present, adds the
// agents named by urls, fills per-agent defaults and validates the
// result. A missing default file is not an error: the config then holds
// only the URL agents.
func Load(flagPath string, urls []string) (*Config, error) {
	path, required := Locate(flagPath)
	c := Default()
	if path != "" {
		data, err := readConfig(path)
		switch {
		case err == nil:
			if c, err = Parse(data, path); err != nil {
				return nil, err
			}
		case errors.Is(err, fs.ErrNotExist) && !required:
		default:
			return nil, &Error{File: path, Msg: "cannot read the config file: " + plainErr(err), Err: err}
		}
	}
	if err := c.AddURLs(urls); err != nil {
		return nil, err
	}
	if err := c.Validate(); err != nil {
		return nil, err
	}
	c.ExpandPaths()
	return c, nil
}

// MaxConfigBytes is the largest config file Load reads: a fleet's config
// is far smaller; a link to /dev/zero is not read without end.
const MaxConfigBytes = 4 << 20

// errConfigTooLarge is the reason a config file over MaxConfigBytes is refused.
var errConfigTooLarge = fmt.Errorf("larger than %d MiB: is it the right file?", MaxConfigBytes>>20)

// readConfig reads the config file at path, at most MaxConfigBytes of
// it. Unlike a secret file it may be a pipe (--config <(sops -d …)).
func readConfig(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxConfigBytes+1))
	if err == nil && len(data) > MaxConfigBytes {
		err = &fs.PathError{Op: "read", Path: path, Err: errConfigTooLarge}
	}
	return data, err
}

// plainErr is err's text without the path that *fs.PathError repeats.
func plainErr(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// Parse decodes data (the contents of file) over Default, strictly: an
// unknown key or a value of the wrong type is an *Error naming the line
// and the key. Parse does not validate; call Validate, whose errors then
// name the line too.
func Parse(data []byte, file string) (c *Config, err error) {
	c = Default()
	c.Path = file
	defer func() { // go-toml panics on a highlight outside the document; never crash on a config
		if r := recover(); r != nil {
			c, err = nil, &Error{File: file, Msg: fmt.Sprintf("cannot parse: %v", r)}
		}
	}()
	dec := toml.NewDecoder(bytes.NewReader(data)).DisallowUnknownFields()
	if err := dec.Decode(c); err != nil {
		return nil, decodeError(file, err)
	}
	c.lines = indexLines(data)
	return c, nil
}

// decodeError turns go-toml's errors into an *Error with file, line, key.
func decodeError(file string, err error) error {
	var strict *toml.StrictMissingError
	if errors.As(err, &strict) && len(strict.Errors) > 0 {
		first := &strict.Errors[0]
		line, _ := first.Position()
		key := strings.Join(first.Key(), ".")
		msg := "unknown key: check its spelling against config.example.toml"
		if n := len(strict.Errors); n > 1 {
			msg += fmt.Sprintf(" (and %d more unknown keys)", n-1)
		}
		if hint := secretHint(first.Key()); hint != "" {
			msg = hint
		}
		return &Error{File: file, Line: line, Key: key, Msg: msg, Err: err}
	}
	var de *toml.DecodeError
	if errors.As(err, &de) {
		line, _ := de.Position()
		return &Error{File: file, Line: line, Key: strings.Join(de.Key(), "."),
			Msg: typeWords(strings.TrimPrefix(de.Error(), "toml: ")), Err: err}
	}
	return &Error{File: file, Msg: strings.TrimPrefix(err.Error(), "toml: "), Err: err}
}

// wrongType matches go-toml's type mismatch message, which names Go types.
var wrongType = regexp.MustCompile(`^cannot decode TOML (\w+) into struct field \S+ of type (.+)$`)

// goTypeWords says which TOML value a Go field type takes.
var goTypeWords = map[string]string{
	"bool": "true or false", "string": "a quoted string", "int": "a whole number", "int64": "a whole number",
	"[]string": `a list of strings, like ["a", "b"]`, "config.Duration": `a duration string like "5s"`,
	"*config.Duration": `a duration string like "5s"`, "*bool": "true or false", "config.ByteSize": `a size string like "256MiB"`,
	"[]config.Agent": "[[agent]] tables", "[]config.Header": "[[agent.auth.headers]] tables",
	"config.Auth": "an [agent.auth] table", "*config.Approval": "an [agent.approval] table",
	"[]config.Operator": "[[operator]] tables", "[]config.ApprovalRule": "[[agent.approval.rule]] tables",
	"map[string]interface {}": `an inline table of field = value, like { environment = "production" }`, "map[string][]string": `a table of lists, like { "*" = ["watch"] }`,
}

// typeWords rewrites a type mismatch in the words of the file ("wrong
// type: a string where true or false is expected"); other messages pass.
func typeWords(msg string) string {
	m := wrongType.FindStringSubmatch(msg)
	if m == nil {
		return msg
	}
	want, ok := goTypeWords[m[2]]
	if !ok {
		return msg
	}
	return fmt.Sprintf("wrong type: a TOML %s where %s is expected", m[1], want)
}

// secretHint explains keys that look like a secret written in the file.
func secretHint(key []string) string {
	if len(key) == 0 {
		return ""
	}
	switch strings.ToLower(key[len(key)-1]) {
	case "token", "api_key", "apikey", "value", "password", "secret", "bearer", "bearer_token",
		"access_token", "authorization":
		return "secrets are not written in the config file: put the token in an environment " +
			"variable or a file and name it with token_env or token_file"
	}
	return ""
}
