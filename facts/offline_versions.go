package facts

// Offline's rules about software: the versions a project uses and the
// migrations from one version to another.

import (
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"yakor/words"
)

// factProducts maps software names, folded ("_" joins two words), to the
// name of their slot; "name=slot" when they differ.
var factProducts = func() map[string]string {
	m := map[string]string{}
	for _, f := range strings.Fields(`postgres=postgresql postgresql mysql mariadb sqlite mongodb mongo=mongodb redis
		clickhouse elasticsearch opensearch kafka rabbitmq cassandra oracle go golang=go python java jdk=java openjdk=java
		kotlin scala ruby rails php node=node.js node.js nodejs=node.js deno bun typescript react vue angular svelte
		next.js nextjs=next.js nuxt django flask fastapi spring laravel symfony .net dotnet=.net c# swift rust dart flutter
		ios android macos windows ubuntu debian centos rhel fedora alpine kubernetes k8s=kubernetes docker helm terraform
		ansible nginx apache tomcat jenkins gitlab grafana prometheus elixir erlang perl lua electron webpack vite
		tensorflow pytorch cuda numpy pandas bootstrap tailwind jquery wordpress bitrix openssl linux gcc clang llvm cmake
		gradle maven npm yarn pnpm pip poetry istio etcd consul vault airflow spark hadoop flink keycloak tls oauth
		spring_boot sql_server visual_studio 1с=1c 1c`) {
		name, slot, ok := strings.Cut(f, "=")
		if !ok {
			slot = name
		}
		m[strings.ReplaceAll(name, "_", " ")] = strings.ReplaceAll(slot, "_", " ")
	}
	return m
}()

// factCapitalOnly are the product names that are common words too: they
// name software only capitalised ("Go 1.22", not "go 2 km").
const factCapitalOnly = " go node spring bun rust swift dart spark vault consul apache oracle windows alpine flask react vue ruby rails helm yarn pip vite tls lua perl java scala "

var (
	// factVerTokRe is a version: "16", "1.22", "v20.11.1", "3.12.x".
	factVerTokRe = regexp.MustCompile(`^v?\d+(?:\.\d+){0,2}(?:\.x)?$`)
	// factUseRe is a sentence saying the software is in use: "we use",
	// "runs on", "upgraded", "у нас", "используем", "на проде"…
	factUseRe = regexp.MustCompile(`(?:^|[^\p{L}])(?i:use|uses|used|using|run|runs|running|upgrad\p{L}*|migrat\p{L}*|moved|moving|switch\p{L}*|deploy\p{L}*|install\p{L}*|stack|built|written|requires?|support\p{L}*|target\p{L}*|pin\p{L}*|locked|our|we're on|we are on|we have|is on|are on|version|использ\p{L}*|юзаем|работа\p{L}*|стоит|установ\p{L}*|обнов\p{L}*|переш\p{L}*|переход\p{L}*|переезж\p{L}*|переехал\p{L}*|миграц\p{L}*|мигрир\p{L}*|database|db|hosting|backend|frontend|база|бд|хостинг|бэкенд\p{L}*|бекенд\p{L}*|фронт\p{L}*|сервер\p{L}*|стек\p{L}*|сидим|крутится|собира\p{L}*|собран\p{L}*|деплой\p{L}*|написан\p{L}*|у нас|верси\p{L}*|проект\p{L}*|project|prod|production|прод\p{L}*)(?:[^\p{L}]|$)`)
	// factMigrateRe is a sentence about moving from one version to another.
	factMigrateRe = regexp.MustCompile(`(?:^|[^\p{L}])(?i:migrat\p{L}*|upgrad\p{L}*|moved|moving|move|switch\p{L}*|переход\p{L}*|переш\p{L}*|перейти|переезд\p{L}*|переезж\p{L}*|переехал\p{L}*|миграц\p{L}*|мигрир\p{L}*|обнов\p{L}*|апгрейд\p{L}*|перевод\p{L}*|перевел\p{L}*|перевести)(?:[^\p{L}]|$)`)
	// factDoneRe is a migration done: then the new version is in use.
	factDoneRe = regexp.MustCompile(`(?:^|[^\p{L}])(?i:migrated|upgraded|moved|switched|finished|completed|done|перешли|перешёл|перешел|перешла|обновились|обновили|обновился|мигрировали|переехали|переехал|перевели|завершили|закончили)(?:[^\p{L}]|$)`)
	// factPlanRe is a migration planned, not under way.
	factPlanRe = regexp.MustCompile(`(?:^|[^\p{L}])(?i:plan\p{L}*|want|going to|will|планиру\p{L}*|собираемся|хотим|будем|планы)(?:[^\p{L}]|$)`)
)

