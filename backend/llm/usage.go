package llm

import (
	"bytes"
	"encoding/json"
)

// wireUsage holds the fields servers use for the prompt tokens they read from their
// prompt cache, in the shapes they send them.
type wireUsage struct {
	// OpenAI, vLLM, OpenRouter, LM Studio: usage.prompt_tokens_details.cached_tokens.
	PromptTokensDetails *struct {
		CachedTokens *int `json:"cached_tokens"`
	} `json:"prompt_tokens_details"`
	// DeepSeek: usage.prompt_cache_hit_tokens (beside prompt_cache_miss_tokens).
	PromptCacheHitTokens *int `json:"prompt_cache_hit_tokens"`
	// Moonshot: usage.cached_tokens.
	CachedTokens *int `json:"cached_tokens"`
}

// cachedTokensOf reads the cached prompt tokens out of a chat completion or a stream chunk
// (the raw JSON): usage in OpenAI's, DeepSeek's or Moonshot's shape, or llama.cpp's
// timings.cache_n. ok is false when the payload reports none.
func cachedTokensOf(payload []byte) (n int, ok bool) {
	if !bytes.Contains(payload, []byte("cache")) {
		return 0, false
	}
	var v struct {
		Usage   *wireUsage `json:"usage"`
		Timings *struct {
			CacheN *int `json:"cache_n"`
		} `json:"timings"`
	}
	if json.Unmarshal(payload, &v) != nil {
		return 0, false
	}
	if u := v.Usage; u != nil {
		switch {
		case u.PromptTokensDetails != nil && u.PromptTokensDetails.CachedTokens != nil:
			return max(0, *u.PromptTokensDetails.CachedTokens), true
		case u.PromptCacheHitTokens != nil:
			return max(0, *u.PromptCacheHitTokens), true
		case u.CachedTokens != nil:
			return max(0, *u.CachedTokens), true
		}
	}
	if t := v.Timings; t != nil && t.CacheN != nil {
		return max(0, *t.CacheN), true
	}
	return 0, false
}
