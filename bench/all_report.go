package bench

// The Markdown of yakor bench all, and the facts of the machine it ran on.

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strings"
	"time"
)

// allMachine is what the figures were measured on.
type allMachine struct {
	Date        string            `json:"date"`
	Commit      string            `json:"commit"`
	Cores       int               `json:"cores"`
	CPU         string            `json:"cpu"`
	MemoryGiB   float64           `json:"memory_gib"`
	OS          string            `json:"os"`
	Go          string            `json:"go"`
	PostgreSQL  string            `json:"postgresql"`
	Server      string            `json:"server"` // the private cluster, or an external server
	Settings    map[string]string `json:"settings,omitempty"`
	LoadAverage string            `json:"load_average"` // at the start: the machine may be shared
}

// machineFacts gathers the machine's facts; what cannot be read is
// "unknown".
func machineFacts(ctx context.Context, db *database) allMachine {
	m := allMachine{
		Date: time.Now().UTC().Format("2006-01-02 15:04 UTC"), Commit: gitCommit(), Cores: runtime.NumCPU(),
		CPU: "unknown", OS: runtime.GOOS + "/" + runtime.GOARCH, Go: runtime.Version(), PostgreSQL: "unknown", LoadAverage: "unknown",
	}
	if v := procField("/proc/cpuinfo", "model name"); v != "" {
		m.CPU = v
	}
	if v := procField("/proc/meminfo", "MemTotal"); v != "" {
		var kb float64
		if _, err := fmt.Sscanf(v, "%f", &kb); err == nil {
			m.MemoryGiB = kb / (1 << 20)
		}
	}
	if raw, err := os.ReadFile("/proc/loadavg"); err == nil {
		if f := strings.Fields(string(raw)); len(f) >= 3 {
			m.LoadAverage = strings.Join(f[:3], " ")
		}
	}
	if raw, err := os.ReadFile("/etc/os-release"); err == nil {
		for line := range strings.Lines(string(raw)) {
			if v, ok := strings.CutPrefix(strings.TrimSpace(line), "PRETTY_NAME="); ok {
				m.OS = strings.Trim(v, `"`) + " (" + m.OS + ")"
			}
		}
	}
	var v string
	if err := db.Owner.QueryRow(ctx, `SHOW server_version`).Scan(&v); err == nil {
		m.PostgreSQL = v
	}
	m.Server = "external (DATABASE_URL)"
	if db.Private() {
		m.Server, m.Settings = "private cluster in the bench folder", benchServerSettings
	}
	return m
}

