package approvals

import (
	"fmt"
	"net/url"
	"regexp"
	"strings"
)

// Agent is an agent as the journal knows it: the name it has now (in the
// config, the fleet, the Sender) and its identity, the base URL plus the
// tenant when there is one. Decisions are keyed by the identity, so that
// renaming an agent in the config, or configuring a URL that was given on
// the command line, keeps its decisions; they show the name it has now.
type Agent struct {
	Name   string
	URL    string
	Tenant string
}

// identity is the key of an agent: its base URL with the scheme and host
// in lower case and no trailing slash, and "#tenant=T" when it has a
// tenant. An agent known by name only (no URL: an old record, or a name
// no option maps) is "name:NAME".
func identity(rawURL, tenant string) string {
	id := normalURL(rawURL)
	if tenant != "" {
		id += "#tenant=" + tenant
	}
	return id
}

func nameID(name string) string { return "name:" + name }

func normalURL(raw string) string {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || u.Host == "" {
		return strings.TrimRight(raw, "/")
	}
	u.Scheme, u.Host = strings.ToLower(u.Scheme), strings.ToLower(u.Host)
	u.Path = strings.TrimRight(u.Path, "/")
	u.RawPath = ""
	return u.String()
}

// agentBook maps names to identities and back, for the agents the
// options name, and for agents they do not name, as records name them
// (name and URL). The Service's mutex guards it.
type agentBook struct {
	byName  map[string]Agent
	byID    map[string]Agent
	byHost  map[string][]Agent // "host:port" of the URL -> agents
	learned map[string]Agent   // not configured: the URL the last record gave the name
}

func newAgentBook(agents []Agent) agentBook {
	b := agentBook{byName: map[string]Agent{}, byID: map[string]Agent{}, byHost: map[string][]Agent{}, learned: map[string]Agent{}}
	for _, a := range agents {
		if a.Name == "" || a.URL == "" {
			continue
		}
		b.byName[a.Name] = a
		b.byID[identity(a.URL, a.Tenant)] = a
		if u, err := url.Parse(a.URL); err == nil && u.Host != "" {
			h := strings.ToLower(u.Host)
			b.byHost[h] = append(b.byHost[h], a)
		}
	}
	return b
}

// idOf is the identity of the agent the fleet and the Sender call name.
func (b agentBook) idOf(name string) string {
	if a, ok := b.byName[name]; ok {
		return identity(a.URL, a.Tenant)
	}
	if a, ok := b.learned[name]; ok {
		return identity(a.URL, a.Tenant)
	}
	return nameID(name)
}

// urlOf is the URL and tenant to record for the agent called name.
func (b agentBook) urlOf(name string) (string, string) {
	a, ok := b.byName[name]
	if !ok {
		a = b.learned[name]
	}
	return a.URL, a.Tenant
}

// nameOf is the name the agent with this identity has now, or "".
func (b agentBook) nameOf(id string) string { return b.byID[id].Name }

// suffixN is the "#2" that tells apart two command-line URLs of one host.
var suffixN = regexp.MustCompile(`#[0-9]+$`)

// resolved is an agent named by a record: its identity, the name to show
// now, and words when the mapping is worth saying.
type resolved struct {
	id, name, note string
}

// resolve maps the agent a record names (by name, and by URL and tenant
// when it was written with them) to its identity and current name. A
// record with no URL (written before the journal kept them) whose name
// is not configured any more is matched by the URL the name was made
// from (a command-line URL is named after its host:port) and says so.
func (b agentBook) resolve(name, rawURL, tenant string) resolved {
	configured := len(b.byName) > 0
	if rawURL != "" {
		id := identity(rawURL, tenant)
		if a, ok := b.byID[id]; ok {
			return resolved{id: id, name: a.Name}
		}
		r := resolved{id: id, name: name}
		if configured {
			r.note = fmt.Sprintf("no configured agent has the URL %s now", rawURL)
		}
		if _, taken := b.byName[name]; !taken && name != "" {
			b.learned[name] = Agent{Name: name, URL: rawURL, Tenant: tenant}
		}
		return r
	}
	if a, ok := b.byName[name]; ok {
		return resolved{id: identity(a.URL, a.Tenant), name: a.Name}
	}
	if m := b.byHost[strings.ToLower(suffixN.ReplaceAllString(name, ""))]; len(m) == 1 {
		return resolved{id: identity(m[0].URL, m[0].Tenant), name: m[0].Name,
			note: fmt.Sprintf("recorded as %q, before the journal kept agent URLs; matched to %s by its URL %s", name, m[0].Name, m[0].URL)}
	}
	r := resolved{id: nameID(name), name: name}
	if configured {
		r.note = fmt.Sprintf("recorded as %q, which is not a configured agent now (the record has no URL to match)", name)
	}
	return r
}
