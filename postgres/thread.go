package postgres

// Reading a few of one thread's messages in id order (the window, a
// neighbour, the newest of a kind), the planner may choose between two
// indexes that give that order: the primary key (tenant_id, id), with the
// thread as a filter, and messages_by_thread (tenant_id, thread_id,
// id DESC). When the thread holds most of its tenant's messages the two cost
// the same to it, and it may take the primary key, which then walks through
// every message of the tenant's other threads on the way (100,000 newer
// ones: 46 ms for a page of the window). OneThread and the orders below
// leave it no such choice: the thread is a range of one, which the planner
// cannot drop from the order as it drops an equality, and the order names
// the thread first, which only messages_by_thread gives.

// OneThread is the condition that holds a read of the messages table to
// the thread in parameter p ("$3").
func OneThread(p string) string {
	return "thread_id >= " + p + " AND thread_id <= " + p
}

// The orders of a read held by OneThread, from the table messages by its
// name (not an alias), whose thread_id column they name whatever the read's
// own columns are called.
const (
	NewestFirst = "ORDER BY messages.thread_id, messages.id DESC"
	OldestFirst = "ORDER BY messages.thread_id DESC, messages.id"
)
