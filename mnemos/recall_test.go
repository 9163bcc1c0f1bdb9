package mnemos_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"yakor"
	"yakor/llm"
	"yakor/mnemos"
	"yakor/postgres"
	"yakor/postgres/pgtest"
)

// vatNote is issue 21's study note, «Когда НДС не начисляется: …
// медицинские услуги …», as the research job stores one: the research
// topic, the article's title, the note. The offline embedder's vectors do
// not find it for a question in other forms of its words.
var vatNote = mnemos.Experience{Level: mnemos.L2, Source: mnemos.SourceResearch, Topic: "освобождение от налога",
	Question: "Когда НДС не начисляется: перечень операций по статье 149 НК РФ",
	Answer: "Не облагаются НДС медицинские услуги, которые оказывают медицинские организации с лицензией (подпункт 2 пункта 2 статьи 149 НК РФ), " +
		"и образовательные услуги некоммерческих организаций. Косметические и ветеринарные услуги освобождения не получают. При экспорте товаров применяется ставка 0%.",
	URL: "https://example.org/nds-lgoty"}

// vatQuestion is the question of issue 21 that should recall vatNote.
const vatQuestion = "Нужно ли начислять НДС на медицинские услуги?"

// TestRecallLexical: issue 21's note is recalled offline for a question in
// other forms of its words, by the lexical leg (the vectors alone miss
// it), and a note on another subject is not; questions that share a word
// or none with the notes recall nothing.
func TestRecallLexical(t *testing.T) {
	ctx := context.Background()
	f := newMessagesFixture(t)
	hybrid := mnemos.NewStore(f.pool, f.space, mnemos.Config{}, pgtest.Logger(t), nil)
	vectors := mnemos.NewStore(f.pool, f.space, mnemos.Config{Recall: mnemos.RecallConfig{NoLexical: true}}, pgtest.Logger(t), nil)
	a := f.tenant(t)
	tenant := yakor.Scope{TenantID: a.TenantID}
	note := mustAdd(t, hybrid, tenant, vatNote)
	visa := mustAdd(t, hybrid, tenant, mnemos.Experience{Level: mnemos.L2, Source: mnemos.SourceResearch, Topic: "визы",
		Question: "Шенгенская виза: правило 90 дней из 180", Answer: "В шенгенской зоне можно находиться не больше 90 дней в любом периоде из 180 дней; дни въезда и выезда считаются.",
		URL: "https://example.org/schengen"})
	export := mustAdd(t, hybrid, tenant, mnemos.Experience{Level: mnemos.L1, Topic: "VAT on exports", Question: "Do I charge VAT when I export goods outside the EU?",
		Answer: "No: exports of goods are zero-rated. Keep the customs export declaration as evidence."})

	r, err := vectors.Recall(ctx, a, vatQuestion, "ru")
	if err != nil || len(r.Entries) != 0 {
		t.Fatalf("the vectors alone recalled %+v (%v): the question no longer needs the lexical leg", r.Entries, err)
	}
	r, err = hybrid.Recall(ctx, a, vatQuestion, "ru")
	if err != nil || len(r.Entries) != 1 || r.Entries[0].ID != note.ID || r.Entries[0].Lexical < 0.5 || !strings.Contains(r.Text, "медицинские услуги") {
		t.Fatalf("recall: %+v %v, want the note %d alone", r.Entries, err, note.ID)
	}
	for q, want := range map[string]int64{
		"Сколько дней можно провести в шенгенской зоне?":            visa.ID,
		"Which exports of goods are zero-rated for VAT?":            export.ID,
		"Облагаются ли НДС услуги медицинских организаций?":         note.ID,
		"Какие услуги освобождены от НДС по статье 149 НК РФ?":      note.ID,
		"Что не облагается налогом на добавленную стоимость (НДС)?": note.ID,
	} {
		r, err := hybrid.Recall(ctx, a, q, "ru")
		if err != nil || len(r.Entries) != 1 || r.Entries[0].ID != want {
			t.Errorf("%q recalled %+v (%v), want %d alone", q, r.Entries, err, want)
		}
	}
	for _, q := range []string{"Какие услуги оказывает МФЦ?", "Как приготовить борщ?", "Посоветуй медицинскую страховку для поездки", "НДС", "услуги"} {
		if r, err := hybrid.Recall(ctx, a, q, "ru"); err != nil || len(r.Entries) != 0 {
			t.Errorf("%q recalled %+v (%v)", q, r.Entries, err)
		}
	}
}

// serviceFixture is long-term memory as `yakor serve` has it: the store on
// the service role's pool, held by row-level security to the tenant each
// context names.
type serviceFixture struct {
	*messagesFixture
	svc             *postgres.DB
	hybrid, vectors *mnemos.Store
}

