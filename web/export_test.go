package web

// Routes lists the server's routes as "METHOD path", for the test that
// checks every route naming an id against another tenant's.
func Routes(s *Server) []string {
	var out []string
	for _, r := range s.engine.Routes() {
		out = append(out, r.Method+" "+r.Path)
	}
	return out
}
