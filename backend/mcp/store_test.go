package mcp

import (
	"os"
	"strings"
	"testing"

	"crewagent/backend/settings"
)

func TestSaveAndRemoveServersInSettings(t *testing.T) {
	home := t.TempDir()
	st, err := settings.LoadWithEnv(home, func(string) (string, bool) { return "", false })
	if err != nil {
		t.Fatal(err)
	}
	gh := ServerConfig{Name: "github", Command: "npx", Args: []string{"-y", "gh"}, Env: map[string]string{"GITHUB_TOKEN": "ghp_secret_0123456789"}}
	if ps, err := SaveServer(st, gh); err != nil || ps != nil {
		t.Fatalf("save: %v %v", ps, err)
	}
	// The UI edits the redacted form: the masked token must survive, the edit must land.
	edited := gh.Redacted()
	edited.Args = []string{"-y", "gh@2"}
	if _, err := SaveServer(st, edited); err != nil {
		t.Fatal(err)
	}
	servers, ps, err := SettingsServers(st)
	if err != nil || len(ps) != 0 || len(servers) != 1 {
		t.Fatalf("%v %v %v", servers, ps, err)
	}
	if got := servers[0]; got.Env["GITHUB_TOKEN"] != "ghp_secret_0123456789" || got.Args[1] != "gh@2" || got.Source != SourceSettings {
		t.Fatalf("stored %+v", got)
	}
	if ps, err := SaveServer(st, ServerConfig{Name: "github.", Command: "x"}); err == nil || len(ps) != 1 {
		t.Fatalf("a bad name was saved: %v %v", ps, err)
	}
	if _, err := SaveServer(st, ServerConfig{Name: "files.local", Command: "x"}); err != nil {
		t.Fatal(err)
	}
	if ps, err := SaveServer(st, ServerConfig{Name: "files_local", Command: "x"}); err == nil || len(ps) != 1 || !strings.Contains(ps[0].Message, `as server "files.local"`) {
		t.Fatalf("a colliding name was saved: %v %v", ps, err)
	}
	if ps, err := SaveServer(st, ServerConfig{Name: "both", Command: "x", URL: "http://h"}); err == nil || len(ps) == 0 {
		t.Fatalf("an invalid server was saved: %v %v", ps, err)
	}
	if _, err := SaveServer(st, ServerConfig{Name: "remote", URL: "https://example.com/mcp", Headers: map[string]string{"Authorization": "Bearer x"}}); err != nil {
		t.Fatal(err)
	}
	if found, err := RemoveServer(st, "github"); !found || err != nil {
		t.Fatalf("remove: %v %v", found, err)
	}
	if found, err := RemoveServer(st, "github"); found || err != nil {
		t.Fatalf("remove again: %v %v", found, err)
	}
	RemoveServer(st, "files.local")
	servers, _, _ = SettingsServers(st)
	if len(servers) != 1 || servers[0].Name != "remote" {
		t.Fatalf("after remove: %+v", servers)
	}
	data, _ := os.ReadFile(settings.Path(home))
	if strings.Contains(string(data), "ghp_secret") {
		t.Fatal("the removed server's secret is still in the file")
	}
}
