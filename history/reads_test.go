package history_test

import (
	"context"
	"testing"

	"yakor"
	"yakor/account"
	"yakor/history"
	"yakor/postgres/pgtest"
)

// TestReadsForOthers: the reads other packages make through the store
// (Between for anchors, LaterReply for jobs, ThreadProject for facts and
// resets) see scope's thread only.
func TestReadsForOthers(t *testing.T) {
	ctx := context.Background()
	pool := pgtest.New(t)
	accounts := account.NewStore(pool)
	scope, err := accounts.CreateTenantUser(ctx, "a")
	if err != nil {
		t.Fatal(err)
	}
	other, err := accounts.CreateTenantUser(ctx, "b")
	if err != nil {
		t.Fatal(err)
	}
	s := history.NewStore(pool)
	th := mustThread(t, s, scope)
	var ids []int64
	for _, nm := range []history.NewMessage{
		{Role: history.RoleUser, Content: "q1"},
		{Role: history.RoleAssistant, Content: "a1"},
		{Role: history.RoleTool, Kind: history.KindTool, Content: "tool"},
		{Role: history.RoleUser, Content: "q2"},
		{Role: history.RoleAssistant, Content: "a2"},
	} {
		m, _, err := s.Append(ctx, th, nm)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, m.ID)
	}

	got, err := s.Between(ctx, th, ids[0], ids[3])
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].ID != ids[1] || got[1].ID != ids[3] || got[0].Content != "a1" || got[1].Chars != 2 {
		t.Fatalf("between %d and %d: %+v, want a1 and q2 (no tool row)", ids[0], ids[3], got)
	}
	for i, want := range []bool{true, true, true, true, false} {
		if later, err := s.LaterReply(ctx, th, ids[i]); err != nil || later != want {
			t.Fatalf("later reply after message %d: %v, %v; want %v", i, later, err, want)
		}
	}
	if project, err := s.ThreadProject(ctx, th); err != nil || project != "" {
		t.Fatalf("project of a thread without one: %q, %v", project, err)
	}

	intruder := other.WithThread(th.ThreadID)
	if got, err := s.Between(ctx, intruder, 0, ids[4]); err != nil || len(got) != 0 {
		t.Fatalf("another tenant reads %d messages, %v", len(got), err)
	}
	if later, err := s.LaterReply(ctx, intruder, 0); err != nil || later {
		t.Fatalf("another tenant finds a reply: %v, %v", later, err)
	}
	if _, err := s.ThreadProject(ctx, intruder); yakor.ErrorCode(err) != yakor.ENOTFOUND {
		t.Fatalf("another tenant's thread project: %v", err)
	}
	if _, err := s.ThreadProject(ctx, th.WithThread("not-a-uuid")); yakor.ErrorCode(err) != yakor.ENOTFOUND {
		t.Fatalf("a malformed thread id: %v", err)
	}
}
