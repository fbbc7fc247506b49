package events

import (
	"bytes"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

func outputs(r *Recorder) []ToolOutputEvent {
	var out []ToolOutputEvent
	for _, p := range r.Named(ToolOutput) {
		out = append(out, p.(ToolOutputEvent))
	}
	return out
}

func TestToolOutputBatcher(t *testing.T) {
	tests := []struct {
		name   string
		feed   func(b *ToolOutputBatcher)
		check  func(t *testing.T, evs []ToolOutputEvent)
		keep   int
		expect string // the data of every event joined ("-": not checked)
	}{
		{
			name: "small writes within the interval make one event, then done",
			feed: func(b *ToolOutputBatcher) {
				for _, s := range []string{"a\n", "b\n", "c\n"} {
					b.Add("c1", "shell.run", "t1", []byte(s))
				}
				time.Sleep(150 * time.Millisecond)
				b.Done("c1", "shell.run", "t1")
			},
			expect: "a\nb\nc\n",
			check: func(t *testing.T, evs []ToolOutputEvent) {
				if len(evs) != 2 || evs[0].Done || !evs[1].Done || evs[1].Data != "" {
					t.Fatalf("%+v", evs)
				}
			},
		},
		{
			name: "a character split between writes is never split between events",
			feed: func(b *ToolOutputBatcher) {
				b.Add("c1", "shell.run", "t1", []byte("caf\xc3"))
				time.Sleep(150 * time.Millisecond)
				b.Add("c1", "shell.run", "t1", []byte("\xa9!"))
				b.Done("c1", "shell.run", "t1")
			},
			expect: "café!",
			check: func(t *testing.T, evs []ToolOutputEvent) {
				for _, e := range evs {
					if !utf8.ValidString(e.Data) {
						t.Fatalf("invalid UTF-8 in %q", e.Data)
					}
				}
				if evs[0].Data != "caf" {
					t.Fatalf("%+v", evs)
				}
			},
		},
		{
			name: "a flood keeps the newest bytes and says how many were left out",
			keep: 8 << 10,
			feed: func(b *ToolOutputBatcher) {
				line := []byte(strings.Repeat("x", 1023) + "\n")
				for range 4096 { // 4 MB
					b.Add("c1", "shell.run", "t1", line)
				}
				b.Add("c1", "shell.run", "t1", []byte("the end\n"))
				b.Done("c1", "shell.run", "t1")
			},
			expect: "-",
			check: func(t *testing.T, evs []ToolOutputEvent) {
				var total int64
				for _, e := range evs {
					if len(e.Data) > 8<<10 {
						t.Fatalf("an event of %d bytes", len(e.Data))
					}
					total += int64(len(e.Data)) + e.Skipped
				}
				if total != 4096*1024+8 {
					t.Fatalf("data + skipped = %d", total)
				}
				if len(evs) > 50 || !strings.HasSuffix(evs[len(evs)-1].Data, "the end\n") {
					t.Fatalf("%d events, last %q", len(evs), evs[len(evs)-1].Data)
				}
			},
		},
		{
			name: "calls are kept apart; done forgets the call",
			feed: func(b *ToolOutputBatcher) {
				b.Add("c1", "shell.run", "t1", []byte("one"))
				b.Add("c2", "shell.run", "t1", []byte("two"))
				b.Done("c1", "shell.run", "t1")
				b.Done("c2", "shell.run", "t1")
				time.Sleep(150 * time.Millisecond)
			},
			expect: "onetwo",
			check: func(t *testing.T, evs []ToolOutputEvent) {
				if len(evs) != 2 || evs[0].ConversationID != "c1" || evs[1].ConversationID != "c2" || !evs[0].Done || !evs[1].Done {
					t.Fatalf("%+v", evs)
				}
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rec := &Recorder{}
			b := NewToolOutputBatcher(rec, 50*time.Millisecond, 4<<10, tc.keep)
			tc.feed(b)
			evs := outputs(rec)
			var all bytes.Buffer
			for _, e := range evs {
				all.WriteString(e.Data)
			}
			if tc.expect != "-" && all.String() != tc.expect {
				t.Fatalf("data %q, want %q", all.String(), tc.expect)
			}
			tc.check(t, evs)
		})
	}
}

func FuzzCompleteRunes(f *testing.F) {
	for _, s := range []string{"", "a", "caf\xc3", "\xe2\x82", "\xf0\x9f\x98", "é", "\xff", "ab\x80"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		n := completeRunes(b)
		if n < 0 || n > len(b) || len(b)-n > utf8.UTFMax-1 {
			t.Fatalf("completeRunes(%q) = %d", b, n)
		}
		if utf8.Valid(b) && n != len(b) {
			t.Fatalf("valid %q cut at %d", b, n)
		}
	})
}
