package facts

import "testing"

func TestPersonal(t *testing.T) {
	for text, want := range map[string]bool{
		"My bank PIN is 9931.":                            true,
		"Write to ann@example.com for the invoice.":       true,
		"Call me on +7 (912) 34-56-78.":                   true,
		"See https://shop.example/cart?user=ann&id=7":     true,
		"Hello! My name is Ann.":                          true,
		"Exports outside the VAT area are zero-rated.":    false,
		"Use 2 boards per shelf; see https://example.org": false,
		"Меня зовут Анна.":                                true,
	} {
		what, got := Personal(text)
		if got != want {
			t.Errorf("Personal(%q) = %v (%s), want %v", text, got, what, want)
		}
	}
}
