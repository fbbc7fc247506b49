package convlog

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"crewagent/backend/conversation"
	"crewagent/backend/errs"
)

func idMsg(id, role, text string) *conversation.Entry {
	return &conversation.Entry{Type: conversation.TypeMsg, ID: id, Role: role, Content: conversation.Str(text)}
}

func TestSearch(t *testing.T) {
	st, _, _ := openTest(t, Options{})
	create := func(title string) string {
		t.Helper()
		m, err := st.Create(title, conversation.ActiveChat)
		if err != nil {
			t.Fatal(err)
		}
		time.Sleep(2 * time.Millisecond) // distinct lastActiveAt
		return m.ID
	}
	alpha, beta, gamma := create("Parser design"), create("Shopping"), create("Unrelated")
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(st.Append(alpha, idMsg("a1", "user", "How big is the buffer?"), idMsg("a2", "assistant", "The BUFFER holds 4 KB.")))
	must(st.Append(beta, idMsg("b1", "user", "Die Größe ist \"groß\" genug"), idMsg("b2", "assistant", "ok")))
	tool := &conversation.Entry{Type: conversation.TypeMsg, ID: "g2", Role: conversation.RoleTool, ToolCallID: "c", Content: conversation.Str("buffer in a tool result")}
	call := &conversation.Entry{Type: conversation.TypeMsg, ID: "g1", Role: conversation.RoleAssistant, ToolCalls: []conversation.ToolCall{{ID: "c", Type: "function", Function: conversation.FunctionCall{Name: "fs.read", Arguments: "{}"}}}}
	must(st.Append(gamma, call, tool))
	long := strings.Repeat("filler words ", 40) + "needle" + strings.Repeat(" more filler", 40)
	must(st.Append(gamma, idMsg("g3", "assistant", long)))
	runInput := idMsg("g4", "user", "USER_INPUT\n- forNodeId: capture-idea\nA shared grocery list")
	runInput.RunID = "r1"
	must(st.Append(gamma, runInput))

	tests := []struct {
		query   string
		want    []string // conversation ids, in list order
		title   bool
		matches int
		snippet string
	}{
		{"buffer", []string{alpha}, false, 2, "BUFFER holds"},
		{"PARSER", []string{alpha}, true, 0, ""},
		{"größe", []string{beta}, false, 1, "Größe"},
		{`"groß"`, []string{beta}, false, 1, `"groß"`},
		{"needle", []string{gamma}, false, 1, "needle"},
		{"grocery", []string{gamma}, false, 1, "A shared grocery list"},
		{"forNodeId", nil, false, 0, ""}, // the run's header is not the user's text
		{"nothing like this", nil, false, 0, ""},
		{"   ", nil, false, 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			hits, err := st.Search(tt.query)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, h := range hits {
				got = append(got, h.ConversationID)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("hits %v, want %v", got, tt.want)
			}
			if len(hits) == 0 {
				return
			}
			h := hits[0]
			if h.TitleMatch != tt.title || h.Matches != tt.matches || !strings.Contains(h.Snippet, tt.snippet) {
				t.Fatalf("hit %+v", h)
			}
			if strings.Contains(h.Snippet, "USER_INPUT") {
				t.Fatalf("snippet shows the run's header: %q", h.Snippet)
			}
			if len([]rune(h.Snippet)) > searchSnippetLeft+searchSnippetRight+4 {
				t.Fatalf("snippet too long: %d runes", len([]rune(h.Snippet)))
			}
		})
	}
}

func TestSnippet(t *testing.T) {
	tests := []struct {
		text    string
		at, n   int
		want    string
		wantPre bool
	}{
		{"short text", 0, 5, "short text", false},
		{"line one\n\nline   two", 0, 4, "line one line two", false},
		{strings.Repeat("a", 100) + "X" + strings.Repeat("b", 200), 100, 1, "", true},
	}
	for _, tt := range tests {
		got := snippet(tt.text, tt.at, tt.n)
		if tt.want != "" && got != tt.want {
			t.Errorf("snippet(%q) = %q, want %q", tt.text, got, tt.want)
		}
		if tt.wantPre && (!strings.HasPrefix(got, "…") || !strings.HasSuffix(got, "…") || !strings.Contains(got, "X")) {
			t.Errorf("snippet of a long text = %q", got)
		}
	}
}

func TestPageAndPageBefore(t *testing.T) {
	st, _, _ := openTest(t, Options{})
	id := mustCreate(t, st)
	var entries []*conversation.Entry
	for i := range 1000 {
		role := conversation.RoleUser
		if i%2 == 1 {
			role = conversation.RoleAssistant
		}
		entries = append(entries, idMsg(fmt.Sprintf("m%04d", i), role, fmt.Sprintf("message %d", i)))
	}
	if err := st.Append(id, entries...); err != nil {
		t.Fatal(err)
	}
	// an update line for an old entry must not change the paging
	if err := st.Update(id, &conversation.Entry{Type: conversation.TypeMsg, ID: "m0010", Role: conversation.RoleUser, Content: conversation.Str("edited")}); err != nil {
		t.Fatal(err)
	}
	page, err := st.Page(id, 300)
	if err != nil || len(page.Entries) != 300 || !page.HasMore || page.Entries[299].ID != "m0999" {
		t.Fatalf("first page: %d entries, hasMore %v, %v", len(page.Entries), page.HasMore, err)
	}
	got := page.Entries
	for page.HasMore {
		if page, err = st.PageBefore(id, got[0].ID, 300); err != nil {
			t.Fatal(err)
		}
		if n := len(page.Newer); n == 0 || page.Newer[len(page.Newer)-1].ID != "m0999" || page.Newer[0].ID != got[0].ID {
			t.Fatalf("the newer entries do not reach from the page to the end: %d", n)
		}
		got = append(page.Entries, got...)
	}
	all, err := st.Load(id)
	if err != nil || !reflect.DeepEqual(ids(got), ids(all)) || got[10].Text() != "edited" {
		t.Fatalf("paged %d entries, Load has %d (%v)", len(got), len(all), err)
	}
	if _, err := st.PageBefore(id, "missing", 10); errs.CodeOf(err) != ErrNotFound.Code || !strings.Contains(err.Error(), "reload") {
		t.Fatalf("unknown beforeID: %v", err)
	}
	if PageLimit(0) != DefaultPageSize || PageLimit(1e9) != MaxPageSize || PageLimit(7) != 7 {
		t.Fatal("PageLimit")
	}
}
