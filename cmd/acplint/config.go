package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"
)

// configName is the file lint looks for in the working directory and each
// directory above it.
const configName = "acplint.yaml"

// configFile is acplint.yaml as written. Every key is optional; a key the
// struct does not know is an error that names its line, so a misspelt
// setting is never ignored.
//
// The keys at the top apply to every command that takes them
// (commandKeys); a section named after a command (lint, check, corpus,
// schema-diff, tap) holds keys for that command alone, which win.
type configFile struct {
	Version       int `yaml:"version"`
	configSection `yaml:",inline"`
	Lint          *configSection `yaml:"lint"`
	Check         *configSection `yaml:"check"`
	Corpus        *configSection `yaml:"corpus"`
	SchemaDiff    *configSection `yaml:"schema-diff"`
	Tap           *configSection `yaml:"tap"`
}

// configSection is the settings of acplint.yaml, at its top or in a
// command's section.
type configSection struct {
	Enable   []string  `yaml:"enable"`
	Disable  []string  `yaml:"disable"`
	Severity yaml.Node `yaml:"severity"` // PATTERN: SEVERITY, in order
	FailOn   string    `yaml:"fail-on"`
	Exclude  []string  `yaml:"exclude"`
	Format   string    `yaml:"format"`
	Input    string    `yaml:"input"`
	Schema   string    `yaml:"schema"`
	Baseline string    `yaml:"baseline"`
}

// commandKeys are the keys of acplint.yaml each command takes. A key at
// the top that a command does not take is not for it; one in the
// command's own section is an error.
var commandKeys = map[string][]string{
	"lint":        {"enable", "disable", "severity", "fail-on", "exclude", "format", "input", "schema", "baseline"},
	"check":       {"fail-on", "format"},
	"corpus":      {"enable", "disable", "severity", "fail-on", "exclude", "format", "input", "schema"},
	"schema-diff": {"fail-on", "format"},
	"tap":         {"enable", "disable", "severity", "schema"},
}

// section returns the section of command, nil when the file has none.
func (f *configFile) section(command string) *configSection {
	return map[string]*configSection{"lint": f.Lint, "check": f.Check, "corpus": f.Corpus, "schema-diff": f.SchemaDiff, "tap": f.Tap}[command]
}

// keys lists the keys s sets, in the file's order of the struct.
func (s *configSection) keys() []string {
	var keys []string
	for _, k := range []struct {
		name string
		set  bool
	}{
		{"enable", s.Enable != nil}, {"disable", s.Disable != nil}, {"severity", s.Severity.Kind != 0}, {"fail-on", s.FailOn != ""},
		{"exclude", s.Exclude != nil}, {"format", s.Format != ""}, {"input", s.Input != ""}, {"schema", s.Schema != ""}, {"baseline", s.Baseline != ""},
	} {
		if k.set {
			keys = append(keys, k.name)
		}
	}
	return keys
}

// lintConfig is the effective configuration of a lint run: the defaults,
// overridden by acplint.yaml, overridden by the flags given.
type lintConfig struct {
	File     string   // the config file read; "" for none
	Enable   []string // rule patterns; empty means every rule
	Disable  []string
	Severity []string // PATTERN=SEVERITY overrides, later ones winning
	FailOn   string
	Exclude  []string
	// excludeBase is the directory Exclude's patterns are relative to.
	excludeBase string
	Format      string
	Input       string
	Schema      string // a path usable from the working directory
	Baseline    string
	// fromFile are the keys the config file set for the command.
	fromFile map[string]bool
}

func defaultLintConfig() lintConfig {
	return lintConfig{FailOn: "error", Format: "text", Input: "auto"}
}

// findConfig returns the acplint.yaml nearest to dir, in dir or above it;
// "" when there is none.
func findConfig(dir string) (string, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	for {
		p := filepath.Join(dir, configName)
		info, err := os.Stat(p)
		if err == nil && !info.IsDir() {
			return p, nil
		}
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return "", err
		}
		up := filepath.Dir(dir)
		if up == dir {
			return "", nil
		}
		dir = up
	}
}

// yamlUnknownField is how the YAML decoder names a key the struct lacks.
var yamlUnknownField = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`field (\S+) not found in type \S+`) })

