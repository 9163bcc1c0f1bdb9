// Package anchors will own a thread's anchors (microgoals): the chain of
// dialogue topics and the key data of each (totals, prices, decisions),
// decided message by message (NEW_ANCHOR, MERGE_ANCHOR, UPDATE_ANCHOR_DATA,
// NO_ANCHOR) and always placed in the prompt. It will own table microgoals.
package anchors
