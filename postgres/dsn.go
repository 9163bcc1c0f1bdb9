package postgres

import (
	"fmt"
	"strconv"
	"strings"
)

// DSN is the keyword/value connection string of database db on host (a
// host name, or the folder of a Unix socket) and port, as user, without
// TLS: how Yakor's private servers, and the tools around them, are reached.
func DSN(host string, port int, user, db string) string {
	return fmt.Sprintf("host=%s port=%s user=%s dbname=%s sslmode=disable", DSNValue(host), strconv.Itoa(port), DSNValue(user), DSNValue(db))
}

// DSNValue writes s as a value of a keyword/value connection string:
// quoted, with its quotes and backslashes escaped, when it holds a space,
// a quote or a backslash (or is empty).
func DSNValue(s string) string {
	if s != "" && !strings.ContainsAny(s, " '\\\t\n") {
		return s
	}
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s) + "'"
}