// readConfig reads the settings of the config file name for command
// into c: the keys at its top that command takes, then its section. Paths
// in it (schema, baseline, exclude patterns) are relative to its directory.
func readConfig(name, command string, c *lintConfig) error {
	data, err := os.ReadFile(name)
	if err != nil {
		return err
	}
	var f configFile
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&f); err != nil && !errors.Is(err, io.EOF) {
		msg := strings.TrimPrefix(err.Error(), "yaml: ")
		msg = strings.ReplaceAll(strings.TrimPrefix(msg, "unmarshal errors:\n  "), "\n  ", "; ")
		msg = yamlUnknownField().ReplaceAllString(msg, `unknown key "$1"`)
		return fmt.Errorf("%s: %s", name, msg)
	}
	if f.Version != 0 && f.Version != 1 {
		return fmt.Errorf("%s: version %d is not supported (want 1)", name, f.Version)
	}
	c.File = name
	c.fromFile = map[string]bool{}
	takes := map[string]bool{}
	for _, k := range commandKeys[command] {
		takes[k] = true
	}
	if err := c.apply(name, &f.configSection, takes); err != nil {
		return err
	}
	for cmd := range commandKeys {
		sec := f.section(cmd)
		if sec == nil {
			continue
		}
		own := map[string]bool{}
		for _, k := range commandKeys[cmd] {
			own[k] = true
		}
		for _, k := range sec.keys() {
			if !own[k] {
				return fmt.Errorf("%s: %s: %s does not take %q (it takes %s)", name, cmd, strings.ReplaceAll(cmd, "-", " "), k, strings.Join(commandKeys[cmd], ", "))
			}
		}
		if cmd == command {
			if err := c.apply(name, sec, takes); err != nil {
				return err
			}
		}
	}
	return nil
}

// apply sets the keys of s that are in takes.
func (c *lintConfig) apply(name string, s *configSection, takes map[string]bool) error {
	dir := filepath.Dir(name)
	set := func(key string) bool {
		if takes[key] {
			c.fromFile[key] = true
			return true
		}
		return false
	}
	if s.Enable != nil && set("enable") {
		c.Enable = append(c.Enable[:0:0], s.Enable...)
	}
	if s.Disable != nil && set("disable") {
		c.Disable = append(c.Disable[:0:0], s.Disable...)
	}
	if sev := &s.Severity; sev.Kind != 0 && set("severity") {
		if sev.Kind != yaml.MappingNode {
			return fmt.Errorf("%s: line %d: severity: want a map of rule patterns to severities", name, sev.Line)
		}
		c.Severity = nil
		for i := 0; i+1 < len(sev.Content); i += 2 {
			k, v := sev.Content[i], sev.Content[i+1]
			if k.Kind != yaml.ScalarNode || v.Kind != yaml.ScalarNode {
				return fmt.Errorf("%s: line %d: severity: want PATTERN: SEVERITY", name, k.Line)
			}
			c.Severity = append(c.Severity, k.Value+"="+v.Value)
		}
	}
	if s.FailOn != "" && set("fail-on") {
		c.FailOn = s.FailOn
	}
	if s.Exclude != nil && set("exclude") {
		c.Exclude, c.excludeBase = s.Exclude, dir
	}
	if s.Format != "" && set("format") {
		c.Format = s.Format
	}
	if s.Input != "" && set("input") {
		c.Input = s.Input
	}
	if s.Schema != "" && set("schema") {
		c.Schema = nearPath(dir, s.Schema)
	}
	if s.Baseline != "" && set("baseline") {
		c.Baseline = nearPath(dir, s.Baseline)
	}
	return nil
}

// nearPath resolves p, relative to dir, as a path from the working
// directory: relative when it can be, so reports name it as people do.
func nearPath(dir, p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	full, err := filepath.Abs(filepath.Join(dir, p))
	if err != nil {
		return filepath.Join(dir, p)
	}
	if wd, err := os.Getwd(); err == nil {
		if rel, err := filepath.Rel(wd, full); err == nil {
			return rel
		}
	}
	return full
}

// configFlags are the flags that override acplint.yaml's settings; lint
// and config register them alike.
type configFlags struct {
	config, noConfig                        *flagValue
	enable, disable, severity, exclude      *listFlag
	failOn, format, input, schema, baseline *flagValue
}

// flagValue is a string flag that knows whether it was given.
type flagValue struct {
	value string
	set   bool
}

func (f *flagValue) String() string     { return f.value }
func (f *flagValue) Set(s string) error { f.value, f.set = s, true; return nil }

// boolFlagValue makes a flagValue a boolean flag (--no-config).
type boolFlagValue struct{ *flagValue }

