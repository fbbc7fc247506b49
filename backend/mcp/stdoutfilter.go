package mcp

import "io"

// jsonLineFilter passes on the lines of a server's stdout that can be protocol messages
// (their first non-blank character is '{' or '[') and diverts every other line, prefixed
// with "[stdout] ", to the server's log: servers that print a banner on stdout keep working
// and what they print is not lost. It works on the stream as it comes, so a line of any
// length costs no memory here.
type jsonLineFilter struct {
	r      io.Reader
	divert io.Writer

	buf     [32 << 10]byte
	pending []byte
	mode    int // lineUndecided, linePass or lineDivert
}

const (
	lineUndecided = iota
	linePass
	lineDivert
)

var stdoutPrefix = []byte("[stdout] ")

func (f *jsonLineFilter) Read(p []byte) (int, error) {
	for {
		if len(f.pending) == 0 {
			n, err := f.r.Read(f.buf[:])
			f.pending = f.buf[:n]
			if n == 0 {
				if err == nil {
					continue
				}
				return 0, err
			}
		}
		n := f.process(p)
		if n > 0 {
			return n, nil
		}
	}
}

// process moves pending bytes to p (passed lines) or the log (diverted ones) and returns
// how many went to p.
func (f *jsonLineFilter) process(p []byte) int {
	n := 0
	for len(f.pending) > 0 && n < len(p) {
		switch f.mode {
		case lineUndecided:
			c := f.pending[0]
			switch c {
			case ' ', '\t', '\r', '\n':
				p[n] = c // blanks are harmless to the decoder
				n++
				f.pending = f.pending[1:]
				continue
			case '{', '[':
				f.mode = linePass
			default:
				f.mode = lineDivert
				_, _ = f.divert.Write(stdoutPrefix)
			}
		case linePass:
			i := 0
			for i < len(f.pending) && n < len(p) {
				c := f.pending[i]
				p[n] = c
				n++
				i++
				if c == '\n' {
					f.mode = lineUndecided
					break
				}
			}
			f.pending = f.pending[i:]
		case lineDivert:
			i := 0
			for i < len(f.pending) {
				if f.pending[i] == '\n' {
					i++
					f.mode = lineUndecided
					break
				}
				i++
			}
			_, _ = f.divert.Write(f.pending[:i])
			f.pending = f.pending[i:]
		}
	}
	return n
}

func (f *jsonLineFilter) Close() error {
	if c, ok := f.r.(io.Closer); ok {
		return c.Close()
	}
	return nil
}
