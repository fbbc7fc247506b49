package llm

import (
	"context"
	"testing"
)

func TestModelWindowsRemembered(t *testing.T) {
	srv := newFake(t)
	srv.SetModels("a", "b")
	srv.SetModelWindow("b", 8192)
	cfg := testConfig(srv)
	cfg.Endpoints = NewEndpointMemory("")
	c := New(cfg)
	if _, err := c.Models(context.Background()); err != nil {
		t.Fatal(err)
	}
	if c.ContextWindow("b") != 8192 || c.ContextWindow("a") != 0 {
		t.Fatalf("windows %d %d", c.ContextWindow("b"), c.ContextWindow("a"))
	}
}