func (boolFlagValue) IsBoolFlag() bool { return true }

// String is flagValue's, and "" for the zero boolFlagValue that package
// flag makes to learn the default it prints in usage.
func (b boolFlagValue) String() string {
	if b.flagValue == nil {
		return ""
	}
	return b.flagValue.String()
}

// listFlag collects a flag given several times, each a comma-separated
// list.
type listFlag struct {
	items []string
	set   bool
}

func (l *listFlag) String() string { return strings.Join(l.items, ",") }
func (l *listFlag) Set(s string) error {
	l.items, l.set = append(l.items, splitList(s)...), true
	return nil
}

func addConfigFlags(fs *flag.FlagSet) *configFlags {
	c := &configFlags{config: &flagValue{}, noConfig: &flagValue{}, enable: &listFlag{}, disable: &listFlag{}, severity: &listFlag{}, exclude: &listFlag{},
		failOn: &flagValue{value: "error"}, format: &flagValue{value: "text"}, input: &flagValue{value: "auto"}, schema: &flagValue{}, baseline: &flagValue{}}
	fs.Var(c.config, "config", "read settings from this `file` instead of the acplint.yaml found in the working directory or above")
	fs.Var(boolFlagValue{c.noConfig}, "no-config", "read no acplint.yaml")
	fs.Var(c.enable, "enable", "report only the rules these `patterns` select: IDs, areas (ses, ACP-SES) or globs (ACP-SES-00*), comma-separated, any case; repeatable")
	fs.Var(c.disable, "disable", "drop the rules these `patterns` select (as --enable); disable wins")
	fs.Var(c.severity, "rule-severity", "report the rules `PATTERN=SEVERITY` selects with that severity (e.g. ACP-SES-*=warning); repeatable, later ones win")
	fs.Var(c.exclude, "exclude", "leave out the files and directories these `globs` match (relative to the working directory; ** spans directories)")
	fs.Var(c.failOn, "fail-on", "exit 1 when a finding has at least this `severity`: error, warning or info")
	fs.Var(c.format, "f", "output `format`: text, json, sarif, github, junit or html")
	fs.Var(c.format, "format", "same as -f")
	fs.Var(c.input, "input", "input `format`: auto, ndjson, jsonl, zed or acplint")
	fs.Var(c.schema, "schema", "check params and results against this ACP schema `file` (upstream format) instead of the compiled-in schema")
	fs.Var(c.baseline, "baseline", "accept the findings listed in this baseline `file`; entries for the files linted that no longer fire fail the run")
	return c
}

// resolve builds command's effective configuration: defaults, then the
// config file (--config, or the acplint.yaml nearest the working directory
// unless --no-config), then every flag that was given.
func (c *configFlags) resolve(command string) (lintConfig, error) {
	cfg := defaultLintConfig()
	name, err := configPath(c.config, c.noConfig)
	if err != nil {
		return cfg, err
	}
	if name != "" {
		if err := readConfig(name, command, &cfg); err != nil {
			return cfg, err
		}
	}
	if c.enable.set {
		cfg.Enable = c.enable.items
	}
	if c.disable.set {
		cfg.Disable = c.disable.items
	}
	if c.severity.set {
		cfg.Severity = c.severity.items
	}
	if c.exclude.set {
		wd, err := os.Getwd()
		if err != nil {
			return cfg, err
		}
		cfg.Exclude, cfg.excludeBase = c.exclude.items, wd
	}
	for _, f := range []struct {
		flag *flagValue
		dst  *string
	}{{c.failOn, &cfg.FailOn}, {c.format, &cfg.Format}, {c.input, &cfg.Input}, {c.schema, &cfg.Schema}, {c.baseline, &cfg.Baseline}} {
		if f.flag.set {
			*f.dst = f.flag.value
		}
	}
	if cfg.excludeBase != "" {
		abs, err := filepath.Abs(cfg.excludeBase)
		if err != nil {
			return cfg, err
		}
		cfg.excludeBase = abs
	}
	return cfg, nil
}

// configPath is the config file to read: --config, else the acplint.yaml
// nearest the working directory unless --no-config; "" for none.
func configPath(config, noConfig *flagValue) (string, error) {
	if config.value != "" || (noConfig.set && noConfig.value != "false") {
		return config.value, nil
	}
	found, err := findConfig(".")
	if err != nil || found == "" {
		return "", err
	}
	if wd, err := os.Getwd(); err == nil {
		if rel, err := filepath.Rel(wd, found); err == nil {
			return rel, nil
		}
	}
	return found, nil
}

