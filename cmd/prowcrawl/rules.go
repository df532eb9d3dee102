package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/spf13/pflag"

	"github.com/openshift-eng/prowcrawl/classify"
	"github.com/openshift-eng/prowcrawl/internal/safe"
)

// loadRules returns the engine for the built-in rules plus, when path is
// set, a user's rules file that adds symptoms, replaces built-ins by id or
// turns them off ({id: ID, disabled: true}).
func loadRules(path string) (*classify.Engine, error) {
	rules := classify.Builtin()
	if path != "" {
		b, err := os.ReadFile(path)
		if err != nil {
			return nil, usagef("rules file: %v", err)
		}
		user, err := classify.ParseRules(path, b)
		if err != nil {
			return nil, usagef("rules file %s is not valid:\n%v", path, err)
		}
		if ids := classify.Unknown(rules, user); len(ids) > 0 {
			return nil, usagef("rules file %s disables %s, which no built-in rule is", path, strings.Join(ids, ", "))
		}
		rules = classify.Merge(rules, user)
	}
	eng, err := classify.NewEngine(rules)
	if err != nil {
		return nil, usagef("rules: %v", err)
	}
	return eng, nil
}

func runRules(_ context.Context, args []string, stdout, stderr io.Writer) error {
	var rulesPath, check string
	fs := pflag.NewFlagSet("rules", pflag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&rulesPath, "rules", "", "a rules file: list the rules a crawl with it would use")
	fs.StringVar(&check, "check", "", "validate a rules file and report every problem with its line")
	fs.Usage = func() {
		fmt.Fprint(stderr, `Usage: prowcrawl rules [--rules FILE | --check FILE]

Without flags, prints the built-in rules file: copy it to write your own.
With --rules, lists the rules a crawl with that file would use.
With --check, validates a rules file.

`)
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, args, false); err != nil {
		return err
	}
	switch {
	case check != "":
		eng, err := loadRules(check)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "%s: valid; a crawl with it runs %d rules\n", check, len(eng.Rules()))
		return nil
	case rulesPath != "":
		eng, err := loadRules(rulesPath)
		if err != nil {
			return err
		}
		tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "ID\tSOURCE\tTITLE")
		for _, r := range eng.Rules() {
			fmt.Fprintf(tw, "%s\t%s\t%s\n", safe.Line(r.ID), safe.Line(r.Source), safe.Line(r.Title))
		}
		return tw.Flush()
	default:
		_, err := stdout.Write(classify.BuiltinYAML())
		return err
	}
}
