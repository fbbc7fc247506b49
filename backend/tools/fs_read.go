package tools

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"

	"crewagent/backend/conversation"
)

// maxPreviewBytes caps the preview returned for a file over the read limit.
const maxPreviewBytes = 32 * 1024

// FSReadParams are the arguments of fs.read. Lines are 1-based and inclusive.
type FSReadParams struct {
	Path      string `json:"path"`
	StartLine *int   `json:"startLine,omitempty"`
	EndLine   *int   `json:"endLine,omitempty"`
}

const fsReadDescription = "Read a text file. Returns content, sha256 (of the whole file, for " +
	"fs.write ifMatchSha256), size and totalLines. Use startLine/endLine (1-based, inclusive) to " +
	"read part of a file; a file over the read limit returns a truncated preview and a hint."

const fsReadSchema = `{
  "type": "object",
  "properties": {
    "path": {"type": "string", "description": "File to read, e.g. \"@state/workflow.md\"."},
    "startLine": {"type": "integer", "minimum": 1, "description": "First line to return (1-based)."},
    "endLine": {"type": "integer", "minimum": 1, "description": "Last line to return (inclusive)."}
  },
  "required": ["path"],
  "additionalProperties": false
}`

type fsReadResult struct {
	Path       string `json:"path"`
	Content    string `json:"content"`
	Sha256     string `json:"sha256"`
	Size       int64  `json:"size"`
	TotalLines int    `json:"totalLines"`
	StartLine  int    `json:"startLine,omitempty"`
	EndLine    int    `json:"endLine,omitempty"`
	Truncated  bool   `json:"truncated"`
	Binary     bool   `json:"binary,omitempty"`
	Hint       string `json:"hint,omitempty"`
}

func fsReadTool() toolSpec {
	return toolSpec{name: conversation.ToolFSRead, family: "fs", description: fsReadDescription, schema: fsReadSchema, run: runFSRead}
}

// fileScan is what one streaming pass over a file collects.
type fileScan struct {
	sha        string
	size       int64
	totalLines int
	binary     bool
	content    []byte // bytes of the lines in range, at most limit+1
	rangeBytes int64  // full size of the lines in range
}

// scanFile hashes the whole file, counts its lines and keeps up to limit+1 bytes of lines
// start..end (end 0 = to the end).
func scanFile(f io.Reader, start, end int, limit int64) (fileScan, error) {
	var s fileScan
	h := sha256.New()
	br := bufio.NewReaderSize(f, 64*1024)
	line := 1
	var last byte
	var head int64
	for {
		chunk, err := br.ReadSlice('\n')
		if len(chunk) > 0 {
			h.Write(chunk)
			if head < 8192 && !s.binary {
				n := min(int64(len(chunk)), 8192-head)
				s.binary = bytes.IndexByte(chunk[:n], 0) >= 0
				head += n
			}
			s.size += int64(len(chunk))
			if line >= start && (end == 0 || line <= end) {
				s.rangeBytes += int64(len(chunk))
				if room := limit + 1 - int64(len(s.content)); room > 0 {
					s.content = append(s.content, chunk[:min(int64(len(chunk)), room)]...)
				}
			}
			last = chunk[len(chunk)-1]
			if last == '\n' {
				line++
			}
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return s, err
		}
	}
	s.totalLines = line - 1
	if s.size > 0 && last != '\n' {
		s.totalLines = line
	}
	s.sha = hex.EncodeToString(h.Sum(nil))
	return s, nil
}

