package packages

import "strings"

// Maximum lengths of the two halves of a packageId.
const (
	maxIDName    = 64
	maxIDVersion = 32
)

// PackageID derives the id (and folder name) a package is installed under from its bmad.json
// name and version: both lower-cased, every character outside [a-z0-9._-] replaced by "-",
// runs of "-" collapsed, leading and trailing "-", "." and "_" trimmed, joined by "@".
// For example ("Demo Writing", "1.0.0+build.5") gives "demo-writing@1.0.0-build.5".
func PackageID(name, version string) string {
	n := sanitizeIDPart(name, maxIDName)
	if n == "" {
		n = "package"
	}
	v := sanitizeIDPart(version, maxIDVersion)
	if v == "" {
		v = "0.0.0"
	}
	return n + "@" + v
}

func sanitizeIDPart(s string, max int) string {
	var sb strings.Builder
	dash := false
	for _, r := range strings.ToLower(s) {
		ok := (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') || r == '.' || r == '_' || r == '-'
		if !ok {
			r = '-'
		}
		if r == '-' {
			if dash {
				continue
			}
			dash = true
		} else {
			dash = false
		}
		sb.WriteRune(r)
	}
	out := strings.Trim(sb.String(), "-._")
	if len(out) > max {
		out = strings.Trim(out[:max], "-._")
	}
	return out
}
