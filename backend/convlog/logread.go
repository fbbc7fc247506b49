package convlog

import (
	"bytes"
	json "github.com/goccy/go-json"
	"errors"
	"io"
	"runtime"
	"slices"
	"sort"
	"sync"

	"crewagent/backend/conversation"
)

// Reading the log.
//
// A line is one JSON object followed by '\n'. Load keeps one entry per id, at
// the position of the id's first line, with the content of its last line
// ("last line wins"). Blank lines are skipped. A line in the middle that does
// not decode (or has no id) is skipped and reported; the lines after it still
// load. The bytes after the last '\n' are the torn tail of an interrupted
// append: they are ignored unless they decode as a complete entry (a write cut
// just before its newline), and the next append repairs them.

var errNoID = errors.New("entry has no id")

// badLine describes a line that was skipped.
type badLine struct {
	line int   // 1-based line number
	off  int64 // byte offset of the line
	err  error
	torn bool // the unterminated last line
}

// decodeLine decodes one log line. A missing "type" defaults to "msg" (or
// "evt" when the line has an "event").
func decodeLine(line []byte) (*conversation.Entry, error) {
	// A byte order mark (an editor saved the log as "UTF-8 with BOM") opens the first line.
	line = bytes.TrimPrefix(line, utf8BOM)
	e := new(conversation.Entry)
	if err := json.Unmarshal(line, e); err != nil {
		return nil, err
	}
	if e.ID == "" {
		return nil, errNoID
	}
	if e.Type == "" {
		if e.Event != "" {
			e.Type = conversation.TypeEvt
		} else {
			e.Type = conversation.TypeMsg
		}
	}
	return e, nil
}

func isBlank(b []byte) bool {
	for _, c := range b {
		if c != ' ' && c != '\t' && c != '\r' && c != '\n' {
			return false
		}
	}
	return true
}

// effectiveSet keeps one entry per id, at the position of the id's first
// entry and with the content of its last ("last line wins").
type effectiveSet struct {
	out []*conversation.Entry
	idx map[string]int // id -> position in out
}

func (s *effectiveSet) add(e *conversation.Entry) {
	if i, ok := s.idx[e.ID]; ok {
		s.out[i] = e
		return
	}
	if s.idx == nil {
		s.idx = map[string]int{}
	}
	s.idx[e.ID] = len(s.out)
	s.out = append(s.out, e)
}

type chunkResult struct {
	entries []*conversation.Entry
	pos     []int64 // byte offset of each entry's line
	lines   int
	bad     []badLine
}

// parseChunk decodes the lines of data, whose first byte is at offset base.
// Only the last segment of data may lack a '\n'.
func parseChunk(data []byte, base int64) chunkResult {
	var r chunkResult
	p := 0
	for p < len(data) {
		nl := bytes.IndexByte(data[p:], '\n')
		end, next, terminated := p+nl, p+nl+1, true
		if nl < 0 {
			end, next, terminated = len(data), len(data), false
		}
		r.lines++
		line := data[p:end]
		if !isBlank(line) {
			e, err := decodeLine(line)
			if err != nil {
				r.bad = append(r.bad, badLine{line: r.lines, off: base + int64(p), err: err, torn: !terminated})
			} else {
				r.entries = append(r.entries, e)
				r.pos = append(r.pos, base+int64(p))
			}
		}
		p = next
	}
	return r
}

// parallelThreshold is the log size from which Load decodes on several cores.
const parallelThreshold = 1 << 20

