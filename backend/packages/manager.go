package packages

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"crewagent/backend/fsx"
)

// Names inside the runtime home.
const (
	packagesDirName  = "packages"
	registryFileName = "packages.json"
	lockFileName     = "packages.lock"
	importPrefix     = ".import-"
	asidePrefix      = ".replaced-"
	staleAfter       = time.Hour
)

// Manager installs packages under a runtime home and keeps <home>/packages.json. Its methods
// are safe for concurrent use; installs and removals are serialised across every process
// using the same home (the app and the headless commands alike) by <home>/packages.lock.
type Manager struct {
	home   string
	limits Limits
	now    func() time.Time
	im     *Importer
	imErr  error
	hooks  failHooks

	mu sync.Mutex // held with the home's lock file; see lock
}

// lock serialises changes to the installed packages: within this process by m.mu, across
// processes by an exclusive lock on <home>/packages.lock. It returns the release function.
func (m *Manager) lock() (func(), error) {
	m.mu.Lock()
	if err := os.MkdirAll(m.home, 0o755); err != nil {
		m.mu.Unlock()
		return nil, registryError("cannot create "+m.home, err)
	}
	unlock, err := fsx.Lock(filepath.Join(m.home, lockFileName))
	if err != nil {
		m.mu.Unlock()
		return nil, registryError("cannot lock "+filepath.Join(m.home, lockFileName), err)
	}
	return func() {
		unlock()
		m.mu.Unlock()
	}, nil
}

// failHooks let tests fail an import at each stage.
type failHooks struct {
	afterExtract        func() error
	beforeInstall       func() error
	beforeRegistryWrite func() error
}

func runHook(h func() error) error {
	if h == nil {
		return nil
	}
	return h()
}

// Option configures a Manager.
type Option func(*Manager)

// NewManager returns a manager for the runtime home. The schemas are compiled here, once.
func NewManager(home string, opts ...Option) *Manager {
	m := &Manager{home: home, limits: DefaultLimits(), now: time.Now}
	for _, o := range opts {
		o(m)
	}
	m.im, m.imErr = NewImporter()
	return m
}

func (m *Manager) packagesDir() string  { return filepath.Join(m.home, packagesDirName) }
func (m *Manager) registryPath() string { return filepath.Join(m.home, registryFileName) }

// ImportOption changes how Import installs a package.
type ImportOption func(*importOptions)

type importOptions struct{ replace bool }

// Replace lets Import replace an installed package of the same id (name and version).
func Replace() ImportOption { return func(o *importOptions) { o.replace = true } }

// Import validates the .bmad/.zip file or package folder at path and installs it. An invalid
// package gives a CodeInvalid error listing every problem (ProblemsOf); nothing is installed then.
// A package whose id is installed already is refused with a CodeExists error (ExistingOf names
// the installed one) unless the Replace option is given.
func (m *Manager) Import(path string, opts ...ImportOption) (*Installed, error) {
	var o importOptions
	for _, opt := range opts {
		opt(&o)
	}
	if m.imErr != nil {
		return nil, m.imErr
	}
	unlock, err := m.lock()
	if err != nil {
		return nil, err
	}
	defer unlock()
	src, err := openSource(path, m.limits)
	if err != nil {
		return nil, err
	}
	defer src.close()
	return m.install(src, o.replace)
}

// Check validates the file or folder at path exactly as Import would, without installing.
// It returns the warnings, or the problems as a CodeInvalid error (ProblemsOf).
func (m *Manager) Check(path string) ([]Problem, error) {
	if m.imErr != nil {
		return nil, m.imErr
	}
	src, err := openSource(path, m.limits)
	if err != nil {
		return nil, err
	}
	defer src.close()
	tmp, err := m.unpack(src)
	if err != nil {
		return nil, err
	}
	defer removeAllForce(tmp)
	_, warnings, err := m.im.Validate(os.DirFS(tmp))
	return warnings, err
}

// unpack extracts a source into a fresh temporary folder under <home>/packages.
func (m *Manager) unpack(src *source) (string, error) {
	dir := m.packagesDir()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("cannot create %s: %w", dir, err)
	}
	tmp, err := os.MkdirTemp(dir, importPrefix+"*")
	if err != nil {
		return "", fmt.Errorf("cannot unpack under %s: %w", dir, err)
	}
	if err := extract(src, tmp, m.limits); err != nil {
		removeAllForce(tmp)
		return "", err
	}
	return tmp, nil
}

