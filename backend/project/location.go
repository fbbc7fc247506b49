package project

import (
	"os"
	"path/filepath"
)

// DefaultFolderName is the folder new projects go into by default.
const DefaultFolderName = "CrewAgent Projects"

// DefaultParent returns where a new project is proposed: DefaultFolderName
// in the user's documents folder ($XDG_DOCUMENTS_DIR, else ~/Documents) when
// that exists, else in the user's home folder. The folder itself may not
// exist yet ("" when userHome is "").
func DefaultParent(userHome string) string {
	if userHome == "" {
		return ""
	}
	for _, docs := range []string{os.Getenv("XDG_DOCUMENTS_DIR"), filepath.Join(userHome, "Documents")} {
		if docs == "" || !filepath.IsAbs(docs) || filepath.Clean(docs) == filepath.Clean(userHome) {
			continue
		}
		if fi, err := os.Stat(docs); err == nil && fi.IsDir() {
			return filepath.Join(docs, DefaultFolderName)
		}
	}
	return filepath.Join(userHome, DefaultFolderName)
}

// EnsureDefaultParent creates dir when it is the default parent of userHome
// and is missing (the default location is made on demand); any other
// folder must exist already.
func EnsureDefaultParent(userHome, dir string) error {
	def := DefaultParent(userHome)
	if def == "" || filepath.Clean(dir) != def {
		return nil
	}
	if err := os.MkdirAll(def, 0o755); err != nil {
		return ioError(def, "create", err)
	}
	return nil
}