// factMention is a product and a version a sentence names.
type factMention struct {
	name, slot, ver string
	to, old, neg    bool // after "to/на/→"; after "from/с"; after a negation
	bare            bool // a bare version after another ("14 → 16")
	stated          bool // after fillers: "Kubernetes is at 1.29"
	at, end         int  // the words it starts at and ends before
}

// factTokens splits s into words without the punctuation around them.
func factTokens(s string) []string {
	var out []string
	for _, w := range strings.Fields(s) {
		if w = strings.Trim(w, `,;:!?()«»"'“”`); strings.HasSuffix(w, ".") && !strings.EqualFold(w, ".net") {
			w = strings.TrimRight(w, ".")
		}
		if w != "" {
			out = append(out, w)
		}
	}
	return out
}

// factProductAt returns the product named at toks[i] (one or two words),
// its slot and how many words it spans (0: none). A name used as a common
// word counts only capitalised; with explicit ("version X"), any name of
// Latin letters with a capital counts.
func factProductAt(toks []string, i int, explicit bool) (name, slot string, n int) {
	if i >= len(toks) {
		return "", "", 0
	}
	if i+1 < len(toks) {
		if slot, ok := factProducts[words.Fold(toks[i]+" "+toks[i+1])]; ok {
			return toks[i] + " " + toks[i+1], slot, 2
		}
	}
	w := toks[i]
	r, _ := utf8.DecodeRuneInString(w)
	if slot, ok := factProducts[words.Fold(w)]; ok && (unicode.IsUpper(r) || !strings.Contains(factCapitalOnly, " "+words.Fold(w)+" ")) {
		return w, slot, 1
	}
	latin := strings.IndexFunc(w, func(r rune) bool { return !unicode.In(r, unicode.Latin) && !strings.ContainsRune(".+#-", r) }) < 0
	if explicit && latin && strings.IndexFunc(w, unicode.IsUpper) >= 0 {
		return w, words.Fold(w), 1
	}
	return "", "", 0
}

// factVersionWord reports whether w announces a version: "version",
// "версия", "v".
func factVersionWord(w string) bool {
	return slices.Contains([]string{"version", "версия", "версии", "версию", "v", "ver"}, words.Fold(w))
}

// factMentions returns the products and versions s names, in order: "Name
// [version] 1.2", "version Name 1.2", "Name is at 1.2", "Name to 1.2",
// "Name from 1.2", and a bare version after "to/на/→" following a mention
// ("Postgres 14 → 16", "с 14 на 16").
func factMentions(s string) []factMention {
	toks := factTokens(s)
	var out []factMention
	for i := 0; i < len(toks); i++ {
		explicit := factVersionWord(toks[i])
		at := i
		if explicit {
			at++
		}
		name, slot, n := factProductAt(toks, at, explicit)
		if n == 0 {
			continue
		}
		j, m := factBetween(toks, at+n)
		ver, ok := factVersion(toks, j, name, m.stated)
		if !ok {
			continue
		}
		prev := words.Fold(strings.Join(toks[max(0, i-1):i], ""))
		m.name, m.slot, m.ver, m.at, m.end = name, slot, ver, i, j+1
		m.to = m.to || slices.Contains([]string{"to", "into", "на", "до", "→", "->"}, prev)
		m.old = m.old || slices.Contains([]string{"from", "с", "со"}, prev)
		m.neg = factNegated(strings.Join(toks[max(0, i-3):i], " "))
		out = append(out, m)
		for k := j + 1; k+1 < len(toks) && k <= j+2; k++ {
			if slices.Contains([]string{"to", "на", "до", "→", "->", "-", "—"}, words.Fold(toks[k])) {
				if v, ok := factVersion(toks, k+1, name, false); ok {
					out = append(out, factMention{name: name, slot: slot, ver: v, to: true, bare: true, at: k + 1, end: k + 2})
					j = k + 1
				}
				break
			}
		}
		i = j
	}
	return out
}

