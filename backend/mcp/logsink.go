package mcp

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"

	"crewagent/backend/fsx"
)

// Server logs. What a local server writes to stderr (and stdout lines that are not
// protocol messages) goes to <log dir>/<server>.log. When the file reaches its cap it is
// renamed to <server>.log.1 (replacing the older one) and a new file is started, so a
// server's logs never take more than twice the cap however much it writes. The last
// tailBytes of the current run are also kept in memory for the status.

const (
	// DefaultMaxLogBytes caps each log file.
	DefaultMaxLogBytes = 1 << 20
	tailBytes          = 4 << 10
)

type logSink struct {
	path string
	max  int64

	mu   sync.Mutex
	f    *os.File
	size int64
	err  error
	tail []byte // ring of the last tailBytes written in this run
}

func newLogSink(path string, max int64) *logSink {
	if max <= 0 {
		max = DefaultMaxLogBytes
	}
	return &logSink{path: path, max: max}
}

// begin starts a new run: the tail is cleared and a header line written.
func (l *logSink) begin(header string) {
	l.mu.Lock()
	l.tail = l.tail[:0]
	l.mu.Unlock()
	_, _ = io.WriteString(l, fmt.Sprintf("--- %s %s ---\n", fsx.Stamp(time.Now()), header))
	l.mu.Lock()
	l.tail = l.tail[:0] // the header is for the file, not the status
	l.mu.Unlock()
}

func (l *logSink) open() error {
	if l.f != nil {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(l.path), 0o700); err != nil {
		return err
	}
	f, err := os.OpenFile(l.path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return err
	}
	l.f, l.size = f, fi.Size()
	return nil
}

func (l *logSink) rotate() error {
	if l.f != nil {
		l.f.Close()
		l.f = nil
	}
	if err := os.Rename(l.path, l.path+".1"); err != nil && !os.IsNotExist(err) {
		return err
	}
	return l.open()
}

// Write never fails: a log that cannot be written is dropped (the tail is still kept).
func (l *logSink) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.keepTail(p)
	if l.err != nil {
		return len(p), nil
	}
	if err := l.open(); err != nil {
		l.err = err
		return len(p), nil
	}
	rest := p
	for len(rest) > 0 {
		room := l.max - l.size
		if room <= 0 {
			if err := l.rotate(); err != nil {
				l.err = err
				return len(p), nil
			}
			room = l.max - l.size
			if room <= 0 { // a file we could not empty: give up rather than loop
				l.err = fmt.Errorf("log %s stays full", l.path)
				return len(p), nil
			}
		}
		chunk := rest
		if int64(len(chunk)) > room {
			chunk = chunk[:room]
		}
		n, err := l.f.Write(chunk)
		l.size += int64(n)
		if err != nil {
			l.err = err
			return len(p), nil
		}
		rest = rest[len(chunk):]
	}
	return len(p), nil
}

func (l *logSink) keepTail(p []byte) {
	if len(p) >= tailBytes {
		l.tail = append(l.tail[:0], p[len(p)-tailBytes:]...)
		return
	}
	if over := len(l.tail) + len(p) - tailBytes; over > 0 {
		l.tail = append(l.tail[:0], l.tail[over:]...)
	}
	l.tail = append(l.tail, p...)
}

// Tail returns the last bytes written in this run.
func (l *logSink) Tail() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return string(l.tail)
}

func (l *logSink) Close() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f != nil {
		l.f.Close()
		l.f = nil
	}
}

// readLogTail returns up to max bytes from the end of the log (its rotated part first).
func readLogTail(path string, max int) (string, error) {
	var out []byte
	for _, p := range []string{path, path + ".1"} {
		if len(out) >= max {
			break
		}
		b, err := readFileTail(p, max-len(out))
		if err != nil && !os.IsNotExist(err) {
			return "", err
		}
		out = append(b, out...)
	}
	return string(out), nil
}

func readFileTail(path string, max int) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	off := fi.Size() - int64(max)
	if off < 0 {
		off = 0
	}
	buf := make([]byte, fi.Size()-off)
	n, err := f.ReadAt(buf, off)
	if err != nil && err != io.EOF {
		return nil, err
	}
	return buf[:n], nil
}
