package cli

import (
	"errors"
	"strings"
	"time"

	"github.com/charmbracelet/lipgloss"

	"a2atop/approvals"
	"a2atop/internal/config"
	"a2atop/ui"
	"a2atop/ui/common"
	"a2atop/ui/inbox"
	"a2atop/ui/theme"
)

// dashboardKeys are the dashboard's keys with the config's [keys] in
// effect: the root's and the inbox's. A refused entry is a config error
// on its line.
func dashboardKeys(cfg *config.Config) (*ui.KeyMap, *inbox.KeyMap, error) {
	k, ik := ui.DefaultKeyMap(), inbox.DefaultKeyMap()
	err := common.Rebind(append(k.Actions(), ik.Actions()...), cfg.KeyBinds)
	var ke *common.KeyError
	if errors.As(err, &ke) {
		return nil, nil, cfg.At(config.KeyKey(ke.Action), ke.Msg)
	}
	return &k, &ik, err
}

// dashboardTheme is the theme of the config: its mode, with the colour
// tokens of [theme] over the palette a2atop ships.
func dashboardTheme(cfg *config.Config) (*theme.Theme, error) { return dashboardThemeOn(cfg, nil) }

// dashboardThemeOn is dashboardTheme drawn with r (nil: lipgloss's
// default renderer, the terminal a2atop runs in).
func dashboardThemeOn(cfg *config.Config, r *lipgloss.Renderer) (*theme.Theme, error) {
	mode, err := theme.ParseMode(cfg.Theme)
	if err != nil {
		return nil, cfg.At("theme", err.Error())
	}
	p := theme.DefaultPalette()
	colors := make(map[string]theme.Color, len(cfg.Colors))
	for name, c := range cfg.Colors {
		colors[name] = theme.Color{Light: c.Light, Dark: c.Dark}
	}
	var te *theme.TokenError
	if err := theme.Override(&p, colors); errors.As(err, &te) {
		return nil, cfg.At(config.ThemeKey(te.Token), te.Msg)
	}
	return theme.New(theme.Options{Mode: mode, Palette: &p, Renderer: r}), nil
}

// dashboardViews are the config's [[view]] tables as the dashboard
// takes them, checked; a refused view is a config error on its line.
func dashboardViews(cfg *config.Config) ([]ui.SavedView, error) {
	views := make([]ui.SavedView, len(cfg.Views))
	for i, v := range cfg.Views {
		views[i] = ui.SavedView{Name: strings.TrimSpace(v.Name), Filter: v.Filter, Sort: v.Sort, Columns: v.Columns, Default: v.Default}
	}
	var ve *ui.ViewError
	if err := ui.CheckViews(views, cfg.AgentNames()); errors.As(err, &ve) {
		return nil, cfg.At(config.ViewKey(ve.Index, ve.Field), ve.Msg)
	}
	return views, nil
}

// look is what the config makes of the dashboard beyond its agents:
// keys, colours and saved views, checked before anything starts.
type look struct {
	keys      *ui.KeyMap
	inboxKeys *inbox.KeyMap
	theme     *theme.Theme
	views     []ui.SavedView
}

// dashboardLook reads the config's keys, theme and views; a refusal is a
// config error on its line.
func dashboardLook(cfg *config.Config) (*look, error) { return dashboardLookOn(cfg, nil) }

// dashboardLookOn is dashboardLook with the theme drawn with r.
func dashboardLookOn(cfg *config.Config, r *lipgloss.Renderer) (*look, error) {
	k, ik, err := dashboardKeys(cfg)
	if err != nil {
		return nil, err
	}
	th, err := dashboardThemeOn(cfg, r)
	if err != nil {
		return nil, err
	}
	views, err := dashboardViews(cfg)
	if err != nil {
		return nil, err
	}
	return &look{keys: k, inboxKeys: ik, theme: th, views: views}, nil
}

// options fills o with the look and the config's dashboard settings:
// the keys, theme and views, hide_terminal_after, the notifications and
// :export. The compose screen (n, f) is the caller's: a dashboard on its
// own agents has it, one attached to a hub not (the hub sends only
// answers to the tasks it watches).
func (l *look) options(cfg *config.Config, svc *approvals.Service, o ui.Options) ui.Options {
	o.KeyMap, o.Theme, o.Views = l.keys, l.theme, l.views
	o.AskBackground = asksBackground(cfg, o.Output)
	o.HideTerminalAfter = cfg.HideTerminalAfter.Duration
	o.Notify = ui.Notify(cfg.Notifications)
	o.Export = dashboardExport(svc, time.Now)
	return o
}

// compose is the compose screen's factory, with the config's keys.
func (l *look) compose(svc *approvals.Service) func(common.Context) common.Component {
	return inbox.ComposeFactory(svc, inbox.Options{KeyMap: l.inboxKeys})
}
