package app

import (
	"yakor/llm"
	"yakor/mnemos"
	"yakor/turn"
)

// models are the model of each role the graph is built with.
type models struct {
	chat    turn.Model
	helpers Helpers
	embed   mnemos.Embedder
	// embedModel reports that embed is a model (configured, or given by
	// an option), not the offline embedder: anchors then compare topics
	// by meaning too.
	embedModel bool
}

// models builds each role's model from the settings, or takes the one an
// option gives: a role on the offline provider gets the offline model
// (helpers: nil, which each job takes for its offline fallback).
func (a *App) models(o options) models {
	cfg := a.Config
	m := models{chat: o.chat, embed: o.embed}
	if m.chat == nil {
		m.chat = llm.NewOffline()
		if cfg.Chat.Provider == ProviderOpenAI {
			m.chat = a.openAI(cfg.Chat.Model)
		}
	}
	m.embedModel = m.embed != nil
	if m.embed == nil {
		m.embed = llm.NewOffline()
		if cfg.Embed.Provider == ProviderOpenAI {
			m.embed, m.embedModel = a.openAI(cfg.Embed.Model), true
		}
	}
	switch {
	case o.helpers != nil:
		m.helpers = *o.helpers
	case cfg.Helper.Provider == ProviderOpenAI:
		h := a.openAI(cfg.Helper.Model)
		m.helpers = Helpers{Upkeep: h, Anchors: h, Grader: h, Facts: h, Compaction: h, Research: h}
	}
	return m
}

// openAI is model on the configured OpenAI-compatible server.
func (a *App) openAI(model string) *llm.OpenAI {
	oc := llm.DefaultOpenAIConfig()
	oc.BaseURL, oc.APIKey, oc.Model = a.Config.OpenAIBaseURL, a.Config.OpenAIAPIKey, model
	oc.Timeout, oc.MaxRetries, oc.Logger = a.Config.ModelTimeout, a.Config.ModelRetries, a.Log
	return llm.NewOpenAI(oc)
}