// parseLog decodes a whole log into its effective entries. Large logs are
// decoded in parallel chunks split at line boundaries; the result is the same.
func parseLog(data []byte, report func(badLine)) []*conversation.Entry {
	workers := runtime.GOMAXPROCS(0)
	if n := len(data) / (parallelThreshold / 2); n < workers {
		workers = n
	}
	var chunks []chunkResult
	if workers < 2 || len(data) < parallelThreshold {
		chunks = []chunkResult{parseChunk(data, 0)}
	} else {
		var bounds []int
		start := 0
		for i := 1; i <= workers && start < len(data); i++ {
			end := len(data) * i / workers
			if end < start {
				end = start
			}
			if i < workers {
				if nl := bytes.IndexByte(data[end:], '\n'); nl >= 0 {
					end += nl + 1
				} else {
					end = len(data)
				}
			} else {
				end = len(data)
			}
			bounds = append(bounds, start, end)
			start = end
		}
		chunks = make([]chunkResult, len(bounds)/2)
		var wg sync.WaitGroup
		for i := range chunks {
			wg.Add(1)
			go func(i int) {
				defer wg.Done()
				s, e := bounds[2*i], bounds[2*i+1]
				chunks[i] = parseChunk(data[s:e], int64(s))
			}(i)
		}
		wg.Wait()
	}
	total := 0
	for _, c := range chunks {
		total += len(c.entries)
	}
	set := effectiveSet{out: make([]*conversation.Entry, 0, total), idx: make(map[string]int, total)}
	lineBase := 0
	for _, c := range chunks {
		for _, e := range c.entries {
			set.add(e)
		}
		if report != nil {
			for _, b := range c.bad {
				b.line += lineBase
				report(b)
			}
		}
		lineBase += c.lines
	}
	return set.out
}

// parsePrefix decodes the log up to and including the first line for which
// stop returns true, and reports whether such a line was found.
func parsePrefix(data []byte, stop func(*conversation.Entry) bool, report func(badLine)) ([]*conversation.Entry, bool) {
	var set effectiveSet
	p, lineNo := 0, 0
	for p < len(data) {
		nl := bytes.IndexByte(data[p:], '\n')
		end, next, terminated := p+nl, p+nl+1, true
		if nl < 0 {
			end, next, terminated = len(data), len(data), false
		}
		lineNo++
		line := data[p:end]
		if !isBlank(line) {
			e, err := decodeLine(line)
			if err != nil {
				if report != nil {
					report(badLine{line: lineNo, off: int64(p), err: err, torn: !terminated})
				}
			} else {
				set.add(e)
				if stop(e) {
					return set.out, true
				}
			}
		}
		p = next
	}
	return set.out, false
}

// scanBlock is the read size of backward scans.
const scanBlock = 64 << 10

// scanBackward calls fn for each line of r[0:size), from the last line to
// the first, with the line's byte offset and whether a '\n' ends it (only the
// last line of a file can lack one). The slice is valid only during the call.
// fn returns false to stop. Memory use is one block plus the longest line.
func scanBackward(r io.ReaderAt, size int64, fn func(line []byte, off int64, terminated bool) bool) error {
	var carry []byte
	pos := size
	atEnd := true // the next segment found runs to the end of the file
	for pos > 0 {
		n := int64(scanBlock)
		if n > pos {
			n = pos
		}
		pos -= n
		chunk := make([]byte, int(n)+len(carry))
		if _, err := r.ReadAt(chunk[:n], pos); err != nil && !errors.Is(err, io.EOF) {
			return err
		}
		copy(chunk[n:], carry)
		end := len(chunk)
		for {
			i := bytes.LastIndexByte(chunk[:end], '\n')
			if i < 0 {
				break
			}
			if seg := chunk[i+1 : end]; len(seg) > 0 {
				if !fn(seg, pos+int64(i+1), !atEnd) {
					return nil
				}
			}
			atEnd = false
			end = i
		}
		carry = chunk[:end]
	}
	if len(carry) > 0 {
		fn(carry, 0, !atEnd)
	}
	return nil
}

// tailSet collects entries while a log is read backwards.
//
// The first line met for an id is its last line, so its content wins. An id
// is "anchored" once a line for it without "updatedAt" is met: that is the
// line that introduced it (updates written by the store carry "updatedAt"),
// so its position in the effective order is known. Ids seen only through
// update lines were introduced before the part read so far and rank before
// every anchored id; they are left out unless the scan reached the start of
// the file, where every id's first line is known.
type tailSet struct {
	items    map[string]*tailItem
	anchored int
}