// fileFlags are --config and --no-config of the commands other than lint
// and config, which keep flags of their own for the keys they take.
type fileFlags struct{ config, noConfig *flagValue }

func addFileFlags(fs *flag.FlagSet) *fileFlags {
	ff := &fileFlags{config: &flagValue{}, noConfig: &flagValue{}}
	fs.Var(ff.config, "config", "read settings from this `file` instead of the acplint.yaml found in the working directory or above")
	fs.Var(boolFlagValue{ff.noConfig}, "no-config", "read no acplint.yaml")
	return ff
}

// apply reads acplint.yaml for command, after the flags are parsed, and
// gives each flag of a key the file sets (flagOf maps keys to flag names)
// the file's value, unless the flag was given: defaults, then the file,
// then the flags, as for lint. It returns what it read, for the keys that
// map onto no flag (exclude, relative to the file's directory).
func (ff *fileFlags) apply(fs *flag.FlagSet, command string, flagOf map[string]string) (lintConfig, error) {
	cfg := lintConfig{}
	name, err := configPath(ff.config, ff.noConfig)
	if err != nil || name == "" {
		return cfg, err
	}
	if err := readConfig(name, command, &cfg); err != nil {
		return cfg, err
	}
	if cfg.excludeBase != "" {
		if cfg.excludeBase, err = filepath.Abs(cfg.excludeBase); err != nil {
			return cfg, err
		}
	}
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	values := map[string]string{
		"enable": strings.Join(cfg.Enable, ","), "disable": strings.Join(cfg.Disable, ","), "severity": strings.Join(cfg.Severity, ","),
		"fail-on": cfg.FailOn, "format": cfg.Format, "input": cfg.Input, "schema": cfg.Schema, "baseline": cfg.Baseline,
	}
	for key, flagName := range flagOf {
		if !cfg.fromFile[key] || given[flagName] || (flagName == "f" && given["format"]) {
			continue
		}
		if err := fs.Set(flagName, values[key]); err != nil {
			return cfg, fmt.Errorf("%s: %s: %v", name, key, err)
		}
	}
	return cfg, nil
}

const configDoc = `
Config prints the configuration lint would run with here: the defaults,
overridden by the config file, overridden by the flags given (the same
flags as lint's). The config file is --config FILE, or else the
acplint.yaml in the working directory or the nearest directory above it
(--no-config reads none). Paths in the file (schema, baseline, exclude)
are relative to the file's directory; the output shows them relative to
the working directory.

acplint.yaml (every key optional; an unknown key is an error):

	version: 1
	enable: [all]                 # rule patterns: IDs, areas, globs
	disable: [ACP-LINT-001, cap]
	severity:                     # per-rule severity, later entries win
	  ACP-SES-*: warning
	fail-on: warning              # error, warning or info
	exclude: [testdata/old/**, "*.tmp.ndjson"]
	format: sarif                 # text, json, sarif, github, junit
	input: auto                   # auto, ndjson, jsonl, zed, acplint
	schema: schema/v1/schema.json
	baseline: acplint-baseline.json
	check:                        # a command's own section wins
	  format: junit

The keys at the top apply to every command that takes them; a section
(lint, check, corpus, schema-diff, tap) holds keys for one command, and a
key there that the command does not take is an error. Each command's
flags override the file, and each takes --config and --no-config:

	lint         every key
	check        fail-on, format
	corpus       enable, disable, severity, fail-on, exclude, format,
	             input, schema (the new schema, --schema)
	schema-diff  fail-on, format
	tap          enable, disable, severity, schema (the live linter's)

This command prints the effective configuration of COMMAND (lint when
none is given): only the keys that command takes, and only the flags of
those keys may be given with it.

	acplint config check          # what acplint check would run with here
	acplint config corpus -f json
`

