package attach

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"

	"crewagent/backend/conversation"
	"crewagent/backend/errs"
)

// Input is a file the window attaches to a message: its name and its bytes
// in base64 (picked, pasted or dropped in the composer).
type Input struct {
	Name string `json:"name"`
	Data string `json:"data"`
}

// Decode reads the window's attachments.
func Decode(in []Input) ([]File, error) {
	out := make([]File, 0, len(in))
	for _, a := range in {
		data, err := base64.StdEncoding.DecodeString(a.Data)
		if err != nil {
			return nil, errs.Errorf(errs.InvalidRequest, "the attachment %q did not arrive whole (%v): attach it again", a.Name, err)
		}
		out = append(out, File{Name: a.Name, Data: data})
	}
	return out, nil
}

// Save checks files and saves each with save (under a name made of its
// content's hash and its own name), for a message; nothing is saved when one
// of them cannot be attached (the error says which and why).
func Save(files []File, save func(name string, data []byte) (string, error)) ([]conversation.Attachment, error) {
	if len(files) > MaxFiles {
		return nil, errs.Errorf(errs.InvalidRequest, "%d files are attached; a message takes at most %d", len(files), MaxFiles)
	}
	out := make([]conversation.Attachment, 0, len(files))
	for _, f := range files {
		a, err := Describe(f)
		if err != nil {
			return nil, errs.New(errs.InvalidRequest, err.Error())
		}
		out = append(out, a)
	}
	for i, f := range files {
		sum := sha256.Sum256(f.Data)
		name := hex.EncodeToString(sum[:8]) + "-" + SafeName(out[i].Name)
		alias, err := save(name, f.Data)
		if err != nil {
			return nil, fmt.Errorf("saving the attachment %s: %w", out[i].Name, err)
		}
		out[i].Path = alias
	}
	return out, nil
}