type tailItem struct {
	e        *conversation.Entry
	raw      []byte // the newest line when it is an update, not decoded yet
	rawOff   int64
	rawTorn  bool
	pos      int64
	anchored bool
}

func newTailSet() *tailSet { return &tailSet{items: map[string]*tailItem{}} }

// updatedAtField is how the store writes a non-empty updatedAt.
var updatedAtField = []byte(`"updatedAt":"`)

// isUpdateLine reports whether a line of the store's own format carries a
// non-empty "updatedAt" (an update of an earlier entry). Quotes inside string
// values are escaped, so the field name cannot appear inside one.
func isUpdateLine(line []byte) bool {
	i := bytes.Index(line, updatedAtField)
	return i >= 0 && i+len(updatedAtField) < len(line) && line[i+len(updatedAtField)] != '"'
}

// addLine records one line met at offset off while reading backwards, and
// returns its entry when it decoded it. A blank line gives nil; so does a
// line that does not decode, which is reported (report may be nil). Lines
// in the store's own format are decoded only when they matter: an older line
// of an id already met only tells where the id was introduced, and a newest
// line that is an update (a compacted mark, say) waits until its id turns
// out to be in the result — most marks are for entries older than what a
// tail read returns.
func (t *tailSet) addLine(line []byte, off int64, terminated bool, report func(badLine)) *conversation.Entry {
	if isBlank(line) {
		return nil
	}
	bad := func(off int64, torn bool, err error) {
		if report != nil {
			report(badLine{off: off, err: err, torn: torn})
		}
	}
	// The line's id, peeked at when the line is in the store's own format
	// (decoded otherwise), and whether it updates an earlier line.
	id, peeked := peekID(line)
	peeked = peeked && bytes.Count(line, idField) == 1
	var got *conversation.Entry // the entry decoded from this line, if it was
	update := false
	if peeked {
		update = isUpdateLine(line)
		if prev := t.items[id]; id == "" || (prev != nil && (prev.e != nil || prev.raw != nil) && !json.Valid(bytes.TrimPrefix(line, utf8BOM))) {
			// An older line of an id already met that does not decode
			// neither places nor anchors it (reading forwards skips it).
			bad(off, !terminated, errBadOlderLine)
			return nil
		}
	} else {
		e, err := decodeLine(line)
		if err != nil {
			bad(off, !terminated, err)
			return nil
		}
		got, id, update = e, e.ID, e.UpdatedAt != ""
	}
	it := t.items[id]
	if it == nil {
		it = &tailItem{}
		t.items[id] = it
	}
	it.pos = off
	if it.e == nil && it.raw != nil {
		// The id's newest line waited to be decoded: it wins if it decodes,
		// else an older line does (the last line that decodes wins, as when
		// the log is read forwards).
		if e, err := decodeLine(it.raw); err == nil {
			it.e = e
		} else {
			bad(it.rawOff, it.rawTorn, err)
		}
		it.raw = nil
	}
	if it.e == nil {
		switch {
		case got != nil:
			it.e = got
		case update:
			it.raw, it.rawOff, it.rawTorn = append([]byte(nil), line...), off, !terminated
		default:
			e, err := decodeLine(line)
			if err != nil {
				bad(off, !terminated, err)
				if it.raw == nil {
					delete(t.items, id) // nothing of the id decodes so far
				}
				return nil
			}
			it.e, got = e, e
		}
	}
	if !update && !it.anchored {
		it.anchored = true
		t.anchored++
	}
	return got
}