func runConfig(_ context.Context, args []string, e *env) int {
	fs := newFlagSet("config", "acplint config [flags] [COMMAND]", configDoc, e)
	flags := addConfigFlags(fs)
	if code, ok := parseFlags(fs, args, e); !ok {
		return code
	}
	command := "lint"
	switch {
	case fs.NArg() > 1:
		e.errorf("config: takes at most one command; run 'acplint help config' for usage")
		return exitUsage
	case fs.NArg() == 1:
		command = fs.Arg(0)
		if _, ok := commandKeys[command]; !ok {
			e.errorf("config: %q is not a command with settings (%s); run 'acplint help config' for usage", command, strings.Join(configCommands(), ", "))
			return exitUsage
		}
	}
	if err := flags.onlyKeysOf(fs, command); err != nil {
		e.errorf("config: %v", err)
		return exitUsage
	}
	cfg, err := flags.resolve(command)
	if err != nil {
		e.errorf("config: %v", err)
		return exitUsage
	}
	if err := writeConfig(e.stdout, cfg, command); err != nil {
		e.errorf("config: %v", err)
		return exitUsage
	}
	return exitClean
}

// configCommands are the commands acplint.yaml has settings for, in the
// order the help lists them.
func configCommands() []string {
	return []string{"lint", "check", "corpus", "schema-diff", "tap"}
}

// keyOfFlag maps the flags of addConfigFlags onto acplint.yaml's keys.
var keyOfFlag = map[string]string{
	"enable": "enable", "disable": "disable", "rule-severity": "severity", "exclude": "exclude", "fail-on": "fail-on",
	"f": "format", "format": "format", "input": "input", "schema": "schema", "baseline": "baseline",
}

// onlyKeysOf refuses a flag given for a key command does not take: acplint
// config check --enable would print a setting check never reads.
func (c *configFlags) onlyKeysOf(fs *flag.FlagSet, command string) error {
	takes := map[string]bool{}
	for _, k := range commandKeys[command] {
		takes[k] = true
	}
	var err error
	fs.Visit(func(f *flag.Flag) {
		if key, ok := keyOfFlag[f.Name]; ok && !takes[key] && err == nil {
			err = fmt.Errorf("%s does not take --%s (its keys: %s)", strings.ReplaceAll(command, "-", " "), f.Name, strings.Join(commandKeys[command], ", "))
		}
	})
	return err
}

// writeConfig prints cfg, the effective configuration of command, as an
// acplint.yaml that gives the same run from the working directory: the
// keys command takes, at the top.
func writeConfig(w io.Writer, cfg lintConfig, command string) error {
	if cfg.File != "" {
		fmt.Fprintf(w, "# effective configuration: %s, then the flags given\n", filepath.ToSlash(cfg.File))
	} else {
		fmt.Fprintln(w, "# effective configuration: no acplint.yaml; defaults, then the flags given")
	}
	str := func(s string) *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Value: s} }
	list := func(items []string) *yaml.Node {
		n := &yaml.Node{Kind: yaml.SequenceNode, Style: yaml.FlowStyle}
		for _, s := range items {
			n.Content = append(n.Content, str(s))
		}
		return n
	}
	severity := &yaml.Node{Kind: yaml.MappingNode}
	if len(cfg.Severity) == 0 {
		severity.Style = yaml.FlowStyle
	}
	for _, s := range cfg.Severity {
		p, sev, _ := strings.Cut(s, "=")
		severity.Content = append(severity.Content, str(p), str(sev))
	}
	enable := cfg.Enable
	if len(enable) == 0 {
		enable = []string{"all"}
	}
	exclude := cfg.Exclude
	if cfg.excludeBase != "" {
		// Shown relative to the working directory, like every path here.
		exclude = nil
		for _, p := range cfg.Exclude {
			if strings.ContainsRune(strings.TrimPrefix(filepath.ToSlash(p), "./"), '/') {
				p = filepath.ToSlash(nearPath(cfg.excludeBase, p))
			}
			exclude = append(exclude, p)
		}
	}
	takes := map[string]bool{"version": true}
	for _, k := range commandKeys[command] {
		takes[k] = true
	}
	doc := &yaml.Node{Kind: yaml.MappingNode}
	for _, kv := range []struct {
		key string
		val *yaml.Node
	}{
		{"version", str("1")}, {"enable", list(enable)}, {"disable", list(cfg.Disable)}, {"severity", severity},
		{"fail-on", str(cfg.FailOn)}, {"exclude", list(exclude)}, {"format", str(cfg.Format)}, {"input", str(cfg.Input)},
		{"schema", str(filepath.ToSlash(cfg.Schema))}, {"baseline", str(filepath.ToSlash(cfg.Baseline))},
	} {
		if takes[kv.key] {
			doc.Content = append(doc.Content, str(kv.key), kv.val)
		}
	}
	enc := yaml.NewEncoder(w)
	enc.SetIndent(2)
	if err := enc.Encode(doc); err != nil {
		return err
	}
	return enc.Close()
}
