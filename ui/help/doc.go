// Package help is the help screen, a ui/common Component: every key of
// the screen under it, grouped as that screen's FullHelp gives them (so
// what help says is what the keys do), the global keys, the screen's own
// note (common.HelpNoter) and the : commands it offers. The groups flow
// in columns across the width and a help taller than the screen scrolls.
//
// The root builds it once (New) with its KeyMap and the global group,
// and on `?` tells it which screen it is about (Describe) and shows it
// over that screen; it takes every key while open and asks the root to
// close it through Context.Out (common.BackMsg).
//
// It may import ui/common, ui/theme and the charm libraries; never the
// root ui, nor another screen.
package help
