// Package sanitize makes text that an agent sent safe to put on a terminal.
//
// Agents are not trusted: a task's status text, an artifact or a card may
// carry escape sequences that move the cursor, rewrite the title, set the
// clipboard (OSC 52) or reorder what the reader sees (bidi controls). Line
// and Text remove all of that, replace invalid UTF-8 with U+FFFD, and cut
// the result to a display width, so a screen can lay out what it receives.
//
// Every call is bounded by caps, not by its input: it reads at most a
// fixed window of the input, keeps at most MaxLineBytes and MaxLineRunes
// per line and MaxTextBytes and MaxTextRunes per text, and shows a
// grapheme cluster longer than MaxClusterRunes or MaxClusterBytes as one
// U+FFFD, all before it measures a width. One huge cluster (a letter and
// two million combining marks, a ZWJ chain) costs what the caps allow.
//
// WriteJSON and EscapeJSON do the same for JSON output: the agent's text
// stays data, and what a terminal would act on is written as \u escapes.
//
// sanitize owns these functions and holds no state. It may import the
// standard library and github.com/charmbracelet/x/ansi (for the display
// width that lipgloss also uses), nothing else of this module.
package sanitize