// factVerFillers may stand between a product and its version: "Kubernetes
// is at 1.29", "версия API сейчас 3.2".
var factVerFillers = factSet("is at now currently = : — - сейчас теперь уже")

// factBetween reads up to two words between a product's name and its
// version from toks[j]: "version", "from/с" (the mention is the old
// version), "to/на/до" (the new one), or fillers ("is at": the mention
// states the version in use, which must have a dot). It returns where the
// version should be.
func factBetween(toks []string, j int) (int, factMention) {
	var m factMention
	for k := 0; k < 2 && j < len(toks); k, j = k+1, j+1 {
		switch f := words.Fold(toks[j]); {
		case factVersionWord(f):
		case f == "from" || f == "с" || f == "со":
			m.old = true
		case f == "to" || f == "на" || f == "до":
			m.to = true
		case factVerFillers[f]:
			m.stated = true
		default:
			return j, m
		}
	}
	return j, m
}

// factVersion reads the version at toks[j] of the product name: a whole
// number only for a known product and without fillers before it (dotted),
// never followed by a unit or a percent.
func factVersion(toks []string, j int, name string, dotted bool) (string, bool) {
	if j >= len(toks) || !factVerTokRe.MatchString(strings.TrimSuffix(toks[j], "+")) {
		return "", false
	}
	ver := toks[j]
	if _, known := factProducts[words.Fold(name)]; !strings.Contains(ver, ".") && (!known || dotted) {
		return "", false
	}
	if j+1 < len(toks) && (words.IsUnit(words.Fold(toks[j+1])) || strings.HasPrefix(toks[j+1], "%")) || strings.HasSuffix(ver, "%") {
		return "", false
	}
	return ver, true
}

// versionFacts applies the version and migration rules; prices, negated
// mentions ("not", "instead of", "вместо") and a sentence with no word of
// use give nothing. Migration: a sentence about moving ("migrate",
// "upgrade", "переход", "миграция"…; a negated one gives nothing at all)
// that names a product's version and then another after "to/на/→" (or
// only the one after, the word of moving before it), or two products
// without versions ("с Jenkins на GitLab") → project fact
// project.migration:<slot>, value "14 → 16" ("MySQL 5.7 → PostgreSQL 16"
// between products), 0.8; done ("migrated",
// "перешли"…) to a version → project fact project.version:<slot> of the
// new version instead. Version: "<name> [version] 1.2", "version <name> 1.2" in a
// sentence saying it is used ("we use", "runs on", "у нас", "на <name>",
// "<name> 1.2 on …"…),
// or stating it ("Kubernetes is at 1.29", "версия API сейчас 3.2"), the
// name a known product (a whole number then counts: "Java 17"), or any
// capitalised Latin name after "version"/"версия" → project fact
// project.version:<slot>, 0.8.
func (o offline) versionFacts(s string) []Candidate {
	if factPriceRe.MatchString(s) {
		return nil
	}
	ms, toks := factMentions(s), factTokens(s)
	move := slices.IndexFunc(toks, func(w string) bool { return factMigrateRe.MatchString(w) || w == "→" || w == "->" })
	if move >= 0 && factNegated(strings.Join(toks[max(0, move-3):move], " ")) {
		return nil // "мы не будем переходить на Postgres 17"
	}
	if len(ms) == 0 && move >= 0 {
		ms = factNamesMove(toks)
	}
	if len(ms) == 0 {
		return nil
	}
	if move >= 0 {
		if c, ok := o.migration(s, ms, move); ok {
			return []Candidate{c}
		}
	}
	used := factUseRe.MatchString(s) || slices.ContainsFunc(ms, func(m factMention) bool {
		return m.stated || factOnBefore(s, m.name) || m.end < len(toks) && slices.Contains([]string{"on", "in", "в", "на"}, words.Fold(toks[m.end]))
	}) // one mention said to be used makes its list so: "Gradle 8.5 and Kotlin 1.9 in all modules"
	var cs []Candidate
	for i, m := range ms {
		if m.neg || m.old || m.bare || !used ||
			slices.ContainsFunc(ms[:i], func(p factMention) bool { return p.slot == m.slot }) {
			continue
		}
		cs = append(cs, Candidate{Scope: ScopeProject, Kind: KindFact, Slot: "project.version:" + m.slot, Value: m.ver, Confidence: 0.8,
			Text: factSentence(factPick(o.lang, "The project uses "+m.name+" "+m.ver, "В проекте используется "+m.name+" "+m.ver))})
	}
	return cs
}

