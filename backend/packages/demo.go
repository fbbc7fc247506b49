package packages

import (
	"archive/zip"
	"embed"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// DemoName is the bmad.json name of the package bundled with the runtime.
const DemoName = "crewagent-demo"

// demoFiles holds the demo package source (the demo/ folder).
//
//go:embed demo
var demoFiles embed.FS

// DemoFS returns the files of the bundled demo package, rooted at the package root.
func DemoFS() fs.FS {
	sub, err := fs.Sub(demoFiles, "demo")
	if err != nil {
		panic(err) // "demo" is a valid, embedded path
	}
	return sub
}

// WriteDemo writes the bundled demo package as a .bmad archive to path.
func WriteDemo(path string) (err error) {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			os.Remove(path)
		}
	}()
	return WriteArchive(f, DemoFS())
}

// WriteArchive writes every regular file of fsys into a zip archive (a .bmad package when
// fsys holds one), in lexical order with fixed timestamps so the output is reproducible.
func WriteArchive(w io.Writer, fsys fs.FS) error {
	zw := zip.NewWriter(w)
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if !d.Type().IsRegular() {
			return nil
		}
		hdr := &zip.FileHeader{Name: filepath.ToSlash(p), Method: zip.Deflate}
		hdr.SetMode(0o644)
		dst, err := zw.CreateHeader(hdr)
		if err != nil {
			return err
		}
		src, err := fsys.Open(p)
		if err != nil {
			return err
		}
		defer src.Close()
		_, err = io.Copy(dst, src)
		return err
	})
	if err != nil {
		zw.Close()
		return err
	}
	return zw.Close()
}
