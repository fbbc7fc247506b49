// The directions the frontend's imports and styles keep (the backend has the
// same test in backend/app): only the bridge touches the generated bindings,
// stores never import features or components, nothing imports in a cycle
// (neither files nor features), design tokens live in one file, and each
// stylesheet styles only its own classes.
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'

const src = resolve(process.cwd(), 'src') // vitest runs in frontend/

function walk(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name)
    if (statSync(p).isDirectory()) walk(p, out)
    else out.push(p)
  }
  return out
}

const files = walk(src)
const code = files.filter((f) => /\.(ts|tsx)$/.test(f) && !/\.test\.(ts|tsx)$/.test(f) && !f.includes(`${join('src', 'test')}`))
const rel = (f: string) => relative(src, f).split('\\').join('/')

/** The relative imports of a file, resolved to files (bare packages are skipped). */
function imports(file: string): string[] {
  const text = readFileSync(file, 'utf8')
  const out: string[] = []
  for (const m of text.matchAll(/^\s*(?:import|export)\b[^'"]*?from\s+['"]([^'"]+)['"]|^\s*import\s+['"]([^'"]+)['"]/gm)) {
    const spec = m[1] ?? m[2]
    if (!spec.startsWith('.')) continue
    const base = resolve(dirname(file), spec)
    const found = [base, `${base}.ts`, `${base}.tsx`, join(base, 'index.ts'), join(base, 'index.tsx')].find((p) => {
      try {
        return statSync(p).isFile()
      } catch {
        return false
      }
    })
    out.push(found ?? base)
  }
  return out
}

const graph = new Map(code.map((f) => [rel(f), imports(f).map((p) => relative(src, p).split('\\').join('/'))]))
const area = (f: string) => (f.startsWith('features/') ? f.split('/').slice(0, 2).join('/') : f.split('/')[0])

describe('frontend structure', () => {
  it('has stylesheets whose blocks all close (one unclosed block swallows every rule after it)', () => {
    const bad: string[] = []
    for (const f of files.filter((p) => p.endsWith('.css'))) {
      const text = readFileSync(f, 'utf8')
        .replace(/\/\*[\s\S]*?\*\//g, '')
        .replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'/g, '""')
      let depth = 0
      for (const ch of text) {
        if (ch === '{') depth++
        else if (ch === '}' && --depth < 0) break
      }
      if (depth !== 0) bad.push(`${rel(f)}: ${depth > 0 ? `${depth} block(s) left open` : 'a } closes nothing'}`)
    }
    expect(bad).toEqual([])
  })

  it('lets only the bridge use the generated bindings', () => {
    const bad = [...graph].flatMap(([f, deps]) => (f.startsWith('bridge/') ? [] : deps.filter((d) => d.startsWith('../wailsjs')).map((d) => `${f} -> ${d}`)))
    expect(bad).toEqual([])
  })

  it('keeps stores below the screens: stores never import features or components', () => {
    const bad = [...graph].flatMap(([f, deps]) =>
      f.startsWith('stores/') ? deps.filter((d) => d.startsWith('features/') || d.startsWith('components/')).map((d) => `${f} -> ${d}`) : [],
    )
    expect(bad).toEqual([])
  })

  it('has no import cycle between files', () => {
    const cycles: string[] = []
    const state = new Map<string, 'open' | 'done'>()
    const visit = (f: string, path: string[]) => {
      if (state.get(f) === 'done') return
      if (state.get(f) === 'open') {
        cycles.push([...path.slice(path.indexOf(f)), f].join(' -> '))
        return
      }
      state.set(f, 'open')
      for (const d of graph.get(f) ?? []) if (graph.has(d)) visit(d, [...path, f])
      state.set(f, 'done')
    }
    for (const f of graph.keys()) visit(f, [])
    expect(cycles).toEqual([])
  })

  it('has no import cycle between features', () => {
    const edges = new Map<string, Set<string>>()
    for (const [f, deps] of graph) {
      for (const d of deps) {
        if (area(f).startsWith('features/') && area(d).startsWith('features/') && area(f) !== area(d)) {
          edges.set(area(f), (edges.get(area(f)) ?? new Set()).add(area(d)))
        }
      }
    }
    const reaches = (from: string, to: string, seen = new Set<string>()): boolean =>
      [...(edges.get(from) ?? [])].some((n) => n === to || (!seen.has(n) && (seen.add(n), reaches(n, to, seen))))
    const cycles = [...edges].flatMap(([a, bs]) => [...bs].filter((b) => reaches(b, a)).map((b) => `${a} <-> ${b}`))
    expect(cycles).toEqual([])
  })

  it('defines the design tokens (the custom properties of :root) in one file', () => {
    const css = files.filter((f) => f.endsWith('.css'))
    const defining = css.filter((f) => /:root\b[^{]*\{[^}]*--[\w-]+\s*:/.test(readFileSync(f, 'utf8'))).map(rel)
    expect(defining).toEqual(['styles/tokens.css'])
  })

  it('lets each stylesheet style only the classes of its own component or feature', () => {
    const usedBy = new Map<string, Set<string>>()
    for (const f of code) {
      const text = readFileSync(f, 'utf8')
      for (const m of text.matchAll(/className=\{?[`"']([^`"']*)/g)) {
        for (const c of m[1].replace(/\$\{[^}]*\}/g, ' ').match(/[a-zA-Z][\w-]*/g) ?? []) {
          usedBy.set(c, (usedBy.get(c) ?? new Set()).add(rel(f)))
        }
      }
    }
    const owner = (f: string) => (f.startsWith('components/') ? f.replace(/\.(css|tsx?)$/, '') : area(f))
    const classesOf = (f: string) => new Set(readFileSync(f, 'utf8').replace(/\/\*[\s\S]*?\*\//g, '').match(/\.[a-zA-Z][\w-]*/g)?.map((c) => c.slice(1)) ?? [])
    const css = files.filter((f) => f.endsWith('.css'))
    const shared = new Set(css.filter((f) => rel(f).startsWith('styles/')).flatMap((f) => [...classesOf(f)]))
    const bad: string[] = []
    for (const f of css.filter((x) => !rel(x).startsWith('styles/'))) {
      for (const c of classesOf(f)) {
        const users = [...(usedBy.get(c) ?? [])].map(owner)
        if (shared.has(c) || users.length === 0) continue
        if (!users.includes(owner(rel(f)))) bad.push(`${rel(f)} styles .${c} of ${[...new Set(users)].join(', ')}`)
      }
    }
    expect(bad).toEqual([])
  })
})