// factOnBefore reports whether name follows "on", "на" or "with" in s ("we
// are on Go 1.22", "сидим на Go 1.22").
func factOnBefore(s, name string) bool {
	toks := factTokens(s)
	i := slices.Index(toks, strings.Fields(name)[0])
	return i > 0 && slices.Contains([]string{"on", "на", "with", "под"}, words.Fold(toks[i-1]))
}

// factNamesMove reads a move between two products named without versions
// ("с Jenkins на GitLab", "from MySQL to Postgres") as two mentions, or
// none.
func factNamesMove(toks []string) []factMention {
	var from, to *factMention
	for i := 1; i < len(toks); i++ {
		name, slot, n := factProductAt(toks, i, false)
		switch prev := words.Fold(toks[i-1]); {
		case n == 0:
			continue
		case from == nil && slices.Contains([]string{"from", "off", "с", "со"}, prev):
			from = &factMention{name: name, slot: slot, old: true, at: i}
		case from != nil && to == nil && slices.Contains([]string{"to", "into", "на"}, prev):
			to = &factMention{name: name, slot: slot, to: true, at: i}
		}
		i += n - 1
	}
	if from == nil || to == nil || from.slot == to.slot {
		return nil
	}
	return []factMention{*from, *to}
}

// migration reads a migration among ms, the word of moving at the
// sentence's word move: a version to move to (after "to/на/→"), maybe
// after the version moved from; with no version moved from, the word of
// moving comes first ("upgrading to Go 1.23", not "we're on Laravel 10,
// no plans to move").
func (o offline) migration(s string, ms []factMention, move int) (Candidate, bool) {
	var from, to *factMention
	for i := range ms {
		if ms[i].neg {
			continue
		}
		if ms[i].to && to == nil {
			to = &ms[i]
		} else if !ms[i].to && from == nil && to == nil {
			from = &ms[i]
		} else if ms[i].old && to != nil && from == nil {
			from = &ms[i]
		}
	}
	if to == nil || from != nil && from.slot == to.slot && from.ver == to.ver || from == nil && move > to.at {
		return Candidate{}, false
	}
	named := func(m *factMention) string { return strings.TrimSpace(m.name + " " + m.ver) }
	c := Candidate{Scope: ScopeProject, Kind: KindFact, Slot: "project.migration:" + to.slot, Value: "→ " + named(to), Confidence: 0.8}
	was, wasRU := "", ""
	if from != nil {
		c.Value = named(from) + " → " + named(to)
		if from.slot == to.slot && from.ver != "" {
			c.Value = from.ver + " → " + to.ver
		}
		was, wasRU = " from "+named(from), " с "+named(from)
	}
	switch {
	case factDoneRe.MatchString(s) && to.ver != "":
		c.Slot, c.Value = "project.version:"+to.slot, to.ver
		c.Text = factPick(o.lang, "The project uses "+named(to)+" (moved"+was+")", "В проекте используется "+named(to)+" (переход"+wasRU+")")
	case factDoneRe.MatchString(s):
		c.Text = factPick(o.lang, "The project moved"+was+" to "+named(to), "Проект перешёл"+wasRU+" на "+named(to))
	case factPlanRe.MatchString(s):
		c.Text = factPick(o.lang, "The project plans to move"+was+" to "+named(to), "Проект планирует переход"+wasRU+" на "+named(to))
	default:
		c.Text = factPick(o.lang, "The project is moving"+was+" to "+named(to), "Проект переходит"+wasRU+" на "+named(to))
	}
	c.Text = factSentence(c.Text)
	return c, true
}