// procField is the value of the first "name : value" line of a /proc file.
func procField(path, name string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if ok && strings.TrimSpace(k) == name {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// gitCommit is the working tree's commit, marked when files Git tracks were
// changed; "unknown" outside a repository.
func gitCommit() string {
	out, err := exec.Command("git", "rev-parse", "--short=12", "HEAD").Output()
	if err != nil {
		return "unknown"
	}
	commit := strings.TrimSpace(string(out))
	if st, err := exec.Command("git", "status", "--porcelain", "--untracked-files=no").Output(); err == nil && len(strings.TrimSpace(string(st))) > 0 {
		commit += " (with uncommitted changes)"
	}
	return commit
}

// indexSeconds is the build time of the index whose name contains part.
func (l corpusLoad) indexSeconds(part string) float64 {
	for _, b := range l.Indexes {
		if strings.Contains(b.Name, part) {
			return b.Seconds
		}
	}
	return 0
}

// machinePG is the PostgreSQL version the report names.
func (e *allEnv) machinePG() string {
	var v string
	if err := e.db.Owner.QueryRow(context.Background(), `SHOW server_version`).Scan(&v); err != nil {
		return ""
	}
	return v
}

// allSummary is the summary table.
func allSummary(rep allReport) string {
	var b strings.Builder
	b.WriteString("| figure | value | measured with |\n|---|---|---|\n")
	for _, k := range rep.Order {
		for _, f := range rep.Sections[k].Figures {
			fmt.Fprintf(&b, "| %s | %s | %s |\n", f.Figure, f.Value, f.Detail)
		}
	}
	return b.String()
}

// allMarkdown is the whole report.
func allMarkdown(rep allReport, e *allEnv) string {
	m := rep.Machine
	var b strings.Builder
	b.WriteString("# Yakor benchmarks\n\n")
	fmt.Fprintf(&b, "Written by `yakor bench all%s` on %s at commit %s; the run took %s. JSON with every figure: [%s](%s).\n\n",
		map[bool]string{true: " --quick", false: ""}[rep.Quick], m.Date, m.Commit, minutes(rep.Seconds), "benchmarks.json", "benchmarks.json")
	if rep.Quick {
		b.WriteString("**A quick run: every section at a small scale, to check the report end to end. Its figures say little.**\n\n")
	}
	b.WriteString("| machine | |\n|---|---|\n")
	fmt.Fprintf(&b, "| CPU | %d cores, %s |\n| memory | %.1f GiB |\n| system | %s |\n| Go | %s |\n| PostgreSQL | %s, %s |\n", m.Cores, m.CPU, m.MemoryGiB, m.OS, m.Go, m.PostgreSQL, m.Server)
	if len(m.Settings) > 0 {
		var kv []string
		for k, v := range m.Settings {
			kv = append(kv, k+"="+v)
		}
		slices.Sort(kv)
		fmt.Fprintf(&b, "| server settings | %s (beyond PostgreSQL's defaults; fsync and synchronous commit on) |\n", strings.Join(kv, ", "))
	}
	fmt.Fprintf(&b, "| load average at the start | %s (the machine is shared: timings are noisy, compare runs with care) |\n\n", m.LoadAverage)

	b.WriteString("## Summary\n\n")
	b.WriteString(allSummary(rep))
	b.WriteString("\nThe run: the corpora were loaded one after another, the biggest first, each one's index builds going on beside the next one's COPY, and the untimed sections (prompt size, LoCoMo: sizes and shares, not times) ran beside them once the first COPY had ended, with at most one CPU-heavy step per core; then, after a checkpoint and once autovacuum was idle, the timed sections ran alone. " +
		"A timed section's loading is until its rows were written; what each corpus's load took in all is in its section.\n\n")
	b.WriteString("| section | loading | measuring |\n|---|---:|---:|\n")
	for _, k := range rep.Order {
		p := rep.Sections[k]
		load := "–"
		if p.LoadSeconds > 0 {
			load = minutes(p.LoadSeconds)
		}
		fmt.Fprintf(&b, "| %s | %s | %s |\n", p.Title, load, minutes(p.Seconds))
	}
	fmt.Fprintf(&b, "| **all** | | **%s** |\n", minutes(rep.Seconds))
	if n := reusedCorpora(rep); n > 0 {
		which := "One corpus was"
		if n > 1 {
			which = fmt.Sprintf("%d corpora were", n)
		}
		fmt.Fprintf(&b, "\n%s loaded by an earlier run and reused (the sections give the time each load took then): a run from a fresh clone also takes those loads.\n", which)
	}
	for i, k := range rep.Order {
		p := rep.Sections[k]
		fmt.Fprintf(&b, "\n## %d. %s\n\n%s", i+1, p.Title, p.Body)
		if len(p.Reproduce) > 0 {
			b.WriteString("\nTo measure this section alone (after `make bench` once, or `make setup build`):\n\n```\n")
			for _, c := range p.Reproduce {
				b.WriteString(c + "\n")
			}
			b.WriteString("```\n")
		}
	}
	b.WriteString("\n## Reproducing\n\n")
	b.WriteString("Every figure above comes from one command, which installs what is missing (PostgreSQL, pgvector: `scripts/setup.sh`), builds yakor, starts its own PostgreSQL in `./.yakor-bench` (or uses `DATABASE_URL`), loads what it needs and writes this page, its JSON and the chart:\n\n")
	b.WriteString("```\nmake bench                          # bin/yakor bench all: docs/benchmarks.md, docs/benchmarks.json, docs/prompt-size.png\n")
	b.WriteString("bin/yakor bench all --quick         # every section at a small scale (under a minute)\n")
	b.WriteString("bin/yakor bench all --search-messages 1000000,10000000   # search at 10,000,000 messages too: about 25 minutes more, once\n```\n\n")
	b.WriteString("The loaded corpora (the turn benchmark's threads, the search benchmark's messages) are kept as databases of their own in the bench folder and reused by the next run of the same size (`--fresh` loads them again); the turns run on a copy, so the corpus stays as loaded. " +
		"The LoCoMo sections read LoCoMo's locomo10.json, given with `--data` ([docs/development.md](development.md#benchmarks) says where to get it).\n")
	return b.String()
}

// reusedCorpora counts the corpora of the report that an earlier run
// loaded.
func reusedCorpora(rep allReport) int {
	n := 0
	for _, p := range rep.Sections {
		switch r := p.Result.(type) {
		case allTurnResult:
			if r.Load.Reused {
				n++
			}
		case []searchResult:
			for _, s := range r {
				if s.Load.Reused {
					n++
				}
			}
		}
	}
	return n
}

// minutes writes a duration in seconds as "12 min 5 s" or "40 s".
func minutes(s float64) string {
	d := time.Duration(s * float64(time.Second)).Round(time.Second)
	if d < time.Minute {
		return fmt.Sprintf("%d s", int(d.Seconds()))
	}
	return fmt.Sprintf("%d min %d s", int(d.Minutes()), int(d.Seconds())%60)
}
