package search

import (
	"cmp"
	_ "embed"
	"fmt"
	"slices"
	"strings"

	"yakor/fence"
)

var (
	//go:embed instruction_en.txt
	instructionEN string
	//go:embed instruction_ru.txt
	instructionRU string
)

// Instruction tells the model when and how to search, in the
// conversation's language ("ru" or anything else for English).
func Instruction(lang string) string {
	if lang == "ru" {
		return strings.TrimSpace(instructionRU)
	}
	return strings.TrimSpace(instructionEN)
}

// Marker is the line a model writes to search for query.
func Marker(query string) string { return "SEARCH_HISTORY: " + query }

// FoundOpen and its Russian twin open a block of hits in the prompt. The
// offline model (llm.Offline) knows them and the marker only as text, as
// any model does; llm's TestOfflineSearchProtocol fails when they change.
const (
	FoundOpen   = "[FOUND IN HISTORY:"
	FoundOpenRU = "[НАЙДЕНО В ИСТОРИИ:"
)

// FormatHits renders a search's hits for the model's next pass: a fenced
// block in the conversation's language, oldest first, a line with the
// date and time before each minute's hits, each hit with its author. No
// hits says so. final tells the model it must answer now.
func FormatHits(lang, query string, hits []Hit, final bool) string {
	ru := lang == "ru"
	var b strings.Builder
	sorted := slices.Clone(hits)
	slices.SortFunc(sorted, func(a, b Hit) int { return cmp.Compare(a.MessageID, b.MessageID) })
	switch {
	case len(sorted) == 0 && ru:
		fmt.Fprintf(&b, "%s «%s» — ничего не найдено.]\nНе ищи это снова: ответь тем, что знаешь, и скажи, чего не хватает.", FoundOpenRU, fence.Inline(query))
	case len(sorted) == 0:
		fmt.Fprintf(&b, "%s \"%s\" — nothing found.]\nDo not search for this again: answer with what you know and say what is missing.", FoundOpen, fence.Inline(query))
	default:
		if ru {
			fmt.Fprintf(&b, "%s «%s» — сообщений: %d, от старых к новым]\n", FoundOpenRU, fence.Inline(query), len(sorted))
		} else {
			fmt.Fprintf(&b, "%s \"%s\" — %d messages, oldest first]\n", FoundOpen, fence.Inline(query), len(sorted))
		}
		minute := "" // a line with the time before each minute's hits
		for _, h := range sorted {
			if m := h.CreatedAt.UTC().Format("2006-01-02 15:04"); m != minute {
				minute = m
				fmt.Fprintf(&b, "%s:\n", m)
			}
			fmt.Fprintf(&b, "(%s) %s\n", fence.Inline(author(h, ru)), fence.Text(h.Content))
		}
		if ru {
			b.WriteString("[КОНЕЦ НАЙДЕННОГО]")
		} else {
			b.WriteString("[END OF FOUND IN HISTORY]")
		}
	}
	if final {
		if ru {
			b.WriteString("\nБольше искать нельзя: ответь сейчас.")
		} else {
			b.WriteString("\nNo more searches are possible: answer now.")
		}
	}
	return b.String()
}

func author(h Hit, ru bool) string {
	if h.Author != "" {
		return h.Author
	}
	switch {
	case ru && h.Role == "user":
		return "пользователь"
	case ru && h.Role == "assistant":
		return "ассистент"
	}
	return h.Role
}
