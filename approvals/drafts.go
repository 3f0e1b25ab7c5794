package approvals

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"a2atop/internal/statefile"
)

// Draft is a reply written for a task and kept, not sent: the inbox
// keeps it across its own closing (esc) and across the dashboard's
// (ctrl+c, a signal), in the drafts file beside the journal
// (Options.DraftsPath, mode 0600), until it is sent, discarded, or the
// task leaves the inbox.
type Draft struct {
	Agent  string        `json:"agent"`
	TaskID a2a.TaskID    `json:"task"`
	Prompt string        `json:"prompt"` // the prompt it answers (PromptOf)
	From   a2a.TaskState `json:"from"`   // the task's state when it was written
	Text   string        `json:"text,omitempty"`
	JSON   string        `json:"json,omitempty"`
	At     time.Time     `json:"at"` // when it was kept last
}

// draftsFile is the drafts file's content.
type draftsFile struct {
	V      int     `json:"v"`
	Drafts []Draft `json:"drafts"`
}

// draftsPath is where drafts are kept: Options.DraftsPath, else beside
// a file journal; "" keeps none past the process.
func (o Options) draftsPath() string {
	switch {
	case o.DraftsPath != "":
		return o.DraftsPath
	case o.Hub == nil && o.JournalPath != "":
		return o.JournalPath + ".drafts"
	}
	return ""
}

// Drafts reads the drafts kept (by this dashboard before it last ended,
// or by another one on the same state directory). None kept is no
// error; a file that does not read back is an error naming it, and it
// stays as it is until a draft is kept again.
func (s *Service) Drafts() ([]Draft, error) {
	path := s.o.draftsPath()
	if path == "" {
		return nil, nil
	}
	s.draftMu.Lock()
	defer s.draftMu.Unlock()
	return readDrafts(path)
}

func readDrafts(path string) ([]Draft, error) {
	b, err := statefile.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("drafts %s: %w", path, err)
	}
	var f draftsFile
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, fmt.Errorf("drafts %s: not a drafts file (%v); it is replaced when a draft is kept next", path, err)
	}
	return f.Drafts, nil
}

// KeepDraft records d (replacing the task's earlier draft) in the
// drafts file; DropDraft removes the task's. Each reads the file, changes
// that one task's draft and writes it whole (atomically, 0600) under
// the file's lock, so drafts another dashboard keeps stay. A read-only
// Service, or one with no drafts file, keeps none. They block on the
// disk: call them from a tea.Cmd.
func (s *Service) KeepDraft(d Draft) error {
	if d.At.IsZero() {
		d.At = s.o.Now().UTC()
	}
	return s.changeDrafts(d.Agent, d.TaskID, &d)
}

// DropDraft removes the draft kept for the task, if any.
func (s *Service) DropDraft(agent string, id a2a.TaskID) error {
	return s.changeDrafts(agent, id, nil)
}

func (s *Service) changeDrafts(agent string, id a2a.TaskID, d *Draft) error {
	path := s.o.draftsPath()
	if path == "" || s.o.ReadOnly {
		return nil
	}
	s.draftMu.Lock()
	defer s.draftMu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	l, err := statefile.Lock(ctx, path)
	if err != nil {
		return fmt.Errorf("drafts %s: %w", path, err)
	}
	defer l.Unlock()
	ds, err := readDrafts(path)
	if err != nil {
		s.log.Warn("drafts: the file did not read back; it is replaced", "path", path, "err", err)
	}
	ds = slices.DeleteFunc(ds, func(x Draft) bool { return x.Agent == agent && x.TaskID == id })
	if d != nil && (strings.TrimSpace(d.Text) != "" || strings.TrimSpace(d.JSON) != "") {
		ds = append(ds, *d)
	}
	b, err := json.Marshal(draftsFile{V: 1, Drafts: ds})
	if err != nil {
		return fmt.Errorf("drafts %s: %w", path, err)
	}
	if err := statefile.WriteFile(path, b); err != nil {
		return fmt.Errorf("drafts %s: %w", path, err)
	}
	return nil
}
