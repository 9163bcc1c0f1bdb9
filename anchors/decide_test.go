package anchors_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"yakor/anchors"
)

func TestDecide(t *testing.T) {
	price := anchors.Anchor{ID: 1, Topic: "прайс ЛДСП", Data: "ЛДСП 16 мм — 3 400 руб/лист", CharPos: 0}
	calc := anchors.Anchor{ID: 2, Topic: "расчёт стоимости шкафа", Data: "Итого: 1 050 руб", CharPos: 900}
	usd := anchors.Anchor{ID: 3, Topic: "перевод в доллары", Data: "Итого: $12", CharPos: 1800}
	priceAgain := anchors.Anchor{ID: 4, Topic: "прайс ЛДСП Egger", CharPos: 2500}
	all := []anchors.Anchor{price, calc, usd}

	tests := []struct {
		name       string
		cfg        anchors.Config
		current    *anchors.Anchor
		earlier    []anchors.Anchor
		charsSince int64
		ex         anchors.Extraction
		want       anchors.Outcome
	}{
		{
			"NoTopic", anchors.Config{}, &usd, all, 200,
			anchors.Extraction{Data: "Итого: $13", DataChanged: true},
			anchors.Outcome{Decision: anchors.NoAnchor, Rule: anchors.RuleNoTopic},
		},
		{
			"NoTopicNoDataOverThreshold", anchors.Config{}, &usd, all, 5000,
			anchors.Extraction{Topic: " — "},
			anchors.Outcome{Decision: anchors.NoAnchor, Rule: anchors.RuleNoTopic},
		},
		{
			"NoTopicWithDataOverThreshold", anchors.Config{}, &usd, all, 4000,
			anchors.Extraction{Data: "Итого: $13", DataChanged: true},
			anchors.Outcome{Decision: anchors.NewAnchor, Rule: anchors.RuleCharThreshold},
		},
		{
			"FirstTopic", anchors.Config{}, nil, nil, 120,
			anchors.Extraction{Topic: "прайс ЛДСП"},
			anchors.Outcome{Decision: anchors.NewAnchor, Rule: anchors.RuleFirst},
		},
		{
			// A topic that goes on keeps its anchor, however long.
			"SameTopicOverThreshold", anchors.Config{}, &price, all, 9000,
			anchors.Extraction{Topic: "прайса лдсп"},
			anchors.Outcome{Decision: anchors.NoAnchor, Rule: anchors.RuleSameTopic},
		},
		{
			"SameTopicOverThresholdNewData", anchors.Config{}, &price, all, 9000,
			anchors.Extraction{Topic: "прайса лдсп", Data: "ЛДСП 18 мм — 3 900 руб/лист", DataChanged: true},
			anchors.Outcome{Decision: anchors.UpdateAnchorData, Rule: anchors.RuleDataChanged, TargetID: 1},
		},
		{
			"SameTopicUnderThreshold", anchors.Config{}, &price, all, 2999,
			anchors.Extraction{Topic: "прайса лдсп"},
			anchors.Outcome{Decision: anchors.NoAnchor, Rule: anchors.RuleSameTopic},
		},
		{
			"CustomThreshold", anchors.Config{CharThreshold: 1600}, &price, all, 1600,
			anchors.Extraction{Topic: "погода в Алматы"},
			anchors.Outcome{Decision: anchors.NewAnchor, Rule: anchors.RuleCharThreshold},
		},
		{
			"DataChanged", anchors.Config{}, &calc, all, 400,
			anchors.Extraction{Topic: "расчет стоимость шкаф", Data: "Итого: 1 120 руб", DataChanged: true},
			anchors.Outcome{Decision: anchors.UpdateAnchorData, Rule: anchors.RuleDataChanged, TargetID: 2},
		},
		{
			"DataAlreadyThere", anchors.Config{}, &calc, all, 400,
			anchors.Extraction{Topic: "расчёт стоимости шкафа", Data: "итого:  1 050 РУБ", DataChanged: true},
			anchors.Outcome{Decision: anchors.NoAnchor, Rule: anchors.RuleSameTopic},
		},
		{
			"DataNotMarkedChanged", anchors.Config{}, &calc, all, 400,
			anchors.Extraction{Topic: "расчёт стоимости шкафа", Data: "Итого: 1 120 руб"},
			anchors.Outcome{Decision: anchors.NoAnchor, Rule: anchors.RuleSameTopic},
		},
		{
			// A changed topic without data is a detour until it stays.
			"TopicChangedIsDetour", anchors.Config{}, &usd, all, 400,
			anchors.Extraction{Topic: "погода в Алматы"},
			anchors.Outcome{Decision: anchors.NoAnchor, Rule: anchors.RuleDetour},
		},
		{
			"TopicChangedWithData", anchors.Config{}, &usd, all, 400,
			anchors.Extraction{Topic: "погода в Алматы", Data: "+12 °C", DataChanged: true},
			anchors.Outcome{Decision: anchors.NewAnchor, Rule: anchors.RuleTopicChanged},
		},
		{
			"TopicChangedOverThreshold", anchors.Config{}, &usd, all, 4000,
			anchors.Extraction{Topic: "погода в Алматы"},
			anchors.Outcome{Decision: anchors.NewAnchor, Rule: anchors.RuleCharThreshold},
		},
		{
			"TopicStayedChanged", anchors.Config{}, &usd, all, 2500,
			anchors.Extraction{Topic: "погода в Алматы"},
			anchors.Outcome{Decision: anchors.NewAnchor, Rule: anchors.RuleTopicChanged},
		},
		{
			"TopicStayedChangedTooSoon", anchors.Config{}, &usd, all, 2499,
			anchors.Extraction{Topic: "погода в Алматы"},
			anchors.Outcome{Decision: anchors.NoAnchor, Rule: anchors.RuleDetour},
		},
		{
			"CustomMinSpan", anchors.Config{MinSpan: 600}, &usd, all, 600,
			anchors.Extraction{Topic: "погода в Алматы"},
			anchors.Outcome{Decision: anchors.NewAnchor, Rule: anchors.RuleTopicChanged},
		},
		{
			// What a detour says worth keeping goes to the current topic.
			"DetourKeepsNotes", anchors.Config{}, &usd, all, 400,
			anchors.Extraction{Topic: "погода в Алматы", Notes: "Мы ездили в Алматы вчера (сказано в пн 2023-05-08)"},
			anchors.Outcome{Decision: anchors.UpdateAnchorData, Rule: anchors.RuleDetour, TargetID: 3},
		},
		{
			"NoTopicKeepsNotes", anchors.Config{}, &usd, all, 400,
			anchors.Extraction{Notes: "We decided to go with Egger"},
			anchors.Outcome{Decision: anchors.UpdateAnchorData, Rule: anchors.RuleNoTopic, TargetID: 3},
		},
		{
			"SameTopicNewNotes", anchors.Config{}, &calc, all, 400,
			anchors.Extraction{Topic: "расчёт стоимости шкафа", Notes: "We decided to go with Egger"},
			anchors.Outcome{Decision: anchors.UpdateAnchorData, Rule: anchors.RuleDataChanged, TargetID: 2},
		},
		{
			"NeverReturnsToEpisode", anchors.Config{}, &usd,
			[]anchors.Anchor{{ID: 1, Topic: "прайс ЛДСП", Episode: true}, calc, usd}, 400,
			anchors.Extraction{Topic: "прайс ЛДСП"},
			anchors.Outcome{Decision: anchors.NoAnchor, Rule: anchors.RuleDetour},
		},
		{
			"ReturnedToTopic", anchors.Config{}, &usd, all, 400,
			anchors.Extraction{Topic: "прайсы ЛДСП", Data: "ЛДСП 18 мм — 3 900 руб/лист", DataChanged: true},
			anchors.Outcome{Decision: anchors.MergeAnchor, Rule: anchors.RuleReturned, TargetID: 1},
		},
		{
			"ReturnedEvenOverThreshold", anchors.Config{}, &usd, all, 9000,
			anchors.Extraction{Topic: "стоимость шкафа"},
			anchors.Outcome{Decision: anchors.MergeAnchor, Rule: anchors.RuleReturned, TargetID: 2},
		},
		{
			"ReturnedPicksMostSimilar", anchors.Config{}, &usd, append(all, priceAgain), 400,
			anchors.Extraction{Topic: "прайс ЛДСП Egger"},
			anchors.Outcome{Decision: anchors.MergeAnchor, Rule: anchors.RuleReturned, TargetID: 4},
		},
		{
			"ReturnedWithoutCurrentInEarlier", anchors.Config{}, &usd, []anchors.Anchor{price, calc}, 400,
			anchors.Extraction{Topic: "прайс лдсп"},
			anchors.Outcome{Decision: anchors.MergeAnchor, Rule: anchors.RuleReturned, TargetID: 1},
		},
		{
			// A stale copy of the current anchor (same id) that matches best
			// must never be the target.
			"NeverMergesIntoCurrent", anchors.Config{Similarity: 0.2}, &usd,
			[]anchors.Anchor{{ID: 3, Topic: "прайс ЛДСП Egger"}, price, calc}, 400,
			anchors.Extraction{Topic: "прайс ЛДСП Egger"},
			anchors.Outcome{Decision: anchors.MergeAnchor, Rule: anchors.RuleReturned, TargetID: 1},
		},
		{
			"OnlyCurrentInEarlier", anchors.Config{}, &usd, []anchors.Anchor{usd}, 400,
			anchors.Extraction{Topic: "прайс лдсп"},
			anchors.Outcome{Decision: anchors.NoAnchor, Rule: anchors.RuleDetour},
		},
		{
			"TieGoesToLaterAnchor", anchors.Config{}, &usd,
			[]anchors.Anchor{{ID: 7, Topic: "прайс", CharPos: 10}, {ID: 8, Topic: "прайс", CharPos: 20}, {ID: 6, Topic: "прайс", CharPos: 5}}, 400,
			anchors.Extraction{Topic: "прайс"},
			anchors.Outcome{Decision: anchors.MergeAnchor, Rule: anchors.RuleReturned, TargetID: 8},
		},
		{
			"StricterSimilarityMakesNew", anchors.Config{Similarity: 0.9}, &usd, all, 400,
			anchors.Extraction{Topic: "прайс Kronospan МДФ", Data: "МДФ 16 мм — 2 900 руб/лист", DataChanged: true},
			anchors.Outcome{Decision: anchors.NewAnchor, Rule: anchors.RuleTopicChanged},
		},
	}
	ignoreSim := cmpopts.IgnoreFields(anchors.Outcome{}, "Similarity")
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			at := anchors.Position{Since: tt.charsSince}
			if strings.HasPrefix(tt.name, "TopicStayed") || tt.name == "CustomMinSpan" {
				at.OffTopic = 1 // the user's previous message left the topic too
			}
			got := anchors.Decide(tt.cfg, tt.current, tt.earlier, at, tt.ex)
			if diff := cmp.Diff(tt.want, got, ignoreSim); diff != "" {
				t.Errorf("Decide mismatch (-want +got):\n%s", diff)
			}
			threshold := tt.cfg.Similarity
			if threshold == 0 {
				threshold = 0.3
			}
			switch got.Rule {
			case anchors.RuleSameTopic, anchors.RuleDataChanged, anchors.RuleReturned:
				if got.Similarity < threshold {
					t.Errorf("Similarity = %v, want >= %v for %s", got.Similarity, threshold, got.Rule)
				}
			case anchors.RuleTopicChanged, anchors.RuleDetour:
				if got.Similarity >= threshold {
					t.Errorf("Similarity = %v, want < %v for %s", got.Similarity, threshold, got.Rule)
				}
			}
		})
	}
}