// install unpacks, validates and installs a source; with replace it takes the place of an
// installed package of the same id, else such a package stops it. The caller holds m.mu.
func (m *Manager) install(src *source, replace bool) (*Installed, error) {
	reg, err := m.readRegistry() // an unusable registry stops the import before any change
	if err != nil {
		return nil, err
	}
	m.sweep()
	tmp, err := m.unpack(src)
	if err != nil {
		return nil, err
	}
	defer removeAllForce(tmp) // gone already once renamed into place
	if err := runHook(m.hooks.afterExtract); err != nil {
		return nil, err
	}
	pkg, warnings, err := m.im.Validate(os.DirFS(tmp))
	if err != nil {
		return nil, err
	}
	id := PackageID(pkg.Manifest.Name, pkg.Manifest.Version)
	if i := reg.index(id); i >= 0 && !replace {
		return nil, existsError(reg.Packages[i], pkg.Manifest.Name, pkg.Manifest.Version)
	}
	dest := filepath.Join(m.packagesDir(), id)
	if err := makeReadOnly(tmp); err != nil {
		return nil, fmt.Errorf("cannot make %s read-only: %w", tmp, err)
	}
	if err := runHook(m.hooks.beforeInstall); err != nil {
		return nil, err
	}

	// A package with the same id is moved aside (same parent folder, so the rename works on
	// read-only folders) and restored if anything below fails.
	aside := ""
	if _, err := os.Lstat(dest); err == nil {
		aside = filepath.Join(m.packagesDir(), asidePrefix+id+"-"+randomSuffix())
		if err := os.Rename(dest, aside); err != nil {
			return nil, fmt.Errorf("cannot replace installed package %s: %w", id, err)
		}
	}
	putBack := func() {
		if aside != "" {
			_ = os.Rename(aside, dest)
		}
	}
	if err := os.Rename(tmp, dest); err != nil {
		putBack()
		return nil, fmt.Errorf("cannot install package %s: %w", id, err)
	}
	inst := m.record(id, pkg, warnings)
	reg.put(inst)
	if inst.Name == DemoName {
		reg.DemoRemoved = false
	}
	err = runHook(m.hooks.beforeRegistryWrite)
	if err == nil {
		err = m.writeRegistry(reg)
	}
	if err != nil {
		_ = removeAllForce(dest)
		putBack()
		return nil, err
	}
	if aside != "" {
		_ = removeAllForce(aside) // a leftover is swept by a later import
	}
	return &inst, nil
}

// record builds the packages.json record of a validated package.
func (m *Manager) record(id string, pkg *Package, warnings []Problem) Installed {
	inst := Installed{
		ID:          id,
		Name:        pkg.Manifest.Name,
		Version:     pkg.Manifest.Version,
		Description: pkg.Manifest.Description,
		InstalledAt: m.now().UTC().Truncate(time.Millisecond),
		Path:        path.Join(packagesDirName, id),
		Workflows:   []WorkflowInfo{},
		Agents:      []AgentInfo{},
		Warnings:    warnings,
	}
	for _, w := range pkg.Workflows {
		inst.Workflows = append(inst.Workflows, WorkflowInfo{ID: w.ID, DisplayName: w.DisplayName, Description: w.Description})
	}
	for _, a := range pkg.Agents {
		inst.Agents = append(inst.Agents, AgentInfo{ID: a.ID, Name: a.Metadata.Name, Title: a.Metadata.Title, Icon: a.Metadata.Icon})
	}
	return inst
}

// sweep removes what a crashed import left behind: temporary folders, and replaced packages
// whose successor is in place, once they are older than an hour. A replaced package whose
// successor is missing is kept for the user to recover.
func (m *Manager) sweep() {
	entries, err := os.ReadDir(m.packagesDir())
	if err != nil {
		return
	}
	for _, e := range entries {
		name := e.Name()
		full := filepath.Join(m.packagesDir(), name)
		switch {
		case strings.HasPrefix(name, importPrefix):
			if stale(e) {
				_ = removeAllForce(full)
			}
		case strings.HasPrefix(name, asidePrefix):
			rest := strings.TrimPrefix(name, asidePrefix)
			i := strings.LastIndexByte(rest, '-')
			if i <= 0 || !stale(e) {
				continue
			}
			if _, err := os.Lstat(filepath.Join(m.packagesDir(), rest[:i])); err == nil {
				_ = removeAllForce(full)
			}
		}
	}
}

func stale(e fs.DirEntry) bool {
	info, err := e.Info()
	return err == nil && time.Since(info.ModTime()) > staleAfter
}

func randomSuffix() string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// List returns the installed packages in installation order.
func (m *Manager) List() ([]Installed, error) {
	reg, err := m.readRegistry()
	if err != nil {
		return nil, err
	}
	return reg.Packages, nil
}

// Get returns the installed package with the given id.
func (m *Manager) Get(id string) (*Installed, error) {
	reg, err := m.readRegistry()
	if err != nil {
		return nil, err
	}
	if i := reg.index(id); i >= 0 {
		inst := reg.Packages[i]
		return &inst, nil
	}
	return nil, notFound(id)
}

