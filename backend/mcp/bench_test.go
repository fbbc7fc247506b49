//go:build linux

package mcp

import (
	"context"
	"testing"
)

// BenchmarkStartCallStop measures one server's whole life: process (with its supervisor),
// handshake, tool list, one call, and stop.
func BenchmarkStartCallStop(b *testing.B) {
	cfg := testServerConfig(b, "bench", "basic", nil)
	home := b.TempDir()
	for b.Loop() {
		m := NewManager(Options{Home: home, ProjectID: "p", Servers: []ServerConfig{cfg}})
		if r := m.Call(context.Background(), "mcp__bench__echo", []byte(`{"text":"x"}`), nil); !r.OK {
			b.Fatal(r.Content)
		}
		m.Close()
	}
}

// BenchmarkCall measures one call on a running server.
func BenchmarkCall(b *testing.B) {
	cfg := testServerConfig(b, "bench", "basic", nil)
	m := NewManager(Options{Home: b.TempDir(), ProjectID: "p", Servers: []ServerConfig{cfg}})
	defer m.Close()
	ctx := context.Background()
	m.Tools(ctx, nil)
	for b.Loop() {
		if r := m.Call(ctx, "mcp__bench__echo", []byte(`{"text":"x"}`), nil); !r.OK {
			b.Fatal(r.Content)
		}
	}
}
