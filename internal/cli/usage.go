package cli

import (
	"flag"
	"fmt"
	"io"
	"strings"
)

// commandDoc is one command as the usage texts describe it.
type commandDoc struct {
	name     string // "check"; "" for the dashboard
	synopsis string // the command line after "a2atop"
	about    string // what it does, in lines of at most 72 characters
}

// commandDocs are the commands in the order `a2atop help` lists them.
var commandDocs = []commandDoc{
	{"", "[--config FILE] [--read-only] [URL... | --hub URL]",
		"open the dashboard on the configured agents plus the agent base URLs given;\n" +
			"--hub URL attaches it to a team's hub (a2atop serve) instead, as the operator\n" +
			"whose token is $A2ATOP_HUB_TOKEN or the file hub_token_file names"},
	{"demo", "demo [--agents-only | --hub [--four-eyes]] [--pace D] [--base-port N] [--read-only]",
		"start five demo agents on 127.0.0.1 and open the dashboard on them;\n" +
			"--agents-only prints \"NAME URL\" per agent and serves until Ctrl+C;\n" +
			"--hub runs a team's hub over them with two operators, opens alice's\n" +
			"dashboard on it and prints the command that attaches bob's (--four-eyes:\n" +
			"the deployer's approvals take both their votes);\n" +
			"--base-port puts them on ports N..N+4, so they keep their URLs when restarted"},
	{"check", "check [--config FILE] [--timeout D] [URL...]",
		"fetch every agent's card and try ListTasks; print a table"},
	{"tasks", "tasks [--json | --format csv] [--state S] [--agent A] [--config FILE] [--timeout D] [URL...]",
		"sweep every agent once and print its tasks: a table (agent, id, state,\n" +
			"age, status), or with --json agents and tasks as one JSON document,\n" +
			"with --format csv one row per task;\n" +
			"--state S keeps the tasks in one state (a unique start will do: input),\n" +
			"--agent A the agents whose name starts with A, and their tasks"},
	{"watch", "watch --jsonl [--config FILE] [URL... | --hub URL]",
		"print every event as it arrives, one JSON object per line, until Ctrl+C"},
	{"reply", "reply [--config FILE] [--hub URL] AGENT TASK (--text T | --data JSON | --approve | --deny --reason R)",
		"answer a waiting task as the inbox would: journaled first, sent once;\n" +
			"AGENT is a configured name or the agent's base URL; TASK is the task's id,\n" +
			"or the short id the screens show, or any start of the id that one task has"},
	{"login", "login [--config FILE] AGENT",
		"sign in to an agent with the OAuth 2.0 device flow: open the page, enter the code"},
	{"serve", "serve [--config FILE] [--listen ADDR] [--insecure] [--ssh-listen ADDR] [URL...]",
		"run the team's hub: watch the agents once for every operator of the config's\n" +
			"[[operator]] tables, keep the one journal, serve their dashboards (--hub);\n" +
			"it listens on " + defaultListen + " unless --listen says otherwise, and beyond\n" +
			"loopback needs tls_cert_file and tls_key_file (or --insecure).\n" +
			"--ssh-listen (ssh_listen) also serves the dashboard over SSH to the operators\n" +
			"with ssh_authorized_keys: ssh -t -p PORT HOST [inbox|tasks|agents|journal].\n" +
			"The host key's fingerprint (SHA256:...) is printed at every start; on an\n" +
			"operator's first connection ssh shows the fingerprint of the key it is offered:\n" +
			"answer yes only when it is the printed one"},
	{"journal", "journal [--since D] [--format csv|jsonl] [--out FILE] | journal check [--accept LINE]... [--note TEXT] | journal verify [--key FILE] | journal migrate --to URL",
		"write the journal for an audit (who, what, when, outcome, later states), oldest first;\n" +
			"check lists damaged journal lines, exit 1 if one blocks decisions; --accept resolves one;\n" +
			"verify walks the hash chain and signed checkpoints, exit 1 at the first break;\n" +
			"migrate copies the journal file once into the team's NATS JetStream record, verified line by line"},
	{"version", "version", "print the version"},
	{"help", "help [COMMAND]", "print this text, or the usage of one command"},
}

// docOf returns the doc of the command name ("" for the dashboard).
func docOf(name string) (commandDoc, bool) {
	for _, d := range commandDocs {
		if d.name == name {
			return d, true
		}
	}
	return commandDoc{}, false
}

// usageText is what `a2atop help` prints: every command, where the
// configuration and the logs are, and the exit statuses.
func usageText() string {
	var b strings.Builder
	b.WriteString("a2atop — a terminal dashboard for A2A agents\n\nUsage:\n")
	for _, d := range commandDocs {
		fmt.Fprintf(&b, "  a2atop %s\n", d.synopsis)
		for line := range strings.SplitSeq(d.about, "\n") {
			fmt.Fprintf(&b, "        %s\n", line)
		}
	}
	b.WriteString(usageFooter)
	return b.String()
}

const usageFooter = `
Every command answers -h or --help with its own usage.

The config file is --config FILE, else $A2ATOP_CONFIG, else
~/.config/a2atop/config.toml (see config.example.toml). Logs go to the
log_path file (default ~/.local/state/a2atop/a2atop.log), never to the terminal.

Exit status:
  0  success (check, tasks: every agent answered; reply: the agent took it)
  1  an agent could not be reached or answered with an error, or refused the
     reply, or the run failed (journal check: a line blocks decisions)
  2  the command line or the configuration is wrong (the message names the
     file, line and key)
`

// printUsage writes the usage of o's command: its synopsis, what it does
// and its flags; for the dashboard, the whole usage text.
func (o *options) printUsage(w io.Writer) {
	d, ok := docOf(o.cmd)
	if !ok || o.cmd == "dashboard" {
		fmt.Fprint(w, usageText())
		return
	}
	fmt.Fprintf(w, "Usage:\n  a2atop %s\n\n%s\n", d.synopsis, d.about)
	n := 0
	o.fs.VisitAll(func(*flag.Flag) { n++ })
	if n == 0 {
		return
	}
	fmt.Fprint(w, "\nFlags:\n")
	o.fs.SetOutput(w)
	o.fs.PrintDefaults()
	o.fs.SetOutput(o.st.Err)
}