func runFSRead(_ context.Context, h *Host, raw json.RawMessage) Result {
	var p FSReadParams
	if terr := decodePathArgs(raw, &p, &p.Path); terr != nil {
		return failure(terr)
	}
	start, end := 1, 0
	ranged := p.StartLine != nil || p.EndLine != nil
	if p.StartLine != nil {
		if *p.StartLine < 1 {
			return failure(errf(CodeBadArguments, "startLine must be 1 or more"))
		}
		start = *p.StartLine
	}
	if p.EndLine != nil {
		if *p.EndLine < start {
			return failure(errf(CodeBadArguments, "endLine (%d) must not be before startLine (%d)", *p.EndLine, start))
		}
		end = *p.EndLine
	}
	r, fi, terr := h.statRead(p.Path)
	if terr != nil {
		return failure(terr)
	}
	if fi.IsDir() {
		return failure(errf(CodeBadArguments, "%s is a folder: use fs.list", r.Display()))
	}
	if !fi.Mode().IsRegular() {
		return failure(errf(CodeBadArguments, "%s is not a regular file", r.Display()))
	}
	f, fi, terr := h.openIn(r)
	if terr != nil {
		return failure(terr)
	}
	defer f.Close()
	if fi.IsDir() {
		return failure(errf(CodeBadArguments, "%s is a folder: use fs.list", r.Display()))
	}

	maxRead := h.policy.FS.MaxReadBytes
	limit := maxRead
	if !ranged && fi.Size() > maxRead {
		limit = min(maxRead, maxPreviewBytes)
	}
	s, err := scanFile(f, start, end, limit)
	if err != nil {
		return failure(fileError(r, err))
	}
	res := fsReadResult{Path: r.Display(), Sha256: s.sha, Size: s.size, TotalLines: s.totalLines}
	if s.binary {
		res.Binary = true
		res.Hint = "binary file: content is not shown"
		return success(res)
	}
	if ranged {
		if start > s.totalLines && !(s.totalLines == 0 && start == 1) {
			return failure(errf(CodeBadArguments, "startLine %d is past the end of %s (%d lines)", start, r.Display(), s.totalLines).
				withDetail("totalLines", s.totalLines))
		}
		if s.rangeBytes > maxRead {
			return failure(errf(CodeReadLimit, "lines %d-%d of %s are %d bytes, over the read limit of %d bytes: request fewer lines",
				start, min(endOr(end, s.totalLines), s.totalLines), r.Display(), s.rangeBytes, maxRead).
				withDetail("maxReadBytes", maxRead).withDetail("rangeBytes", s.rangeBytes).withDetail("totalLines", s.totalLines))
		}
		res.Content = string(s.content)
		res.StartLine = start
		res.EndLine = min(endOr(end, s.totalLines), s.totalLines)
		return success(res)
	}
	if s.rangeBytes <= maxRead && int64(len(s.content)) == s.rangeBytes {
		res.Content = string(s.content)
		return success(res)
	}
	// Over the limit: a preview of the first whole lines that fit.
	n := int(min(int64(len(s.content)), min(maxRead, maxPreviewBytes)))
	preview := s.content[:n]
	if i := bytes.LastIndexByte(preview, '\n'); i >= 0 {
		preview = preview[:i+1]
		res.EndLine = bytes.Count(preview, []byte{'\n'})
	} else {
		preview = s.content[:runeBoundary(string(s.content), n)]
		res.EndLine = 1
	}
	res.Content = string(preview)
	res.StartLine = 1
	res.Truncated = true
	res.Hint = readHint(r.Display(), s, maxRead, res.EndLine)
	return success(res)
}

func endOr(end, dflt int) int {
	if end == 0 {
		return dflt
	}
	return end
}

func readHint(display string, s fileScan, maxRead int64, previewEnd int) string {
	perRead := 0
	if s.totalLines > 0 {
		avg := s.size / int64(s.totalLines)
		if avg < 1 {
			avg = 1
		}
		perRead = int(maxRead / avg)
	}
	msg := fmt.Sprintf("%s is %d bytes (%d lines), over the read limit of %d bytes; this is a preview of lines 1-%d. "+
		"Read the rest with startLine/endLine", display, s.size, s.totalLines, maxRead, previewEnd)
	if perRead > 1 {
		msg += fmt.Sprintf(" (about %d lines fit in one read)", perRead*9/10)
	}
	return msg + " or find lines with fs.search."
}
