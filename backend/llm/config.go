package llm

import (
	"net/http"
	"time"
)

// Defaults applied to zero Config fields.
const (
	DefaultTimeout           = 10 * time.Minute
	DefaultConnectTimeout    = 10 * time.Second
	DefaultFirstTokenTimeout = 120 * time.Second // local servers may load the model first
	DefaultIdleTimeout       = 60 * time.Second
	DefaultMaxRetries        = 3
	DefaultRetryBaseDelay    = 500 * time.Millisecond
	DefaultMaxRetryDelay     = 30 * time.Second
)

// Config configures a Client. Zero durations and a zero MaxRetries take the defaults above;
// a negative duration disables that limit and a negative MaxRetries disables retries.
type Config struct {
	// BaseURL of an OpenAI-compatible API, e.g. https://api.openai.com/v1,
	// http://127.0.0.1:11434/v1 (Ollama), http://127.0.0.1:1234/v1 (LM Studio).
	BaseURL string
	// APIKey is sent as a bearer token; empty sends no Authorization header (local servers).
	APIKey string
	// Model is used when a Request names none.
	Model string

	// Timeout bounds one call (Stream, Complete, TestConnection, Models) including retries.
	Timeout time.Duration
	// ConnectTimeout bounds establishing the TCP connection (with the default transport).
	ConnectTimeout time.Duration
	// FirstTokenTimeout bounds the time from sending a streamed request to its first chunk.
	FirstTokenTimeout time.Duration
	// IdleTimeout bounds the silence between two chunks of a stream. SSE comments
	// (": ping" keep-alives) are not chunks: they count neither here nor as a first token.
	// Time spent in the Handler is not counted.
	IdleTimeout time.Duration

	// MaxRetries is how many times a failed request is sent again (429, 5xx, network
	// failures), only while nothing has been delivered to the handler.
	MaxRetries int
	// RetryBaseDelay is the first backoff delay; each retry doubles it, with jitter.
	RetryBaseDelay time.Duration
	// MaxRetryDelay caps both the backoff and a server's Retry-After.
	MaxRetryDelay time.Duration

	// HTTPClient replaces the default client (whose dialer applies ConnectTimeout). Its
	// Timeout should be zero: it would cut long streams.
	HTTPClient *http.Client

	// Endpoints remembers what endpoints refused (optional request fields, schema
	// keywords) so that it is not sent again; nil uses the process's memory (see
	// UseEndpointFile).
	Endpoints *EndpointMemory

	// ReasoningEffort ("minimal", "low", "medium", "high"; "" for the server's
	// default) is sent as reasoning_effort to reasoning models (OpenAI's o-series and
	// gpt-5, and every model of other endpoints, which ignore or refuse it: a refusal
	// drops it for that endpoint).
	ReasoningEffort string

	// Shape is the form of the message list (ShapeAuto: learnt from the endpoint's
	// chat-template errors).
	Shape Shape
}

func pick(v, def time.Duration) time.Duration {
	switch {
	case v == 0:
		return def
	case v < 0:
		return 0 // disabled
	default:
		return v
	}
}

// withDefaults resolves zero fields; a resolved zero duration means "no limit".
func (c Config) withDefaults() Config {
	c.Timeout = pick(c.Timeout, DefaultTimeout)
	c.ConnectTimeout = pick(c.ConnectTimeout, DefaultConnectTimeout)
	c.FirstTokenTimeout = pick(c.FirstTokenTimeout, DefaultFirstTokenTimeout)
	c.IdleTimeout = pick(c.IdleTimeout, DefaultIdleTimeout)
	c.RetryBaseDelay = pick(c.RetryBaseDelay, DefaultRetryBaseDelay)
	c.MaxRetryDelay = pick(c.MaxRetryDelay, DefaultMaxRetryDelay)
	switch {
	case c.MaxRetries == 0:
		c.MaxRetries = DefaultMaxRetries
	case c.MaxRetries < 0:
		c.MaxRetries = 0
	}
	return c
}
