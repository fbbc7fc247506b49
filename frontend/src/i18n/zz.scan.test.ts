import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { findLiterals } from '../test/untranslated'
function walk(dir: string, out: string[] = []): string[] {
  for (const n of readdirSync(dir)) { const p = join(dir, n); if (statSync(p).isDirectory()) walk(p, out); else out.push(p) }
  return out
}
it('lists', () => {
  const all = walk('src').filter((f) => f.endsWith('.tsx') && !f.includes('.test.') && !f.includes('src/test/')).flatMap((f) => findLiterals(relative('src', f), readFileSync(f, 'utf8')))
  writeFileSync('/tmp/i18n/scan.txt', all.map((l) => `${l.file}:${l.line} [${l.where}] ${l.text}`).join('\n') + `\nTOTAL ${all.length}\n`)
})
