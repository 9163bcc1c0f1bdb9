package web

// apiRoute is one operation of the native API as the OpenAPI description
// says it.
type apiRoute struct {
	method, path, tag, summary string
	query                      []string // query parameters: name:type:description
	body                       string   // the request body's schema, "" for none
	example                    string   // an example request body (JSON)
	status                     int      // the success status
	resp                       string   // the success body's schema, "" for none
}

// Query parameters shared by the lists.
var pageQuery = []string{"limit:integer:entries per page (default 50, at most 500)", "cursor:string:the next_cursor of the page before"}

// openAPIRoutes are the operations of the native API and the routes beside
// it; web.Routes and this table must name the same routes (TestOpenAPI).
var openAPIRoutes = []apiRoute{
	{"POST", "/api/v1/threads", "threads", "Make a thread", nil, "ThreadCreate", `{"title":"Kitchen order","project":"shop"}`, 201, "Thread"},
	{"GET", "/api/v1/threads", "threads", "List threads, most recently active first", append([]string{"q:string:only threads whose title contains it"}, pageQuery...), "", "", 200, "ThreadList"},
	{"GET", "/api/v1/threads/{id}", "threads", "Read a thread", nil, "", "", 200, "Thread"},
	{"PATCH", "/api/v1/threads/{id}", "threads", "Rename a thread", nil, "ThreadRename", `{"title":"Kitchen order (paid)"}`, 200, "Thread"},
	{"DELETE", "/api/v1/threads/{id}", "lifecycle", "Delete a thread and everything derived from it", nil, "", "", 200, "Deleted"},
	{"POST", "/api/v1/threads/{id}/messages", "turns", "Send a message: run a turn (SSE with Accept: text/event-stream)", nil, "MessageSend", `{"content":"Price list: board 3400, panel 1250","client_id":"c-1"}`, 200, "TurnResult"},
	{"GET", "/api/v1/threads/{id}/messages", "threads", "List a thread's messages, oldest first", pageQuery, "", "", 200, "MessageList"},
	{"POST", "/api/v1/threads/{id}/messages/import", "memory-only", "Append messages without running turns", nil, "Import", `{"messages":[{"role":"user","content":"The sofa is 31500.","author":"ann","created_at":"2026-03-01T09:00:00Z","client_id":"m1"},{"role":"assistant","content":"Noted."}]}`, 201, "ImportResult"},
	{"GET", "/api/v1/threads/{id}/context", "turns", "The prompt the next turn would send", nil, "", "", 200, "Context"},
	{"POST", "/api/v1/threads/{id}/context", "memory-only", "The prompt a message would get, without a model or a write", nil, "ContextRequest", `{"message":"What does a board cost?"}`, 200, "ContextPreview"},
	{"GET", "/api/v1/threads/{id}/search", "turns", "Search a thread's history as the model does", []string{"q:string:the words (required)", "budget:integer:characters of hits (default 8000)", "limit:integer:hits ranked before the budget", "before:integer:only messages before this id"}, "", "", 200, "SearchResult"},
	{"GET", "/api/v1/threads/{id}/anchors", "memory", "A thread's anchors", nil, "", "", 200, "AnchorList"},
	{"POST", "/api/v1/threads/{id}/refresh", "memory", "Drop a thread's anchors, summaries and chat facts", nil, "", "", 200, "Deleted"},
	{"PATCH", "/api/v1/anchors/{id}", "memory", "Edit an anchor", nil, "AnchorUpdate", `{"topic":"price list: oak board"}`, 200, "Anchor"},
	{"DELETE", "/api/v1/anchors/{id}", "memory", "Delete an anchor", nil, "", "", 200, "Deleted"},
	{"GET", "/api/v1/turns/{id}", "turns", "A turn's trace", nil, "", "", 200, "Trace"},
	{"POST", "/api/v1/messages/{id}/feedback", "memory", "Grade a reply", nil, "Feedback", `{"thumb":"down","comment":"the price is wrong"}`, 200, "FeedbackResult"},
	{"DELETE", "/api/v1/messages/{id}", "lifecycle", "Delete a message and what derives from it", nil, "", "", 200, "Deleted"},
	{"GET", "/api/v1/facts", "memory", "List facts, newest first", append([]string{"scope:string:chat, user or project", "thread:string:a thread's chat facts", "closed:boolean:also closed facts"}, pageQuery...), "", "", 200, "FactList"},
	{"POST", "/api/v1/facts", "memory", "Add a fact", nil, "FactCreate", `{"scope":"user","text":"The user's name is Ann."}`, 201, "Fact"},
	{"PATCH", "/api/v1/facts/{id}", "memory", "Edit a fact", nil, "FactUpdate", `{"text":"The user's name is Anna."}`, 200, "Fact"},
	{"DELETE", "/api/v1/facts/{id}", "memory", "Delete a fact", nil, "", "", 200, "Deleted"},
	{"DELETE", "/api/v1/users/me/memory", "lifecycle", "Delete the user's memory (threads stay)", nil, "", "", 200, "Deleted"},
	{"DELETE", "/api/v1/users/{id}", "lifecycle", "Delete a user and everything of theirs", nil, "", "", 200, "Deleted"},
	{"GET", "/api/v1/users/{id}/export", "lifecycle", "Export all of a user's data", nil, "", "", 200, "Export"},
	{"GET", "/api/v1/experiences", "memory", "List long-term memory entries, newest first", append([]string{"level:integer:1, 2 or 3", "before:integer:the cursor's older form"}, pageQuery...), "", "", 200, "ExperienceList"},
	{"POST", "/api/v1/experiences", "memory", "Add a research note (or a level 1 or 3 entry)", nil, "ExperienceCreate", `{"level":2,"topic":"VAT","title":"When VAT is not charged","note":"Medical services are exempt."}`, 201, "ExperienceResult"},
	{"GET", "/api/v1/experiences/{id}", "memory", "Read an entry", nil, "", "", 200, "Experience"},
	{"DELETE", "/api/v1/experiences/{id}", "memory", "Delete an entry", nil, "", "", 200, "Deleted"},
	{"POST", "/api/v1/experiences/{id}/share", "memory", "Share an entry with every user of the tenant (admin)", nil, "Share", `{"force":false}`, 200, "ExperienceResult"},
	{"GET", "/api/v1/research/topics", "research", "List research topics", append([]string{"status:string:pending, running, done or failed"}, pageQuery...), "", "", 200, "TopicList"},
	{"POST", "/api/v1/research/topics", "research", "Add a research topic", nil, "TopicCreate", `{"topic":"VAT on medical services"}`, 201, "Topic"},
	{"GET", "/api/v1/research/articles", "research", "List research articles", append([]string{"topic:integer:one topic's"}, pageQuery...), "", "", 200, "ArticleList"},
	{"GET", "/api/v1/research/fails", "research", "List answers graded 1-2", pageQuery, "", "", 200, "FailList"},
	{"GET", "/api/v1/research/status", "research", "The research job's state", nil, "", "", 200, "ResearchStatus"},
	{"POST", "/api/v1/research/run", "research", "Queue a research run (admin)", nil, "", "", 202, "Queued"},
	{"GET", "/api/v1/keys", "keys", "List the tenant's keys (admin)", pageQuery, "", "", 200, "KeyList"},
	{"POST", "/api/v1/keys", "keys", "Make a key (admin); its secret is shown once", nil, "KeyCreate", `{"name":"backend","role":"backend","rate_per_minute":600}`, 201, "Key"},
	{"DELETE", "/api/v1/keys/{id}", "keys", "Revoke a key (admin)", nil, "", "", 200, "Key"},
	{"GET", "/api/v1/info", "service", "The models in use", nil, "", "", 200, "Info"},
	{"GET", "/api/v1/openapi.json", "service", "This description", nil, "", "", 200, "OpenAI"},
	{"GET", "/healthz", "service", "Liveness", nil, "", "", 200, ""},
	{"GET", "/readyz", "service", "The database answers (and takes writes)", nil, "", "", 200, ""},
	{"GET", "/metrics", "service", "Prometheus metrics (admin, or --metrics-addr)", nil, "", "", 200, ""},
	{"POST", "/v1/chat/completions", "openai", "OpenAI Chat Completions, with Yakor's memory (docs/api.md)", nil, "OpenAI", `{"model":"yakor","messages":[{"role":"user","content":"Hi"}]}`, 200, "OpenAI"},
	{"POST", "/v1/responses", "openai", "OpenAI Responses, on Yakor's threads (docs/api.md)", nil, "OpenAI", `{"model":"yakor","input":"Hi"}`, 200, "OpenAI"},
	{"GET", "/v1/responses/{id}", "openai", "A stored response", nil, "", "", 200, "OpenAI"},
	{"GET", "/v1/models", "openai", "The models a request may name", nil, "", "", 200, "OpenAI"},
	{"GET", "/v1/models/{model}", "openai", "One model", nil, "", "", 200, "OpenAI"},
}
