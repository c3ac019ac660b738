package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"regexp"
	"sort"
	"strings"
	"sync"
)

const completionDoc = `
Completion prints a shell completion script for acplint's commands and
their flags. Load it in the current shell, or install it:

	bash:  source <(acplint completion bash)
	       acplint completion bash > /etc/bash_completion.d/acplint
	zsh:   source <(acplint completion zsh)
	       acplint completion zsh > "${fpath[1]}/_acplint"
	fish:  acplint completion fish | source
	       acplint completion fish > ~/.config/fish/completions/acplint.fish

The script is generated from this acplint's own commands and flags, so
regenerate it after an upgrade.
`

func runCompletion(ctx context.Context, args []string, e *env) int {
	fs := newFlagSet("completion", "acplint completion bash|zsh|fish", completionDoc, e)
	if code, ok := parseFlags(fs, args, e); !ok {
		return code
	}
	if fs.NArg() != 1 {
		e.errorf("completion: want one shell: bash, zsh or fish")
		return exitUsage
	}
	cmds := completionCommands(ctx)
	var err error
	switch fs.Arg(0) {
	case "bash":
		err = writeBashCompletion(e.stdout, cmds)
	case "zsh":
		err = writeZshCompletion(e.stdout, cmds)
	case "fish":
		err = writeFishCompletion(e.stdout, cmds)
	default:
		e.errorf("completion: unknown shell %q (want bash, zsh or fish)", fs.Arg(0))
		return exitUsage
	}
	if err != nil {
		e.errorf("completion: %v", err)
		return exitUsage
	}
	return exitClean
}

// completionCommand is what a completion script knows of one command.
type completionCommand struct {
	name, summary string
	flags         []completionFlag
}

type completionFlag struct {
	name    string
	takes   bool // takes a value (not a boolean flag)
	summary string
}

// flagLine is a flag's first line in PrintDefaults: "  -name" or
// "  -name value-name".
var flagLine = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^  -(\S+)(?: (\S+))?`) })

// completionCommands lists every command with its flags, read from the
// command's own -h: the flags are defined where each command runs, and
// reading them there keeps the scripts from going stale.
func completionCommands(ctx context.Context) []completionCommand {
	var out []completionCommand
	for _, c := range commands() {
		cc := completionCommand{name: c.name, summary: c.summary}
		var help bytes.Buffer
		sub := &env{stdin: strings.NewReader(""), stdout: &help, stderr: io.Discard}
		if c.name == "schema" {
			runSchemaDiff(ctx, []string{"-h"}, sub)
		} else {
			c.run(ctx, []string{"-h"}, sub)
		}
		lines := strings.Split(help.String(), "\n")
		for i, l := range lines {
			m := flagLine().FindStringSubmatch(l)
			if m == nil {
				continue
			}
			f := completionFlag{name: m[1], takes: m[2] != ""}
			if i+1 < len(lines) {
				f.summary = strings.TrimSpace(lines[i+1])
			}
			cc.flags = append(cc.flags, f)
		}
		out = append(out, cc)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}

// dashes is how acplint's help spells a flag: -f for one letter, --name
// otherwise (package flag takes either).
func dashes(name string) string {
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}

func writeBashCompletion(w io.Writer, cmds []completionCommand) error {
	var b strings.Builder
	b.WriteString("# bash completion for acplint (acplint completion bash)\n_acplint() {\n")
	b.WriteString("\tlocal cur=\"${COMP_WORDS[COMP_CWORD]}\" flags\n")
	names := make([]string, 0, len(cmds))
	for _, c := range cmds {
		names = append(names, c.name)
	}
	fmt.Fprintf(&b, "\tif [ \"$COMP_CWORD\" -eq 1 ]; then\n\t\tCOMPREPLY=($(compgen -W %q -- \"$cur\"))\n\t\treturn\n\tfi\n", strings.Join(append(names, "help"), " "))
	b.WriteString("\tcase \"${COMP_WORDS[1]}\" in\n")
	for _, c := range cmds {
		var fl []string
		for _, f := range c.flags {
			fl = append(fl, dashes(f.name))
		}
		fmt.Fprintf(&b, "\t%s) flags=%q ;;\n", c.name, strings.Join(fl, " "))
	}
	fmt.Fprintf(&b, "\thelp) COMPREPLY=($(compgen -W %q -- \"$cur\")); return ;;\n", strings.Join(names, " "))
	b.WriteString("\tesac\n")
	b.WriteString("\tif [[ \"$cur\" == -* ]]; then\n\t\tCOMPREPLY=($(compgen -W \"$flags\" -- \"$cur\"))\n\telse\n\t\tCOMPREPLY=($(compgen -f -- \"$cur\"))\n\tfi\n}\n")
	b.WriteString("complete -o filenames -F _acplint acplint\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// zshQuote makes s safe inside a single-quoted _arguments or _describe
// spec: no quote, and no bracket or colon that would end a field.
func zshQuote(s string) string {
	return strings.NewReplacer("'", "", "[", "(", "]", ")", ":", " -", "\\", "").Replace(s)
}

func writeZshCompletion(w io.Writer, cmds []completionCommand) error {
	var b strings.Builder
	b.WriteString("#compdef acplint\n# zsh completion for acplint (acplint completion zsh)\n_acplint() {\n\tlocal -a commands\n\tcommands=(\n")
	for _, c := range cmds {
		fmt.Fprintf(&b, "\t\t'%s:%s'\n", c.name, zshQuote(c.summary))
	}
	b.WriteString("\t)\n\tif (( CURRENT == 2 )); then\n\t\t_describe 'command' commands\n\t\treturn\n\tfi\n\tcase $words[2] in\n")
	for _, c := range cmds {
		fmt.Fprintf(&b, "\t%s) _arguments", c.name)
		for _, f := range c.flags {
			spec := dashes(f.name) + "[" + zshQuote(f.summary) + "]"
			if f.takes {
				spec += ":value:"
			}
			fmt.Fprintf(&b, " '%s'", spec)
		}
		b.WriteString(" '*:file:_files' ;;\n")
	}
	b.WriteString("\thelp) _describe 'command' commands ;;\n\tesac\n}\n")
	b.WriteString("if [ \"$funcstack[1]\" = \"_acplint\" ]; then\n\t_acplint \"$@\"\nelse\n\tcompdef _acplint acplint\nfi\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// fishQuote single-quotes s for fish.
func fishQuote(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s) + "'"
}

func writeFishCompletion(w io.Writer, cmds []completionCommand) error {
	var b strings.Builder
	b.WriteString("# fish completion for acplint (acplint completion fish)\n")
	names := make([]string, 0, len(cmds))
	for _, c := range cmds {
		names = append(names, c.name)
	}
	all := strings.Join(append(names, "help"), " ")
	for _, c := range cmds {
		fmt.Fprintf(&b, "complete -c acplint -f -n 'not __fish_seen_subcommand_from %s' -a %s -d %s\n", all, c.name, fishQuote(c.summary))
	}
	fmt.Fprintf(&b, "complete -c acplint -f -n 'not __fish_seen_subcommand_from %s' -a help -d 'show help for a command'\n", all)
	for _, c := range cmds {
		for _, f := range c.flags {
			opt := "-l " + f.name
			if len(f.name) == 1 {
				opt = "-s " + f.name
			}
			if f.takes {
				opt += " -r"
			}
			fmt.Fprintf(&b, "complete -c acplint -n '__fish_seen_subcommand_from %s' %s -d %s\n", c.name, opt, fishQuote(f.summary))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}
