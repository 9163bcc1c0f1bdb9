-- +goose Up

-- meta keeps what a message carries besides its text, for the model:
-- an assistant message's tool calls ({"tool_calls": [{"id", "name",
-- "arguments"}…], "text": the reply's own text}) and a tool result's call
-- ({"tool_call_id", "name"}). content stays the message as a reader sees
-- it (the calls written out), which search, anchors and summaries read.
ALTER TABLE messages ADD COLUMN meta jsonb;

-- +goose Down
ALTER TABLE messages DROP COLUMN meta;
