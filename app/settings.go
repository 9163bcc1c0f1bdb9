package app

import (
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
)

// Setting is one knob of Config: its flag, its environment variable and
// what it does. Its default is DefaultConfig's value (Default), so the
// table holds no defaults of its own.
type Setting struct {
	Flag, Env, Help string
	// Group names the part of Yakor the setting tunes, for the docs.
	Group string
	field func(*Config) flag.Value
}

// Value is the setting bound to c's field.
func (s Setting) Value(c *Config) flag.Value { return s.field(c) }

// Default is the setting's default as text ("" for none).
func (s Setting) Default() string {
	d := DefaultConfig()
	return s.field(&d).String()
}

// Bool reports whether the setting is a boolean, a flag that needs no
// value (--search-tool alone turns it on).
func (s Setting) Bool() bool {
	b, ok := s.field(&Config{}).(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

// NewFlagSet is the flag set of the command name ("yakor serve"): its
// errors go to stderr, and so does its usage unless args ask for it (-h,
// --help, before any "--"), when it goes to stdout.
func NewFlagSet(name string, args []string, stdout, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { Usage(fs.Output(), fs) }
	for _, a := range args {
		if a == "--" {
			break
		}
		if a == "-h" || a == "--help" || a == "-help" {
			fs.SetOutput(stdout)
		}
	}
	return fs
}

// Parse reads the settings into DefaultConfig: the environment (getenv),
// then the flags in args, which win. A command declares its own flags on
// fs before the call. It returns flag.ErrHelp for -h and --help, having
// written the usage to fs's output.
func Parse(fs *flag.FlagSet, args []string, getenv func(string) string) (Config, error) {
	c := DefaultConfig()
	all := Settings()
	for _, s := range all {
		if v := getenv(s.Env); v != "" {
			if err := s.Value(&c).Set(v); err != nil {
				return c, fmt.Errorf("%s: %w", s.Env, err)
			}
		}
	}
	for _, s := range all {
		fs.Var(s.Value(&c), s.Flag, s.Help)
	}
	fs.Usage = func() { Usage(fs.Output(), fs) }
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	return c, c.Resolve()
}

// Usage writes fs's usage: the command's own flags first, then the
// settings with their environment variables and defaults.
func Usage(w io.Writer, fs *flag.FlagSet) {
	settings := map[string]Setting{}
	for _, s := range Settings() {
		settings[s.Flag] = s
	}
	fmt.Fprintf(w, "usage: %s [flags]\n", fs.Name())
	var own, common []string
	fs.VisitAll(func(f *flag.Flag) {
		line := "  --" + f.Name
		if s, ok := settings[f.Name]; ok {
			if !s.Bool() {
				line += " " + strings.ToUpper(strings.ReplaceAll(f.Name, "-", "_"))
			}
			line += "\n      " + s.Help + " (env " + s.Env + ", default " + strconv.Quote(s.Default()) + ")"
			common = append(common, line)
			return
		}
		if _, isBool := f.Value.(interface{ IsBoolFlag() bool }); !isBool {
			line += " VALUE"
		}
		line += "\n      " + f.Usage
		if f.DefValue != "" && f.DefValue != "false" && f.DefValue != "0" {
			line += " (default " + strconv.Quote(f.DefValue) + ")"
		}
		own = append(own, line)
	})
	if len(own) > 0 {
		fmt.Fprintln(w, "\nflags of this command:")
		fmt.Fprintln(w, strings.Join(own, "\n"))
	}
	if len(common) > 0 {
		fmt.Fprintln(w, "\nsettings (every command reads them; flags win over the environment):")
		fmt.Fprintln(w, strings.Join(common, "\n"))
	}
}

// text, count, boolean, fraction and duration are the settings' kinds of
// value, bound to a field of Config.
type (
	text     struct{ p *string }
	count    struct{ p *int }
	boolean  struct{ p *bool }
	fraction struct{ p *float64 }
	duration struct{ p *time.Duration }
)

func (v text) String() string { return deref(v.p) }
func (v text) Set(s string) error {
	*v.p = s
	return nil
}

func (v count) String() string { return strconv.Itoa(deref(v.p)) }
func (v count) Set(s string) error {
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		return fmt.Errorf("%q is not a non-negative whole number", s)
	}
	*v.p = n
	return nil
}

func (v boolean) String() string   { return strconv.FormatBool(deref(v.p)) }
func (v boolean) IsBoolFlag() bool { return true }
func (v boolean) Set(s string) error {
	b, err := strconv.ParseBool(s)
	if err != nil {
		return fmt.Errorf("%q is not true or false", s)
	}
	*v.p = b
	return nil
}

func (v fraction) String() string { return strconv.FormatFloat(deref(v.p), 'g', -1, 64) }
func (v fraction) Set(s string) error {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f <= 0 || f > 1 {
		return fmt.Errorf("%q is not a number above 0 and at most 1", s)
	}
	*v.p = f
	return nil
}

func (v duration) String() string {
	switch d := deref(v.p); {
	case d != 0 && d%time.Hour == 0:
		return strconv.Itoa(int(d/time.Hour)) + "h"
	case d != 0 && d%time.Minute == 0:
		return strconv.Itoa(int(d/time.Minute)) + "m"
	default:
		return d.String()
	}
}
func (v duration) Set(s string) error {
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		return fmt.Errorf("%q is not a positive duration such as 30s or 2m", s)
	}
	*v.p = d
	return nil
}

// deref is *p, or the zero value for a nil p (the flag package makes
// zero Values to tell a flag's zero default).
func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}
