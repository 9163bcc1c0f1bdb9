// Package distributed holds the tests of Yakor on Citus, distributed by
// tenant (migration 00024): every statement of a turn and of its upkeep
// routes to one shard, row-level security holds on the workers, tenants
// on different workers stay apart, a tenant moves between workers under
// load, a stopped worker fails only its own tenants, and a database begun
// on one PostgreSQL is distributed later. They run on the private Citus
// cluster `make test` starts (TEST_CITUS_URL), each in a database of its
// own, but the worker test, which starts a cluster it may stop; the
// package has no code of its own.
package distributed
