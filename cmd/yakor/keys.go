package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"yakor/account"
)

// runKeysCreate makes a key and prints its secret, once.
func runKeysCreate(ctx context.Context, args []string, stdout, stderr io.Writer, getenv func(string) string) error {
	fs := newFlagSet("keys create", args, stdout, stderr)
	var (
		tenant    = fs.String("tenant", "", "tenant the key acts for (made when missing)")
		user      = fs.String("user", "", "user of the tenant the key acts as (made when missing; default: the key's name)")
		name      = fs.String("name", "", "a label for the key")
		perMinute = fs.Int("rate", 120, "requests a minute the key may make")
		turns     = fs.Int("turns", 4, "turns the key may run at once")
		role      = fs.String("role", "user", "what the key may do: admin (its tenant: every user's memory, the keys), backend (an app's server: acts for any end user it names with X-Yakor-User) or user (its one user)")
		admin     = fs.Bool("admin", false, "the same as --role admin")
	)
	_, _, db, err := openDatabase(ctx, fs, args, stderr, getenv)
	if err != nil {
		return err
	}
	defer db.Close()
	nk := account.NewKey{Tenant: *tenant, User: *user, Name: *name, RatePerMinute: *perMinute, MaxTurns: *turns, Role: account.Role(*role)}
	if *admin {
		nk.Role = account.RoleAdmin
	}
	k, secret, err := account.NewStore(db.Owner).CreateKey(ctx, nk)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%s\n", secret)
	fmt.Fprintf(stderr, "%s key %s for tenant %q, user %q: shown this once, store it now (send it as \"Authorization: Bearer <key>\")\n", k.Role, k.ID, k.TenantName, k.UserName)
	return nil
}

// runKeysRevoke revokes the key of an id: "revoke ID --flags" as well as
// "revoke --flags ID".
func runKeysRevoke(ctx context.Context, args []string, stdout, stderr io.Writer, getenv func(string) string) error {
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		args = append(args[1:], args[0])
	}
	fs := newFlagSet("keys revoke", args, stdout, stderr)
	_, _, db, err := openDatabase(ctx, fs, args, stderr, getenv)
	if err != nil {
		return err
	}
	defer db.Close()
	if fs.NArg() != 1 {
		return errors.New("keys revoke: give the key's id (yakor keys list shows it)")
	}
	if err := account.NewStore(db.Owner).RevokeKey(ctx, fs.Arg(0)); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "key %s revoked\n", fs.Arg(0))
	return nil
}

// runKeysList lists the keys, as a table or JSON.
func runKeysList(ctx context.Context, args []string, stdout, stderr io.Writer, getenv func(string) string) error {
	fs := newFlagSet("keys list", args, stdout, stderr)
	asJSON := fs.Bool("json", false, "list as JSON")
	_, _, db, err := openDatabase(ctx, fs, args, stderr, getenv)
	if err != nil {
		return err
	}
	defer db.Close()
	keys, err := account.NewStore(db.Owner).Keys(ctx, account.KeyFilter{})
	if err != nil {
		return err
	}
	if *asJSON {
		return json.NewEncoder(stdout).Encode(keys)
	}
	w := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "ID\tPREFIX\tTENANT\tUSER\tNAME\tRATE/MIN\tTURNS\tROLE\tCREATED\tREVOKED")
	for _, k := range keys {
		revoked := "-"
		if k.RevokedAt != nil {
			revoked = k.RevokedAt.Format("2006-01-02 15:04")
		}
		fmt.Fprintf(w, "%s\t%s…\t%s\t%s\t%s\t%d\t%d\t%s\t%s\t%s\n", k.ID, k.Prefix, k.TenantName, k.UserName, k.Name, k.RatePerMinute, k.MaxTurns, k.Role, k.CreatedAt.Format("2006-01-02 15:04"), revoked)
	}
	return w.Flush()
}
