package packages

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Maximum lengths, in bytes, of the two halves of a packageId.
const (
	maxIDName    = 64
	maxIDVersion = 32
	// idHashLen is the number of hex digits of the name's hash added to an id whose name
	// part had to be shortened or kept nothing of the name.
	idHashLen = 8
)

// PackageID derives the id (and folder name) a package is installed under from its bmad.json
// name and version, joined by "@". Each half is put in Unicode normal form C and lower-cased;
// letters (of any script), combining marks, digits, ".", "_" and "-" are kept, every other
// character becomes "-", runs of "-" collapse and leading or trailing "-", "." and "_" are
// trimmed. Names in any script therefore keep what tells them apart: "需求分析 Demo" gives
// "需求分析-demo" and "数据 Demo" gives "数据-demo". A name part longer than 64 bytes is cut
// at a character boundary and ends with "-" and 8 hex digits of the SHA-256 of the whole
// name, as does a name that keeps nothing ("???" gives "package-<hash>"), so long names that
// share a beginning stay distinct. Names that differ only in letter case, spacing or
// punctuation share an id; importing the second one is refused unless it replaces the first.
// For example ("Demo Writing", "1.0.0+build.5") gives "demo-writing@1.0.0-build.5".
func PackageID(name, version string) string {
	n := idPart(name, maxIDName)
	if n == "" {
		n = "package"
		if strings.TrimSpace(name) != "" {
			n += "-" + nameHash(name)
		}
	}
	v := idPart(version, maxIDVersion)
	if v == "" {
		v = "0.0.0"
	}
	return n + "@" + v
}

// idPart sanitizes one half of an id; a result longer than max bytes is cut and given a
// hash suffix of the input, within max bytes.
func idPart(s string, max int) string {
	out := sanitizeIDPart(s)
	if len(out) <= max {
		return out
	}
	suffix := "-" + nameHash(s)
	return strings.Trim(cutUTF8(out, max-len(suffix)), "-._") + suffix
}

func sanitizeIDPart(s string) string {
	var sb strings.Builder
	dash := false
	for _, r := range strings.ToLower(norm.NFC.String(s)) {
		ok := unicode.IsLetter(r) || unicode.IsMark(r) || unicode.IsDigit(r) || r == '.' || r == '_' || r == '-'
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
	return strings.Trim(sb.String(), "-._")
}

// cutUTF8 returns the longest prefix of s of at most n bytes that ends on a character
// boundary.
func cutUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

func nameHash(name string) string {
	sum := sha256.Sum256([]byte(name))
	return hex.EncodeToString(sum[:])[:idHashLen]
}
