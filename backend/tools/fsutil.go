package tools

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"strings"
	"syscall"

	"crewagent/backend/fsx"
)

// tempPrefix names the temporary files of atomic writes; they never survive a write.
const tempPrefix = ".crewagent-tmp-"

func sha256Hex(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// normalizeSha accepts "sha256:<hex>" or "<hex>" in any case.
func normalizeSha(s string) string {
	s = strings.TrimSpace(strings.ToLower(s))
	return strings.TrimPrefix(s, "sha256:")
}

// atomicWriteFile replaces target with data, through a temp file named with tempPrefix in
// the target's folder (see fsx.WriteFileTemp).
func atomicWriteFile(target string, data []byte, perm fs.FileMode) error {
	return fsx.WriteFileTemp(target, data, perm, tempPrefix+"*")
}

// fileError maps an OS error on r to a tool error without host paths.
func fileError(r Resolved, err error) *ToolError {
	switch {
	case errors.Is(err, fs.ErrNotExist), errors.Is(err, syscall.ENOTDIR):
		return errf(CodeNotFound, "%s does not exist", r.Display()).withDetail("path", r.Display())
	case errors.Is(err, fs.ErrPermission):
		return errf(CodeInternal, "%s: permission denied", r.Display())
	case errors.Is(err, syscall.EISDIR):
		return errf(CodeBadArguments, "%s is a folder", r.Display())
	}
	return errf(CodeInternal, "%s: %s", r.Display(), osErrText(err))
}

// statRead resolves alias for reading and stats the file or folder it names.
func (h *Host) statRead(alias string) (Resolved, fs.FileInfo, *ToolError) {
	r, terr := h.sandbox.Resolve(alias, AccessRead)
	if terr != nil {
		return r, nil, terr
	}
	fi, err := os.Stat(r.Host)
	if err != nil {
		return r, nil, fileError(r, err)
	}
	return r, fi, nil
}

// decodePathArgs decodes the arguments raw into p (see decodeArgs) and requires the "path"
// argument, *path being p's field for it: a missing one is E_BAD_ARGUMENTS.
func decodePathArgs(raw json.RawMessage, p any, path *string) *ToolError {
	if terr := decodeArgs(raw, p); terr != nil {
		return terr
	}
	if *path == "" {
		return errf(CodeBadArguments, `"path" is required (for example "@project/README.md")`)
	}
	return nil
}

// isBinary reports whether b looks like binary data (a NUL byte in its first 8 KiB).
func isBinary(b []byte) bool {
	if len(b) > 8192 {
		b = b[:8192]
	}
	for _, c := range b {
		if c == 0 {
			return true
		}
	}
	return false
}