func newServiceFixture(t *testing.T) *serviceFixture {
	owner, svc := pgtest.NewService(t)
	f := &messagesFixture{pool: owner, space: mnemos.NewSpace(owner, llm.NewOffline(), pgtest.Logger(t))}
	return &serviceFixture{messagesFixture: f, svc: svc,
		hybrid:  mnemos.NewStore(svc, f.space, mnemos.Config{}, pgtest.Logger(t), nil),
		vectors: mnemos.NewStore(svc, f.space, mnemos.Config{Recall: mnemos.RecallConfig{NoLexical: true}}, pgtest.Logger(t), nil)}
}

// recalled returns the ids scope's recall of q holds, in scope's tenant.
func (f *serviceFixture) recalled(t *testing.T, store *mnemos.Store, scope yakor.Scope, q string) []int64 {
	t.Helper()
	r, err := store.Recall(scope.Context(context.Background()), scope, q, "ru")
	if err != nil {
		t.Fatalf("recall %q: %v", q, err)
	}
	ids := make([]int64, len(r.Entries))
	for i, e := range r.Entries {
		ids[i] = e.ID
	}
	return ids
}

// TestRecallLexicalOwners: the lexical leg keeps recall's owners apart, as
// `yakor serve` runs it (the service role, row-level security). A user's
// private note is recalled by its words for that user only, not for
// another user of the tenant nor another tenant; a tenant's shared note
// reaches its own users only; a shared copy of a user's note reaches the
// others while its user keeps their own. The lexical statement itself,
// asked for another user's or another tenant's entries, returns none of
// them.
func TestRecallLexicalOwners(t *testing.T) {
	ctx := context.Background()
	f := newServiceFixture(t)
	alice := f.tenant(t)
	bob := f.otherUser(t, alice)
	carol := f.tenant(t)
	private := vatNote
	private.Source, private.URL = mnemos.SourceManual, ""
	mine := mustAddIn(t, f.hybrid, alice, private)
	theirs := mustAddIn(t, f.hybrid, yakor.Scope{TenantID: carol.TenantID}, vatNote)
	if mine.Visibility != "private" || theirs.Visibility != "shared" {
		t.Fatalf("visibility: %q, %q", mine.Visibility, theirs.Visibility)
	}

	if got := f.recalled(t, f.vectors, alice, vatQuestion); len(got) != 0 {
		t.Fatalf("the vectors alone recalled %v: the question no longer needs the lexical leg", got)
	}
	for _, c := range []struct {
		name  string
		scope yakor.Scope
		want  []int64
	}{
		{"alice, her note", alice, []int64{mine.ID}},
		{"bob, nothing of alice's", bob, []int64{}},
		{"carol, her tenant's note", carol, []int64{theirs.ID}},
	} {
		if got := f.recalled(t, f.hybrid, c.scope, vatQuestion); !slices.Equal(got, c.want) {
			t.Errorf("%s: recalled %v, want %v", c.name, got, c.want)
		}
	}

	space, _, err := f.space.ID(ctx)
	if err != nil {
		t.Fatal(err)
	}
	stems := []string{"ндс", "медицинск", "услуг"}
	for _, c := range []struct {
		name         string
		in           yakor.Scope // the tenant the transaction names
		tenant, user string      // what the statement is asked for
		want         []int64
	}{
		{"alice", alice, alice.TenantID, alice.UserID, []int64{mine.ID}},
		{"bob", bob, bob.TenantID, bob.UserID, []int64{}},
		{"carol's tenant asked in alice's", alice, carol.TenantID, alice.UserID, []int64{}},
		{"alice's tenant asked in carol's", carol, alice.TenantID, alice.UserID, []int64{}},
	} {
		if got := lexicalIDs(t, f.svc, c.in, c.tenant, c.user, space, stems); !slices.Equal(got, c.want) {
			t.Errorf("lexical statement, %s: %v, want %v", c.name, got, c.want)
		}
	}

	shared, err := mnemos.NewStore(f.pool, f.space, mnemos.Config{}, pgtest.Logger(t), nil).ShareExperience(ctx, yakor.Scope{TenantID: alice.TenantID}, mine.ID, true)
	if err != nil || shared.Visibility != "shared" || shared.DerivedFrom != mine.ID {
		t.Fatalf("share: %+v, %v", shared, err)
	}
	if got := f.recalled(t, f.hybrid, bob, vatQuestion); !slices.Equal(got, []int64{shared.ID}) {
		t.Errorf("bob after sharing: %v, want the shared copy %d", got, shared.ID)
	}
	if got := f.recalled(t, f.hybrid, alice, vatQuestion); !slices.Equal(got, []int64{mine.ID}) {
		t.Errorf("alice after sharing: %v, want her own %d alone", got, mine.ID)
	}
}

