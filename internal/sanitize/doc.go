// Package sanitize makes text that an agent sent safe to put on a terminal.
//
// Agents are not trusted: a task's status text, an artifact or a card may
// carry escape sequences that move the cursor, rewrite the title, set the
// clipboard (OSC 52) or reorder what the reader sees (bidi overrides). Line
// and Text remove all of that, replace invalid UTF-8 with U+FFFD, and cut
// the result to a display width, so a screen can lay out what it receives.
//
// sanitize owns only these pure functions. It may import the standard
// library and github.com/charmbracelet/x/ansi (for the display width that
// lipgloss also uses), nothing else of this module.
package sanitize