// result returns the collected entries in effective order: all of them when
// the whole file was read, else the anchored ones. n > 0 keeps the last n.
func (t *tailSet) result(wholeFile bool, n int, report func(badLine)) []*conversation.Entry {
	items := make([]*tailItem, 0, len(t.items))
	for _, it := range t.items {
		if wholeFile || it.anchored {
			items = append(items, it)
		}
	}
	sort.Slice(items, func(i, j int) bool { return items[i].pos < items[j].pos })
	// From the newest back, decoding the updates that wait as they come:
	// one that does not decode is no entry, and does not count against n.
	out := make([]*conversation.Entry, 0, len(items))
	for i := len(items) - 1; i >= 0 && (n <= 0 || len(out) < n); i-- {
		it := items[i]
		if it.e == nil && it.raw == nil {
			continue // no line of it decodes
		}
		if it.e == nil {
			e, err := decodeLine(it.raw)
			if err != nil {
				if report != nil {
					report(badLine{off: it.rawOff, err: err, torn: it.rawTorn})
				}
				continue
			}
			it.e = e
		}
		out = append(out, it.e)
	}
	slices.Reverse(out)
	return out
}

// readTail returns the last n effective entries of the log in r (see tailSet).
func readTail(r io.ReaderAt, size int64, n int, report func(badLine)) ([]*conversation.Entry, error) {
	t := newTailSet()
	whole := true
	err := scanBackward(r, size, func(line []byte, off int64, terminated bool) bool {
		if t.anchored >= n {
			whole = false
			return false
		}
		t.addLine(line, off, terminated, report)
		return true
	})
	if err != nil {
		return nil, err
	}
	return t.result(whole, n, report), nil
}

// readSinceCompaction returns the last compaction event and the effective
// entries introduced after it, or the whole log when it has none.
func readSinceCompaction(r io.ReaderAt, size int64, report func(badLine)) ([]*conversation.Entry, error) {
	t := newTailSet()
	whole := true
	err := scanBackward(r, size, func(line []byte, off int64, terminated bool) bool {
		e := t.addLine(line, off, terminated, report)
		if e != nil && e.Type == conversation.TypeEvt && e.Event == conversation.EventCompaction && e.UpdatedAt == "" {
			whole = false
			return false
		}
		return true
	})
	if err != nil {
		return nil, err
	}
	return t.result(whole, 0, report), nil
}

// utf8BOM is the UTF-8 byte order mark.
var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// errBadOlderLine reports an older line of an id that does not decode.
var errBadOlderLine = errors.New("not a JSON object")

// idField is how the store writes an id. A line with more than one (the
// ids of tool calls, or a hand-edited line with the key twice, where the
// last one counts) is decoded rather than peeked at.
var idField = []byte(`"id":"`)

// peekID reads the id of a line in the store's own field order
// ({"type":"…","id":"…",…}) without decoding it.
func peekID(line []byte) (string, bool) {
	const pfx = `{"type":"`
	if !bytes.HasPrefix(line, []byte(pfx)) {
		return "", false
	}
	rest := line[len(pfx):]
	q := bytes.IndexByte(rest, '"')
	if q < 0 || bytes.IndexByte(rest[:q], '\\') >= 0 {
		return "", false
	}
	rest = rest[q:]
	const mid = `","id":"`
	if !bytes.HasPrefix(rest, []byte(mid)) {
		return "", false
	}
	rest = rest[len(mid):]
	q = bytes.IndexByte(rest, '"')
	if q < 0 || bytes.IndexByte(rest[:q], '\\') >= 0 {
		return "", false
	}
	return string(rest[:q]), true
}

// findLatest returns the last version of each of the ids, reading backwards
// until all are found.
func findLatest(r io.ReaderAt, size int64, ids []string) (map[string]*conversation.Entry, error) {
	want := make(map[string]bool, len(ids))
	for _, id := range ids {
		want[id] = true
	}
	found := make(map[string]*conversation.Entry, len(ids))
	err := scanBackward(r, size, func(line []byte, _ int64, _ bool) bool {
		if id, ok := peekID(line); ok && (!want[id] || found[id] != nil) {
			return true
		}
		if isBlank(line) {
			return true
		}
		e, err := decodeLine(line)
		if err != nil || !want[e.ID] || found[e.ID] != nil {
			return true
		}
		found[e.ID] = e
		return len(found) < len(want)
	})
	return found, err
}