// lexicalIDs runs the lexical statement on db in the tenant in names and
// returns the distinct ids it found.
func lexicalIDs(t *testing.T, db *postgres.DB, in yakor.Scope, tenant, user string, space int32, stems []string) []int64 {
	t.Helper()
	ids := []int64{}
	rows, err := db.Query(in.Context(context.Background()), mnemos.LexicalSQL, tenant, mnemos.L2, space, user, stems, 50)
	if err != nil {
		t.Fatal(err)
	}
	var kw int32
	var id int64
	_, err = pgx.ForEachRow(rows, []any{&kw, &id}, func() error {
		if !slices.Contains(ids, id) {
			ids = append(ids, id)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return ids
}

// mustAddIn adds x in scope's tenant.
func mustAddIn(t *testing.T, store *mnemos.Store, scope yakor.Scope, x mnemos.Experience) mnemos.Experience {
	t.Helper()
	out, merged, err := store.AddExperience(scope.Context(context.Background()), scope, x)
	if err != nil || merged {
		t.Fatalf("add %q: merged %v, %v", x.Question, merged, err)
	}
	return out
}

func mustAdd(t *testing.T, store *mnemos.Store, scope yakor.Scope, x mnemos.Experience) mnemos.Experience {
	t.Helper()
	out, merged, err := store.AddExperience(context.Background(), scope, x)
	if err != nil || merged {
		t.Fatalf("add %q: merged %v, %v", x.Question, merged, err)
	}
	return out
}

// TestRecallLexicalUpgrade: a database with experiences from before the
// lexical leg (migration 00021) gets their words indexed by the upgrade,
// and recalls them by their words at once.
func TestRecallLexicalUpgrade(t *testing.T) {
	ctx := context.Background()
	f := newMessagesFixture(t)
	p := pgtest.Migrations(t, f.pool)
	if _, err := p.DownTo(ctx, 20); err != nil {
		t.Fatal(err)
	}
	store := mnemos.NewStore(f.pool, f.space, mnemos.Config{}, pgtest.Logger(t), nil)
	a := f.tenant(t)
	note := mustAdd(t, store, yakor.Scope{TenantID: a.TenantID}, vatNote)
	if _, err := p.Up(ctx); err != nil {
		t.Fatal(err)
	}
	r, err := store.Recall(ctx, a, vatQuestion, "ru")
	if err != nil || len(r.Entries) != 1 || r.Entries[0].ID != note.ID || r.Entries[0].Lexical == 0 {
		t.Fatalf("after the upgrade: %+v %v, want the note %d found by its words", r.Entries, err, note.ID)
	}
}

// TestRecallLexicalPlan: with thousands of a tenant's examples, among
// other tenants', the lexical leg reads its words index, never each
// example's text, also under row-level security (where the planner may not
// use an index for the text search operator itself), and common words do
// not crowd a rare word's entry out.
func TestRecallLexicalPlan(t *testing.T) {
	ctx := context.Background()
	f := newServiceFixture(t)
	a, b := f.tenant(t), f.tenant(t)
	space, _, err := f.space.ID(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []yakor.Scope{a, b} {
		qs := make([]string, 1500)
		for i := range qs {
			qs[i] = fmt.Sprintf("Сколько стоит доставка заказа %d в Казань?", i)
		}
		_, vecs, err := f.space.Embed(ctx, qs)
		if err != nil {
			t.Fatal(err)
		}
		var rows [][]any
		for i, q := range qs {
			rows = append(rows, []any{s.TenantID, int16(mnemos.L1), "доставка", q, "Доставка в Казань стоит 900 рублей.", mnemos.SourceManual, []int64{}, space, "shared", vecs[i]})
		}
		if _, err := f.pool.CopyFrom(ctx, pgx.Identifier{"experiences"}, []string{"tenant_id", "level", "topic", "question", "answer", "source", "source_message_ids", "space_id", "visibility", "embedding"},
			pgx.CopyFromRows(rows)); err != nil {
			t.Fatal(err)
		}
	}
	note := mustAddIn(t, f.hybrid, yakor.Scope{TenantID: a.TenantID}, mnemos.Experience{Level: mnemos.L1, Topic: "доставка", Question: "Сколько стоит доставка рояля в Казань?",
		Answer: "Доставка рояля в Казань стоит 15000 рублей: нужны грузчики и такелаж."})
	if _, err := f.pool.Exec(ctx, `ANALYZE experiences`); err != nil {
		t.Fatal(err)
	}
	plans := pgtest.ExplainNested(t, f.pool, a.TenantID, func(conn *pgx.Conn) error {
		_, err := conn.Exec(ctx, mnemos.LexicalSQL, a.TenantID, mnemos.L1, space, a.UserID, []string{"рояль", "доставк", "казан"}, 50)
		return err
	})
	if !strings.Contains(plans, "Bitmap Index Scan on experiences_words") || strings.Contains(plans, "Seq Scan on experiences") {
		t.Errorf("the lexical leg does not read experiences_words alone:\n%s", plans)
	}
	for range 2 { // the second time, the common words are known to be common
		if got := f.recalled(t, f.hybrid, a, "Во сколько обойдётся доставка рояля в Казань?"); len(got) == 0 || got[0] != note.ID {
			t.Errorf("recalled %v, want the grand piano's example %d first", got, note.ID)
		}
	}
}
