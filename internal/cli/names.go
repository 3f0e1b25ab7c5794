package cli

import (
	"fmt"
	"strings"
	"unicode"

	"a2atop/internal/config"
	"a2atop/internal/sanitize"
)

// maxNameRunes is the longest agent name the configuration accepts.
const maxNameRunes = 64

// agentNames gives check, tasks and watch the names they print. A
// configured agent keeps its name. An agent given only by URL, which the
// configuration names host:port, takes the name on its card once its
// first attempt has ended: the card's name made into a name (spaces
// become '-', controls go, at most 64 characters), or host:port still
// when the card was not read or has no name. Such agents are named in
// the order they were given, and a name already taken (by a configured
// agent, by any agent's host:port, or by an earlier URL agent) gets "-2",
// "-3"..., so every name is unique and the same for the same command line.
// A name never changes once given. Not safe for concurrent use.
type agentNames struct {
	byURL   []string          // the host:port keys of the URL agents, in order
	named   int               // byURL[:named] have their names
	card    map[string]string // key -> what its first attempt found on the card
	ended   map[string]bool   // keys whose first attempt has ended
	taken   map[string]bool   // every name given or reserved
	printed map[string]string // key -> printed name
}

// newAgentNames starts with the configured agents named.
func newAgentNames(agents []config.Agent) *agentNames {
	n := &agentNames{card: map[string]string{}, ended: map[string]bool{},
		taken: map[string]bool{}, printed: map[string]string{}}
	for _, a := range agents {
		n.taken[a.Name] = true
		if a.FromArgs {
			n.byURL = append(n.byURL, a.Name)
		} else {
			n.printed[a.Name] = a.Name
		}
	}
	return n
}

// name returns the printed name of the agent key, and false while it
// waits for its first attempt (or an earlier URL agent's) to end.
func (n *agentNames) name(key string) (string, bool) {
	p, ok := n.printed[key]
	return p, ok
}

// learn records that the first attempt of the agent key has ended, with
// the card's name ("" when the card was not read), and returns the keys
// that now have their names, in order. Later calls for key change nothing.
func (n *agentNames) learn(key, cardName string) []string {
	if _, ok := n.printed[key]; ok || n.ended[key] {
		return nil
	}
	n.ended[key], n.card[key] = true, cardName
	var done []string
	for ; n.named < len(n.byURL) && n.ended[n.byURL[n.named]]; n.named++ {
		k := n.byURL[n.named]
		n.printed[k] = n.unique(k, nameFromCard(n.card[k]))
		done = append(done, k)
	}
	return done
}

// unique returns want, or want-2, want-3... if taken; key (host:port,
// unique already) when want is "" or is the key itself.
func (n *agentNames) unique(key, want string) string {
	if want == "" || want == key {
		return key
	}
	name := want
	for i := 2; n.taken[name]; i++ {
		suffix := fmt.Sprintf("-%d", i)
		name = cutRunes(want, maxNameRunes-len(suffix)) + suffix
	}
	n.taken[name] = true
	return name
}

// nameFromCard makes a card's name into an agent name: sanitized, white
// space as '-', no other space or control character, at most 64
// characters; "" when nothing is left.
func nameFromCard(s string) string {
	s = sanitize.Line(s, 4*maxNameRunes)
	var b strings.Builder
	for _, r := range s {
		switch {
		case unicode.IsSpace(r):
			if b.Len() > 0 && !strings.HasSuffix(b.String(), "-") {
				b.WriteByte('-')
			}
		case unicode.IsPrint(r):
			b.WriteRune(r)
		}
	}
	return strings.Trim(cutRunes(b.String(), maxNameRunes), "-")
}

// cutRunes returns at most max runes of s.
func cutRunes(s string, max int) string {
	i := 0
	for j := range s {
		if i == max {
			return s[:j]
		}
		i++
	}
	return s
}
