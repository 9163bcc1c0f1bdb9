package facts

import "testing"

// TestConfigDefaults: the zero Config is DefaultConfig, and each field <= 0
// takes its default alone.
func TestConfigDefaults(t *testing.T) {
	d := DefaultConfig()
	if d != (Config{Caps: Caps{Chat: 100, User: 500, Project: 200}, Budget: 2000}) {
		t.Fatalf("DefaultConfig() = %+v", d)
	}
	if got := (Config{}).withDefaults(); got != d {
		t.Fatalf("zero config = %+v, want %+v", got, d)
	}
	got := Config{Caps: Caps{Chat: -1, User: 3}, Budget: 500}.withDefaults()
	if want := (Config{Caps: Caps{Chat: 100, User: 3, Project: 200}, Budget: 500}); got != want {
		t.Fatalf("partial config = %+v, want %+v", got, want)
	}
	if s := NewStore(nil, Config{}, nil); s.cfg != d {
		t.Fatalf("NewStore's config = %+v, want %+v", s.cfg, d)
	}
}
