/** Search in the open conversation (Ctrl/Cmd+F): the text a row shows, the
 * rows that hold a query, and the marks on the words found. */
import { toolSummary } from '../../lib/toolSummary'
import type { Row } from './messageRows'

/** The words a row shows, as the search reads them. */
export function rowText(row: Row): string {
  switch (row.kind) {
    case 'user':
    case 'assistant':
      return row.text
    case 'error':
    case 'stopped':
      return row.partial
    case 'tool':
      return toolSummary(row.call.function.name, row.call.function.arguments, row.result?.content, !!row.result?.is_error).replace(/`/g, '')
    case 'event':
      return `${row.label} ${row.detail}`
    case 'steps':
      return `${row.step.title} ${row.step.summary}`
    case 'live':
      return row.call.text
  }
  return ''
}

/** The indexes of the rows holding the query (any case), first to last. */
export function findRows(rows: readonly Row[], query: string): number[] {
  const q = query.trim().toLowerCase()
  if (!q) return []
  const out: number[] = []
  rows.forEach((r, i) => {
    if (rowText(r).toLowerCase().includes(q)) out.push(i)
  })
  return out
}

/** The hit a step lands on: at counts from 0 and wraps both ways. */
export function wrapIndex(at: number, count: number): number {
  return count === 0 ? -1 : ((at % count) + count) % count
}

type HighlightRegistry = { set(name: string, h: unknown): void; delete(name: string): void }
const registry = (): HighlightRegistry | null => (globalThis as unknown as { CSS?: { highlights?: HighlightRegistry } }).CSS?.highlights ?? null

/** Marks the query's words inside an element (the CSS highlight "find",
 * where the engine has it); null clears the marks. */
export function markFound(el: Element | null, query: string): void {
  const reg = registry()
  const H = (globalThis as unknown as { Highlight?: new (...r: Range[]) => unknown }).Highlight
  if (!reg || !H) return
  const q = query.trim().toLowerCase()
  if (!el || !q) {
    reg.delete('find')
    return
  }
  const ranges: Range[] = []
  const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT)
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const text = (n.nodeValue ?? '').toLowerCase()
    for (let i = text.indexOf(q); i >= 0; i = text.indexOf(q, i + q.length)) {
      const r = document.createRange()
      r.setStart(n, i)
      r.setEnd(n, i + q.length)
      ranges.push(r)
    }
  }
  reg.set('find', new H(...ranges))
}
