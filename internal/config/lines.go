package config

import (
	"fmt"
	"slices"
	"strings"

	"github.com/pelletier/go-toml/v2/unstable"
)

// keyLines maps every key a TOML document sets to the line it is set on,
// so that Validate can say where a value it refuses is. Keys are written
// as Validate writes them, with 1-based indexes for arrays and arrays of
// tables: "theme", "agent[2].url", "agent[2].auth.allowed_hosts[1]",
// "agent[2].auth.headers[1].name". A table is at its header's line.
type keyLines map[string]int

// lineOf is the line of key, or of the nearest table or array that holds
// it when the key itself is not in the document (a missing url is
// reported at its [[agent]] header); 0 when nothing of it is.
func (k keyLines) lineOf(key string) int {
	for key != "" {
		if n, ok := k[key]; ok {
			return n
		}
		i := strings.LastIndexAny(key, ".[")
		if i < 0 {
			return 0
		}
		key = key[:i]
	}
	return 0
}

// indexLines reads the keys of data, a document the decoder accepted.
// It never fails: what it cannot read it leaves out, and those errors
// then carry no line.
func indexLines(data []byte) (k keyLines) {
	k = keyLines{}
	defer func() { _ = recover() }() // a parser panic costs line numbers, never the config
	ix := &indexer{lines: k, tables: map[string]int{}, newlines: newlineOffsets(data)}
	var p unstable.Parser
	p.Reset(data)
	for p.NextExpression() {
		ix.expression(p.Expression())
	}
	return k
}

// indexer walks a document's expressions, keeping the current table.
type indexer struct {
	lines    keyLines
	tables   map[string]int // array of tables -> how many so far
	prefix   string         // the current table, "" at the top
	newlines []int
}

func (ix *indexer) expression(e *unstable.Node) {
	switch e.Kind {
	case unstable.Table:
		ix.prefix = ix.resolve(keyParts(e))
		ix.record(ix.prefix, ix.line(e.Child(), 0))
	case unstable.ArrayTable:
		parts := keyParts(e)
		name := join(ix.resolve(parts[:len(parts)-1]), parts[len(parts)-1])
		ix.tables[name]++
		ix.prefix = fmt.Sprintf("%s[%d]", name, ix.tables[name])
		ix.record(ix.prefix, ix.line(e.Child(), 0))
	case unstable.KeyValue:
		ix.keyValue(ix.prefix, e)
	}
}

// keyValue records key = value under table, and what the value holds.
func (ix *indexer) keyValue(table string, kv *unstable.Node) {
	it := kv.Key()
	line := 0
	key := table
	for it.Next() {
		part := it.Node()
		if line == 0 {
			line = ix.line(part, 0)
		}
		key = join(key, string(part.Data))
		ix.record(key, line) // a dotted key's tables are where it first appears
	}
	ix.value(key, kv.Value(), line)
}

// value records the elements of an array and the keys of an inline table.
func (ix *indexer) value(key string, v *unstable.Node, line int) {
	switch v.Kind {
	case unstable.Array:
		i := 0
		for it := v.Children(); it.Next(); {
			el := it.Node()
			if el.Kind == unstable.Comment {
				continue
			}
			i++
			elKey := fmt.Sprintf("%s[%d]", key, i)
			elLine := ix.line(el, line)
			ix.record(elKey, elLine)
			ix.value(elKey, el, elLine)
		}
	case unstable.InlineTable:
		for it := v.Children(); it.Next(); {
			if kv := it.Node(); kv.Kind == unstable.KeyValue {
				ix.keyValue(key, kv)
			}
		}
	}
}

// resolve joins parts, naming the latest table of each array of
// tables on the way: [agent.auth] after the second [[agent]] is
// "agent[2].auth".
func (ix *indexer) resolve(parts []string) string {
	key := ""
	for _, p := range parts {
		key = join(key, p)
		if n := ix.tables[key]; n > 0 {
			key = fmt.Sprintf("%s[%d]", key, n)
		}
	}
	return key
}

func (ix *indexer) record(key string, line int) {
	if _, ok := ix.lines[key]; !ok && line > 0 {
		ix.lines[key] = line
	}
}

// line is the 1-based line where n starts, or fallback when n has no
// position in the document.
func (ix *indexer) line(n *unstable.Node, fallback int) int {
	if n == nil || n.Raw.Length == 0 {
		return fallback
	}
	i, _ := slices.BinarySearch(ix.newlines, int(n.Raw.Offset))
	return i + 1
}

// keyParts is the dotted key of a table header.
func keyParts(n *unstable.Node) []string {
	var parts []string
	for it := n.Key(); it.Next(); {
		parts = append(parts, string(it.Node().Data))
	}
	return parts
}

func join(key, part string) string {
	if key == "" {
		return part
	}
	return key + "." + part
}

// newlineOffsets lists the offset of every '\n' in data.
func newlineOffsets(data []byte) []int {
	var out []int
	for i, c := range data {
		if c == '\n' {
			out = append(out, i)
		}
	}
	return out
}
