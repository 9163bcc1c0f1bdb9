// Package mnemos will own long-term memory: chat, user and project facts
// with forgetting, and the experience levels (L1 good answers, L2 research
// themes, L3 antipatterns) stored with pgvector embeddings.
package mnemos