// Load parses the installed package with the given id (validating it again, so a package
// damaged on disk is reported rather than half-loaded).
func (m *Manager) Load(id string) (*Package, error) {
	if m.imErr != nil {
		return nil, m.imErr
	}
	inst, err := m.Get(id)
	if err != nil {
		return nil, err
	}
	root, err := m.root(inst)
	if err != nil {
		return nil, err
	}
	if st, err := os.Stat(root); err != nil || !st.IsDir() {
		return nil, coded(CodeNotFound, fmt.Sprintf("package %q is registered but its folder %s is missing; import it again", id, root), nil)
	}
	pkg, _, err := m.im.Validate(os.DirFS(root))
	if err != nil {
		return nil, fmt.Errorf("installed package %q is damaged; import it again: %w", id, err)
	}
	pkg.ID = id
	pkg.Root = root
	return pkg, nil
}

// root returns the absolute folder of an installed package.
func (m *Manager) root(inst *Installed) (string, error) {
	rel := filepath.FromSlash(inst.Path)
	if !filepath.IsLocal(rel) {
		return "", registryError(fmt.Sprintf("%s: package %q has path %q outside the runtime home", m.registryPath(), inst.ID, inst.Path), nil)
	}
	return filepath.Abs(filepath.Join(m.home, rel))
}

// Remove uninstalls a package: its record first, then its folder. Removing the bundled demo
// package is remembered, so EnsureDemo does not bring it back at the next start.
func (m *Manager) Remove(id string) error {
	unlock, err := m.lock()
	if err != nil {
		return err
	}
	defer unlock()
	reg, err := m.readRegistry()
	if err != nil {
		return err
	}
	i := reg.index(id)
	if i < 0 {
		return notFound(id)
	}
	inst := reg.Packages[i]
	root, err := m.root(&inst)
	if err != nil {
		return err
	}
	reg.Packages = append(reg.Packages[:i], reg.Packages[i+1:]...)
	if inst.Name == DemoName {
		reg.DemoRemoved = true
	}
	if err := m.writeRegistry(reg); err != nil {
		return err
	}
	if err := removeAllForce(root); err != nil {
		return fmt.Errorf("package %q was unregistered but its folder could not be removed: %w", id, err)
	}
	return nil
}

// EnsureDemo installs the embedded demo package unless a package named DemoName is installed
// (and its folder exists). It returns the installed record either way, or ErrDemoRemoved
// when the user removed the demo (see InstallDemo).
func (m *Manager) EnsureDemo() (*Installed, error) {
	return m.ensureDemo(false)
}

// InstallDemo is EnsureDemo also after the user removed the demo package.
func (m *Manager) InstallDemo() (*Installed, error) {
	return m.ensureDemo(true)
}

func (m *Manager) ensureDemo(evenIfRemoved bool) (*Installed, error) {
	if m.imErr != nil {
		return nil, m.imErr
	}
	unlock, err := m.lock()
	if err != nil {
		return nil, err
	}
	defer unlock()
	reg, err := m.readRegistry()
	if err != nil {
		return nil, err
	}
	for _, p := range reg.Packages {
		if p.Name != DemoName {
			continue
		}
		if root, err := m.root(&p); err == nil {
			if st, err := os.Stat(root); err == nil && st.IsDir() {
				return &p, nil
			}
		}
	}
	if reg.DemoRemoved && !evenIfRemoved {
		return nil, ErrDemoRemoved
	}
	src, err := openFS(DemoFS(), m.limits)
	if err != nil {
		return nil, fmt.Errorf("embedded demo package: %w", err)
	}
	return m.install(src, true)
}

// registry is packages.json.
type registry struct {
	Packages []Installed `json:"packages"`
	// DemoRemoved records that the user removed the bundled demo package; installing a
	// package named DemoName again clears it.
	DemoRemoved bool `json:"demoRemoved,omitempty"`
}

func (r *registry) index(id string) int {
	for i, p := range r.Packages {
		if p.ID == id {
			return i
		}
	}
	return -1
}

// put replaces the record with the same id in place, or appends it.
func (r *registry) put(inst Installed) {
	if i := r.index(inst.ID); i >= 0 {
		r.Packages[i] = inst
		return
	}
	r.Packages = append(r.Packages, inst)
}

func (m *Manager) readRegistry() (*registry, error) {
	p := m.registryPath()
	b, err := os.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return &registry{Packages: []Installed{}}, nil
	}
	if err != nil {
		return nil, registryError("cannot read "+p, err)
	}
	var r registry
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, registryError(fmt.Sprintf("%s is not valid JSON; repair or delete it (installed files stay under %s)", p, m.packagesDir()), err)
	}
	if r.Packages == nil {
		r.Packages = []Installed{}
	}
	return &r, nil
}

func (m *Manager) writeRegistry(r *registry) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return registryError("cannot encode "+m.registryPath(), err)
	}
	if err := os.MkdirAll(m.home, 0o755); err != nil {
		return registryError("cannot create "+m.home, err)
	}
	if err := fsx.WriteFileTemp(m.registryPath(), append(b, '\n'), 0o644, "."+registryFileName+".*.tmp"); err != nil {
		return registryError("cannot write "+m.registryPath(), err)
	}
	return nil
}
