package desktop

import (
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"crewagent/backend/llm"
	"crewagent/backend/project"
)

func TestTestConnectionListsTheModels(t *testing.T) {
	srv := newFakeLLM(t)
	srv.SetModels("gpt-4o-mini", "gpt-4.1", "o3-mini")
	w := openTestProject(t, llmSettings(srv.URL(), ""))
	v, _ := w.app.Settings.Get()

	res, err := w.app.Settings.TestConnection(v.Settings)
	if err != nil || !res.OK {
		t.Fatalf("TestConnection = %+v, %v", res, err)
	}
	if want := []string{"gpt-4.1", "gpt-4o-mini", "o3-mini"}; !reflect.DeepEqual(res.Models, want) || res.ModelsError != "" {
		t.Fatalf("models %v (%q), want %v", res.Models, res.ModelsError, want)
	}

	// no model chosen yet: the models to choose from, and what to do
	noModel := v.Settings
	noModel.LLM.Model = ""
	res, _ = w.app.Settings.TestConnection(noModel)
	if res.OK || res.Code != llm.CodeNotConfigured || len(res.Models) != 3 || !strings.Contains(res.Message, "3 models") {
		t.Fatalf("without a model: %+v", res)
	}
	chats := len(srv.ChatRequests())

	// a server that lists nothing
	srv.SetModels()
	res, _ = w.app.Settings.TestConnection(noModel)
	if res.OK || res.Models == nil || len(res.Models) != 0 || !strings.Contains(res.Message, "lists no model") {
		t.Fatalf("no models listed: %+v", res)
	}
	if len(srv.ChatRequests()) != chats {
		t.Fatal("a chat request was sent without a model")
	}
}

func TestTestConnectionWithoutAModelList(t *testing.T) {
	// some OpenAI-compatible proxies do not serve GET /models: the chat test decides
	srv := newFakeLLM(t)
	upstream, _ := url.Parse(srv.URL())
	proxy := httputil.NewSingleHostReverseProxy(&url.URL{Scheme: upstream.Scheme, Host: upstream.Host})
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/models") {
			http.Error(w, `{"error":{"message":"no such route","type":"invalid_request_error"}}`, http.StatusNotFound)
			return
		}
		proxy.ServeHTTP(w, r)
	}))
	defer front.Close()
	w := openTestProject(t, llmSettings(front.URL+"/v1", ""))
	v, _ := w.app.Settings.Get()
	res, _ := w.app.Settings.TestConnection(v.Settings)
	if !res.OK || res.ModelsError == "" || res.Models == nil || len(res.Models) != 0 {
		t.Fatalf("a server without a model list: %+v", res)
	}
	noModel := v.Settings
	noModel.LLM.Model = ""
	res, _ = w.app.Settings.TestConnection(noModel)
	if res.OK || res.Code != llm.CodeNotConfigured || res.Message != res.ModelsError {
		t.Fatalf("without a model list and a model: %+v", res)
	}

	// a refused key fails both
	srv.RequireAPIKey("sk-right-key-1234")
	res, _ = w.app.Settings.TestConnection(v.Settings)
	if res.OK || res.Code != llm.CodeAuth || res.ModelsError == "" {
		t.Fatalf("a refused key: %+v", res)
	}
}

func TestLocalServersFromTheWindow(t *testing.T) {
	ta, _ := newTestApp(t)
	got := ta.Setup.LocalServers()
	if got == nil {
		t.Fatal("LocalServers returned null; the window expects a list")
	}
	// whatever runs on this machine, every server found has a name, a URL and a list
	for _, s := range got {
		if s.Name == "" || !strings.HasPrefix(s.BaseURL, "http://127.0.0.1:") || s.Models == nil {
			t.Errorf("server %+v", s)
		}
	}
}

func TestNewProjectInTheDefaultLocation(t *testing.T) {
	user := t.TempDir()
	t.Setenv("HOME", user)
	t.Setenv("XDG_DOCUMENTS_DIR", "")
	if err := os.Mkdir(filepath.Join(user, "Documents"), 0o755); err != nil {
		t.Fatal(err)
	}
	ta, _ := newTestApp(t)
	defer ta.shutdown(t.Context())
	loc := ta.Setup.DefaultProjectLocation()
	if want := filepath.Join(user, "Documents", project.DefaultFolderName); loc != want {
		t.Fatalf("DefaultProjectLocation = %q, want %q", loc, want)
	}
	// an invalid name creates nothing, not even the default location
	if _, err := ta.Projects.Create(loc, "a/b"); codeOfErr(t, err) != project.CodeNameInvalid {
		t.Fatalf("err = %v", err)
	}
	if _, err := os.Stat(loc); !os.IsNotExist(err) {
		t.Fatalf("the default location exists after a refused name: %v", err)
	}
	info, err := ta.Projects.Create(loc, "first")
	if err != nil {
		t.Fatal(err)
	}
	if info.Root != filepath.Join(loc, "first") {
		t.Fatalf("root %s", info.Root)
	}
	// another missing folder is not created
	if _, err := ta.Projects.Create(filepath.Join(user, "nowhere"), "second"); codeOfErr(t, err) != project.CodeNotFound {
		t.Fatalf("a missing folder: %v", err)
	}
}
